// Numeric cut ranks (dense and sketched) and the combined cut-rank profile (docs/math.md §5).
#include "mixgraph/rank.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank_progress.hpp"
#include "rank/cut_loop.hpp"
#include "rank/dense_cut_ranks.hpp"

namespace mixgraph {

const char* to_string(CutRankMethod m) {
  switch (m) {
    case CutRankMethod::Auto:
      return "auto";
    case CutRankMethod::Dense:
      return "dense";
    case CutRankMethod::Sketch:
      return "sketch";
    case CutRankMethod::Flow:
      return "flow";
    case CutRankMethod::Both:
      return "both";
    case CutRankMethod::Exact:
      return "exact";
  }
  return "?";
}

std::optional<CutRankMethod> cut_rank_method_from(const std::string& name) {
  for (const auto m : {CutRankMethod::Auto, CutRankMethod::Dense, CutRankMethod::Sketch, CutRankMethod::Flow,
                       CutRankMethod::Both, CutRankMethod::Exact})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

namespace {
bool rows_only_diagonal(const Csr& a) {
  for (pos_t i = 0; i < a.n; ++i)
    for (pos_t j : a.row(i))
      if (j != i) return false;
  return true;
}
}  // namespace

bool has_file_weights(const Pattern& p) {
  if (p.family != PatternFamily::Matrix) return false;
  return p.b.has_values() || (p.a_mode == AMode::Explicit && p.a.has_values());
}

InducedWeights induced_weights(const Pattern& p, std::uint64_t seed) {
  InducedWeights iw;
  iw.w = random_weights(p, seed);
  iw.generic = !has_file_weights(p);
  iw.a_diagonal = rows_only_diagonal(iw.w.a);
  return iw;
}

namespace {
/// dense_operator_transposed, polling `stop` every 64 rows of M (a row is O(n * its reads of B)).
Eigen::MatrixXd dense_operator_polled(const WeightedPattern& w, const std::atomic<bool>* stop) {
  const pos_t n = w.a.n;
  Eigen::MatrixXd mt = Eigen::MatrixXd::Zero(n, n);
  for (pos_t i = 0; i < n; ++i) {
    if ((i & 63) == 0) throw_if_cancelled(stop);
    auto col = mt.col(i);
    const auto aj = w.a.row(i);
    const auto av = w.a.row_values(i);
    for (std::size_t k = 0; k < aj.size(); ++k) col(aj[k]) += av[k];
    const auto bj = w.b.row(i);
    const auto bv = w.b.row_values(i);
    for (std::size_t k = 0; k < bj.size(); ++k) {
      const pos_t j = bj[k];
      col.head(j + 1) += bv[k] * mt.col(j).head(j + 1);
    }
  }
  return mt;
}
}  // namespace

Eigen::MatrixXd dense_operator_transposed(const WeightedPattern& w) {
  return dense_operator_polled(w, nullptr);
}

std::vector<pos_t> all_cuts(pos_t n) {
  std::vector<pos_t> c;
  for (pos_t k = 1; k < n; ++k) c.push_back(k);
  return c;
}

std::vector<pos_t> spaced_cuts(pos_t n, std::uint64_t count) {
  if (n < 2 || count == 0) return {};
  if (count >= static_cast<std::uint64_t>(n) - 1) return all_cuts(n);
  std::vector<pos_t> c;
  for (std::uint64_t k = 1; k <= count; ++k) {
    auto v = static_cast<pos_t>(std::llround(static_cast<double>(k) * n / static_cast<double>(count + 1)));
    v = std::clamp<pos_t>(v, 1, n - 1);
    if (c.empty() || c.back() != v) c.push_back(v);
  }
  return c;
}

double default_rank_tolerance(pos_t /*n*/) {
  // Flat, not n * eps * c: the genuine small pivots of ill-conditioned blocks (local:64's triangular corner
  // block has sigma_64 / sigma_1 ~ 1e-10 .. 1e-12) stay above it, while the rounding floor of the dense
  // and sketched computations (measured: below 1e-14 relative up to n = 2^16) stays below it.
  return 1e-13;
}

namespace {
/// Householder QR with column pivoting of `a` (overwritten; norm downdating as in LAPACK's xLAQP2, the pivot
/// is the column of largest remaining norm, so |R_ll| is that norm), stopped at the first |R_ll| <= tol *
/// ref: O(rows * cols * rank) instead of O(rows * cols * min(rows, cols)) for low-rank blocks. ref = |R_11|
/// when unit <= 0 (relative; kept = the last counted |R_ll| / ref), else ref = unit (an absolute threshold;
/// kept = the smallest counted |R_ll| / ref). dropped = the first uncounted |R_ll| / ref (-1 when the
/// factorisation ran to the end); both -1 for a zero matrix. Polls `stop` per column (O(rows * cols) work).
std::uint32_t colpiv_rank(Eigen::MatrixXd& a, double tol, double unit, double& kept, double& dropped,
                          const std::atomic<bool>* stop) {
  const Eigen::Index rows = a.rows(), cols = a.cols();
  kept = dropped = -1.0;
  if (rows == 0 || cols == 0) return 0;
  Eigen::VectorXd norms = a.colwise().squaredNorm().transpose();
  Eigen::VectorXd exact = norms;  // the norms at their last exact computation
  Eigen::VectorXd work(cols);
  const Eigen::Index steps = std::min(rows, cols);
  double ref = unit > 0 ? unit : -1.0;
  for (Eigen::Index l = 0; l < steps; ++l) {
    throw_if_cancelled(stop);
    Eigen::Index piv = 0;
    const double best = std::sqrt(norms.tail(cols - l).maxCoeff(&piv));
    piv += l;
    if (ref < 0) ref = best;
    if (!(best > tol * ref) || best == 0.0) {
      if (ref > 0) dropped = best / ref;
      return static_cast<std::uint32_t>(l);
    }
    kept = unit > 0 && kept >= 0 ? std::min(kept, best / ref) : best / ref;
    if (piv != l) {
      a.col(l).swap(a.col(piv));
      std::swap(norms(l), norms(piv));
      std::swap(exact(l), exact(piv));
    }
    double tau = 0.0, beta = 0.0;
    a.col(l).tail(rows - l).makeHouseholderInPlace(tau, beta);
    if (l + 1 < cols) {
      a.bottomRightCorner(rows - l, cols - l - 1)
          .applyHouseholderOnTheLeft(a.col(l).tail(rows - l - 1), tau, work.data());
      // downdate the trailing norms; recompute one exactly once it has lost most of its digits (as LAPACK)
      for (Eigen::Index j = l + 1; j < cols; ++j) {
        norms(j) -= a(l, j) * a(l, j);
        if (norms(j) <= 1e-6 * exact(j)) {
          norms(j) = a.col(j).tail(rows - l - 1).squaredNorm();
          exact(j) = norms(j);
        }
      }
    }
  }
  return static_cast<std::uint32_t>(steps);
}
}  // namespace

std::uint32_t numeric_rank_colpiv(const Eigen::MatrixXd& m0, double tol) {
  double kept = 0.0, dropped = 0.0;
  return numeric_rank_colpiv(m0, tol, kept, dropped);
}

std::uint32_t numeric_rank_colpiv(const Eigen::MatrixXd& m0, double tol, double& kept, double& dropped) {
  // Same rule as Eigen's ColPivHouseholderQR diagonal.
  Eigen::MatrixXd a = m0;
  return colpiv_rank(a, tol, 0.0, kept, dropped, nullptr);
}

namespace {
std::string dense_rule(double tol) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "dense: r(K) = #{l : |R_ll| > %.3g * |R_11|}, R from a column-pivoted Householder "
                "QR of M[K+1..n, 1..K]",
                tol);
  return buf;
}
std::string sketch_rule(double tol) {
  char buf[260];
  std::snprintf(buf, sizeof buf,
                "sketch: Y = M[K+1..n, 1..K] G for growing random blocks G; a new column counts when its "
                "|R_ll| (column-pivoted Householder QR after projecting out the basis found) > %.3g * the "
                "largest sketch column norm at this cut",
                tol);
  return buf;
}
}  // namespace

namespace {
/// The result of a floating-point method before its cuts: the tolerance used (opt.tol, else the default)
/// and its rule in words, zero ranks and columns; UsageError for a cut outside 1..n-1.
NumericCutRanks start_cut_ranks(pos_t n, const std::vector<pos_t>& cuts, const NumericRankOptions& opt,
                                std::string (*rule)(double)) {
  NumericCutRanks r;
  r.cuts = cuts;
  r.tolerance = opt.tol > 0 ? opt.tol : default_rank_tolerance(n);
  r.rule = rule(r.tolerance);
  r.rank.assign(cuts.size(), 0);
  r.columns.assign(cuts.size(), 0);
  for (pos_t k : cuts)
    if (k < 1 || k >= n)
      throw UsageError("cut " + std::to_string(k) + " is outside 1.." + std::to_string(n - 1));
  return r;
}

/// Fold per-cut relative pivots into r.smallest_kept / r.largest_dropped (-1 entries: none).
void note_gap(NumericCutRanks& r, const std::vector<double>& kept, const std::vector<double>& dropped) {
  for (double v : kept)
    if (v >= 0 && (r.smallest_kept < 0 || v < r.smallest_kept)) r.smallest_kept = v;
  for (double v : dropped)
    if (v >= 0 && v > r.largest_dropped) r.largest_dropped = v;
}
}  // namespace

NumericCutRanks cut_ranks_dense(const WeightedPattern& w, const std::vector<pos_t>& cuts,
                                const NumericRankOptions& opt) {
  const pos_t n = w.a.n;
  NumericCutRanks r = start_cut_ranks(n, cuts, opt, dense_rule);
  const Eigen::MatrixXd mt = dense_operator_polled(w, cancel_flag());
  std::vector<double> kept, dropped;
  r.rank = detail::dense_cut_ranks(mt, cuts, r.tolerance, kept, dropped);
  note_gap(r, kept, dropped);
  return r;
}

std::vector<std::uint32_t> detail::dense_cut_ranks(const Eigen::MatrixXd& mt, const std::vector<pos_t>& cuts,
                                                   double tol, std::vector<double>& kept,
                                                   std::vector<double>& dropped) {
  const auto n = static_cast<pos_t>(mt.rows());
  std::vector<std::uint32_t> rank(cuts.size(), 0);
  kept.assign(cuts.size(), -1.0);
  dropped.assign(cuts.size(), -1.0);
  const std::atomic<bool>* stop = cancel_flag();  // read here: the cuts run on OpenMP threads
  const auto nc = static_cast<std::int64_t>(cuts.size());
  detail::for_each_cut_guarded(nc, "cut ranks: dense", stop, [&](std::size_t ci) {
    const pos_t k = cuts[ci];
    // M[K+1..n, 1..K] transposed is Mt[0..K-1, K..n-1]; the rank is the same.
    Eigen::MatrixXd blk = mt.block(0, k, k, n - k);
    rank[ci] = colpiv_rank(blk, tol, 0.0, kept[ci], dropped[ci], stop);
  });
  return rank;
}

namespace {
/// Y (n x s, row-major) = M[:, 1..K] G[:, c0..c0+s) by forward substitution; G(j, c) = 2 u - 1, u = hash.
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void sketch_solve(const WeightedPattern& w, pos_t k, std::uint64_t seed, std::uint32_t c0, std::uint32_t s,
                  RowMat& g, RowMat& y, const std::atomic<bool>* stop) {
  const pos_t n = w.a.n;
  g.resize(k, s);
  for (pos_t j = 0; j < k; ++j) {
    if ((j & 255) == 0) throw_if_cancelled(stop);
    for (std::uint32_t c = 0; c < s; ++c) g(j, c) = 2.0 * hash_uniform(seed, 0x5eed, j, c0 + c) - 1.0;
  }
  y.setZero(n, s);
  for (pos_t i = 0; i < n; ++i) {
    if ((i & 15) == 0) throw_if_cancelled(stop);  // a row is s * (its reads) products
    auto row = y.row(i);
    const auto aj = w.a.row(i);
    const auto av = w.a.row_values(i);
    for (std::size_t q = 0; q < aj.size(); ++q)
      if (aj[q] < k) row += av[q] * g.row(aj[q]);
    const auto bj = w.b.row(i);
    const auto bv = w.b.row_values(i);
    for (std::size_t q = 0; q < bj.size(); ++q) row += bv[q] * y.row(bj[q]);
  }
}

// The sketch's dense steps work on panels of at most kPanel columns, and the products of a panel with the
// basis on chunks of its rows, polling the cancel flag between them: at most about kChunkWork
// multiply-adds (~30 ms) between two polls (for a basis of up to 2^15 columns).
constexpr Eigen::Index kPanel = 64;
constexpr Eigen::Index kChunkWork = Eigen::Index{1} << 27;

/// z -= Q Q^T z for Q = q.leftCols(r) (orthonormal), kPanel columns of z at a time, each product on chunks
/// of rows. twice: classical Gram-Schmidt repeated once over all of z when a column lost more than half of
/// its norm ("twice is enough").
void project_out(const Eigen::MatrixXd& q, Eigen::Index r, Eigen::MatrixXd& z, bool twice,
                 const std::atomic<bool>* stop) {
  if (r == 0) return;
  const Eigen::Index m = z.rows();
  const Eigen::Index rows = std::max<Eigen::Index>(64, kChunkWork / (r * kPanel));
  Eigen::MatrixXd coef;
  bool lost = false;
  for (int pass = 0; pass < 2; ++pass) {
    for (Eigen::Index c0 = 0; c0 < z.cols(); c0 += kPanel) {
      auto zp = z.middleCols(c0, std::min(kPanel, z.cols() - c0));
      const Eigen::RowVectorXd before =
          twice && pass == 0 ? Eigen::RowVectorXd(zp.colwise().norm()) : Eigen::RowVectorXd();
      coef.setZero(r, zp.cols());
      for (Eigen::Index i0 = 0; i0 < m; i0 += rows) {
        throw_if_cancelled(stop);
        const Eigen::Index h = std::min(rows, m - i0);
        coef.noalias() += q.block(i0, 0, h, r).transpose() * zp.middleRows(i0, h);
      }
      for (Eigen::Index i0 = 0; i0 < m; i0 += rows) {
        throw_if_cancelled(stop);
        const Eigen::Index h = std::min(rows, m - i0);
        zp.middleRows(i0, h).noalias() -= q.block(i0, 0, h, r) * coef;
      }
      if (twice && pass == 0) lost = lost || (zp.colwise().norm().array() < 0.5 * before.array()).any();
    }
    if (!lost) return;
  }
}

/// The unpivoted QR z = Qn R of z (m x s), by block Gram-Schmidt: panel by panel (kPanel columns), the
/// panel projected out of the panels before it (twice when needed, as project_out), then a HouseholderQR
/// of the panel gives its Qn columns and its |R_ll| (d). The same R diagonal as a HouseholderQR of all of z
/// up to rounding. A panel with an |R_ll| < weak amplifies its rounding-level overlap with the panels before
/// by (column norm) / |R_ll|: its Qn columns are projected out of them once more and re-orthonormalised.
/// Stops after the first panel with an |R_ll| <= floor; returns the number of columns done (d and qn are
/// valid up to there).
Eigen::Index panel_qr(const Eigen::MatrixXd& z, double floor, double weak, Eigen::MatrixXd& qn,
                      Eigen::VectorXd& d, const std::atomic<bool>* stop) {
  const Eigen::Index m = z.rows(), s = z.cols();
  qn.resize(m, s);
  d.resize(s);
  for (Eigen::Index c0 = 0; c0 < s; c0 += kPanel) {
    throw_if_cancelled(stop);
    const Eigen::Index w = std::min(kPanel, s - c0);
    Eigen::MatrixXd p = z.middleCols(c0, w);
    project_out(qn, c0, p, true, stop);
    const Eigen::HouseholderQR<Eigen::MatrixXd> h(p);
    d.segment(c0, w) = h.matrixQR().diagonal().cwiseAbs();
    Eigen::MatrixXd qp = h.householderQ() * Eigen::MatrixXd::Identity(m, w);
    const double low = d.segment(c0, w).minCoeff();
    if (c0 > 0 && low < weak) {
      project_out(qn, c0, qp, false, stop);
      const Eigen::HouseholderQR<Eigen::MatrixXd> again(qp);
      qp = again.householderQ() * Eigen::MatrixXd::Identity(m, w);
    }
    qn.middleCols(c0, w) = qp;
    if (low <= floor) return c0 + w;
  }
  return s;
}

std::uint32_t sketch_one_cut(const WeightedPattern& w, pos_t k, const NumericRankOptions& opt, double tol,
                             std::uint32_t& used, double& kept, double& dropped,
                             const std::atomic<bool>* stop) {
  const pos_t n = w.a.n;
  const pos_t m = n - k;
  const std::uint32_t maxr = std::min<pos_t>(k, m);
  Eigen::MatrixXd q(m, 0), qn;
  Eigen::VectorXd d;
  RowMat g, y;
  std::uint32_t r = 0;
  used = 0;
  kept = dropped = -1.0;
  double scale = 0.0;
  std::uint32_t s = std::max<std::uint32_t>(1, opt.first_block);
  for (;;) {
    s = std::min<std::uint32_t>(s, maxr - r);
    if (opt.mem_limit != ~std::uint64_t{0})
      check_memory(static_cast<std::uint64_t>(detail::loop_threads()) * 8ull *
                       (static_cast<std::uint64_t>(m) * (r + 3ull * s) + 2ull * n * s),
                   opt.mem_limit,
                   "sketch at cut K = " + std::to_string(k) + " with " + std::to_string(r + s) + " columns");
    sketch_solve(w, k, opt.seed, used, s, g, y, stop);
    used += s;
    Eigen::MatrixXd z = y.bottomRows(m);
    scale = std::max(scale, z.colwise().norm().maxCoeff());
    if (scale == 0.0) return 0;
    project_out(q, r, z, true, stop);  // against the basis found so far
    // The columns of z are independent random combinations of the residual range, so an unpivoted QR shows
    // a deficit as a small |R_ll|; only then count exactly with the rank-revealing column-pivoted QR.
    const double floor = tol * scale;
    Eigen::Index done = panel_qr(z, floor, 1e-2 * scale, qn, d, stop);
    double small = d.head(done).minCoeff();
    if (small <= floor) {
      Eigen::MatrixXd a = z;
      double k1 = -1.0, d1 = -1.0;
      const std::uint32_t t = colpiv_rank(a, tol, scale, k1, d1, stop);
      if (k1 >= 0 && (kept < 0 || k1 < kept)) kept = k1;
      if (d1 > dropped) dropped = d1;
      if (t < s) return r + t;
      if (done < static_cast<Eigen::Index>(s)) {  // no deficit after all: the rest of the basis
        done = panel_qr(z, -1.0, 1e-2 * scale, qn, d, stop);
        small = d.minCoeff();
      }
    } else if (kept < 0 || small / scale < kept) {
      kept = small / scale;
    }
    // No deficit: the new columns extend the basis.
    if (r > 0 && small < 1e-2 * scale) {
      // A weak column of the block (small R_ll) amplifies the block's rounding-level overlap with the basis
      // by scale / R_ll: orthogonalise the new vectors against the basis once more and re-orthonormalise.
      project_out(q, r, qn, false, stop);
      Eigen::MatrixXd qa;
      panel_qr(qn, -1.0, 1e-2, qa, d, stop);
      qn.swap(qa);
    }
    q.conservativeResize(m, r + s);
    q.rightCols(s) = qn;
    r += s;
    if (r >= maxr) return maxr;  // full rank: no deficit can show
    s = r;                       // the next block doubles the basis
  }
}
}  // namespace

NumericCutRanks cut_ranks_sketch(const WeightedPattern& w, const std::vector<pos_t>& cuts,
                                 const NumericRankOptions& opt) {
  const pos_t n = w.a.n;
  NumericCutRanks r = start_cut_ranks(n, cuts, opt, sketch_rule);
  const auto nc = static_cast<std::int64_t>(cuts.size());
  const double tol = r.tolerance;
  std::vector<double> kept(cuts.size(), -1.0), dropped(cuts.size(), -1.0);
  const std::atomic<bool>* stop = cancel_flag();  // read here: the cuts run on OpenMP threads
  detail::for_each_cut_guarded(nc, "cut ranks: sketch", stop, [&](std::size_t ci) {
    // the columns used so far stay in r.columns[ci] when the cut fails
    r.rank[ci] = sketch_one_cut(w, cuts[ci], opt, tol, r.columns[ci], kept[ci], dropped[ci], stop);
  });
  note_gap(r, kept, dropped);
  return r;
}

CutRankProfile cut_rank_profile(const Pattern& p, const CutRankParams& params) {
  CutRankProfile out;
  const pos_t n = p.n;
  out.n = n;
  if (n < 2)
    throw UsageError("the cut-rank profile needs n >= 2 (there is no cut at n = " + std::to_string(n) + ")");
  out.cuts = params.cuts.empty() ? (n <= 1024 ? all_cuts(n) : spaced_cuts(n, 64)) : params.cuts;
  std::sort(out.cuts.begin(), out.cuts.end());
  out.cuts.erase(std::unique(out.cuts.begin(), out.cuts.end()), out.cuts.end());
  for (pos_t k : out.cuts)
    if (k < 1 || k >= n)
      throw UsageError("--cuts: cut " + std::to_string(k) + " is outside 1.." + std::to_string(n - 1));

  const auto method = params.method;
  const bool want_flow =
      method == CutRankMethod::Auto || method == CutRankMethod::Both || method == CutRankMethod::Flow;
  const bool want_num = method != CutRankMethod::Flow;
  InducedWeights iw;
  if (params.weights) {  // the user's weights: not generic
    iw.w = *params.weights;
    iw.generic = false;
    iw.a_diagonal = rows_only_diagonal(iw.w.a);
  } else {
    iw = induced_weights(p, params.seed);
  }
  const bool automatic = method == CutRankMethod::Auto || method == CutRankMethod::Both;
  // generic (seeded) weights: exact ranks over GF(p); the floating-point methods only on request or for the
  // files' own real weights
  const bool exact = method == CutRankMethod::Exact || (automatic && iw.generic);
  if (method == CutRankMethod::Exact && !iw.generic)
    throw UsageError(params.weights
                         ? "--method exact draws generic weights over a prime field and cannot use the real "
                           "weights given: use --method both, dense or sketch for them"
                         : "--method exact draws generic weights over a prime field, but this pattern's "
                           "weights come from its .mtx files: use --method both, dense or sketch for the "
                           "files' real weights");
  const bool dense = !exact && (method == CutRankMethod::Dense || (automatic && n <= 1024));

  if (want_num && dense) {
    const std::uint64_t bytes = 8ull * n * n + static_cast<std::uint64_t>(detail::loop_threads()) * 8ull *
                                                   (static_cast<std::uint64_t>(n) * n / 4 + n);
    check_memory(bytes, params.mem_limit, "dense induced operator at n = " + std::to_string(n));
  }

  ProfileOptions po;
  const auto prof = cache_profile(p, po);
  out.max_cache = prof.max_cache;
  for (pos_t k : out.cuts) out.cache_at_cut.push_back(prof.cache_size[k - 1]);

  out.generic_weights = iw.generic;
  out.a_diagonal = iw.a_diagonal;
  check_memory(24ull * (iw.w.a.nnz() + iw.w.b.nnz() + 3ull * n + 2) * 2, params.mem_limit,
               "max-flow graph at n = " + std::to_string(n));

  NumericRankOptions no;
  no.tol = params.tol;
  no.seed = params.seed;
  no.mem_limit = params.mem_limit;
  // progress over both loops: the flow loop's counts follow the numeric loop's
  const CutProgressHook* outer = cut_progress_hook();
  const std::uint64_t nc = out.cuts.size();
  const std::uint64_t total = nc * ((want_num ? 1 : 0) + (want_flow ? 1 : 0));
  std::uint64_t before = 0;
  const CutProgressHook shifted = [&](const std::string& what, std::uint64_t done, std::uint64_t) {
    (*outer)(what, before + done, total);
  };
  const CutProgressScope scope(outer && *outer ? &shifted : nullptr);
  if (want_num) {
    auto num = exact   ? cut_ranks_exact(iw.w, out.cuts, no)
               : dense ? cut_ranks_dense(iw.w, out.cuts, no)
                       : cut_ranks_sketch(iw.w, out.cuts, no);
    out.numeric_done = true;
    out.numeric_method = exact ? "exact" : dense ? "dense" : "sketch";
    out.numeric = std::move(num.rank);
    if (!dense) out.sketch_columns = std::move(num.columns);
    out.tolerance = num.tolerance;
    out.tolerance_rule = num.rule;
    out.failure_bound = num.failure_bound;
    out.smallest_kept = num.smallest_kept;
    out.largest_dropped = num.largest_dropped;
  } else {
    out.tolerance = params.tol > 0 ? params.tol : default_rank_tolerance(n);
  }
  if (want_flow) {
    before = want_num ? nc : 0;
    out.flow_stats = cut_ranks_flow(iw.w, out.cuts);
    out.flow = out.flow_stats.rank;
    out.flow_done = true;
  }
  const auto& ranks = out.flow_done ? out.flow : out.numeric;
  for (std::size_t c = 0; c < out.cuts.size(); ++c) {
    if (c == 0 || ranks[c] > out.max_cut_rank) {  // the first K reaching the max (the first cut if all 0)
      out.max_cut_rank = ranks[c];
      out.argmax_cut = out.cuts[c];
    }
    if (out.numeric_done && out.flow_done && out.numeric[c] != out.flow[c]) {
      out.agree = false;
      out.disagreements.push_back(out.cuts[c]);
      if (out.numeric[c] > out.flow[c]) out.numeric_above_flow.push_back(out.cuts[c]);
    }
    const std::uint64_t bound = (iw.a_diagonal ? 1ull : 2ull) * out.cache_at_cut[c];
    std::uint32_t hi = 0;
    if (out.numeric_done) hi = std::max(hi, out.numeric[c]);
    if (out.flow_done) hi = std::max(hi, out.flow[c]);
    if (hi > bound) out.bound_violations.push_back(out.cuts[c]);
  }
  return out;
}

DyadicRanks dyadic_block_ranks_transposed(const Eigen::MatrixXd& mt, double tol) {
  const std::atomic<bool>* stop = cancel_flag();  // the calling thread's: polled per pivot column
  DyadicRanks d;
  const auto t = static_cast<std::uint64_t>(mt.rows());
  for (std::uint64_t bs = 1; bs < t; bs *= 2) {
    std::uint32_t blocks = 0, mx = 0;
    double worst_dropped = -1.0;
    for (std::uint64_t c0 = 0; c0 + bs < t; c0 += 2 * bs) {
      const std::uint64_t r0 = c0 + bs;
      const std::uint64_t rows = std::min(bs, t - r0);
      // M[r0.., c0..] transposed = Mt[c0.., r0..]
      Eigen::MatrixXd blk = mt.block(static_cast<Eigen::Index>(c0), static_cast<Eigen::Index>(r0),
                                     static_cast<Eigen::Index>(bs), static_cast<Eigen::Index>(rows));
      ++blocks;
      double kept = -1.0, dropped = -1.0;
      mx = std::max(mx, colpiv_rank(blk, tol, 0.0, kept, dropped, stop));
      worst_dropped = std::max(worst_dropped, dropped);
    }
    d.block_size.push_back(static_cast<std::uint32_t>(bs));
    d.blocks.push_back(blocks);
    d.max_rank.push_back(mx);
    d.largest_dropped.push_back(worst_dropped);
  }
  return d;
}

}  // namespace mixgraph
