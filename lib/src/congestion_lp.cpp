// LP relaxation and exact integer program of node-capacitated multicommodity copy routing (GLPK).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"

#ifdef MIXGRAPH_HAVE_GLPK
#include <glpk.h>
#endif

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
  LpResult r;
  r.integer = integer;
#ifndef MIXGRAPH_HAVE_GLPK
  (void)g;
  (void)time_limit_s;
  r.status = "not built in (configure with GLPK: libglpk-dev)";
  return r;
#else
  r.built_in = true;
  const auto t0 = std::chrono::steady_clock::now();
  const pos_t N = g.N, n = g.n;
  // Columns: edge variables then C. Rows: n load rows, then per input one source row and one
  // conservation row per internal position.
  std::vector<pos_t> eu, ev;           // edges, per input in order
  std::vector<std::uint64_t> eptr{0};  // input -> first edge
  {
    std::vector<std::uint8_t> fwd(n, 0), bwd(n, 0);
    for (pos_t s = 0; s < N; ++s) {
      for_each_commodity_edge(g, s, fwd, bwd, [&](pos_t u, pos_t v) {
        eu.push_back(u);
        ev.push_back(v);
      });
      eptr.push_back(eu.size());
    }
  }
  const std::uint64_t E = eu.size();
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  glp_term_out(GLP_OFF);
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  const int Ccol = static_cast<int>(E) + 1;
  glp_add_cols(lp, Ccol);
  for (std::uint64_t k = 0; k < E; ++k) {
    glp_set_col_bnds(lp, static_cast<int>(k) + 1, GLP_DB, 0.0, 1.0);
    if (integer) glp_set_col_kind(lp, static_cast<int>(k) + 1, GLP_BV);
  }
  glp_set_col_bnds(lp, Ccol, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(lp, Ccol, 1.0);
  if (integer) glp_set_col_kind(lp, Ccol, GLP_IV);
  glp_add_rows(lp, static_cast<int>(n));
  for (pos_t v = 0; v < n; ++v) {  // load(v) - C <= -1 (v is the end point of exactly one input)
    glp_set_row_bnds(lp, static_cast<int>(v) + 1, GLP_UP, 0.0, -1.0);
    ia.push_back(static_cast<int>(v) + 1);
    ja.push_back(Ccol);
    ar.push_back(-1.0);
  }
  std::vector<int> row_of(n, 0);
  for (pos_t s = 0; s < N; ++s) {
    const pos_t t = s + N;
    const std::uint64_t b = eptr[s], e = eptr[s + 1];
    // rows: source, then internal nodes in order of appearance
    int src_row = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, src_row, GLP_FX, 1.0, 1.0);
    for (std::uint64_t k = b; k < e; ++k)
      for (pos_t v : {eu[k], ev[k]})
        if (v != s && v != t && row_of[v] == 0) {
          row_of[v] = glp_add_rows(lp, 1);
          glp_set_row_bnds(lp, row_of[v], GLP_FX, 0.0, 0.0);
        }
    for (std::uint64_t k = b; k < e; ++k) {
      const int col = static_cast<int>(k) + 1;
      const pos_t u = eu[k], v = ev[k];
      ia.push_back(u == s ? src_row : row_of[u]);  // out of u: -1 (source row: +1 = total out)
      ja.push_back(col);
      ar.push_back(u == s ? 1.0 : -1.0);
      if (v != t) {
        ia.push_back(row_of[v]);  // into v: +1
        ja.push_back(col);
        ar.push_back(1.0);
        ia.push_back(static_cast<int>(v) + 1);  // through-flow of v
        ja.push_back(col);
        ar.push_back(1.0);
      }
    }
    for (std::uint64_t k = b; k < e; ++k) row_of[eu[k]] = row_of[ev[k]] = 0;
  }
  glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  r.variables = E + 1;
  r.constraints = static_cast<std::uint64_t>(glp_get_num_rows(lp));
  const int tm = time_limit_s > 0 ? static_cast<int>(std::min(time_limit_s * 1000.0, 2.0e9)) : INT32_MAX;
  int rc = 0;
  bool ok = false, ipt = false;
  if (!integer) {  // interior point: several times faster than simplex on these LPs
    glp_iptcp iptcp;
    glp_init_iptcp(&iptcp);
    rc = glp_interior(lp, &iptcp);
    ok = ipt = rc == 0 && glp_ipt_status(lp) == GLP_OPT;
  }
  if (!ok) {
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.presolve = GLP_ON;
    smcp.tm_lim = tm;
    smcp.meth = GLP_DUALP;
    rc = glp_simplex(lp, &smcp);
    ok = rc == 0 && glp_get_status(lp) == GLP_OPT;
  }
  if (!ok) {
    r.status = rc == GLP_ETMLIM ? "LP time limit reached"
                                : "LP not solved (glp_simplex rc " + std::to_string(rc) + ")";
    glp_delete_prob(lp);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  if (!integer) {
    r.value = ipt ? glp_ipt_obj_val(lp) : glp_get_obj_val(lp);
    // Certify through the dual: for any weights y >= 0 on positions, every routing has
    // C * sum_v y_v >= sum_v y_v load_v = sum_i y(p_i) >= sum_i min_p y(p), so
    // C >= sum_i min_p y(p) / sum_v y_v (weak duality), whatever the solver's accuracy.
    std::vector<double> y(n, 0.0);
    double ysum = 0;
    for (pos_t v = 0; v < n; ++v) {
      const double dual =
          ipt ? glp_ipt_row_dual(lp, static_cast<int>(v) + 1) : glp_get_row_dual(lp, static_cast<int>(v) + 1);
      y[v] = dual < 0 ? -dual : 0.0;
      ysum += y[v];
    }
    double lb = 0;
    if (ysum > 0) {
      std::vector<double> dist(n, std::numeric_limits<double>::infinity());
      for (pos_t s = 0; s < N; ++s) {
        dist[s] = y[s];
        for (std::uint64_t k = eptr[s]; k < eptr[s + 1]; ++k)  // tails ascending: a topological order
          dist[ev[k]] = std::min(dist[ev[k]], dist[eu[k]] + y[ev[k]]);
        lb += dist[s + N];
        for (std::uint64_t k = eptr[s]; k < eptr[s + 1]; ++k)
          dist[eu[k]] = dist[ev[k]] = std::numeric_limits<double>::infinity();
      }
      lb /= ysum;
    }
    r.dual_value = lb;
    r.bound = static_cast<std::uint32_t>(std::max(1.0, std::ceil(lb - 1e-6)));
    r.solved = true;
    r.status = std::string("optimal (") + (ipt ? "interior point" : "simplex") + ")";
  } else {
    glp_iocp iocp;
    glp_init_iocp(&iocp);
    iocp.presolve = GLP_OFF;  // the LP above is already optimal
    iocp.tm_lim = tm;
    rc = glp_intopt(lp, &iocp);
    if (rc == 0 && glp_mip_status(lp) == GLP_OPT) {
      r.value = glp_mip_obj_val(lp);
      r.bound = static_cast<std::uint32_t>(std::llround(r.value));
      r.solved = true;
      r.status = "integer optimum proved";
      // The optimal routing: follow the chosen edges.
      Routing& ro = r.routing;
      ro.name = "exact";
      ro.note = "GLPK integer optimum";
      ro.ptr.push_back(0);
      for (pos_t s = 0; s < N; ++s) {
        pos_t cur = s;
        ro.nodes.push_back(s);
        while (cur != s + N) {
          pos_t next = cur;
          for (std::uint64_t k = eptr[s]; k < eptr[s + 1]; ++k)
            if (eu[k] == cur && glp_mip_col_val(lp, static_cast<int>(k) + 1) > 0.5) {
              next = ev[k];
              break;
            }
          if (next == cur) break;  // malformed: the checker will refuse it
          cur = next;
          ro.nodes.push_back(cur);
        }
        ro.ptr.push_back(ro.nodes.size());
      }
    } else {
      r.status = rc == GLP_ETMLIM || glp_mip_status(lp) == GLP_FEAS ? "integer program: time limit reached"
                                                                    : "integer program not solved";
    }
  }
  glp_delete_prob(lp);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
#endif
}

}  // namespace mixgraph
