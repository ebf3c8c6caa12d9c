// The cut-rank and routing checks of `mixgraph validate` (validate_extra.hpp): the solve engine's M and
// (min,+) distances against the rank analysis (rank.hpp) and the copy routings (routing.hpp).
#include "mixgraph/validate_extra.hpp"

#include <omp.h>

#include <algorithm>
#include <sstream>

#include "core/text_util.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph {

namespace {

using detail::sci;

std::string num(std::uint64_t v) {
  return std::to_string(v);
}

std::string dist_text(std::uint32_t d) {
  return d == kUnreachable ? "inf" : std::to_string(d);
}

Csr leading_rows(const Csr& c, pos_t m) {
  if (c.ptr.empty()) return c;
  Csr t;
  t.n = m;
  t.ptr.assign(c.ptr.begin(), c.ptr.begin() + m + 1);
  t.idx.assign(c.idx.begin(), c.idx.begin() + static_cast<std::ptrdiff_t>(t.ptr.back()));
  if (c.has_values()) t.val.assign(c.val.begin(), c.val.begin() + static_cast<std::ptrdiff_t>(t.ptr.back()));
  return t;
}

template <class V>
std::vector<V> below(const std::vector<V>& v, std::uint64_t m) {
  std::vector<V> out;
  for (V x : v)
    if (static_cast<std::uint64_t>(x) < m) out.push_back(x);
  return out;
}

// "the first 512 of 4096 positions" / "all 200 positions"
std::string positions_text(pos_t m, pos_t n) {
  return m == n ? "all " + num(n) + " positions" : "the first " + num(m) + " of " + num(n) + " positions";
}

}  // namespace

Pattern leading_pattern(const Pattern& p, pos_t m) {
  if (m < 1 || m > p.n)
    throw UsageError("leading_pattern: " + num(m) + " positions is outside 1.." + num(p.n));
  if (m == p.n) return p;
  Pattern q = p;
  q.n = m;
  q.f_values = below(p.f_values, m);
  if (p.translation_invariant()) {
    q.b_offsets = below(p.b_offsets, m);
    q.a_offsets = below(p.a_offsets, m);
  } else {
    q.b = leading_rows(p.b, m);
    q.a = leading_rows(p.a, m);
  }
  return q;
}

std::vector<double> solved_operator(const Pattern& p, const WeightedPattern& w, const ValidateOptions& o,
                                    std::string& kernel) {
  const pos_t m = p.n;
  check_memory(16ull * m * m, 0, "the solved operator M at n = " + num(m));
  const MixerWeights<double> mw = mixer_weights_from<double>(p, {w});
  std::vector<double> x(std::size_t(m) * m, 0.0), y(std::size_t(m) * m, 0.0);
  for (pos_t i = 0; i < m; ++i) x[std::size_t(i) * m + i] = 1.0;
  if (!o.other_name.empty() && o.other_f64)
    kernel = o.other_f64(mw, x.data(), y.data(), m);
  else
    kernel = solve_mixer(mw, x.data(), y.data(), m, o.threads).kernel;
  return y;
}

std::vector<std::uint32_t> cut_ranks_of_operator(const std::vector<double>& mr, pos_t m,
                                                 const std::vector<pos_t>& cuts, double tol, int threads) {
  std::vector<std::uint32_t> rank(cuts.size(), 0);
  const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(cuts.size()); ++c) {
    const pos_t K = cuts[c];
    Eigen::MatrixXd blk(m - K, K);  // rows K+1..m, columns 1..K (1-indexed)
    for (pos_t i = K; i < m; ++i)
      for (pos_t j = 0; j < K; ++j) blk(i - K, j) = mr[std::size_t(i) * m + j];
    rank[c] = numeric_rank_colpiv(blk, tol);
  }
  return rank;
}

ValidateCheck compare_cut_ranks(const std::vector<std::uint32_t>& solved, const CutRankProfile& prof,
                                const std::string& where) {
  ValidateCheck c;
  c.name = "cut ranks from blocks of the solved M == rank analysis";
  const bool use_flow = prof.flow_done && prof.generic_weights;
  const std::string refs =
      std::string(prof.numeric_done ? "the " + prof.numeric_method + " numeric ranks" : "") +
      (prof.numeric_done && use_flow ? " and " : "") + (use_flow ? "the Menger ranks" : "");
  std::size_t bad = 0;
  std::string first;
  std::uint32_t mx = 0;
  pos_t arg = 0;
  for (std::size_t k = 0; k < prof.cuts.size(); ++k) {
    const std::uint32_t s = k < solved.size() ? solved[k] : 0;
    if (k == 0 || s > mx) {
      mx = s;
      arg = prof.cuts[k];
    }
    const bool ok =
        k < solved.size() && (!prof.numeric_done || prof.numeric[k] == s) && (!use_flow || prof.flow[k] == s);
    if (ok) continue;
    if (bad++ == 0)
      first = "cut K = " + num(prof.cuts[k]) + ": solved M rank " + (k < solved.size() ? num(s) : "missing") +
              (prof.numeric_done ? ", " + prof.numeric_method + " numeric " + num(prof.numeric[k]) : "") +
              (use_flow ? ", Menger " + num(prof.flow[k]) : "");
  }
  if (solved.size() != prof.cuts.size() && bad == 0) {
    bad = 1;
    first = num(solved.size()) + " solved ranks for " + num(prof.cuts.size()) + " cuts";
  }
  c.passed = bad == 0 && (prof.numeric_done || use_flow);
  std::string d = num(prof.cuts.size()) + (prof.cuts.size() == 1 ? " cut on " : " cuts on ") + where;
  if (bad == 0) {
    d += ": equal to " + (refs.empty() ? std::string("nothing (no rank analysis ran)") : refs) +
         "; max rank " + num(mx) + " at cut " + num(arg);
  } else {
    d +=
        ": " + num(bad) + (bad == 1 ? " cut differs" : " cuts differ") + " from " + refs + "; first " + first;
  }
  d += ", tolerance " + sci(prof.tolerance > 0 ? prof.tolerance : default_rank_tolerance(prof.n));
  if (!prof.generic_weights) d += " (weights from the file: not generic, Menger ranks not compared)";
  c.detail = d;
  return c;
}

ValidateCheck check_solved_cut_ranks(const Pattern& p, const ValidateOptions& o,
                                     std::vector<std::string>& kernels) {
  const pos_t m = std::min(p.n, std::max<pos_t>(2, o.rank_max_n));
  const Pattern q = leading_pattern(p, m);
  CutRankParams cp;
  cp.seed = o.seed;
  cp.method = CutRankMethod::Both;
  cp.cuts = spaced_cuts(m, std::max<std::uint64_t>(1, o.rank_cuts));
  const CutRankProfile prof = cut_rank_profile(q, cp);
  // The same weights as the rank analysis (induced_weights: random_weights(seed) or the file's values).
  const InducedWeights iw = induced_weights(q, o.seed);
  std::string kernel;
  const std::vector<double> M = solved_operator(q, iw.w, o, kernel);
  if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) kernels.push_back(kernel);
  // the solved M is floating point: its blocks need a tolerance even when the analysis ranks are exact
  const double tol = prof.tolerance > 0 ? prof.tolerance : default_rank_tolerance(m);
  const auto solved = cut_ranks_of_operator(M, m, prof.cuts, tol, o.threads);
  const std::string backend = !o.other_name.empty() && o.other_f64 ? o.other_name : "cpu";
  return compare_cut_ranks(solved, prof,
                           positions_text(m, p.n) + " (M solved on " + backend + " by " + kernel +
                               " from d = " + num(m) + " impulse columns)");
}

SolvedCopyDistances solved_copy_distances(const Pattern& p, int threads, const DistancesHook* hook,
                                          std::string* kernel) {
  SolvedCopyDistances d;
  d.n = p.n;
  check_memory(8ull * p.n * p.n, 0, "the solved distances from every position at n = " + num(p.n));
  std::vector<pos_t> src(p.n);
  for (pos_t i = 0; i < p.n; ++i) src[i] = i;
  SolveStructure s = solve_structure(p);
  auto run = [&](std::vector<std::uint32_t>& out) {
    if (hook && *hook) {
      const std::string k = (*hook)(s, src, out);
      if (kernel) *kernel = k;
    } else {
      out = solve_distances(s, src, threads);
      if (kernel) *kernel = "cpu";
    }
  };
  run(d.first);
  // B hops only: A reduced to its diagonal, so from x_u the walk enters y_u at cost 0 and continues by B.
  if (s.implicit) {
    s.a_offsets = {0};
  } else {
    Csr a;
    a.n = p.n;
    a.ptr.resize(std::size_t(p.n) + 1);
    a.idx.resize(p.n);
    for (pos_t i = 0; i <= p.n; ++i) a.ptr[i] = i;
    for (pos_t i = 0; i < p.n; ++i) a.idx[i] = i;
    s.a = std::move(a);
  }
  s.nnz_a = p.n;
  run(d.later);
  return d;
}

std::string compare_routing_with_distances(const CopyGraph& g, const Routing& r, bool shortest,
                                           const SolvedCopyDistances& d, std::uint64_t* hops) {
  const pos_t N = g.N;
  std::uint64_t h = 0;
  auto path_text = [&](pos_t i) {
    std::string s;
    for (std::uint64_t k = r.ptr[i]; k < r.ptr[i + 1]; ++k)
      s += (s.empty() ? "" : " -> ") + num(r.nodes[k] + 1);
    return s;
  };
  std::string bad;
  if (r.ptr.size() != std::size_t(N) + 1 || r.ptr.back() != r.nodes.size())
    return r.name + ": " + num(r.ptr.empty() ? 0 : r.ptr.size() - 1) + " paths for " + num(N) + " inputs";
  for (pos_t i = 0; i < N && bad.empty(); ++i) {
    const std::uint64_t lo = r.ptr[i], hi = r.ptr[i + 1];
    const std::string who = r.name + " path of input " + num(i + 1) + " (" + path_text(i) + ")";
    if (hi - lo < 2 || r.nodes[lo] != i || r.nodes[hi - 1] != i + N) {
      bad = who + ": does not run from " + num(i + 1) + " to " + num(i + N + 1);
      break;
    }
    for (std::uint64_t k = lo; k + 1 < hi; ++k) {
      const pos_t u = r.nodes[k], v = r.nodes[k + 1];
      ++h;
      if (u >= d.n || v >= d.n || v <= u) {
        bad =
            who + ": hop " + num(u + 1) + " -> " + num(v + 1) + " does not go forward inside 1.." + num(d.n);
        break;
      }
      const std::size_t e = std::size_t(v) * d.n + u;
      const bool first = k == lo;
      const std::uint32_t got = first ? d.first[e] : d.later[e];
      if (got != 1) {
        bad = who + ": hop " + num(u + 1) + " -> " + num(v + 1) + " is no read (solved " +
              (first ? "distance" : "B-only distance") + " " + dist_text(got) + ", not 1)";
        break;
      }
    }
    if (!bad.empty()) break;
    const std::uint64_t len = hi - lo - 1;
    const std::uint32_t sd = d.at(i + N, i);
    if (sd == kUnreachable || len < sd || (shortest && len != sd))
      bad = who + ": " + num(len) + " hops, solved shortest distance " + dist_text(sd) +
            (shortest ? " (the routing claims shortest paths)" : "");
  }
  if (hops) *hops = h;
  return bad;
}

ValidateCheck check_routings_against_distances(const Pattern& p, const ValidateOptions& o) {
  ValidateCheck c;
  c.name = "routing paths valid against the solved (min,+) distances";
  const pos_t N = std::min(p.n, std::max<pos_t>(2, o.routing_max_n)) / 2;
  const pos_t n2 = 2 * N;
  const CopyGraph g = make_copy_graph(leading_pattern(p, n2), N);
  std::string dist_kernel;
  const SolvedCopyDistances sd = solved_copy_distances(
      g.pattern, o.threads, !o.other_name.empty() && o.other_distances ? &o.other_distances : nullptr,
      &dist_kernel);
  const std::string where = "copy length N = " + num(N) + " on " + positions_text(n2, p.n);
  // The routing code's copy distances against the solved ones (and the copy's possibility).
  const std::vector<std::uint32_t> cd = copy_distances(g);
  std::size_t impossible = 0;
  for (pos_t i = 0; i < N; ++i) {
    impossible += cd[i] == kUnreachable;
    if (cd[i] != sd.at(i + N, i)) {
      c.passed = false;
      c.detail = where + ": the routing code's copy distance of input " + num(i + 1) + " is " +
                 dist_text(cd[i]) + ", the solved distance " + dist_text(sd.at(i + N, i));
      return c;
    }
  }
  if (impossible > 0) {
    c.passed = true;
    c.detail = where + ": copy impossible for " + num(impossible) + " of " + num(N) +
               " inputs (the routing code and the solved distances agree); no routing exists to check";
    return c;
  }
  // The routings `mixgraph congestion` builds: shift (translation-invariant), random shortest paths, minmax.
  std::vector<std::pair<Routing, bool>> routings;  // routing, claims shortest paths
  if (g.ti) routings.push_back({shift_routing(g), true});
  routings.push_back({random_routing(g, o.seed), true});
  {
    MinmaxOptions mo;
    mo.seed = o.seed;
    mo.max_rounds = 12;
    mo.max_work = 200'000'000ULL;
    mo.lower_bound = std::max<std::uint32_t>(1, prop47_bound(cd));
    const Routing& start = routings.front().first;
    routings.push_back({minmax_routing(g, start, mo), false});
  }
  std::uint64_t paths = 0, hops = 0;
  std::string names;
  for (const auto& [r, shortest] : routings) {
    std::uint64_t h = 0;
    const std::string bad = compare_routing_with_distances(g, r, shortest, sd, &h);
    if (!bad.empty()) {
      c.passed = false;
      c.detail = where + ": " + bad;
      return c;
    }
    paths += r.ptr.size() - 1;
    hops += h;
    names += (names.empty() ? "" : ", ") + r.name + (shortest ? " (==)" : " (>=)");
  }
  c.passed = true;
  c.detail = where + ": " + num(paths) + " paths, " + num(hops) + " hops of the " + names +
             " routings: every hop a read (solved distance 1), lengths vs the solved shortest distances "
             "(== / >=); copy distances equal (distances solved by " +
             dist_kernel + ")";
  return c;
}

void add_rank_and_routing_checks(const Pattern& p, const ValidateOptions& o, ValidateResult& r) {
  if (p.n < 2) return;  // no cut, no copy task
  r.checks.push_back(check_solved_cut_ranks(p, o, r.kernels));
  r.checks.push_back(check_routings_against_distances(p, o));
}

}  // namespace mixgraph
