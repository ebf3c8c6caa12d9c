// Report section "Stacked layers": the stack:P1,P2,... patterns of a report (docs/math.md §3, "Stacked
// layers"), analysed as `pattern`, `distances`, `congestion` and `rank` analyse a stack: decode cost and
// cache summed over layers, distances from layer-0 inputs to the last layer's outputs, the copy task across
// the layers at N = n/2, cut ranks of the product operator. The single-layer sections leave stacks out and
// say so (cmd_report.cpp).
#include <exception>

#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/stack_congestion.hpp"

namespace mixgraph::analysis {
namespace {

/// Stack distances that need every source refuse more relaxations than this (as `distances` does).
constexpr std::uint64_t kAllPairsWork = std::uint64_t{1} << 36;

Cell stacks_opt_cell(const std::optional<std::uint32_t>& v) {
  return v ? u64(*v) : Cell::empty();
}

void run_stacks(ReportContext& ctx) {
  const ReportParams& P = ctx.params;
  DataTable summary{"stacks",
                    "Stacks: decode cost and cache summed over layers, diameter (input j to the last "
                    "layer's output i, j < i), copy task across the layers at N = n/2, max flow cut rank",
                    {"pattern", "n", "depth", "total_decode_cost", "max_decode_cost", "max_cache", "diameter",
                     "mean_distance", "unreachable_pairs", "N", "copy_distance", "lower", "upper",
                     "best_routing", "max_cut_rank", "argmax_cut"},
                    {}};
  DataTable layers{
      "stack_layers",
      "Each layer of each stack: its reads, decode cost and cache (as `mixgraph pattern`)",
      {"stack", "layer", "pattern", "nnz_A", "nnz_B", "total_decode_cost", "max_decode_cost", "max_cache"},
      {}};
  DataTable depth{"stack_depth",
                  "Distances across depth: input j to the output of the first l layers, pairs j < i",
                  {"stack", "depth", "layer_pattern", "diameter", "mean_distance", "reachable_pairs",
                   "unreachable_pairs"},
                  {}};
  DataTable ranks{"stack_ranks",
                  "Cut ranks of the product operator M_L ... M_1: Menger flow on the stacked graph, and the "
                  "dense product's numeric rank for n <= --dense-cap (and <= 1024)",
                  {"stack", "cut", "rank_flow", "rank_numeric"},
                  {}};
  std::size_t count = 0;
  for (std::size_t k = 0; k < P.patterns.size(); ++k) {
    const std::string& spec = P.patterns[k];
    if (!is_stack_spec(spec)) continue;
    ++count;
    const PatternSpec& tree = P.trees.at(k);  // parsed once, by the report
    check_memory(estimate_stack_bytes(tree, P.n), P.mem_limit,
                 "pattern " + spec + " at n = " + std::to_string(P.n));
    const Stack s = make_stack(tree, P.n);
    nlohmann::json res = {{"depth", s.depth()}};
    std::vector<Cell> row = {Cell::text(spec), u64(s.n), u64(s.depth())};

    const auto prof = stack_profile(s, ProfileOptions{P.threads, false});  // totals only
    for (std::size_t l = 0; l < s.depth(); ++l) {
      const auto& lp = prof.layers[l];
      layers.add({Cell::text(spec), u64(l + 1), Cell::text(s.layer_specs[l]), u64(lp.nnz_a), u64(lp.nnz_b),
                  u64(lp.total_decode_cost), u64(lp.max_decode_cost), u64(lp.max_cache)});
    }
    res["nnz_A"] = prof.nnz_a;
    res["nnz_B"] = prof.nnz_b;
    res["total_decode_cost"] = prof.total_decode_cost;
    res["max_decode_cost"] = prof.max_decode_cost;
    res["max_cache"] = prof.max_cache;
    row.insert(row.end(), {u64(prof.total_decode_cost), u64(prof.max_decode_cost), u64(prof.max_cache)});
    // text, as the single-layer rows (whose cells carry a growth class)
    ctx.table1[spec]["time_per_token"] = Cell::text(nstr(prof.max_decode_cost));
    ctx.table1[spec]["cache"] = Cell::text(nstr(prof.max_cache));

    StackDistanceOptions dop;
    dop.threads = P.threads;
    dop.mem_limit = P.mem_limit;
    dop.max_work = kAllPairsWork;
    if (!s.translation_invariant() && s.n > P.all_pairs_cap) {
      ctx.out.note("capped", "distances of " + spec + ": all-pairs search skipped (n > --all-pairs-cap " +
                                 nstr(P.all_pairs_cap) + ", a layer is not translation-invariant)");
      res["capped"] = true;
      row.insert(row.end(), {Cell::empty(), Cell::empty(), Cell::empty()});
    } else {
      try {
        const auto d = stack_distance_summary(s, dop);
        for (std::size_t l = 0; l < d.by_depth.size(); ++l) {
          const auto& b = d.by_depth[l];
          depth.add({Cell::text(spec), u64(l + 1), Cell::text(s.layer_specs[l]), u64(b.diameter),
                     Cell::real(b.mean_distance, 8), u64(b.reachable_pairs), u64(b.unreachable_pairs)});
        }
        const auto& last = d.by_depth.back();
        res["method"] = d.from_profile ? "profile" : "all-pairs";
        res["diameter"] = last.diameter;
        res["mean_distance"] = last.mean_distance;
        res["reachable_pairs"] = last.reachable_pairs;
        res["unreachable_pairs"] = last.unreachable_pairs;
        row.insert(row.end(),
                   {u64(last.diameter), Cell::real(last.mean_distance, 8), u64(last.unreachable_pairs)});
        ctx.table1[spec]["shortest_path"] =
            last.unreachable_pairs ? Cell::text(nstr(last.diameter) + " (" + nstr(last.unreachable_pairs) +
                                                " pairs unreachable)")
                                   : u64(last.diameter);
      } catch (const std::exception& e) {  // RuntimeFailure: over the memory or work limit; noted
        ctx.out.note("skipped", "distances of " + spec + ": " + e.what());
        row.insert(row.end(), {Cell::empty(), Cell::empty(), Cell::empty()});
      }
    }

    const std::uint64_t N = s.n / 2;
    bool cong_done = false;
    if (N >= 1) {
      StackCongestionOptions co;
      co.seed = P.seed;
      co.mem_limit = P.mem_limit;
      co.minmax = N <= P.routing_cap;
      try {
        const auto c = analyse_stack_congestion(spec, N, co).base;
        cong_done = true;
        res["copy_length"] = c.N;
        res["copy_possible"] = c.copy_possible;
        res["copy_distance"] = c.copy_possible ? nlohmann::json(c.copy_distance) : nlohmann::json(nullptr);
        res["lower_bound"] = c.copy_possible ? nlohmann::json(c.lower_bound) : nlohmann::json(nullptr);
        res["lower_bound_name"] = c.lower_bound_name;
        res["upper_bound"] = c.upper_bound ? nlohmann::json(*c.upper_bound) : nlohmann::json(nullptr);
        res["best_routing"] = c.best_routing;
        res["optimal"] = c.optimal;
        row.push_back(u64(c.N));
        if (!c.copy_possible) {
          row.insert(row.end(),
                     {Cell::unreachable(), Cell::empty(), Cell::empty(), Cell::text("impossible")});
          ctx.table1[spec]["congestion"] = Cell::text("impossible at N = " + nstr(c.N));
        } else {
          row.insert(row.end(), {u64(c.copy_distance), u64(c.lower_bound), stacks_opt_cell(c.upper_bound),
                                 Cell::text(c.best_routing)});
          Cell cell = !c.upper_bound ? Cell::text(">= " + nstr(c.lower_bound))
                      : *c.upper_bound == c.lower_bound
                          ? Cell::text(nstr(c.lower_bound) + " (optimal)")
                          : Cell::text(nstr(c.lower_bound) + ".." + nstr(*c.upper_bound));
          cell.s += " at N = " + nstr(c.N);
          ctx.table1[spec]["congestion"] = cell;
        }
      } catch (const std::exception& e) {  // RuntimeFailure (memory, work): noted, not fatal
        ctx.out.note("skipped", "congestion of " + spec + " at N = " + nstr(N) + ": " + e.what());
      }
    }
    if (!cong_done)
      row.insert(row.end(), {Cell::empty(), Cell::empty(), Cell::empty(), Cell::empty(), Cell::empty()});

    if (s.n >= 2) {
      StackRankOptions ro;
      ro.seed = P.seed;
      ro.mem_limit = P.mem_limit;
      ro.numeric = s.n <= P.dense_cap && s.n <= ro.numeric_limit;
      if (s.n <= P.rank_cap)
        for (pos_t k = 1; k < s.n; ++k) ro.cuts.push_back(k);
      else
        ro.cuts = spaced_cuts(s.n, P.rank_cuts);
      try {
        const auto rk = stack_cut_ranks(s, ro);
        for (std::size_t c = 0; c < rk.cuts.size(); ++c)
          ranks.add({Cell::text(spec), u64(rk.cuts[c]), rk.flow_done ? u64(rk.flow[c]) : Cell::empty(),
                     rk.numeric_done ? u64(rk.numeric[c]) : Cell::empty()});
        res["cuts"] = rk.cuts.size();
        res["numeric_cuts"] = rk.numeric_done ? rk.cuts.size() : 0;
        res["max_cut_rank"] = rk.max_cut_rank;
        res["argmax_cut"] = rk.argmax_cut;
        if (rk.numeric_done) res["numeric_equals_flow"] = rk.numeric == rk.flow;
        row.insert(row.end(), {u64(rk.max_cut_rank), u64(rk.argmax_cut)});
      } catch (const std::exception& e) {
        ctx.out.note("skipped", "cut ranks of " + spec + ": " + e.what());
        row.insert(row.end(), {Cell::empty(), Cell::empty()});
      }
    } else {
      row.insert(row.end(), {Cell::empty(), Cell::empty()});
    }
    summary.add(std::move(row));
    ctx.results[spec] = res;
  }
  if (count == 0) return;  // "Nothing to show for these patterns."
  ctx.out.markdown(
      "A `stack:P1,P2,...` pattern is L mixers in sequence, each layer reading the previous layer's output "
      "(docs/math.md §3, \"Stacked layers\"): the stacked graph has L + 1 copies of the positions. The "
      "numbers equal those of `mixgraph pattern`, `distances`, `congestion -N n/2` and `rank` on the same "
      "stack. Decode cost and cache are summed over layers; the diameter is the largest distance from an "
      "input j to the last layer's output i, j < i; the copy task runs across the layers at N = n/2; the "
      "cut rank is that of the product operator M_L ... M_1.");
  ctx.out.table(summary);
  ctx.out.table(layers, 200);
  if (!depth.rows.empty()) ctx.out.table(depth, 200);
  if (!ranks.rows.empty()) ctx.out.table(ranks, 20);
}

}  // namespace

ReportSection stacks_section() {
  return running_section("stacks", "Stacked layers", 75, {}, run_stacks);
}

}  // namespace mixgraph::analysis
