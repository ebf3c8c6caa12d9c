// The verdict rules of `mixgraph verify` on the claims split into instances (ClaimInstances), by every path
// that runs them: whole (run_claims), instance by instance and merged (what MPI ranks, `verify
// --checkpoint` and the report's verify section do), and the CLI with --checkpoint. In scope: PASSED with
// instances checked; out of scope only: NOT APPLICABLE with the reason, never PASSED or ERROR; an empty
// range or no instance at all: ERROR; a range of one: checked. No internal placeholder value is printed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/claims.hpp"

using namespace mixgraph;

namespace {

const char* const kSentinels[] = {"1073741824", "4294967295", "18446744073709551615", "2147483647"};

std::string scope_temp_dir() {
  std::string t = (std::filesystem::temp_directory_path() / "mixgraph_scope_inst_XXXXXX").string();
  const char* d = ::mkdtemp(t.data());
  EXPECT_NE(d, nullptr);
  return d ? std::string(d) : std::string();
}

/// A pattern with B's values from a file (weights not generic), in a folder removed at exit.
const std::string& mtx_spec() {
  static const std::string spec = [] {
    static const std::string dir = scope_temp_dir();
    std::atexit([] { std::filesystem::remove_all(dir); });
    const auto p = dir + "/B.mtx";
    std::ofstream(p) << "%%MatrixMarket matrix coordinate real general\n4 4 2\n2 1 0.5\n4 2 0.25\n";
    return "mtx:" + p;
  }();
  return spec;
}

struct InstanceScope {
  std::string in;   ///< a pattern in scope
  std::string out;  ///< a pattern out of scope ("" = every pattern is in scope)
};

/// Every claim given by instances needs an entry here (checked below).
const std::map<std::string, InstanceScope>& instance_scopes() {
  static const std::map<std::string, InstanceScope> s = {
      {"fagnou.menger", {"pow2", mtx_spec()}},
      {"fagnou.prop4.4", {"pow2", "fib+cache"}},
      {"fagnou.cache-rank-bound", {"pow2+cache", ""}},
  };
  return s;
}

std::vector<std::string> split_claims() {
  std::vector<std::string> ids;
  for (const auto& c : registered_claims())
    if (c.instances && !c.check) ids.push_back(c.id);
  return ids;
}

struct Situation {
  std::string what;
  std::vector<std::string> patterns;
  std::uint64_t n_max;
  std::string verdict;  ///< expected
};

std::vector<Situation> situations(const InstanceScope& s) {
  std::vector<Situation> v = {{"in scope", {s.in}, 64, "PASSED"},
                              {"range of one", {s.in}, 2, "PASSED"},
                              {"empty range", {s.in}, 1, "ERROR"},
                              {"empty range, own patterns", {}, 1, "ERROR"}};
  if (!s.out.empty()) {
    v.push_back({"out of scope", {s.out}, 64, "NOT APPLICABLE"});
    v.push_back({"out of scope, range of one", {s.out}, 2, "NOT APPLICABLE"});
    v.push_back({"out of scope, empty range", {s.out}, 1, "ERROR"});
    v.push_back({"mixed", {s.out, s.in}, 64, "PASSED"});
  }
  return v;
}

void expect_verdict(const ClaimOutcome& o, const Situation& s) {
  EXPECT_EQ(o.verdict, s.verdict) << o.error.value_or("") << o.counterexample.value_or("");
  EXPECT_EQ(o.verdict, claim_verdict(o));
  if (s.verdict == "PASSED") {
    EXPECT_GT(o.instances, 0u);
    EXPECT_EQ(o.passed, std::optional<bool>(true));
  } else {
    EXPECT_FALSE(o.passed.has_value());
  }
  if (s.verdict == "ERROR") {
    EXPECT_EQ(o.instances, 0u);
    ASSERT_TRUE(o.error.has_value());
    EXPECT_FALSE(o.error->empty());
  }
  const bool out_listed = s.verdict != "ERROR" && s.patterns.size() > 1;
  if (s.verdict == "NOT APPLICABLE" || out_listed) {  // the out-of-scope pattern, once, with the reason
    ASSERT_EQ(o.not_applicable.size(), 1u);
    EXPECT_EQ(o.not_applicable[0].pattern, s.patterns[0]);
    EXPECT_FALSE(o.not_applicable[0].reason.empty());
  }
  if (s.verdict != "PASSED") {  // nothing measured: no extreme value with an empty place
    EXPECT_EQ(o.worst.find("()"), std::string::npos) << o.worst;
  }
  for (const auto* text : {&o.checked, &o.worst, &o.detail})
    for (const char* bad : kSentinels) EXPECT_EQ(text->find(bad), std::string::npos) << *text;
  for (const auto& text : {o.counterexample, o.error}) {
    if (!text) continue;
    for (const char* bad : kSentinels) EXPECT_EQ(text->find(bad), std::string::npos) << *text;
  }
}

ClaimContext context(const Situation& s) {
  ClaimContext ctx;
  ctx.patterns = s.patterns;
  ctx.n_max = s.n_max;
  ctx.threads = 1;
  return ctx;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

}  // namespace

TEST(VerifyScopeInstances, EverySplitClaimHasAScope) {
  const auto ids = split_claims();
  EXPECT_GE(ids.size(), 3u);
  for (const auto& id : ids)
    EXPECT_TRUE(instance_scopes().count(id)) << id << " splits into instances: add its scope";
}

TEST(VerifyScopeInstances, WholeAndMergedInstancesGiveTheVerdicts) {
  for (const auto& id : split_claims()) {
    const auto it = instance_scopes().find(id);
    if (it == instance_scopes().end()) continue;
    for (const auto& s : situations(it->second)) {
      SCOPED_TRACE(id + ": " + s.what + " at n-max " + std::to_string(s.n_max));
      const auto ctx = context(s);
      const auto whole = run_claims({id}, ctx).at(0);
      expect_verdict(whole.outcome, s);
      // the sharded paths: every instance alone, merged in order; no instance listed = run whole
      const auto names = claim_instance_names(id, ctx);
      EXPECT_EQ(names.empty(), s.n_max == 1);
      if (names.empty()) continue;
      std::vector<ClaimPart> parts;
      for (std::size_t i = 0; i < names.size(); ++i) parts.push_back(run_claim_instance(id, ctx, i));
      const auto merged = merge_claim_instances(id, ctx, parts);
      expect_verdict(merged.outcome, s);
      EXPECT_EQ(merged.outcome.checked, whole.outcome.checked);
      EXPECT_EQ(merged.outcome.instances, whole.outcome.instances);
    }
  }
}

TEST(VerifyScopeInstances, NoInstanceAtAllIsAnError) {
  // parts of nothing (no instance ran, or every shard's result was lost) never make PASSED or NOT APPLICABLE
  for (const auto& id : split_claims()) {
    SCOPED_TRACE(id);
    ClaimContext ctx;
    ctx.n_max = 64;
    const auto r = merge_claim_instances(id, ctx, {});
    EXPECT_EQ(r.outcome.verdict, "ERROR");
    EXPECT_EQ(r.outcome.instances, 0u);
    ASSERT_TRUE(r.outcome.error.has_value());
    // instances that ran but checked nothing and skipped nothing: likewise
    const auto names = claim_instance_names(id, ctx);
    const auto empty = merge_claim_instances(id, ctx, std::vector<ClaimPart>(names.size()));
    EXPECT_EQ(empty.outcome.verdict, "ERROR");
  }
}

TEST(VerifyScopeInstances, CheckpointedCliGivesTheSameVerdictsAndNoPlaceholder) {
  for (const auto& id : split_claims()) {
    const auto it = instance_scopes().find(id);
    if (it == instance_scopes().end()) continue;
    for (const auto& s : situations(it->second)) {
      if (s.n_max < 2) continue;  // --n-max 1 is a usage error on the command line
      SCOPED_TRACE(id + ": " + s.what + " at n-max " + std::to_string(s.n_max));
      std::string pats;
      for (const auto& p : s.patterns) pats += " -p " + quoted(p);
      const std::string base = "verify --claim " + id + pats + " --n-max " + std::to_string(s.n_max);
      const auto dir = scope_temp_dir();
      const auto first = mixgraph::test::run_cli(base + " --checkpoint " + quoted(dir) + " --format json");
      ASSERT_EQ(first.code, 0) << first.err;
      const auto again = mixgraph::test::run_cli(base + " --checkpoint " + quoted(dir) + " --format json");
      ASSERT_EQ(again.code, 0) << again.err;
      for (const auto* r : {&first, &again}) {
        const auto j = nlohmann::json::parse(r->out);
        ASSERT_EQ(j.at("claims").size(), 1u);
        const auto& c = j.at("claims")[0];
        EXPECT_EQ(c.at("status"), s.verdict) << c.dump();
        EXPECT_EQ(c.at("instances").get<std::uint64_t>() > 0, s.verdict == "PASSED");
        EXPECT_EQ(c.at("not_applicable").empty(), s.verdict == "PASSED" && s.patterns.size() == 1);
      }
      const auto plain = mixgraph::test::run_cli(base + " --format json");
      ASSERT_EQ(plain.code, 0) << plain.err;
      auto strip = [](const std::string& text) {
        auto j = nlohmann::json::parse(text);
        j.at("claims")[0].erase("seconds");
        j.at("parameters").erase("checkpoint");
        return j;
      };
      EXPECT_EQ(strip(first.out), strip(plain.out));
      for (const char* fmt : {"csv", "table"}) {
        const auto r = mixgraph::test::run_cli(base + " --checkpoint " + quoted(dir) + " --format " + fmt);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find(s.verdict), std::string::npos) << fmt << ": " << r.out;
        for (const auto* text : {&first.out, &r.out, &r.err})
          for (const char* bad : kSentinels) EXPECT_EQ(text->find(bad), std::string::npos) << fmt;
      }
      std::filesystem::remove_all(dir);
    }
  }
}

TEST(VerifyScopeInstances, ReportVerifySectionMatchesVerifyAndPrintsNoPlaceholder) {
  // the report's "Propositions checked" at n = 2 (a range of one for most claims) and 16: every claim's
  // status is verify's on the report's patterns at the same n-max (`verify -p pow2`), and no placeholder
  // value is in its Markdown, CSV or JSON
  for (const std::uint64_t n : {2u, 16u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto dir = scope_temp_dir();
    const auto rep =
        mixgraph::test::run_cli("report -p pow2 -n " + std::to_string(n) +
                                " --sections verify --progress always --out " + quoted(dir + "/r"));
    ASSERT_EQ(rep.code, 0) << rep.err;
    const auto ver =
        mixgraph::test::run_cli("verify -p pow2 --n-max " + std::to_string(n) + " --format json");
    ASSERT_EQ(ver.code, 0) << ver.err;
    std::map<std::string, std::string> want;
    const auto vj = nlohmann::json::parse(ver.out);
    for (const auto& c : vj.at("claims")) want[c.at("id")] = c.at("status");
    const auto table = nlohmann::json::parse(mixgraph::test::read_file(dir + "/r/tables/verify.json"));
    ASSERT_EQ(table.at("rows").size(), want.size());
    for (const auto& row : table.at("rows"))
      EXPECT_EQ(row.at("status"), want.at(row.at("claim").get<std::string>())) << row.dump();
    // one progress line per claim, naming it: "verify: claim K/N <id>", in the table's order
    std::size_t k = 0;
    for (const auto& row : table.at("rows")) {
      const std::string line = "] verify: claim " + std::to_string(++k) + "/" + std::to_string(want.size()) +
                               " " + row.at("claim").get<std::string>() + "\n";
      EXPECT_NE(rep.err.find(line), std::string::npos) << line << rep.err;
    }
    for (const char* file :
         {"/r/report.md", "/r/tables/verify.csv", "/r/tables/verify.json", "/r/report.json"}) {
      const auto text = mixgraph::test::read_file(dir + file);
      EXPECT_FALSE(text.empty()) << file;
      for (const char* bad : kSentinels)
        EXPECT_EQ(text.find(bad), std::string::npos) << file << " has " << bad;
    }
    std::filesystem::remove_all(dir);
  }
}
