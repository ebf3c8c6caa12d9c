// LP relaxation and exact integer program of node-capacitated multicommodity copy routing (GLPK).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "congestion/copy_lp.hpp"
#include "mixgraph/congestion.hpp"

namespace mixgraph {

namespace {

/// Calls fn(u, v) for every edge of input s's window that lies on some s -> s+N path in the layered DAG.
/// `fwd`/`bwd` are scratch vectors of size n, zero on entry and on exit.
template <class F>
void for_each_commodity_edge(const CopyGraph& g, pos_t s, std::vector<std::uint8_t>& fwd,
                             std::vector<std::uint8_t>& bwd, F&& fn) {
  const pos_t t = s + g.N;
  g.for_each_first(s, [&](pos_t v) {
    if (v <= t) fwd[v] = 1;
  });
  for (pos_t v = s + 1; v <= t; ++v) {
    if (fwd[v]) continue;
    g.for_each_in(v, [&](pos_t u) {
      if (u > s && fwd[u]) fwd[v] = 1;
    });
  }
  bwd[t] = 1;
  for (pos_t v = t; v-- > s + 1;) {
    g.for_each_out(v, [&](pos_t w) {
      if (w <= t && bwd[w]) bwd[v] = 1;
    });
  }
  auto ok = [&](pos_t v) { return v == t || (fwd[v] && bwd[v]); };
  if (fwd[t]) {
    g.for_each_first(s, [&](pos_t v) {
      if (v <= t && ok(v)) fn(s, v);
    });
    for (pos_t u = s + 1; u < t; ++u) {
      if (!(fwd[u] && bwd[u])) continue;
      g.for_each_out(u, [&](pos_t w) {
        if (w <= t && ok(w)) fn(u, w);
      });
    }
  }
  for (pos_t v = s; v <= t; ++v) fwd[v] = bwd[v] = 0;
}

}  // namespace

std::uint64_t lp_variables(const CopyGraph& g) {
  std::vector<std::uint8_t> fwd(g.n, 0), bwd(g.n, 0);
  std::uint64_t e = 0;
  for (pos_t s = 0; s < g.N; ++s) for_each_commodity_edge(g, s, fwd, bwd, [&](pos_t, pos_t) { ++e; });
  return e + 1;
}

bool lp_built_in() {
#ifdef MIXGRAPH_HAVE_GLPK
  return true;
#else
  return false;
#endif
}

LpResult lp_congestion(const CopyGraph& g, bool integer, double time_limit_s) {
  CopyLp lp;
  lp.n = g.n;
  {
    std::vector<std::uint8_t> fwd(g.n, 0), bwd(g.n, 0);
    for (pos_t s = 0; s < g.N; ++s) {
      lp.src.push_back(s);
      lp.dst.push_back(s + g.N);
      for_each_commodity_edge(g, s, fwd, bwd, [&](pos_t u, pos_t v) {
        lp.eu.push_back(u);
        lp.ev.push_back(v);
      });
      lp.eptr.push_back(lp.eu.size());
    }
  }
  CopyLpPaths paths;
  LpResult r = solve_copy_lp(lp, integer, time_limit_s, &paths);
  if (r.solved && integer) {
    Routing& ro = r.routing;
    ro.name = "exact";
    ro.note = "GLPK integer optimum";
    ro.ptr = paths.ptr;
    for (auto x : paths.nodes) ro.nodes.push_back(static_cast<pos_t>(x));
  }
  return r;
}

std::optional<LpResult> lp_lower_bounds(const CongestionOptions& opt, std::uint64_t work,
                                        const std::function<std::uint64_t()>& variables,
                                        const std::function<LpResult(bool, double)>& solve, NamedBound& blp,
                                        NamedBound& bip, std::optional<double>& lp_value) {
  if (!lp_built_in()) {
    blp.note = bip.note = "not built in (GLPK)";
    return std::nullopt;
  }
  const std::uint64_t vars = work > 40 * opt.lp_max_variables ? work : variables();
  if (vars > opt.lp_max_variables) {
    blp.note = bip.note = "not computed: about " + std::to_string(vars) + " variables (limit " +
                          std::to_string(opt.lp_max_variables) + ")";
    return std::nullopt;
  }
  auto lp = solve(false, opt.lp_time_limit_s);
  lp_value = lp.solved ? std::optional<double>(lp.value) : std::nullopt;
  if (lp.solved) {
    blp.value = lp.bound;
    blp.note = "LP value " + std::to_string(lp.value) + ", dual bound " + std::to_string(lp.dual_value) +
               " certified as ceil(dual - 1e-6) by weak duality; " + std::to_string(lp.variables) +
               " variables, " + std::to_string(lp.constraints) + " constraints";
  } else {
    blp.note = lp.status;
  }
  if (vars > opt.ip_max_variables) {
    bip.note = "not tried: " + std::to_string(vars) + " variables > " + std::to_string(opt.ip_max_variables);
    return std::nullopt;
  }
  auto ip = solve(true, opt.ip_time_limit_s);
  if (!ip.solved) {
    bip.note = ip.status;
    return std::nullopt;
  }
  bip.value = ip.bound;
  bip.note = "exact integer optimum (GLPK branch and bound)";
  return ip;
}

}  // namespace mixgraph
