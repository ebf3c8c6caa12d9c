// validate_solve (validate.hpp): every reference here is independent of the fast solve engine.
#include "mixgraph/validate.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "claims/bfs_boost.hpp"
#include "core/text_util.hpp"
#include "mixgraph/commgraph.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/validate_extra.hpp"
#include "mixgraph/weights.hpp"
#include "pattern/pattern_bruteforce.hpp"

namespace mixgraph {

template <class A, class B>
double relative_frobenius(const A* a, const B* b, std::size_t count) {
  long double num = 0, den = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const long double diff = static_cast<long double>(a[k]) - static_cast<long double>(b[k]);
    num += diff * diff;
    den += static_cast<long double>(b[k]) * static_cast<long double>(b[k]);
  }
  if (!std::isfinite(static_cast<double>(num))) return INFINITY;
  return den > 0 ? static_cast<double>(std::sqrt(num / den)) : static_cast<double>(std::sqrt(num));
}
template double relative_frobenius<double, double>(const double*, const double*, std::size_t);
template double relative_frobenius<float, double>(const float*, const double*, std::size_t);

namespace {

using detail::sci;

/// "" when the library's A and B reads equal the brute-force rows on every position, else the first mismatch.
std::string first_mismatch(const Pattern& p, const BruteforceRows& want) {
  std::vector<pos_t> got;
  for (pos_t i = 0; i < p.n; ++i)
    for (const bool is_a : {false, true}) {
      got.clear();
      auto add = [&](pos_t j) { got.push_back(j); };
      is_a ? for_each_a_read(p, i, add) : for_each_b_read(p, i, add);
      const auto& w = (is_a ? want.a : want.b)[i];
      if (got != w)
        return std::string("first mismatch at position ") + std::to_string(i + 1) + " in " +
               (is_a ? "A" : "B") + ": the library reads " + std::to_string(got.size()) +
               " positions, the definition " + std::to_string(w.size());
    }
  return "";
}

std::vector<double> random_x(pos_t n, std::size_t d, std::uint64_t seed) {
  std::vector<double> x(std::size_t(n) * d);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = 2.0 * hash_uniform(seed, 99, k / d, k % d) - 1.0;
  return x;
}

template <class T>
std::vector<T> cast(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Dense fp64 reference: per head, (I - B_h) Y_h = A_h X_h with Eigen's dense triangular solve.
std::vector<double> dense_reference(const std::vector<WeightedPattern>& heads, pos_t n,
                                    const std::vector<double>& x, std::size_t d) {
  const std::size_t dh = d / heads.size();
  std::vector<double> y(std::size_t(n) * d);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    Eigen::MatrixXd L = Eigen::MatrixXd::Identity(n, n), A = Eigen::MatrixXd::Zero(n, n);
    for (pos_t i = 0; i < n; ++i) {
      for (nnz_t e = heads[h].b.ptr[i]; e < heads[h].b.ptr[i + 1]; ++e)
        L(i, heads[h].b.idx[e]) -= heads[h].b.val[e];
      for (nnz_t e = heads[h].a.ptr[i]; e < heads[h].a.ptr[i + 1]; ++e)
        A(i, heads[h].a.idx[e]) += heads[h].a.val[e];
    }
    Eigen::MatrixXd X(n, dh);
    for (pos_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < dh; ++c) X(i, c) = x[std::size_t(i) * d + h * dh + c];
    const Eigen::MatrixXd Y = L.triangularView<Eigen::UnitLower>().solve(A * X);
    for (pos_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < dh; ++c) y[std::size_t(i) * d + h * dh + c] = Y(i, c);
  }
  return y;
}

std::vector<pos_t> pick_sources(pos_t n, const ValidateOptions& o, bool& all) {
  std::vector<pos_t> s;
  all = n <= o.all_sources_max_n;
  if (all) {
    for (pos_t i = 0; i < n; ++i) s.push_back(i);
  } else {
    s.push_back(0);
    s.push_back(n - 1);
    for (std::size_t k = 0; s.size() < o.sampled_sources; ++k)
      s.push_back(static_cast<pos_t>(hash_uniform(o.seed, 5, k, 0) * n));
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return s;
}

template <class T>
void add_error_check(ValidateResult& r, const std::string& name, double err, double tol) {
  r.checks.push_back(
      {name, err <= tol, "relative Frobenius error " + sci(err) + " (tolerance " + sci(tol) + ")"});
}

template <class T>
void real_checks(const Pattern& p, const ValidateOptions& o, ValidateResult& r, int heads, std::size_t dh,
                 const std::string& label, const std::vector<WeightedPattern>& wps,
                 const std::vector<double>& ref, const std::vector<double>& x) {
  const std::size_t d = std::size_t(heads) * dh;
  const MixerWeights<T> w = mixer_weights_from<T>(p, wps);
  const std::vector<T> xt = cast<T>(x);
  std::vector<T> y(xt.size());
  const SolveInfo info = solve_mixer(w, xt.data(), y.data(), d, o.threads);
  if (std::find(r.kernels.begin(), r.kernels.end(), info.kernel) == r.kernels.end())
    r.kernels.push_back(info.kernel);
  const bool f64 = sizeof(T) == 8;
  const double tol = f64 ? o.tol_f64 : o.tol_f32;
  const std::string prec = f64 ? "fp64" : "fp32";
  add_error_check<T>(r, "cpu " + prec + " " + label + " vs Eq.1 fp64",
                     relative_frobenius(y.data(), ref.data(), ref.size()), tol);
  const SolveHook<T>* hook = nullptr;
  if constexpr (sizeof(T) == 8)
    hook = &o.other_f64;
  else
    hook = &o.other_f32;
  if (!o.other_name.empty() && *hook) {
    std::vector<T> yo(xt.size());
    const std::string kernel = (*hook)(w, xt.data(), yo.data(), d);
    if (std::find(r.kernels.begin(), r.kernels.end(), kernel) == r.kernels.end()) r.kernels.push_back(kernel);
    add_error_check<T>(r, o.other_name + " " + prec + " " + label + " vs Eq.1 fp64",
                       relative_frobenius(yo.data(), ref.data(), ref.size()), tol);
  }
}

}  // namespace

ValidateResult validate_solve(const Pattern& p, const ValidateOptions& o) {
  ValidateResult r;
  const pos_t n = p.n;
  // ---- (+, x): multi-head and per-channel problems ----
  struct Case {
    int heads;
    std::size_t dh;
    std::string label;
  };
  const bool user = !o.user_heads.empty();
  const int user_h = static_cast<int>(o.user_heads.size());
  const std::vector<Case> cases =
      user
          ? std::vector<Case>{{user_h, o.user_dh,
                               std::to_string(user_h) + "x" + std::to_string(o.user_dh) + " " + o.user_label}}
          : std::vector<Case>{
                {o.heads, o.d_h, std::to_string(o.heads) + "x" + std::to_string(o.d_h) + " heads"},
                {o.channel_heads, 1, std::to_string(o.channel_heads) + " per-channel heads"}};
  for (const auto& cs : cases) {
    const std::size_t d = std::size_t(cs.heads) * cs.dh;
    std::vector<WeightedPattern> wps = o.user_heads;
    if (!user)
      for (int h = 0; h < cs.heads; ++h) wps.push_back(random_weights(p, o.seed + std::uint64_t(h)));
    const std::vector<double> x = random_x(n, d, o.seed);
    std::vector<double> ref(x.size());
    solve_recurrence<double>(wps, n, x.data(), ref.data(), d);
    if (n <= o.dense_max_n) {
      const auto dense = dense_reference(wps, n, x, d);
      add_error_check<double>(r, "Eq.1 fp64 " + cs.label + " vs dense Eigen fp64",
                              relative_frobenius(ref.data(), dense.data(), dense.size()), o.tol_f64);
    }
    real_checks<double>(p, o, r, cs.heads, cs.dh, cs.label, wps, ref, x);
    real_checks<float>(p, o, r, cs.heads, cs.dh, cs.label, wps, ref, x);
  }
  // ---- the pattern itself against a construction from its definition (small n) ----
  if (n <= 2048) {
    if (const auto rows = bruteforce_rows(p.spec, n)) {
      const std::string bad = first_mismatch(p, *rows);
      r.checks.push_back(
          {"pattern's A and B reads == construction from the definition (Def. 4.1 / Def. 4.10)", bad.empty(),
           bad.empty() ? "equal on every position 1.." + std::to_string(n) : bad});
    }
  }
  // ---- semirings vs the graph code ----
  const SolveStructure s = solve_structure(p);
  const CommGraph g = build_comm_graph(p);
  bool all = false;
  const std::vector<pos_t> src = pick_sources(n, o, all);
  r.sources = src.size();
  r.all_sources = all;
  const std::string src_text = all ? "all " + std::to_string(src.size()) + " sources"
                                   : std::to_string(src.size()) + " sampled sources";
  // one result set per backend: the CPU engine, then the other backend's hooks (each compared with the
  // same independent references, computed once per source)
  struct SemiringSet {
    std::string tag;  ///< "" for the CPU engine, " (gpu)" for the other backend
    bool has_dist = false, has_reach = false, has_counts = false;
    std::vector<std::uint32_t> dist;
    std::vector<std::uint8_t> reach;
    PathCounts counts;
    std::string dist_bad, reach_bad, count_bad;
  };
  std::vector<SemiringSet> sets(1);
  sets[0].tag = "";
  sets[0].dist = solve_distances(s, src, o.threads);
  sets[0].reach = solve_reachability(s, src, o.threads);
  sets[0].counts = solve_path_counts(s, src, o.threads);
  sets[0].has_dist = sets[0].has_reach = sets[0].has_counts = true;
  if (!o.other_name.empty() && (o.other_distances || o.other_reachability || o.other_path_counts)) {
    SemiringSet& other = sets.emplace_back();
    other.tag = " (" + o.other_name + ")";
    auto note_kernel = [&](const std::string& k) {
      if (std::find(r.kernels.begin(), r.kernels.end(), k) == r.kernels.end()) r.kernels.push_back(k);
    };
    if (o.other_distances) {
      note_kernel(o.other_distances(s, src, other.dist));
      other.has_dist = true;
    }
    if (o.other_reachability) {
      note_kernel(o.other_reachability(s, src, other.reach));
      other.has_reach = true;
    }
    if (o.other_path_counts) {
      note_kernel(o.other_path_counts(s, src, other.counts));
      other.has_counts = true;
    }
    const std::size_t m = std::size_t(n) * src.size();
    if ((other.has_dist && other.dist.size() != m) || (other.has_reach && other.reach.size() != m) ||
        (other.has_counts && (other.counts.dist.size() != m || other.counts.count.size() != m)))
      throw RuntimeFailure("validate: the " + o.other_name + " semiring results have the wrong size");
  }
  auto dist_text = [](std::uint32_t d) { return d == kUnreachable ? std::string("inf") : std::to_string(d); };
  std::vector<std::uint64_t> cnt(n);
  const Csr b_rows = b_csr(p), a_cols = transpose(a_csr(p));
  BoostBfs bfs(b_rows);
  for (std::size_t c = 0; c < src.size(); ++c) {
    // Boost.Graph's breadth_first_search on the layered DAG (A only as the first hop, the diagonal free),
    // independent of mixgraph's own distance code
    const auto ref = bfs.distances(a_cols, src[c]);
    // shortest-path counts in G from the BFS distances (diagonal entry only, as solve_path_counts)
    std::fill(cnt.begin(), cnt.end(), 0);
    const bool has_diag = p.a_mode != AMode::Explicit || ref[src[c]] == 0;
    if (has_diag) cnt[src[c]] = 1;
    std::vector<std::uint32_t> gdist(n, kUnreachable);
    if (has_diag) gdist[src[c]] = 0;
    for (pos_t i = src[c] + 1; i < n; ++i) {
      for (pos_t j : g.in.row(i))
        if (gdist[j] != kUnreachable && (gdist[i] == kUnreachable || gdist[j] + 1 < gdist[i]))
          gdist[i] = gdist[j] + 1;
      if (gdist[i] == kUnreachable) continue;
      std::uint64_t sum = 0;
      for (pos_t j : g.in.row(i))
        if (gdist[j] != kUnreachable && gdist[j] + 1 == gdist[i]) {
          const std::uint64_t t = sum + cnt[j];
          sum = t < sum ? UINT64_MAX : t;
        }
      cnt[i] = sum;
    }
    for (SemiringSet& set : sets) {
      for (pos_t i = 0; i < n; ++i) {
        const std::size_t k = std::size_t(i) * src.size() + c;
        if (set.has_dist && set.dist_bad.empty() && set.dist[k] != ref[i])
          set.dist_bad = "first mismatch at position " + std::to_string(i + 1) + " from source " +
                         std::to_string(src[c] + 1) + ": solve " + dist_text(set.dist[k]) + ", BFS " +
                         dist_text(ref[i]);
        if (set.has_reach && set.reach_bad.empty() && (set.reach[k] != 0) != (ref[i] != kUnreachable))
          set.reach_bad = "first mismatch at position " + std::to_string(i + 1) + " from source " +
                          std::to_string(src[c] + 1);
        if (set.has_counts && set.count_bad.empty() &&
            (set.counts.dist[k] != gdist[i] || set.counts.count[k] != cnt[i]))
          set.count_bad = "first mismatch at position " + std::to_string(i + 1) + " from source " +
                          std::to_string(src[c] + 1) + ": solve (" + std::to_string(set.counts.dist[k]) +
                          ", " + std::to_string(set.counts.count[k]) + "), BFS DP (" +
                          std::to_string(gdist[i]) + ", " + std::to_string(cnt[i]) + ")";
      }
    }
  }
  // transitive closure: bitset rows in position order (all sources), else the BFS reachability above
  std::vector<std::uint64_t> clo;  // row i: the x_j that reach y_i
  const std::size_t words = (std::size_t(n) + 63) / 64;
  if (all) {
    clo.assign(std::size_t(n) * words, 0);
    const Csr a = a_csr(p);
    for (pos_t i = 0; i < n; ++i) {
      std::uint64_t* ri = clo.data() + std::size_t(i) * words;
      for (pos_t j : a.row(i)) ri[j / 64] |= 1ULL << (j % 64);
      for (pos_t j : g.in.row(i)) {
        const std::uint64_t* rj = clo.data() + std::size_t(j) * words;
        for (std::size_t q = 0; q < words; ++q) ri[q] |= rj[q];
      }
    }
  }
  for (const SemiringSet& set : sets) {
    if (set.has_dist)
      r.checks.push_back({"(min,+) distances" + set.tag + " == BFS distances (Boost.Graph)",
                          set.dist_bad.empty(),
                          set.dist_bad.empty() ? "equal for " + src_text : set.dist_bad});
    if (set.has_reach) {
      if (all) {
        std::string bad;
        for (pos_t i = 0; i < n && bad.empty(); ++i)
          for (std::size_t c = 0; c < src.size(); ++c) {
            const bool want = (clo[std::size_t(i) * words + src[c] / 64] >> (src[c] % 64)) & 1ULL;
            if ((set.reach[std::size_t(i) * src.size() + c] != 0) != want) {
              bad = "first mismatch at position " + std::to_string(i + 1) + " from source " +
                    std::to_string(src[c] + 1);
              break;
            }
          }
        r.checks.push_back({"(or,and) reachability" + set.tag + " == transitive closure (bitsets)",
                            bad.empty(), bad.empty() ? "equal for " + src_text : bad});
      } else {
        r.checks.push_back({"(or,and) reachability" + set.tag + " == BFS reachability", set.reach_bad.empty(),
                            set.reach_bad.empty() ? "equal for " + src_text : set.reach_bad});
      }
    }
    if (set.has_counts)
      r.checks.push_back(
          {"(min,+) with counts" + set.tag + " == BFS shortest-path counts in G", set.count_bad.empty(),
           set.count_bad.empty()
               ? "equal for " + src_text + (set.counts.overflow ? " (some counts saturated)" : "")
               : set.count_bad});
  }
  // ---- cut ranks of the solved M and copy routings (validate_extra.cpp) ----
  add_rank_and_routing_checks(p, o, r);
  for (const auto& c : r.checks) r.all_passed = r.all_passed && c.passed;
  return r;
}

}  // namespace mixgraph
