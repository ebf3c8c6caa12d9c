// Copy-task congestion across stacked layers: distances, certified lower bounds (prop47 and the cut bound
// on the collapsed pattern), checked routings, upper bounds (docs/math.md §3, "Copy task across layers").
#include "mixgraph/stack_congestion.hpp"

#include <algorithm>
#include <chrono>

#include "congestion/routing_log.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

StackCongestionResult analyse_stack_congestion(const std::string& spec, std::uint64_t N64,
                                               const StackCongestionOptions& opt) {
  if (N64 > 0x7fffffffULL)
    throw UsageError("--copy-length (the copy length N) must be below 2^31 (the stack has 2N tokens)");
  const PatternSpec tree = parse_pattern_spec(spec);  // the one parse: the estimate and the build
  const bool has_mtx = tree.has_matrix();
  if (N64 == 0 && !has_mtx)
    throw UsageError("--copy-length N (-N, >= 1) is required: the stack is taken on 2N tokens");
  if (N64 > 0)
    check_memory(estimate_stack_bytes(tree, 2 * N64), opt.mem_limit,
                 "stack " + spec + " at 2N = " + std::to_string(2 * N64));
  Stack s = make_stack(tree, 2 * N64);
  if (N64 == 0) {
    if (s.n % 2 != 0)
      throw UsageError("stack '" + spec + "' has an odd number of tokens (" + std::to_string(s.n) +
                       "); the copy task needs 2N tokens");
    N64 = s.n / 2;
  }
  const pos_t N = static_cast<pos_t>(N64);
  const std::size_t L = s.depth();
  StackCongestionResult out;
  out.layer_specs = s.layer_specs;
  CongestionResult& res = out.base;
  res.pattern = s.spec;
  res.N = N;
  res.translation_invariant = s.translation_invariant();

  // Copy distances d_L(i + N, i); for a non-translation-invariant stack from the random routing's
  // per-input searches (each path is a shortest one).
  std::vector<std::uint32_t> d(N, UNREACHABLE);
  std::optional<StackRouting> random;
  double random_s = 0;
  const std::uint64_t route_work = stack_route_work(s, N) * N;
  if (res.translation_invariant) {
    const auto dist = stack_distances_from(s, 0);
    std::fill(d.begin(), d.end(), dist[L][N]);
  } else {
    if (route_work > 40 * opt.work_budget)
      throw RuntimeFailure("the copy distances of " + spec + " at N = " + std::to_string(N) +
                           " need one search per input, about " + std::to_string(route_work) +
                           " edge visits; use a smaller --copy-length");
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<pos_t> bad;
    random = stack_random_routing(s, N, opt.seed, bad);
    random_s = seconds_since(t0);
    for (pos_t i = 0; i < N; ++i)
      if (random->ptr[i + 1] > random->ptr[i]) {
        std::uint32_t hops = 0;
        for (auto k = random->ptr[i] + 1; k < random->ptr[i + 1]; ++k)
          hops += random->nodes[k] != random->nodes[k - 1];
        d[i] = hops;
      }
  }
  if (!record_copy_distances(res, d)) {
    res.impossible_reason = "no path in the stacked graph (" + std::to_string(L) +
                            " layers) from x_i to layer " + std::to_string(L) + "'s y_{i+" +
                            std::to_string(N) + "}";
    if (res.impossible_inputs.size() == N) res.impossible_reason += " for any input";
    return out;
  }

  // Lower bounds: prop47 over stacked distances; the cut bound on the collapsed pattern.
  NamedBound b47{"prop47", prop47_bound(d), "ceil(sum_i (d_L(i+N,i) + 1) / 2N), stacked distances"};
  const NamedBound bcut =
      cut_lower_bound(make_copy_graph(stack_collapsed_pattern(s), N), opt.cut_max_edges, opt.mem_limit,
                      "position-disjoint input-output paths with the copies of each position merged", res);
  NamedBound blp{"lp", std::nullopt, "not requested (--lp)"};
  NamedBound bip{"ip", std::nullopt, "not requested (--lp)"};
  std::optional<StackRouting> exact;
  if (opt.lp) {
    CongestionOptions lo;
    lo.lp_max_variables = opt.lp_max_variables;
    lo.ip_max_variables = opt.ip_max_variables;
    lo.ip_time_limit_s = opt.ip_time_limit_s;
    lo.lp_time_limit_s = opt.lp_time_limit_s;
    auto ip = lp_lower_bounds(
        lo, route_work, [&] { return stack_lp_variables(s, N); },
        [&](bool integer, double tl) {
          auto sl = stack_lp_congestion(s, N, integer, tl);
          if (sl.lp.solved && integer) exact = std::move(sl.routing);
          return sl.lp;
        },
        blp, bip, res.lp_value);
    if (!ip) exact.reset();
  }
  res.lower_bounds = {b47, bcut, blp, bip};
  pick_lower_bound(res);

  // Routings.
  detail::RoutingLog log(
      res, opt.keep_paths ? &out.paths : nullptr,
      [&](const StackRouting& r) { return check_stack_routing(s, N, r); }, opt.routings_forced);
  const std::uint64_t path_mem = static_cast<std::uint64_t>(N) * (res.copy_distance + L + 1) *
                                 (sizeof(pos_t) + sizeof(std::uint16_t)) * 2;
  if (opt.shift && log.shift_runs(res.translation_invariant, "needs every layer translation-invariant",
                                  path_mem, opt.mem_limit)) {
    const auto t0 = std::chrono::steady_clock::now();
    StackRouting r = stack_shift_routing(s, N);
    log.record(std::move(r), seconds_since(t0));
  }
  if (opt.random) {
    if (random) {
      log.record(std::move(*random), random_s);
    } else if (log.random_runs(route_work > opt.work_budget, route_work)) {
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<pos_t> bad;
      StackRouting r = stack_random_routing(s, N, opt.seed, bad);
      log.record(std::move(r), seconds_since(t0));
    }
  }
  if (exact) log.record(std::move(*exact), 0);
  if (opt.minmax) {
    if (log.minmax_runs(route_work, opt.work_budget)) {
      auto& start = log.start();
      if (!start) {
        std::vector<pos_t> bad;
        start =
            res.translation_invariant ? stack_shift_routing(s, N) : stack_random_routing(s, N, opt.seed, bad);
        check_stack_routing(s, N, *start);
      }
      const auto t0 = std::chrono::steady_clock::now();
      StackRouting r =
          stack_minmax_routing(s, N, *start, opt.seed, opt.minmax_rounds,
                               std::max<std::uint32_t>(1, res.lower_bound), 40 * opt.work_budget);
      log.record(std::move(r), seconds_since(t0), false);
    }
  }

  settle_congestion_verdict(res, true);  // the shift bound holds even when its paths were not built
  return out;
}

}  // namespace mixgraph
