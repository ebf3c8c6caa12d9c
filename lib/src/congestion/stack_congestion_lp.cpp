// The LP relaxation and integer program of copy routing on the stacked graph (docs/math.md §3, "Copy task
// across layers"): one commodity per input over the copies 0..L of its window, loads counted per position.
#include <algorithm>
#include <utility>
#include <vector>

#include "congestion/copy_lp.hpp"
#include "mixgraph/stack_congestion.hpp"

namespace mixgraph {

namespace {

/// Calls fn(tail, head) (node = copy * n + position) for every edge of the stacked graph on some path
/// (0, i) -> (L, i + N), tails ascending. fwd/bwd: scratch of (L + 1) (N + 1) entries.
template <class F>
void for_each_stack_commodity_edge(const Stack& s, pos_t N, pos_t i, std::vector<std::uint8_t>& fwd,
                                   std::vector<std::uint8_t>& bwd, F&& fn) {
  const std::size_t L = s.depth(), W = static_cast<std::size_t>(N) + 1;
  const std::uint64_t n = s.n;
  std::fill(fwd.begin(), fwd.end(), 0);
  std::fill(bwd.begin(), bwd.end(), 0);
  auto at = [&](std::size_t l, pos_t v) { return l * W + (v - i); };
  fwd[0] = 1;  // copy 0 has no B edges: only (0, i) is reached there
  for (std::size_t l = 1; l <= L; ++l) {
    const Pattern& p = *s.layers[l - 1];
    for (pos_t v = i; v <= i + N; ++v) {
      std::uint8_t f = 0;
      for_each_a_read(p, v, [&](pos_t u) { f |= static_cast<std::uint8_t>(u >= i && fwd[at(l - 1, u)]); });
      for_each_b_read(p, v, [&](pos_t u) { f |= static_cast<std::uint8_t>(u >= i && fwd[at(l, u)]); });
      fwd[at(l, v)] = f;
    }
  }
  bwd[at(L, i + N)] = 1;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;
  for (std::size_t l = L; l >= 1; --l) {  // node ids descending: every head before its tails
    const Pattern& p = *s.layers[l - 1];
    for (pos_t v = i + N + 1; v-- > i;) {
      if (!bwd[at(l, v)] || !fwd[at(l, v)]) continue;
      const std::uint64_t head = l * n + v;
      for_each_a_read(p, v, [&](pos_t u) {
        if (u < i || !fwd[at(l - 1, u)]) return;
        bwd[at(l - 1, u)] = 1;
        edges.push_back({(l - 1) * n + u, head});
      });
      for_each_b_read(p, v, [&](pos_t u) {
        if (u < i || !fwd[at(l, u)]) return;
        bwd[at(l, u)] = 1;
        edges.push_back({l * n + u, head});
      });
    }
  }
  std::sort(edges.begin(), edges.end());
  for (auto& [u, v] : edges) fn(u, v);
}

}  // namespace

std::uint64_t stack_lp_variables(const Stack& s, pos_t N) {
  const std::size_t cells = (s.depth() + 1) * (static_cast<std::size_t>(N) + 1);
  std::vector<std::uint8_t> fwd(cells), bwd(cells);
  std::uint64_t e = 0;
  for (pos_t i = 0; i < N; ++i)
    for_each_stack_commodity_edge(s, N, i, fwd, bwd, [&](std::uint64_t, std::uint64_t) { ++e; });
  return e + 1;
}

StackLpResult stack_lp_congestion(const Stack& s, pos_t N, bool integer, double time_limit_s) {
  CopyLp lp;
  lp.n = s.n;
  const std::uint64_t L = s.depth();
  {
    const std::size_t cells = (L + 1) * (static_cast<std::size_t>(N) + 1);
    std::vector<std::uint8_t> fwd(cells), bwd(cells);
    for (pos_t i = 0; i < N; ++i) {
      lp.src.push_back(i);
      lp.dst.push_back(L * s.n + i + N);
      for_each_stack_commodity_edge(s, N, i, fwd, bwd, [&](std::uint64_t u, std::uint64_t v) {
        lp.eu.push_back(u);
        lp.ev.push_back(v);
      });
      lp.eptr.push_back(lp.eu.size());
    }
  }
  CopyLpPaths paths;
  StackLpResult r;
  r.lp = solve_copy_lp(lp, integer, time_limit_s, &paths);
  if (r.lp.solved && integer) {
    r.routing.name = "exact";
    r.routing.note = "GLPK integer optimum";
    r.routing.ptr = paths.ptr;
    for (auto x : paths.nodes) {
      r.routing.nodes.push_back(static_cast<pos_t>(x % s.n));
      r.routing.copies.push_back(static_cast<std::uint16_t>(x / s.n));
    }
  }
  return r;
}

}  // namespace mixgraph
