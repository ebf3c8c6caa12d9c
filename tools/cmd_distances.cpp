// mixgraph distances: shortest paths, diameters and path-length tables (docs/math.md §3).
#include <array>
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "cmd_stack.hpp"
#include "mixgraph/analysis/distances_query.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/atomic_file.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/sweep.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "pattern_heads.hpp"
#include "registry.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

struct DistOptions {
  CommonOptions common;
  std::vector<std::string> patterns;
  std::string n_text;
  std::string source_text;
  std::string target_text;
  bool all_pairs = false;
  std::string matrix_file;
  std::string sweep_text;
  bool summary = false;
  bool counts = false;
  std::string method = "auto";
  std::string checkpoint_dir;
  std::string shards_text;
};

std::string dist_text(std::uint32_t d) {
  return d == UNREACHABLE ? "inf" : std::to_string(d);
}

std::function<void(std::uint64_t, std::uint64_t)> progress_fn() {
  if (!stderr_is_tty()) return {};
  return [](std::uint64_t done, std::uint64_t total) {
    std::cerr << "\r[distances] all-pairs: " << done << "/" << total << " source blocks" << std::flush;
    if (done == total) std::cerr << "\r" << std::string(60, ' ') << "\r" << std::flush;
  };
}

void write_matrix(const std::string& path, const std::vector<std::uint32_t>& m, pos_t n) {
  write_file_atomic(path, [&](std::ostream& os) {
    std::string line;
    for (pos_t i = 0; i < n; ++i) {
      line.clear();
      for (pos_t j = 0; j < n; ++j) {
        if (j) line += ',';
        const auto d = m[std::size_t{i} * n + j];
        line += d == UNREACHABLE ? "inf" : std::to_string(d);
      }
      line += '\n';
      os << line;
    }
  });
}

int run_sweep(const DistOptions& o, nlohmann::json params) {
  if (!o.source_text.empty() || !o.target_text.empty() || !o.matrix_file.empty())
    throw UsageError("--source, --target and --matrix need one n; leave out --sweep");
  if (o.counts) throw UsageError("--counts needs --source; leave out --sweep");
  if (!o.checkpoint_dir.empty() || !o.shards_text.empty())
    throw UsageError("--checkpoint and --shards apply to one n with --all-pairs; leave out --sweep");
  const auto ns = parse_sweep(o.sweep_text);
  std::vector<PatternSpec> trees;  // each --pattern parsed once, for the estimate and every n
  for (const auto& spec : o.patterns) trees.push_back(parse_pattern_spec(spec, false));
  for (std::size_t k = 0; k < trees.size();
       ++k)  // the largest n first: a sweep that cannot finish is refused
    check_pattern_memory(trees[k], ns.back(), o.common.mem_limit_bytes(), "pattern " + o.patterns[k],
                         {.n_name = "the sweep's largest n"});
  params["sweep"] = o.sweep_text;
  AllPairsOptions ap;
  ap.threads = o.common.threads;
  ap.mem_limit = o.common.mem_limit_bytes();
  ap.progress = progress_fn();
  std::vector<PathLengthTable> tables;
  for (std::size_t k = 0; k < o.patterns.size(); ++k) {
    const std::string& spec = o.patterns[k];
    tables.push_back(path_length_table(trees[k], ns, ap, o.all_pairs ? UINT64_MAX : kAutoAllPairsMax));
    tables.back().pattern = spec;  // as given
  }
  auto max_delta = [](const PathLengthRow& r) -> std::uint32_t {
    if (!r.from_profile) return UNREACHABLE;
    return r.copy_distance == UNREACHABLE ? r.diameter : std::max(r.diameter, r.copy_distance);
  };
  switch (o.common.fmt()) {
    case Format::Json: {
      auto j = json_header("distances", 1, params);
      j.update(json::path_lengths(tables));
      print_json(std::cout, j);
      break;
    }
    case Format::Csv: {
      Table tb(
          {"pattern", "n", "diameter", "copy_distance", "mean_distance", "max_delta", "unreachable_pairs"});
      for (const auto& t : tables)
        for (const auto& r : t.rows)
          tb.add({t.pattern, std::to_string(r.n), std::to_string(r.diameter), dist_text(r.copy_distance),
                  fmt_double(r.mean_distance, 8), r.from_profile ? dist_text(max_delta(r)) : "",
                  std::to_string(r.unreachable_pairs)});
      tb.print_csv(std::cout);
      break;
    }
    case Format::Table: {
      std::vector<std::string> h = {"n"};
      for (const auto& t : tables) {
        const std::string pre = tables.size() > 1 ? t.pattern + " " : "";
        for (const char* c : {"diameter", "copy d", "mean", "max delta"}) h.push_back(pre + c);
      }
      Table tb(h);
      for (std::size_t k = 0; k < ns.size(); ++k) {
        std::vector<std::string> row = {std::to_string(ns[k])};
        for (const auto& t : tables) {
          const auto& r = t.rows[k];
          row.push_back(std::to_string(r.diameter) + (r.unreachable_pairs ? "*" : ""));
          row.push_back(dist_text(r.copy_distance));
          row.push_back(fmt_double(r.mean_distance, 5));
          row.push_back(r.from_profile ? dist_text(max_delta(r)) : "-");
        }
        tb.add(row);
      }
      tb.print_text(std::cout);
      std::cout << "\n";
      for (const auto& t : tables)
        std::cout << t.pattern << ": growth of diameter " << t.diameter_fit.free.label << "; copy distance "
                  << t.copy_fit.free.label << "; mean distance " << t.mean_fit.free.label << "\n";
      std::cout << "(free fit c n^a (log n)^b + lower-order term, 95% interval for a, never above n; a class "
                   "is printed only when the data decide it; --format json has the statistics and the "
                   "menu fit)\n";
      bool star = false;
      for (const auto& t : tables)
        for (const auto& r : t.rows) star |= r.unreachable_pairs > 0;
      if (star) std::cout << "* some pairs j < i are unreachable; the diameter is over reachable pairs\n";
      std::cout
          << "copy d = copy distance delta(n) (max_j d(j + n, j) on 2n tokens); inf = some copy impossible\n";
      break;
    }
  }
  return 0;
}

/// The lists of --source / --target (--counts) as rows: position, then each list's entry under its name
/// (names: the source's, the counts', the target's column), for positions 1..show.
Table position_table(const DistOptions& o, const json::DistancesResult& d,
                     const std::array<std::string, 3>& names, pos_t show) {
  std::vector<std::string> h = {"position"};
  if (d.source) h.push_back(names[0]);
  if (o.counts) h.push_back(names[1]);
  if (d.target) h.push_back(names[2]);
  Table t(h);
  for (pos_t i = 0; i < show; ++i) {
    std::vector<std::string> row = {std::to_string(i + 1)};
    if (d.source) row.push_back(dist_text(d.from[i]));
    if (o.counts) row.push_back(d.from[i] == UNREACHABLE ? "0" : std::to_string(d.path_counts.count[i]));
    if (d.target) row.push_back(dist_text(d.to[i]));
    t.add(row);
  }
  return t;
}

void print_csv(const DistOptions& o, const analysis::DistancesAnswer& a) {
  const json::DistancesResult& d = a.result;
  const Pattern& p = *d.pattern;
  if (d.source || d.target) {
    position_table(o, d, {"dist_from_source", "path_count", "dist_to_target"}, p.n).print_csv(std::cout);
  } else if (a.profile && !o.summary) {
    Table t({"m", "delta"});
    for (pos_t m = 0; m < a.profile->size(); ++m) t.add({std::to_string(m), dist_text((*a.profile)[m])});
    t.print_csv(std::cout);
  } else {
    Table t({"pattern", "n", "diameter", "mean_distance", "reachable_pairs", "unreachable_pairs",
             "figures_from"});
    t.add({p.spec, std::to_string(p.n), std::to_string(d.sum.diameter), fmt_double(d.sum.mean_distance, 10),
           std::to_string(d.sum.reachable_pairs), std::to_string(d.sum.unreachable_pairs), d.figures_from});
    t.print_csv(std::cout);
  }
}

void print_table(const DistOptions& o, const analysis::DistancesQuery& q,
                 const analysis::DistancesAnswer& a) {
  const json::DistancesResult& d = a.result;
  const Pattern& p = *d.pattern;
  const DistanceSummary& sum = d.sum;
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", p.spec}, {"family", to_string(p.family)}, {"n", std::to_string(p.n)}};
  if (d.has_summary) {
    kv.push_back({"figures from", d.figures_from == "profile"
                                      ? "the distance profile delta(m) (translation-invariant)"
                                      : "all-pairs bit-parallel BFS"});
    kv.push_back({"diameter", std::to_string(sum.diameter) + " (over reachable pairs j < i)"});
    kv.push_back({"mean distance", fmt_double(sum.mean_distance, 8)});
    kv.push_back({"reachable pairs", std::to_string(sum.reachable_pairs)});
    kv.push_back({"unreachable pairs", std::to_string(sum.unreachable_pairs)});
    std::string h;
    for (std::size_t k = 1; k < sum.histogram.size(); ++k)
      h += (h.empty() ? "" : ", ") + std::to_string(k) + ": " + std::to_string(sum.histogram[k]);
    kv.push_back({"histogram (d: pairs)", h.empty() ? "(none)" : h});
    if (a.profile) {
      std::string s;
      for (pos_t m = 0; m < std::min<pos_t>(a.profile->size(), 32); ++m)
        s += (m ? " " : "") + dist_text((*a.profile)[m]);
      if (a.profile->size() > 32) s += " ... (--format json or csv lists all)";
      kv.push_back({"profile delta(0..)", s});
    }
  }
  if (q.matrix)
    kv.push_back({"matrix written to", o.matrix_file + " (row i, column j: d(i, j); inf = no path)"});
  if (d.source && d.target)
    kv.push_back({"d(" + std::to_string(*d.target + 1) + ", " + std::to_string(*d.source + 1) + ")",
                  dist_text(d.from[*d.target])});
  print_kv(std::cout, kv);
  if (d.has_summary) print_head_rows(std::cout, analysis::distances_head_rows(q));
  if (!d.source && !d.target) return;
  std::cout << "\n";
  const std::array<std::string, 3> names = {d.source ? "d(i, " + std::to_string(*d.source + 1) + ")" : "",
                                            "shortest paths",
                                            d.target ? "d(" + std::to_string(*d.target + 1) + ", j)" : ""};
  const pos_t show = std::min<pos_t>(p.n, 64);
  position_table(o, d, names, show).print_text(std::cout);
  if (show < p.n) std::cout << "(showing 64 of " << p.n << " positions; --format csv or json lists all)\n";
  if (o.counts && d.path_counts.overflow) std::cout << "some path counts saturated at 2^64 - 1\n";
}

int run_distances(const DistOptions& o) {
  o.common.apply();
  const Format fmt = o.common.fmt();
  nlohmann::json params = {
      {"pattern", o.patterns.size() == 1 ? nlohmann::json(o.patterns[0]) : nlohmann::json(o.patterns)},
      {"format", o.common.format}};
  if (o.patterns.empty()) throw UsageError("--pattern is required");
  if (o.patterns.size() == 1 && is_stack_spec(o.patterns[0])) {  // layers: cmd_stack.cpp
    StackRequest sr{o.patterns[0], o.n_text, o.common};
    sr.summary = o.summary;
    sr.source_text = o.source_text;
    for (const auto& [given, name] : {std::pair{!o.target_text.empty(), "--target"},
                                      {o.all_pairs, "--all-pairs"},
                                      {!o.matrix_file.empty(), "--matrix"},
                                      {!o.sweep_text.empty(), "--sweep"},
                                      {o.counts, "--counts"},
                                      {o.method != "auto", "--method"},
                                      {!o.checkpoint_dir.empty(), "--checkpoint"},
                                      {!o.shards_text.empty(), "--shards"}})
      if (given) sr.unsupported.push_back(name);
    return run_stack_distances(sr);
  }
  if (!o.sweep_text.empty()) return run_sweep(o, params);
  if (o.patterns.size() > 1)
    throw UsageError("several --pattern values need --sweep LO..HI (the side-by-side path-length table)");
  const std::string& spec = o.patterns[0];
  const PatternSpec tree = parse_pattern_spec(spec, false);  // the one parse: estimate and build take it
  const std::uint64_t n = pattern_n(tree, o.n_text, ", or give --sweep LO..HI");
  if (!tree.has_matrix()) validate_n(n);
  const Pattern p = make_pattern_within(tree, n, o.common.mem_limit_bytes(), "pattern " + spec);
  params["n"] = p.n;
  analysis::DistancesQuery q;  // the checks, the route and the work: analysis/distances_query.hpp
  q.pattern = &p;
  q.pattern_text = spec;
  if (!o.source_text.empty()) q.source = analysis::PositionArg{o.source_text, {}};
  if (!o.target_text.empty()) q.target = analysis::PositionArg{o.target_text, {}};
  q.counts = o.counts;
  q.all_pairs = o.all_pairs;
  q.summary = o.summary;
  q.matrix = !o.matrix_file.empty();
  q.method = o.method;
  q.threads = o.common.threads;
  q.mem_limit = o.common.mem_limit_bytes();
  q.progress = progress_fn();
  const analysis::DistancesPlan plan = analysis::distances_plan(q);
  if (plan.source) params["source"] = *plan.source + 1;
  if (plan.target) params["target"] = *plan.target + 1;
  if (o.all_pairs) params["all_pairs"] = true;
  if (o.summary) params["summary"] = true;
  if (o.method != "auto") params["method"] = o.method;
  // the all-pairs route is split into shards over MPI ranks, or kept in a checkpoint folder
  const bool all_pairs_route = plan.route.route == DistanceRoute::AllPairs;
  if ((!o.checkpoint_dir.empty() || !o.shards_text.empty()) && !all_pairs_route)
    throw UsageError(
        "--checkpoint and --shards split all-pairs distances into shards: add --all-pairs "
        "(and leave out --sweep)");
  const bool shard = all_pairs_route && sharded(o.checkpoint_dir);
  if (shard && q.matrix)
    throw UsageError(
        "--matrix is written by a single process: leave out --checkpoint and run without "
        "mpirun (or with -np 1)");
  const std::uint64_t shards = o.shards_text.empty() ? 0 : parse_count(o.shards_text, "--shards");
  if (shard)
    q.all_pairs_hook = [&o, shards](const Pattern& pat, const AllPairsOptions& ap) {
      return sharded_all_pairs(pat, ap, o.checkpoint_dir, shards);
    };
  auto answer = analysis::distances_compute(q, plan);
  if (!answer) return 0;  // ranks other than 0 print nothing
  if (q.matrix) {
    write_matrix(o.matrix_file, answer->matrix, p.n);
    answer->result.matrix_file = o.matrix_file;
  }
  switch (fmt) {
    case Format::Json: {
      auto j = json_header("distances", 1, params);
      j.update(json::distances(answer->result));
      if (plan.has_summary && !p.heads.empty()) j["heads"] = analysis::distances_head_rows(q);
      print_json(std::cout, j);
      break;
    }
    case Format::Csv:
      print_csv(o, *answer);
      break;
    case Format::Table:
      print_table(o, q, *answer);
      break;
  }
  return 0;
}

Registrar reg_cmd_distances(
    "distances", "Shortest paths d(i, j), diameters, distance profiles, path-length tables (docs/math.md §3)",
    20, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<DistOptions>();
      app.add_option("--pattern,-p", o->patterns,
                     "Pattern spec (" + pattern_name_help() +
                         "); repeat it with --sweep for patterns side by side. Layers: stack:P1,P2,... "
                         "(distances from input j to the last layer's i, per depth)")
          ->required()
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(app, "--n,-n", o->n_text,
                       "Number of tokens; accepts 4096, 2^20, 1e6. Not needed for mtx:");
      app.add_option("--source", o->source_text,
                     "Distances from x_j to every y_i (JSON: 'source', 'dist'; 1-indexed j)")
          ->type_name(type::kPosition);
      app.add_option("--target", o->target_text,
                     "Distances from every x_j to y_i (JSON: 'target', 'dist_to_target')")
          ->type_name(type::kPosition);
      app.add_flag("--all-pairs", o->all_pairs,
                   "Run all-pairs distances (bit-parallel BFS) even above n = 2^14 or for "
                   "translation-invariant patterns");
      add_output_option(app, o->matrix_file,
                        "Write the n x n distance matrix (CSV, row i, column j: d(i, j), inf = no path) "
                        "to this file, atomically; n <= 2^14. Old name: --matrix",
                        "--matrix");
      app.add_option("--sweep", o->sweep_text,
                     "Path-length table over n: LO..HI (powers of two between) or a list")
          ->type_name(type::kSweep);
      app.add_flag("--summary", o->summary, "Leave out every per-position list (profile, eccentricity)");
      app.add_flag("--counts", o->counts,
                   "With --source: the number of shortest paths (JSON: 'path_counts')");
      app.add_option("--method", o->method, "Profile method: auto, bitset-bfs or dp")
          ->check(CLI::IsMember({"auto", "bitset-bfs", "dp"}))
          ->default_val("auto");
      app.add_option("--checkpoint", o->checkpoint_dir,
                     "With --all-pairs: keep each finished shard of sources in this folder; a re-run with "
                     "the same parameters computes only the missing shards (docs/scaling.md)")
          ->check(nonempty_path())
          ->type_name(type::kDir);
      add_count_option(app, "--shards", o->shards_text,
                       "With --all-pairs under mpirun or --checkpoint: the number of shards (default: one "
                       "per 256 sources, at most 1024)");
      add_common_options(app, o->common);
      return [o] { return run_distances(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
