// One option grammar across commands (docs/cli.md, "Conventions"): a checker walks every subcommand's
// options, built exactly as main() builds them; planted violations show it can fail; old spellings are
// checked against the new ones through the built CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_grammar_rules.hpp"
#include "cli_util.hpp"
#include "option_types.hpp"
#include "registry.hpp"

using mixgraph::test::run_cli;
using nlohmann::json;
namespace mt = mixgraph::test;

namespace {

std::string docs() {
  return mt::slurp(std::string(MIXGRAPH_SOURCE_DIR) + "/docs/cli.md");
}

bool has(const std::vector<std::string>& v, const std::string& what) {
  return std::any_of(v.begin(), v.end(),
                     [&](const std::string& s) { return s.find(what) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

json run_json(const std::string& args) {
  const auto r = run_cli(args + " --format json");
  EXPECT_EQ(r.code, 0) << args << ": " << r.err;
  return r.code == 0 ? json::parse(r.out) : json();
}

/// Results without what legitimately differs between two runs: timings (at any depth) and the echoed
/// parameters.
json results(json j) {
  if (j.is_array())
    for (auto& e : j) e = results(e);
  if (!j.is_object()) return j;
  for (const char* k : {"parameters", "seconds", "total_seconds", "elapsed_seconds", "mixgraph_version"})
    j.erase(k);
  for (auto& [k, v] : j.items()) v = results(v);
  return j;
}

}  // namespace

TEST(CliGrammar, EverySubcommandFollowsTheRules) {
  CLI::App app{"mixgraph", "mixgraph"};
  app.require_subcommand(1);
  const auto runners = mixgraph::cli::add_registered_commands(app);
  ASSERT_GE(runners.size(), 9u);  // info pattern distances congestion rank validate solve verify report
  const auto aliases = mt::parse_alias_table(docs());
  ASSERT_FALSE(aliases.empty()) << "docs/cli.md has no '## Aliases' table";
  const auto v = mt::grammar_violations(app, aliases);
  EXPECT_TRUE(v.empty()) << joined(v);
  // the old spellings main() rewrites before parsing are documented too
  for (const auto& rw : mixgraph::cli::arg_rewrites()) {
    std::string cmd;
    for (const auto& w : rw.command) cmd += (cmd.empty() ? "" : " ") + w;
    EXPECT_TRUE(aliases.count({cmd, rw.old_name})) << cmd << " " << rw.old_name;
  }
}

TEST(CliGrammar, CheckerCatchesPlantedViolations) {
  const mt::AliasTable aliases = mt::parse_alias_table(
      "## Aliases\n\n| command | old | new | status |\n|---|---|---|---|\n| `good` | `--old-name` | `--fine` "
      "| kept |\n");
  ASSERT_EQ(aliases.size(), 1u);
  CLI::App app{"synthetic", "synthetic"};
  auto* good = app.add_subcommand("good", "follows every rule");
  std::string s[16];
  std::uint64_t u = 1;
  double x = 0, y = 0;
  good->add_option("--pattern,-p", s[0], "a pattern")->type_name("SPEC");
  good->add_option("--n,-n", s[1], "Number of tokens")->type_name("COUNT");
  good->add_option("--output,-o,--old-name", s[2], "where to write")->type_name("FILE");
  good->add_option("--fine", s[3], "a choice")->check(CLI::IsMember({"a", "b"}));
  mixgraph::cli::add_seed_option(*good, u, "Seed");
  good->add_option("--tol", x, "a tolerance")->check(mixgraph::cli::finite_range(0.0, 1.0));
  auto* bad = app.add_subcommand("bad", "breaks them");
  bad->add_option("--Bad_Name", s[4], "x")->type_name("FILE");
  bad->add_option("--pattern-file,-p", s[5], "a file")->type_name("FILE");
  bad->add_option("--matrix", s[6], "written here")->type_name("FILE");
  bad->add_option("--seed", s[7], "Seed")->default_val("1");  // text: -1 passes the parser
  bad->add_option("--format", s[8], "table, csv or json");    // choices without a validator
  bad->add_option("--copy", s[9], "")->type_name("FILE");     // no help
  bad->add_option("--out-dir,--undocumented", s[10], "a folder")->type_name("DIR");
  bad->add_option("--n", s[11], "Copy length N")->type_name("COUNT");
  bad->add_option("--rows", s[12], "positions")->type_name("LIST")->check(CLI::Number);
  bad->add_option("--width", y, "a width")->check(CLI::Range(0.5, 20.0));  // lets nan through
  // CLI11 alone reads -1 into a uint64_t as 2^64 - 1: a seed needs the checked parser
  bad->add_subcommand("plain", "a plain integer seed")
      ->add_option("--seed", u, "Seed; 0..2^64-1")
      ->type_name("UINT64");
  auto* sub = bad->add_subcommand("deep", "a nested subcommand");
  sub->add_option("--result,-o", s[13], "the file")->type_name("FILE");
  sub->add_option("--pattern", s[14], "no short name")->type_name("SPEC");

  const auto v = mt::grammar_violations(app, aliases);
  EXPECT_FALSE(has(v, "good ")) << joined(v);
  EXPECT_TRUE(has(v, "bad --Bad_Name: long name is not kebab-case")) << joined(v);
  EXPECT_TRUE(has(v, "bad --pattern-file: -p is reserved for --pattern")) << joined(v);
  EXPECT_TRUE(has(v, "bad --matrix: writes a file")) << joined(v);
  EXPECT_TRUE(has(v, "bad --seed: a seed shows type UINT64")) << joined(v);
  EXPECT_TRUE(has(v, "bad --seed: a seed must refuse -1")) << joined(v);
  EXPECT_TRUE(has(v, "bad --seed: a seed's help gives its range")) << joined(v);
  EXPECT_TRUE(has(v, "bad --format: free text")) << joined(v);
  EXPECT_TRUE(has(v, "bad --copy: no help text")) << joined(v);
  EXPECT_TRUE(has(v, "bad --out-dir: alias --undocumented is not in docs/cli.md")) << joined(v);
  EXPECT_TRUE(has(v, "bad --n: --n must mean the number of tokens")) << joined(v);
  EXPECT_TRUE(has(v, "bad --rows: a list must accept a range")) << joined(v);
  EXPECT_TRUE(has(v, "bad --width: a floating-point option must refuse nan")) << joined(v);
  EXPECT_TRUE(has(v, "bad plain --seed: a seed must refuse -1")) << joined(v);
  EXPECT_TRUE(has(v, "bad deep --result: -o is reserved for --output")) << joined(v);
  EXPECT_TRUE(has(v, "bad deep --pattern: --pattern has no -p")) << joined(v);
  EXPECT_EQ(v.size(), 19u) << joined(v);
}

TEST(CliGrammar, EveryOptionIsDocumentedInItsSection) {
  CLI::App app{"mixgraph", "mixgraph"};
  mixgraph::cli::add_registered_commands(app);
  const auto v = mt::undocumented_options(app, docs());
  EXPECT_TRUE(v.empty()) << joined(v);
}

TEST(CliGrammar, DocsCheckerCatchesUndocumentedOptions) {
  const std::string md =
      "## Conventions\nEvery command takes `--format` and `--threads`.\n\n## Aliases\n\n| command | old | "
      "new "
      "| status |\n|---|---|---|---|\n| `good` | `--old` | `--fine` | kept |\n\n## `mixgraph good`\nTakes "
      "`--fine` and `--seed`.\n\n### `mixgraph good deep`\nTakes `--depth`.\n\n## `mixgraph other`\nTakes "
      "`--seed-file` and `--depth`.\n";
  CLI::App app{"synthetic", "synthetic"};
  std::string s;
  auto* good = app.add_subcommand("good", "documented");
  for (const char* o : {"--fine,--old", "--seed", "--format", "--threads"}) good->add_option(o, s, "x");
  good->add_subcommand("deep", "nested")->add_option("--depth", s, "x");
  auto* other = app.add_subcommand("other", "not documented");
  for (const char* o : {"--seed", "--mem-limit", "--fine", "--depth"}) other->add_option(o, s, "x");
  app.add_subcommand("missing", "no section")->add_option("--depth", s, "x");
  const auto v = mt::undocumented_options(app, md);
  EXPECT_FALSE(has(v, "good ")) << joined(v);
  EXPECT_TRUE(has(v, "other --seed: not in its section")) << joined(v);  // --seed-file is another name
  EXPECT_TRUE(has(v, "other --mem-limit: not in its section"))
      << joined(v);                                                      // shared, but not in Conventions
  EXPECT_TRUE(has(v, "other --fine: not in its section")) << joined(v);  // documented for good only
  EXPECT_TRUE(has(v, "missing: no section")) << joined(v);
  EXPECT_TRUE(has(v, "missing --depth")) << joined(v);
  EXPECT_EQ(v.size(), 5u) << joined(v);
}

TEST(CliGrammar, EnumeratedChoicesFailAtParseTime) {
  for (const std::string args :
       {"info --format xml", "pattern -p pow2 -n 8 --format xml", "distances -p pow2 -n 8 --method xml",
        "rank -p pow2 -n 8 --method xml", "solve -p pow2 -n 8 --random 2 --precision fp16",
        "rank ssm -n 8 --example xml"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find("mixgraph: error: "), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find("{"), std::string::npos) << args << " should list the choices: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": one line, got " << r.err;
  }
  const auto csv = run_cli("solve -p pow2 -n 8 --random 2 --format csv");  // one CSV record with a header
  EXPECT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("pattern,", 0), 0u) << csv.out;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 2) << csv.out;
  EXPECT_EQ(run_cli("info --threads 2").code, 2);  // info takes only --format
  EXPECT_EQ(run_cli("info --mem-limit 1G").code, 2);
}

TEST(CliGrammar, MtxFileWithoutPrefixGetsAHint) {
  for (const std::string cmd : {"pattern", "distances", "rank", "solve --random 2", "validate"}) {
    const auto r = run_cli(cmd + " -p B.mtx");
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_NE(r.err.find("did you mean mtx:B.mtx?"), std::string::npos) << cmd << ": " << r.err;
  }
  EXPECT_NE(run_cli("pattern -p 'window:4|sub/A.MTX'").err.find("did you mean mtx:sub/A.MTX?"),
            std::string::npos);
  // a read mark on a union part is not part of the file name
  for (const std::string mark : {"@A", "@B", "@AB", " @B"}) {
    const auto r = run_cli("pattern -p 'window:4@A|B.mtx" + mark + "'");
    EXPECT_EQ(r.code, 2) << mark;
    EXPECT_NE(r.err.find("did you mean mtx:B.mtx" + mark + "?"), std::string::npos) << mark << ": " << r.err;
  }
}

TEST(CliGrammar, SeedsAreUnsigned64BitEverywhere) {
  const std::string max = "18446744073709551615";
  // rank took its seed as text: the largest seed now gives the same result as 2^64 - 1 written as a power
  const auto a = run_json("rank -p pow2 -n 16 --seed " + max);
  EXPECT_EQ(a["parameters"]["seed"].get<std::uint64_t>(), 18446744073709551615ull);
  const auto over = run_cli("rank -p pow2 -n 16 --seed 2^64");
  EXPECT_EQ(over.code, 2);
  EXPECT_NE(over.err.find("--seed: '2^64' is too large"), std::string::npos) << over.err;
  for (const std::string cmd :
       {"rank -p pow2 -n 16", "rank loglinear -n 16", "rank ssm -n 8 --example rotation",
        "congestion -p pow2 -N 8", "solve -p pow2 -n 8 --random 2", "validate -p pow2 -n 8"}) {
    EXPECT_EQ(run_cli(cmd + " --seed -1").code, 2) << cmd;
    EXPECT_EQ(run_cli(cmd + " --seed 18446744073709551616").code, 2) << cmd;
    EXPECT_EQ(run_cli(cmd + " --seed 1.5").code, 2) << cmd;
  }
  // 2^10 and 1024 are the same seed (the checked number parser, as for --n)
  EXPECT_EQ(results(run_json("congestion -p sq1 -N 40 --routing random --seed 2^10")),
            results(run_json("congestion -p sq1 -N 40 --routing random --seed 1024")));
}

TEST(CliGrammar, OldSpellingsGiveTheSameResults) {
  // congestion: --n is the copy length still, with a one-line note; -N/--copy-length is the new name
  const auto old_n = run_cli("congestion -p pow2 --n 100 --format json");
  ASSERT_EQ(old_n.code, 0) << old_n.err;
  EXPECT_NE(old_n.err.find("deprecated"), std::string::npos) << old_n.err;
  EXPECT_EQ(std::count(old_n.err.begin(), old_n.err.end(), '\n'), 1) << old_n.err;
  const auto new_n = run_cli("congestion -p pow2 --copy-length 100 --format json");
  ASSERT_EQ(new_n.code, 0) << new_n.err;
  EXPECT_TRUE(new_n.err.empty()) << new_n.err;
  EXPECT_EQ(results(json::parse(old_n.out)), results(json::parse(new_n.out)));
  EXPECT_EQ(json::parse(new_n.out)["copy_length"], 100);
  EXPECT_EQ(results(run_json("congestion -p pow2 -N 100")), results(json::parse(new_n.out)));
  EXPECT_EQ(run_cli("congestion -p pow2 -n 100 -N 100").code, 2);  // one or the other

  EXPECT_EQ(results(run_json("rank loglinear --T 64")), results(run_json("rank loglinear --n 64")));
  EXPECT_EQ(results(run_json("rank loglinear -n 64 -p pow2")),
            results(run_json("rank loglinear --T 64 --pattern pow2")));
  EXPECT_EQ(results(run_json("rank ssm -n 50 --state 4 --p 2 --d 3")),
            results(run_json("rank ssm -n 50 --state 4 --out-channels 2 --in-channels 3")));
  EXPECT_EQ(results(run_json("rank heads --pattern pow2 --pattern ssm -n 16 --p 2 --d 2")),
            results(run_json("rank heads -p pow2 -p ssm -n 16 --out-channels 2 --in-channels 2")));
  EXPECT_EQ(results(run_json("rank heads -p pow2 -p ssm -n 16 --p=2 --d=2")),
            results(run_json("rank heads -p pow2 -p ssm -n 16 --out-channels=2 --in-channels=2")));

  // one output option: -o/--output, the older names write the same file
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("mixgraph_grammar_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string m1 = (dir / "m1.csv").string(), m2 = (dir / "m2.csv").string();
  ASSERT_EQ(run_cli("distances -p pow2 -n 32 --matrix " + m1).code, 0);
  ASSERT_EQ(run_cli("distances -p pow2 -n 32 -o " + m2).code, 0);
  EXPECT_FALSE(mt::slurp(m1).empty());
  EXPECT_EQ(mt::slurp(m1), mt::slurp(m2));
  const std::string p1 = (dir / "p1.jsonl").string(), p2 = (dir / "p2.jsonl").string();
  ASSERT_EQ(run_cli("congestion -p sq1 -N 20 --routing shift --paths " + p1).code, 0);
  ASSERT_EQ(run_cli("congestion -p sq1 -N 20 --routing shift --output " + p2).code, 0);
  EXPECT_FALSE(mt::slurp(p1).empty());
  EXPECT_EQ(mt::slurp(p1), mt::slurp(p2));
  fs::remove_all(dir);
}

TEST(CliGrammar, RangesWhereListsAre) {
  // --rows 1..5,9 lists the same positions as the explicit list 1,2,3,4,5,9
  const auto a = run_json("pattern -p pow2 -n 64 --rows 1..5,9");
  const auto b = run_json("pattern -p pow2 -n 64 --rows 1,2,3,4,5,9");
  EXPECT_EQ(a["rows"], b["rows"]);
  EXPECT_EQ(a["rows"].size(), 6u);
  const auto c = run_json("rank -p sq1 -n 32 --cuts 3..6 --method flow");
  const auto d = run_json("rank -p sq1 -n 32 --cuts 3,4,5,6 --method flow");
  EXPECT_EQ(results(c), results(d));
  for (const std::string bad : {"5..1", "0..3", "1..x", "1..2^40"}) {
    const auto r = run_cli("pattern -p pow2 -n 64 --rows " + bad);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--rows"), std::string::npos) << bad << ": " << r.err;
  }
}
