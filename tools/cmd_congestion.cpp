// mixgraph congestion: copy-task routings and congestion with certified bounds (docs/math.md §4).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

#include "cmd_congestion_stack.hpp"
#include "congestion_text.hpp"
#include "mixgraph/analysis/congestion_sweep.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/atomic_file.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/sweep.hpp"
#include "mpi_world.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

struct CongestionCliOptions {
  CommonOptions common;
  std::vector<std::string> patterns;
  std::string n_text;
  std::string routing;  // "" = every routing that fits
  bool lp = false;
  std::uint64_t seed = 1;
  std::string sweep_text;
  std::string paths_file;
  std::string checkpoint_dir;
};

ojson result_json(const CongestionResult& r, bool lists) {
  return json::congestion(r, lists);
}

void print_single_table(const CongestionResult& r) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", r.pattern},
      {"copy length N", std::to_string(r.N) + " (pattern on 2N = " + std::to_string(2ULL * r.N) + " tokens)"},
      {"translation-invariant", r.translation_invariant ? "yes" : "no"},
  };
  if (!r.copy_possible) {
    std::string who;
    const std::size_t show = 10;
    for (std::size_t k = 0; k < r.impossible_inputs.size() && k < show; ++k)
      who += (k ? ", " : "") + std::to_string(r.impossible_inputs[k] + 1);
    if (r.impossible_inputs.size() > show)
      who +=
          ", ... (" + std::to_string(r.impossible_inputs.size()) + " of " + std::to_string(r.N) + " inputs)";
    kv.push_back({"copy possible", "NO"});
    kv.push_back({"inputs that cannot reach i+N", who});
    kv.push_back({"why", r.impossible_reason});
    print_kv(std::cout, kv);
    return;
  }
  kv.push_back({"copy possible", "yes"});
  kv.push_back({"copy distance d", std::to_string(r.copy_distance) + " (max_i d(i+N, i); min " +
                                       std::to_string(r.min_distance) + ")"});
  add_bound_lines(
      kv, r,
      {"prop48 bound", r.prop48_bound ? std::to_string(*r.prop48_bound) : "- (not translation-invariant)"});
  print_kv(std::cout, kv);
  print_routings(std::cout, r);
}

void write_paths(const std::string& file, const CongestionResult& r, const std::string& which) {
  const std::size_t k = paths_routing_index(r, which);
  write_file_atomic(file, [&](std::ostream& os) {
    if (k == r.routings.size()) return;  // copy impossible: no paths
    const Routing& ro = r.paths[k];
    for (pos_t i = 0; i < r.N; ++i) {
      os << "{\"routing\":\"" << ro.name << "\",\"input\":" << i + 1 << ",\"output\":" << i + r.N + 1
         << ",\"hops\":" << (ro.ptr[i + 1] - ro.ptr[i] - 1) << ",\"path\":[";
      for (auto e = ro.ptr[i]; e < ro.ptr[i + 1]; ++e) os << (e > ro.ptr[i] ? "," : "") << ro.nodes[e] + 1;
      os << "]}\n";
    }
  });
}

int run_congestion(const CongestionCliOptions& o) {
  if (std::any_of(o.patterns.begin(), o.patterns.end(), [](const auto& p) { return is_stack_spec(p); })) {
    StackCongestionRequest sr{o.patterns[0], o.n_text, o.routing, o.seed, o.paths_file, o.common, o.lp, {}};
    for (const auto& [given, name] : {std::pair{o.patterns.size() > 1, "several --pattern values"},
                                      {!o.sweep_text.empty(), "--sweep"},
                                      {!o.checkpoint_dir.empty(), "--checkpoint"}})
      if (given) sr.unsupported.push_back(name);
    return run_stack_congestion(sr);  // cmd_congestion_stack.cpp
  }
  o.common.apply();
  const Format fmt = o.common.fmt();
  analysis::CongestionQuery q;
  q.patterns = o.patterns;
  q.copy_length = o.n_text;
  q.sweep = o.sweep_text;
  q.routing = o.routing;  // CLI11 checked the name
  q.lp = o.lp;
  q.seed = o.seed;
  q.mem_limit = o.common.mem_limit_bytes();
  q.keep_paths = !o.paths_file.empty();
  const analysis::CongestionPlan plan = analysis::congestion_plan(q);
  const auto& ns = plan.ns;
  const bool single = plan.single;
  // the JSON document's parameters, and the output's
  auto with_paths = [&](analysis::Document d) {
    if (!o.paths_file.empty()) d.parameters["paths"] = o.paths_file;
    return d.json(o.common.format);
  };

  std::vector<CongestionResult> results;
  // several rows: their JSON objects and table rows, computed here or gathered from shards (one per row)
  std::vector<ojson> row_json;
  std::vector<std::vector<std::string>> row_text;
  if (!o.checkpoint_dir.empty() && single)
    throw UsageError("--checkpoint keeps the rows of a sweep: give --sweep or several --pattern values");
  if (!single && sharded(o.checkpoint_dir)) {
    ShardJob job;
    job.what = "congestion --sweep";
    // every parameter but the output format (no --output: it needs a single row)
    const nlohmann::json key = analysis::congestion_parameters(q, plan);
    job.fingerprint = "congestion; mixgraph " + mixgraph::version() + "; " + key.dump();
    std::vector<std::pair<std::string, std::uint64_t>> points;
    for (auto& pat : o.patterns)
      for (auto n : ns) {
        points.emplace_back(pat, n);
        // the cost model: a row's time grows about 4x per doubling of N (measured, docs/scaling.md)
        const double N = static_cast<double>(std::max<std::uint64_t>(n, 16));
        job.costs.push_back(N * N);
      }
    job.checkpoint_dir = o.checkpoint_dir;
    job.input_specs = o.patterns;
    job.compute = [&](const std::vector<std::size_t>& todo, const ShardJob::Emit& emit) {
      for (std::size_t i : todo) {
        const auto t0 = std::chrono::steady_clock::now();
        // points run pattern by pattern
        const auto r = analysis::congestion_row_result(q, plan, i / ns.size(), points[i].second);
        const ojson row = {{"json", result_json(r, false)}, {"row", congestion_row(r)}};
        emit(i, row.dump(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
    };
    job.check = [&](std::size_t i,
                    const std::string& bytes) {  // the row of points[i], of the types read below
      const auto row = ojson::parse(bytes);
      const auto text = row.at("row").get<std::vector<std::string>>();
      if (!row.at("json").is_object() || text.size() < 3 || text[0] != points[i].first ||
          text[1] != std::to_string(points[i].second))
        throw RuntimeFailure("it is not the row of " + points[i].first +
                             " N = " + std::to_string(points[i].second));
    };
    const ShardOutcome got = run_shards(job);
    if (!got.root) return 0;  // ranks other than 0 print nothing
    for (const auto& text : got.results) {
      const auto row = ojson::parse(text);
      row_json.push_back(row.at("json"));
      row_text.push_back(row.at("row").get<std::vector<std::string>>());
    }
  } else {
    for (std::size_t k = 0; k < o.patterns.size(); ++k)
      for (auto n : ns) {
        const std::string& pat = o.patterns[k];
        if (stderr_is_tty() && !single)
          std::cerr << "\r[congestion] " << pat << " N = " << n << " ...   " << std::flush;
        results.push_back(analysis::congestion_row_result(q, plan, k, n));
      }
    if (stderr_is_tty() && !single) std::cerr << "\r" << std::string(60, ' ') << "\r";
    if (!single)
      for (auto& r : results) {
        row_json.push_back(result_json(r, false));
        row_text.push_back(congestion_row(r));
      }
  }

  if (single) {
    const auto& r = results[0];
    // heads:P1;P2;...: the combined mixer (the union, above) and each head's pattern alone
    std::vector<CongestionResult> heads;
    if (plan.trees[0].kind == SpecKind::Heads && ns[0] > 0)
      for (const auto& head : plan.trees[0].parts)
        heads.push_back(analyse_congestion(head, ns[0], plan.options));
    if (!o.paths_file.empty()) {
      const std::string which = (o.routing.empty() || o.routing == "all") ? r.best_routing : o.routing;
      write_paths(o.paths_file, r, which);
    }
    if (fmt == Format::Json) {
      print_json(std::cout, with_paths(analysis::congestion_single_document(q, plan, r, heads)));
    } else if (fmt == Format::Csv) {
      // heads: a `head` column, "all" on the combined row and 1..H on the heads' rows (JSON's `heads`)
      auto header = congestion_row_header();
      if (!heads.empty()) header.push_back("head");
      Table t(header);
      auto row = congestion_row(r);
      if (!heads.empty()) row.push_back("all");
      t.add(row);
      for (std::size_t h = 0; h < heads.size(); ++h) {
        row = congestion_row(heads[h]);
        row.push_back(std::to_string(h + 1));
        t.add(row);
      }
      t.print_csv(std::cout);
    } else {
      print_single_table(r);
      if (!heads.empty()) {
        std::cout << "\nper head (the lines above are the combined mixer: the union of the heads' reads):\n";
        Table t(congestion_row_header());
        for (const auto& h : heads) t.add(congestion_row(h));
        t.print_text(std::cout);
      }
    }
    return 0;
  }
  if (fmt == Format::Json) {
    print_json(std::cout, with_paths(analysis::congestion_rows_document(q, plan, std::move(row_json))));
    return 0;
  }
  Table t(congestion_row_header());
  for (auto& row : row_text) t.add(row);
  if (fmt == Format::Csv) {
    t.print_csv(std::cout);
  } else {
    t.print_text(std::cout);
    std::cout
        << "\nlower = best certified lower bound (prop47: ceil(sum_i (d_i + 1) / 2N); cut: ceil(N / kappa); "
           "lp: LP relaxation, certified through its dual; ip: exact integer optimum); upper = best checked "
           "routing (prop48 = d when translation-invariant); '-' = not computed.\n";
  }
  return 0;
}

Registrar reg_cmd_congestion(
    "congestion",
    "Copy task of length N (pattern on 2N tokens): routings, congestion, certified lower/upper bounds "
    "(docs/math.md §4); with stack:P1,P2,... the copy task across the layers",
    40, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<CongestionCliOptions>();
      app.add_option("--pattern,-p", o->patterns,
                     "Pattern spec (repeatable: one table row per pattern and N): " + pattern_name_help())
          ->required()
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      auto* copy_length =
          add_count_option(app, "--copy-length,-N", o->n_text,
                           "Copy length N: input i (1..N) must reach output i+N, the pattern is taken on 2N "
                           "tokens. Accepts 1000, 2^10, 1e4. For mtx: patterns it defaults to n / 2");
      // --n means tokens in every other command; here it is still the copy length, with a note
      app.add_option_function<std::string>(
             "--n,-n",
             [o](const std::string& v) {
               if (mpi::root())  // one note per job, not one per rank
                 std::cerr << "mixgraph: note: congestion --n is deprecated: it is the copy length N (the "
                              "pattern has 2N tokens); write --copy-length or -N\n";
               o->n_text = v;
             },
             "Deprecated: the copy length N, as --copy-length (-N); prints a note on stderr")
          ->check(count_text())
          ->type_name(type::kCount)
          ->excludes(copy_length);
      app.add_option(
             "--routing", o->routing,
             "shift (Prop. 4.8, translation-invariant only), random (uniform shortest paths), minmax "
             "(congestion-minimising rip-up-and-reroute), all. Default: every routing that fits the size")
          ->check(CLI::IsMember({"shift", "random", "minmax", "all"}));
      app.add_flag(
          "--lp", o->lp,
          "Also the LP relaxation bound (GLPK) and, for tiny N, the exact integer optimum (a stack: on the "
          "stacked graph)");
      add_seed_option(app, o->seed, "Seed of the random and minmax routings");
      app.add_option(
             "--sweep", o->sweep_text,
             "Several copy lengths: LO..HI (powers of two between, plus LO and HI) or a list 100,300,1000")
          ->type_name(type::kSweep);
      add_output_option(app, o->paths_file,
                        "Write the routing (the --routing one, else the best) as JSON Lines, one path per "
                        "line, 1-indexed positions. Old name: --paths",
                        "--paths");
      app.add_option("--checkpoint", o->checkpoint_dir,
                     "With --sweep or several --pattern values: keep each finished row in this folder; a "
                     "re-run with the same parameters computes only the missing rows (docs/scaling.md)")
          ->check(nonempty_path())
          ->type_name(type::kDir);
      add_common_options(app, o->common);
      return [o] { return run_congestion(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
