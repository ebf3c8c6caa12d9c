// GLPK model of node-capacitated multicommodity copy routing, shared by one layer and stacks.
#include "congestion/copy_lp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#ifdef MIXGRAPH_HAVE_GLPK
#include <glpk.h>
#endif

namespace mixgraph {

LpResult solve_copy_lp(const CopyLp& lp_in, bool integer, double time_limit_s, CopyLpPaths* paths) {
  LpResult r;
  r.integer = integer;
#ifndef MIXGRAPH_HAVE_GLPK
  (void)lp_in;
  (void)time_limit_s;
  (void)paths;
  r.status = "not built in (configure with GLPK: libglpk-dev)";
  return r;
#else
  r.built_in = true;
  const auto t0 = std::chrono::steady_clock::now();
  const pos_t n = lp_in.n;
  const std::size_t K = lp_in.src.size();
  const auto& eu = lp_in.eu;
  const auto& ev = lp_in.ev;
  const auto& eptr = lp_in.eptr;
  auto pos = [&](std::uint64_t x) { return static_cast<pos_t>(x % n); };
  // Per commodity, its nodes in ascending order: local indices for rows and the dual's shortest paths.
  std::vector<std::vector<std::uint64_t> > nodes(K);
  for (std::size_t k = 0; k < K; ++k) {
    auto& nd = nodes[k];
    nd.push_back(lp_in.src[k]);
    nd.push_back(lp_in.dst[k]);
    for (std::uint64_t e = eptr[k]; e < eptr[k + 1]; ++e) {
      nd.push_back(eu[e]);
      nd.push_back(ev[e]);
    }
    std::sort(nd.begin(), nd.end());
    nd.erase(std::unique(nd.begin(), nd.end()), nd.end());
  }
  auto local = [&](std::size_t k, std::uint64_t x) {
    return static_cast<std::size_t>(std::lower_bound(nodes[k].begin(), nodes[k].end(), x) - nodes[k].begin());
  };
  const std::uint64_t E = eu.size();
  // Columns: edge variables then C. Rows: n load rows, then per input one source row and one
  // conservation row per internal node.
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
  std::vector<int> row_of;
  for (std::size_t c = 0; c < K; ++c) {
    const std::uint64_t s = lp_in.src[c], t = lp_in.dst[c];
    const std::uint64_t b = eptr[c], e = eptr[c + 1];
    row_of.assign(nodes[c].size(), 0);
    // rows: source, then internal nodes in order of appearance
    int src_row = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, src_row, GLP_FX, 1.0, 1.0);
    for (std::uint64_t k = b; k < e; ++k)
      for (std::uint64_t v : {eu[k], ev[k]}) {
        const std::size_t lv = local(c, v);
        if (v != s && v != t && row_of[lv] == 0) {
          row_of[lv] = glp_add_rows(lp, 1);
          glp_set_row_bnds(lp, row_of[lv], GLP_FX, 0.0, 0.0);
        }
      }
    for (std::uint64_t k = b; k < e; ++k) {
      const int col = static_cast<int>(k) + 1;
      const std::uint64_t u = eu[k], v = ev[k];
      ia.push_back(u == s ? src_row : row_of[local(c, u)]);  // out of u: -1 (source row: +1 = total out)
      ja.push_back(col);
      ar.push_back(u == s ? 1.0 : -1.0);
      if (v != t) {
        ia.push_back(row_of[local(c, v)]);  // into v: +1
        ja.push_back(col);
        ar.push_back(1.0);
      }
      if (pos(u) != pos(v) && pos(v) != pos(t)) {
        ia.push_back(static_cast<int>(pos(v)) + 1);  // through-flow of v's position
        ja.push_back(col);
        ar.push_back(1.0);
      }
    }
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
      std::vector<double> dist;
      for (std::size_t c = 0; c < K; ++c) {
        dist.assign(nodes[c].size(), std::numeric_limits<double>::infinity());
        dist[local(c, lp_in.src[c])] = y[pos(lp_in.src[c])];
        for (std::uint64_t k = eptr[c]; k < eptr[c + 1]; ++k) {  // tails in a topological order
          const std::uint64_t u = eu[k], v = ev[k];
          const double w = pos(u) != pos(v) ? y[pos(v)] : 0.0;
          double& dv = dist[local(c, v)];
          dv = std::min(dv, dist[local(c, u)] + w);
        }
        lb += dist[local(c, lp_in.dst[c])];
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
      if (paths) {  // the optimal routing: follow the chosen edges
        for (std::size_t c = 0; c < K; ++c) {
          std::uint64_t cur = lp_in.src[c];
          paths->nodes.push_back(cur);
          while (cur != lp_in.dst[c]) {
            std::uint64_t next = cur;
            for (std::uint64_t k = eptr[c]; k < eptr[c + 1]; ++k)
              if (eu[k] == cur && glp_mip_col_val(lp, static_cast<int>(k) + 1) > 0.5) {
                next = ev[k];
                break;
              }
            if (next == cur) break;  // malformed: the checker will refuse it
            cur = next;
            paths->nodes.push_back(cur);
          }
          paths->ptr.push_back(paths->nodes.size());
        }
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
