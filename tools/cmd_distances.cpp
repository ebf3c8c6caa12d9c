// mixgraph distances: shortest paths, diameters and path-length tables (docs/math.md §3).
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "cmd_stack.hpp"
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
#include "stage_hook.hpp"

namespace mixgraph::cli {
namespace {

/// --matrix writes at most this n (the text file has n^2 entries).
constexpr std::uint64_t kMatrixMax = std::uint64_t{1} << 14;

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

ProfileMethod parse_method(const std::string& m) {
  if (const auto method = profile_method_from(m)) return *method;
  throw UsageError("--method must be auto, bitset-bfs or dp (got '" + m + "')");
}

pos_t parse_position(const std::string& text, const char* opt, pos_t n) {
  const std::uint64_t v = parse_count(text, opt);
  if (v < 1 || v > n)
    throw UsageError(std::string(opt) + " " + text + " is outside 1.." + std::to_string(n) +
                     " (positions are 1-indexed)");
  return static_cast<pos_t>(v - 1);
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
    check_memory(estimate_pattern_bytes(trees[k], ns.back(), false), o.common.mem_limit_bytes(),
                 "pattern " + o.patterns[k] + " at the sweep's largest n = " + std::to_string(ns.back()));
  params["sweep"] = o.sweep_text;
  AllPairsOptions ap;
  ap.threads = o.common.threads;
  ap.mem_limit = o.common.mem_limit_bytes();
  ap.progress = progress_fn();
  std::vector<PathLengthTable> tables;
  std::uint64_t rows = 0;
  for (std::size_t k = 0; k < o.patterns.size(); ++k) {
    const std::string& spec = o.patterns[k];
    ap.row_done = [&](std::uint64_t n) {
      cli::step("distances " + spec + " n = " + std::to_string(n), ++rows, o.patterns.size() * ns.size());
    };
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

int run_distances(const DistOptions& o) {
  o.common.apply();
  const Format fmt = o.common.fmt();
  const ProfileMethod method = parse_method(o.method);
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
  check_memory(estimate_pattern_bytes(tree, n, false), o.common.mem_limit_bytes(),
               "pattern " + spec + " at n = " + std::to_string(n));
  const Pattern p = make_pattern(tree, n);
  params["n"] = p.n;
  std::optional<pos_t> source, target;
  if (!o.source_text.empty()) {
    source = parse_position(o.source_text, "--source", p.n);
    params["source"] = *source + 1;
  }
  if (!o.target_text.empty()) {
    target = parse_position(o.target_text, "--target", p.n);
    params["target"] = *target + 1;
  }
  if (o.counts && !source) throw UsageError("--counts needs --source j (shortest-path counts from x_j)");
  if (!o.matrix_file.empty() && p.n > kMatrixMax)
    throw UsageError("--matrix writes n^2 entries; n = " + std::to_string(p.n) + " is above " +
                     std::to_string(kMatrixMax) + ": use --summary figures or --source/--target instead");
  if (o.all_pairs) params["all_pairs"] = true;
  if (o.summary) params["summary"] = true;
  if (o.method != "auto") params["method"] = o.method;

  // What to compute: the summary figures unless only --source/--target lists were asked for on a pattern
  // too big for automatic all-pairs.
  const bool need_matrix = !o.matrix_file.empty();
  const DistanceRouteChoice route = choose_distance_route(p, {.all_pairs = o.all_pairs,
                                                              .matrix = need_matrix,
                                                              .lists = source || target,
                                                              .pattern_text = spec,
                                                              .all_pairs_words = "add --all-pairs",
                                                              .one_row_words = "--source j / --target i"});
  // the heads' rows take the command's route request (heads:): figures only, no matrix or lists
  DistanceRouteRequest head_request;
  head_request.all_pairs = o.all_pairs;
  head_request.all_pairs_words = "add --all-pairs";
  head_request.one_row_words = "--source j / --target i";
  const bool ti = route.translation_invariant;
  const bool do_summary = route.route != DistanceRoute::ListsOnly;
  // the all-pairs route is split into shards over MPI ranks, or kept in a checkpoint folder
  const bool all_pairs_route = route.route == DistanceRoute::AllPairs;
  if ((!o.checkpoint_dir.empty() || !o.shards_text.empty()) && !all_pairs_route)
    throw UsageError(
        "--checkpoint and --shards split all-pairs distances into shards: add --all-pairs "
        "(and leave out --sweep)");
  const bool shard = all_pairs_route && sharded(o.checkpoint_dir);
  if (shard && need_matrix)
    throw UsageError(
        "--matrix is written by a single process: leave out --checkpoint and run without "
        "mpirun (or with -np 1)");
  const std::uint64_t shards = o.shards_text.empty() ? 0 : parse_count(o.shards_text, "--shards");
  std::optional<DistanceProfile> prof;
  DistanceSummary sum;
  std::vector<std::uint32_t> matrix;
  std::string figures_from;
  if (route.route == DistanceRoute::Profile) {
    check_memory(profile_summary_bytes(p.n, !o.summary), o.common.mem_limit_bytes(),
                 "the distance profile of " + spec + " at n = " + std::to_string(p.n));
    prof = distance_profile(p, method);
    sum = summary_from_profile(*prof, p.n, !o.summary);
    figures_from = "profile";
  } else if (all_pairs_route) {
    AllPairsOptions ap;
    ap.threads = o.common.threads;
    ap.eccentricities = !o.summary;
    ap.mem_limit = o.common.mem_limit_bytes();
    ap.progress = progress_fn();
    if (need_matrix) ap.matrix = &matrix;
    if (shard) {
      auto merged = sharded_all_pairs(p, ap, o.checkpoint_dir, shards);
      if (!merged) return 0;  // ranks other than 0 print nothing
      sum = std::move(*merged);
    } else {
      sum = all_pairs_summary(p, ap);
    }
    figures_from = "all-pairs";
    if (ti) prof = distance_profile(p, method);
  }
  if (need_matrix) write_matrix(o.matrix_file, matrix, p.n);
  std::vector<std::uint32_t> from, to;
  PathCounts counts;
  if (source) {
    if (o.counts) {
      counts = shortest_path_counts(p, *source);
      from = counts.dist;
    } else {
      from = single_source_distances(p, *source);
    }
  }
  if (target) to = single_target_distances(p, *target);

  if (fmt == Format::Json) {
    json::DistancesResult dr;
    dr.pattern = &p;
    dr.translation_invariant = ti;
    dr.summary_only = o.summary;
    dr.has_summary = do_summary;
    dr.figures_from = figures_from;
    dr.sum = std::move(sum);
    dr.has_profile = prof.has_value();
    if (prof && !o.summary) dr.profile = prof->to_vector();
    dr.source = source;
    dr.target = target;
    dr.from = std::move(from);
    dr.to = std::move(to);
    dr.counts = o.counts;
    dr.path_counts = std::move(counts);
    if (need_matrix) dr.matrix_file = o.matrix_file;
    auto j = json_header("distances", 1, params);
    j.update(json::distances(dr));
    if (do_summary && !p.heads.empty())
      j["heads"] = head_distance_rows(p, o.common.threads, o.common.mem_limit_bytes(), head_request);
    print_json(std::cout, j);
    return 0;
  }
  if (fmt == Format::Csv) {
    if (source || target) {
      std::vector<std::string> h = {"position"};
      if (source) h.push_back("dist_from_source");
      if (o.counts) h.push_back("path_count");
      if (target) h.push_back("dist_to_target");
      Table t(h);
      for (pos_t i = 0; i < p.n; ++i) {
        std::vector<std::string> row = {std::to_string(i + 1)};
        if (source) row.push_back(dist_text(from[i]));
        if (o.counts) row.push_back(from[i] == UNREACHABLE ? "0" : std::to_string(counts.count[i]));
        if (target) row.push_back(dist_text(to[i]));
        t.add(row);
      }
      t.print_csv(std::cout);
    } else if (prof && !o.summary) {
      Table t({"m", "delta"});
      for (pos_t m = 0; m < prof->size(); ++m) t.add({std::to_string(m), dist_text((*prof)[m])});
      t.print_csv(std::cout);
    } else {
      Table t({"pattern", "n", "diameter", "mean_distance", "reachable_pairs", "unreachable_pairs",
               "figures_from"});
      t.add({p.spec, std::to_string(p.n), std::to_string(sum.diameter), fmt_double(sum.mean_distance, 10),
             std::to_string(sum.reachable_pairs), std::to_string(sum.unreachable_pairs), figures_from});
      t.print_csv(std::cout);
    }
    return 0;
  }
  // table
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", p.spec}, {"family", to_string(p.family)}, {"n", std::to_string(p.n)}};
  if (do_summary) {
    kv.push_back({"figures from", figures_from == "profile"
                                      ? "the distance profile delta(m) (translation-invariant)"
                                      : "all-pairs bit-parallel BFS"});
    kv.push_back({"diameter", std::to_string(sum.diameter) + " (over reachable pairs j < i)"});
    kv.push_back({"mean distance", fmt_double(sum.mean_distance, 8)});
    kv.push_back({"reachable pairs", std::to_string(sum.reachable_pairs)});
    kv.push_back({"unreachable pairs", std::to_string(sum.unreachable_pairs)});
    std::string h;
    for (std::size_t d = 1; d < sum.histogram.size(); ++d)
      h += (h.empty() ? "" : ", ") + std::to_string(d) + ": " + std::to_string(sum.histogram[d]);
    kv.push_back({"histogram (d: pairs)", h.empty() ? "(none)" : h});
    if (prof) {
      std::vector<std::uint64_t> head;
      for (pos_t m = 0; m < std::min<pos_t>(prof->size(), 32); ++m) head.push_back((*prof)[m]);
      std::string s;
      for (std::size_t m = 0; m < head.size(); ++m)
        s += (m ? " " : "") + dist_text(static_cast<std::uint32_t>(head[m]));
      if (prof->size() > 32) s += " ... (--format json or csv lists all)";
      kv.push_back({"profile delta(0..)", s});
    }
  }
  if (need_matrix)
    kv.push_back({"matrix written to", o.matrix_file + " (row i, column j: d(i, j); inf = no path)"});
  if (source && target)
    kv.push_back({"d(" + std::to_string(*target + 1) + ", " + std::to_string(*source + 1) + ")",
                  dist_text(from[*target])});
  print_kv(std::cout, kv);
  if (do_summary)
    print_head_rows(std::cout,
                    head_distance_rows(p, o.common.threads, o.common.mem_limit_bytes(), head_request));
  if (source || target) {
    std::cout << "\n";
    std::vector<std::string> h = {"position"};
    if (source) h.push_back("d(i, " + std::to_string(*source + 1) + ")");
    if (o.counts) h.push_back("shortest paths");
    if (target) h.push_back("d(" + std::to_string(*target + 1) + ", j)");
    Table t(h);
    const pos_t show = std::min<pos_t>(p.n, 64);
    for (pos_t i = 0; i < show; ++i) {
      std::vector<std::string> row = {std::to_string(i + 1)};
      if (source) row.push_back(dist_text(from[i]));
      if (o.counts) row.push_back(from[i] == UNREACHABLE ? "0" : std::to_string(counts.count[i]));
      if (target) row.push_back(dist_text(to[i]));
      t.add(row);
    }
    t.print_text(std::cout);
    if (show < p.n) std::cout << "(showing 64 of " << p.n << " positions; --format csv or json lists all)\n";
    if (o.counts && counts.overflow) std::cout << "some path counts saturated at 2^64 - 1\n";
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
      app.add_option("--n,-n", o->n_text, "Number of tokens; accepts 4096, 2^20, 1e6. Not needed for mtx:")
          ->check(count_text())
          ->type_name(type::kCount);
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
      app.add_option("--shards", o->shards_text,
                     "With --all-pairs under mpirun or --checkpoint: the number of shards (default: one "
                     "per 256 sources, at most 1024)")
          ->check(count_text())
          ->type_name(type::kCount);
      add_common_options(app, o->common);
      return [o] { return run_distances(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
