// Copy-task congestion analysis: distances, certified lower bounds, routings, upper bounds.
#include "mixgraph/congestion.hpp"

#include <chrono>
#include <numeric>

#include "congestion/routing_log.hpp"
#include "mixgraph/cancel.hpp"
#include "mixgraph/commgraph.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph {

std::uint32_t prop47_bound(const std::vector<std::uint32_t>& d) {
  if (d.empty()) return 0;
  std::uint64_t sum = 0;
  for (auto x : d) sum += static_cast<std::uint64_t>(x) + 1;
  const std::uint64_t twoN = 2ULL * d.size();
  return static_cast<std::uint32_t>((sum + twoN - 1) / twoN);
}

namespace {

std::uint64_t gcd_offsets(const std::vector<pos_t>& v) {
  std::uint64_t g = 0;
  for (auto o : v) g = std::gcd(g, static_cast<std::uint64_t>(o));
  return g;
}

std::string impossible_reason(const CopyGraph& g, const std::vector<pos_t>& bad) {
  const auto& p = g.pattern;
  const std::string N = std::to_string(g.N);
  if (g.a_only) {
    std::string s = "B = 0 in " + p.spec +
                    " (A-only: every path is one A hop, no multi-hop), and A has no edge x_i -> y_{i+" + N +
                    "}";
    if (g.ti && !g.a_off.empty())
      s += " (A reads offsets up to " + std::to_string(g.a_off.back()) + " < N = " + N + ")";
    return s;
  }
  if (g.ti) {
    if (g.b_off.empty()) return "the pattern has no B offsets below 2N";
    const auto gg = gcd_offsets(g.b_off);
    if (g.N % gg != 0)
      return "every B offset of " + p.spec + " is a multiple of " + std::to_string(gg) +
             ", which does not divide N = " + N;
    return std::to_string(g.N) + " is no sum of the B offsets of " + p.spec;
  }
  std::string s = "no path in the layered DAG from x_i to y_{i+" + N + "}";
  if (bad.size() == g.N) s += " for any input";
  return s;
}

struct Timer {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double s() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

}  // namespace

bool record_copy_distances(CongestionResult& res, const std::vector<std::uint32_t>& d) {
  for (pos_t i = 0; i < d.size(); ++i)
    if (d[i] == kUnreachable) res.impossible_inputs.push_back(i);
  res.copy_possible = res.impossible_inputs.empty();
  if (!res.copy_possible) return false;
  res.copy_distance = *std::max_element(d.begin(), d.end());
  res.min_distance = *std::min_element(d.begin(), d.end());
  for (auto x : d) res.distance_sum += x;
  if (res.translation_invariant) res.prop48_bound = res.copy_distance;
  return true;
}

void pick_lower_bound(CongestionResult& res) {
  for (auto& b : res.lower_bounds)
    if (b.value && *b.value > res.lower_bound) {
      res.lower_bound = *b.value;
      res.lower_bound_name = b.name;
    }
}

NamedBound cut_lower_bound(const CopyGraph& g, std::uint64_t max_edges, std::uint64_t mem_limit,
                           const std::string& paths, CongestionResult& res) {
  NamedBound b{"cut", std::nullopt, ""};
  const auto fe = copy_cut_flow_edges(g);
  if (fe > max_edges) {
    b.note = "not computed: the flow network would have " + std::to_string(fe) + " edges (limit " +
             std::to_string(max_edges) + ")";
    return b;
  }
  check_memory(copy_cut_bytes(g), mem_limit, "the max-flow network of the cut bound");
  const pos_t kappa = copy_cut_kappa(g);
  res.kappa = kappa;
  if (kappa == 0)
    throw RuntimeFailure("internal error: max-flow found no input-output path although the copy is possible");
  b.value = static_cast<std::uint32_t>((static_cast<std::uint64_t>(g.N) + kappa - 1) / kappa);
  b.note = "kappa = " + std::to_string(kappa) + " " + paths;
  return b;
}

void settle_congestion_verdict(CongestionResult& res, bool optimal_by_upper_bound) {
  for (auto& s : res.routings)
    if (!res.congestion || s.congestion < *res.congestion) {
      res.congestion = s.congestion;
      res.best_routing = s.name;
    }
  res.upper_bound = res.congestion;
  if (res.prop48_bound && (!res.upper_bound || *res.prop48_bound < *res.upper_bound))
    res.upper_bound = res.prop48_bound;
  for (auto& s : res.routings)
    if (s.congestion < res.lower_bound)
      throw RuntimeFailure("internal error: routing '" + s.name + "' has congestion " +
                           std::to_string(s.congestion) + " below the certified lower bound " +
                           std::to_string(res.lower_bound) + " (" + res.lower_bound_name + ")");
  const auto& meets = optimal_by_upper_bound ? res.upper_bound : res.congestion;
  res.optimal = meets && *meets == res.lower_bound;
}

CongestionResult analyse_congestion(const std::string& spec, std::uint64_t N64,
                                    const CongestionOptions& opt) {
  CongestionResult res = analyse_congestion(parse_pattern_spec(spec, false), N64, opt);
  res.pattern = spec;  // as given
  return res;
}

CongestionResult analyse_congestion(const PatternSpec& tree, std::uint64_t N64,
                                    const CongestionOptions& opt) {
  const std::string& spec = tree.text;
  const bool is_mtx = tree.has_matrix();  // N from the files when not given
  if (N64 < 1 && !is_mtx) throw UsageError("--n (the copy length N) must be >= 1");
  if (N64 > 0x7fffffffULL)
    throw UsageError("--n (the copy length N) must be below 2^31 (the pattern has 2N tokens)");
  if (!is_mtx) check_pattern_memory(tree, 2 * N64, opt.mem_limit, "pattern " + spec, {.n_name = "2N"});
  Pattern p = make_pattern(tree, is_mtx ? 0 : 2 * N64);
  if (is_mtx && N64 == 0) {  // N from the file: n = 2N
    if (p.n % 2 != 0)
      throw UsageError("pattern '" + spec + "' has an odd number of tokens (" + std::to_string(p.n) +
                       "); the copy task needs 2N tokens");
    N64 = p.n / 2;
  }
  const std::uint64_t n2 = 2 * N64;
  if (is_mtx && p.n != n2)
    throw UsageError("pattern '" + spec + "' has n = " + std::to_string(p.n) +
                     " tokens, but the copy task of length " + std::to_string(N64) +
                     " needs 2N = " + std::to_string(n2) + "; use --n " + std::to_string(p.n / 2) +
                     (p.n % 2 ? " (and an even n)" : ""));
  const pos_t N = static_cast<pos_t>(N64);
  CongestionResult res;
  res.pattern = spec;
  res.N = N;
  if (!p.translation_invariant())
    check_memory(comm_graph_bytes(p), opt.mem_limit,
                 "the layered DAG of " + spec + " at 2N = " + std::to_string(n2));
  CopyGraph g = make_copy_graph(std::move(p), N);
  res.translation_invariant = g.ti;

  // Distances (and the copy's possibility).
  const bool ti_shared = g.ti && !g.explicit_a();
  std::vector<std::uint32_t> delta;
  std::vector<std::uint32_t> d;
  if (ti_shared) {
    delta = offset_distances(g.b_off, N);
    d.assign(N, delta[N]);
  } else {
    const auto work = per_input_search_work(g);
    if (work > 40 * opt.work_budget)
      throw RuntimeFailure("the copy distances of " + spec + " at N = " + std::to_string(N) +
                           " need one BFS per input, about " + std::to_string(work) +
                           " edge visits; use a smaller --n");
    d = copy_distances(g);
  }
  if (!record_copy_distances(res, d)) {
    res.impossible_reason = impossible_reason(g, res.impossible_inputs);
    return res;
  }

  // Lower bounds.
  throw_if_cancelled();  // between stages (Python's Ctrl-C; each stage polls inside too)
  NamedBound b47{"prop47", prop47_bound(d), "ceil(sum_i (d(i+N,i) + 1) / 2N)"};
  const NamedBound bcut = cut_lower_bound(
      g, opt.cut_max_edges, opt.mem_limit,
      std::string("position-disjoint input-output paths") +
          (g.explicit_a() && !g.a_only ? " (relaxed: A edges allowed out of every input position)" : ""),
      res);
  NamedBound blp{"lp", std::nullopt, "not requested (--lp)"};
  NamedBound bip{"ip", std::nullopt, "not requested (--lp)"};
  std::optional<Routing> exact_routing;
  if (opt.lp) {
    auto ip = lp_lower_bounds(
        opt, per_input_search_work(g), [&] { return lp_variables(g); },
        [&](bool integer, double tl) { return lp_congestion(g, integer, tl); }, blp, bip, res.lp_value);
    if (ip) exact_routing = std::move(ip->routing);
  }
  res.lower_bounds = {b47, bcut, blp, bip};
  pick_lower_bound(res);

  // Routings.
  throw_if_cancelled();  // between stages (Python's Ctrl-C; each stage polls inside too)
  detail::RoutingLog log(
      res, opt.keep_paths ? &res.paths : nullptr, [&](const Routing& r) { return check_routing(g, r); },
      opt.routings_forced);
  const std::uint64_t path_mem = static_cast<std::uint64_t>(N) * (res.copy_distance + 1) * sizeof(pos_t) * 2;
  if (opt.shift &&
      log.shift_runs(g.ti, "Prop. 4.8 needs a translation-invariant pattern", path_mem, opt.mem_limit)) {
    Timer t;
    Routing r = shift_routing(g, delta);
    const double secs = t.s();
    log.record(std::move(r), secs);
  }
  if (opt.random) {
    const std::uint64_t work =
        ti_shared ? static_cast<std::uint64_t>(N) * g.b_off.size() : per_input_search_work(g);
    if (log.random_runs(work > opt.work_budget || path_mem > (1ULL << 31), work)) {
      if (ti_shared) check_memory(path_mem, opt.mem_limit, "the random routing's paths");
      Timer t;
      Routing r = random_routing(g, opt.seed, delta);
      const double secs = t.s();
      log.record(std::move(r), secs);
    }
  }
  if (exact_routing) log.record(std::move(*exact_routing), 0);
  if (opt.minmax) {
    if (log.minmax_runs(minmax_round_work(g, delta), opt.work_budget)) {
      auto& start = log.start();
      if (!start) {  // no routing yet (e.g. only minmax asked for): start from a shortest-path routing
        Routing r = g.ti && !g.explicit_a() ? shift_routing(g, delta) : random_routing(g, opt.seed, delta);
        check_routing(g, r);
        start = std::move(r);
      }
      MinmaxOptions mo = opt.minmax_options;
      mo.seed = opt.seed;
      mo.lower_bound = std::max<std::uint32_t>(1, res.lower_bound);
      Timer t;
      Routing r = minmax_routing(g, *start, mo, delta);
      const double secs = t.s();
      log.record(std::move(r), secs, false);
    }
  }

  settle_congestion_verdict(res, false);
  return res;
}

}  // namespace mixgraph
