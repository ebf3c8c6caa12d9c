// Tests of the backward pass (solve_adjoint.hpp) against dense Eigen: from the same weights, dense A and B
// per head, Z = (I - B)^{-T} G by a dense triangular solve, dX = A^T Z, dA = Z X^T and dB = Z Y^T on the
// pattern's entries, each reduced to the weights' layout by hand (per offset, per position, gates).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "dense_mixer.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_adjoint.hpp"
#include "mixgraph/weight_files.hpp"
#include "mixgraph/weights.hpp"

// GCC 12 at -O3 sees check_against_dense's empty weight-gradient vectors freed "at a nonzero offset" once
// the unity build inlines more of it (a false positive, gone in GCC 13)
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif

using namespace mixgraph;

namespace {

using mixgraph::test::inputs;

double rel(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double num = 0, den = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    num += (a[k] - b[k]) * (a[k] - b[k]);
    den += b[k] * b[k];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

Eigen::MatrixXd dense_of(const Csr& m, pos_t n) {
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n, n);
  for (pos_t i = 0; i < n; ++i)
    for (nnz_t e = m.ptr[i]; e < m.ptr[i + 1]; ++e) D(i, m.idx[e]) = m.val[e];
  return D;
}

Eigen::MatrixXd head_cols(const std::vector<double>& v, pos_t n, std::size_t d, std::size_t c0,
                          std::size_t w) {
  Eigen::MatrixXd M(n, w);
  for (pos_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < w; ++c) M(i, c) = v[std::size_t(i) * d + c0 + c];
  return M;
}

/// The dense gradients of one head, and a matrix's gradient reduced to w's layout of that matrix.
struct DenseGrads {
  std::vector<double> y, z, dx, da, db;  // da, db in the layouts of stored_weights(w) / per offset
};

std::vector<double> reduce(const MixerWeights<double>& w, bool is_a, const std::vector<Eigen::MatrixXd>& D) {
  const SolveStructure& s = w.s;
  const CoefSource src = is_a ? w.a_source : w.b_source;
  const std::vector<pos_t>& offs = is_a ? s.a_offsets : s.b_offsets;
  const Csr& csr = is_a ? s.a : s.b;
  const std::size_t K = offs.size();
  std::vector<double> out;
  for (int h = 0; h < w.heads; ++h) {
    const Eigen::MatrixXd& M = D[std::size_t(h)];
    if (src == CoefSource::PerOffset) {
      for (std::size_t k = 0; k < K; ++k) {
        double sum = 0;
        for (pos_t i = offs[k]; i < s.n; ++i) sum += M(i, i - offs[k]);
        out.push_back(sum);
      }
    } else if (s.implicit) {
      for (pos_t i = 0; i < s.n; ++i)
        for (std::size_t k = 0; k < K; ++k) out.push_back(offs[k] <= i ? M(i, i - offs[k]) : 0.0);
    } else {
      for (pos_t i = 0; i < s.n; ++i)
        for (nnz_t e = csr.ptr[i]; e < csr.ptr[i + 1]; ++e) out.push_back(M(i, csr.idx[e]));
    }
  }
  return out;
}

DenseGrads dense_grads(const MixerWeights<double>& w, const std::vector<double>& x,
                       const std::vector<double>& g, std::size_t d) {
  const pos_t n = w.s.n;
  const std::size_t dh = d / std::size_t(w.heads);
  DenseGrads r;
  r.y.assign(x.size(), 0);
  r.z = r.dx = r.y;
  std::vector<Eigen::MatrixXd> DA, DB;
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
  for (int h = 0; h < w.heads; ++h) {
    const WeightedPattern hw = head_weights(w, h);
    const Eigen::MatrixXd A = dense_of(hw.a, n), B = dense_of(hw.b, n);
    const std::size_t c0 = std::size_t(h) * dh;
    const Eigen::MatrixXd X = head_cols(x, n, d, c0, dh), G = head_cols(g, n, d, c0, dh);
    const Eigen::MatrixXd L = I - B;
    const Eigen::MatrixXd Y = L.triangularView<Eigen::Lower>().solve(A * X);
    const Eigen::MatrixXd Z = L.transpose().triangularView<Eigen::Upper>().solve(G);
    const Eigen::MatrixXd dX = A.transpose() * Z;
    DA.push_back(Z * X.transpose());
    DB.push_back(Z * Y.transpose());
    for (pos_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < dh; ++c) {
        r.y[std::size_t(i) * d + c0 + c] = Y(i, c);
        r.z[std::size_t(i) * d + c0 + c] = Z(i, c);
        r.dx[std::size_t(i) * d + c0 + c] = dX(i, c);
      }
  }
  r.da = reduce(w, true, DA);
  r.db = reduce(w, false, DB);
  return r;
}

/// Runs the forward and the backward on w and checks every output against the dense reference.
void check_against_dense(const MixerWeights<double>& w, std::size_t d, const std::string& what) {
  const pos_t n = w.s.n;
  const auto x = inputs(n, d, 7), g = inputs(n, d, 8);
  std::vector<double> y(x.size());
  solve_mixer(w, x.data(), y.data(), d, 2);
  const DenseGrads ref = dense_grads(w, x, g, d);
  ASSERT_LE(rel(y, ref.y), 1e-12) << what;
  const AdjointStructure adj = adjoint_structure(w.s);
  const std::size_t na = ref.da.size(), nb = ref.db.size();
  std::vector<double> dx(x.size(), -1), z(x.size(), -1), da(na, 0), db(nb, 0);
  const SolveInfo info = solve_adjoint(w, adj, x.data(), y.data(), g.data(), d,
                                       AdjointOut<double>{dx.data(), da.data(), db.data(), z.data()}, 2);
  EXPECT_NE(info.kernel.find("adjoint"), std::string::npos);
  EXPECT_LE(rel(z, ref.z), 1e-12) << what << " Z";
  EXPECT_LE(rel(dx, ref.dx), 1e-12) << what << " dX";
  EXPECT_LE(rel(da, ref.da), 1e-12) << what << " dA";
  EXPECT_LE(rel(db, ref.db), 1e-12) << what << " dB";
  // the same bits with one thread; and da / db are added to (per offset: sums of chunks, so to rounding)
  std::vector<double> dx1(x.size()), da1(na, 0), db1(nb, 0);
  solve_adjoint(w, adj, x.data(), y.data(), g.data(), d,
                AdjointOut<double>{dx1.data(), da1.data(), db1.data()}, 1);
  EXPECT_EQ(dx1, dx) << what;
  EXPECT_EQ(da1, da) << what;
  EXPECT_EQ(db1, db) << what;
  solve_adjoint(w, adj, x.data(), y.data(), g.data(), d, AdjointOut<double>{nullptr, da1.data(), db1.data()},
                1);
  for (std::size_t k = 0; k < na; ++k) EXPECT_NEAR(da1[k], 2 * da[k], 1e-13 * (1 + std::abs(da[k])));
  for (std::size_t k = 0; k < nb; ++k) EXPECT_NEAR(db1[k], 2 * db[k], 1e-13 * (1 + std::abs(db[k])));
}

/// (heads, cols) row-major values in [-1, 1], B's scaled so that each row of B has sum |beta| <= 0.9.
std::vector<double> values(std::size_t rows, std::size_t cols, std::uint64_t seed, double scale) {
  std::vector<double> v(rows * cols);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = scale * (2 * hash_uniform(seed, 5, k, 0) - 1);
  return v;
}
WeightArray view_of(const std::vector<double>& v, std::size_t rows, std::size_t cols, const char* name) {
  WeightArray a;
  a.rows = rows;
  a.cols = cols;
  a.fp64 = true;
  a.data = v.data();
  a.name = name;
  return a;
}

struct AdjointCase {
  std::string spec;
  pos_t n;
  int heads;
  std::size_t dh;
};

class AdjointVsDense : public ::testing::TestWithParam<AdjointCase> {};

TEST_P(AdjointVsDense, SeededStoredPerOffsetAndPerPosition) {
  const auto& c = GetParam();
  const Pattern p = make_pattern(c.spec, c.n);
  const std::size_t d = std::size_t(c.heads) * c.dh;
  check_against_dense(seeded_mixer_weights<double>(p, c.heads, 3), d, c.spec + " seeded");
  check_against_dense(make_mixer_weights<double>(p, c.heads, 3), d, c.spec + " stored");
  const SolveStructure s = solve_structure(p);
  // per position: the user's (H, nnz) arrays
  {
    std::size_t reads = s.b_offsets.size();  // the most B reads of a row
    for (pos_t i = 0; !s.implicit && i < s.n; ++i) reads = std::max<std::size_t>(reads, s.b.row_size(i));
    const auto va = values(c.heads, s.nnz_a, 1, 0.7),
               vb = values(c.heads, s.nnz_b, 2, reads ? 0.9 / double(reads) : 0);
    WeightArrays wa;
    wa.a = view_of(va, c.heads, s.nnz_a, "a");
    wa.b = view_of(vb, c.heads, s.nnz_b, "b");
    check_against_dense(weights_from_arrays<double>(p, c.heads, 1, wa), d, c.spec + " per position");
  }
  if (s.implicit) {  // per offset: (H, K), B's row sums of |beta| at most 0.9
    const std::size_t Ka = s.a_offsets.size(), Kb = s.b_offsets.size();
    const auto va = values(c.heads, Ka, 3, 0.7), vb = values(c.heads, Kb, 4, Kb ? 0.9 / double(Kb) : 0);
    WeightArrays wa;
    wa.a = view_of(va, c.heads, Ka, "a");
    wa.b = view_of(vb, c.heads, Kb, "b");
    const auto w = weights_from_arrays<double>(p, c.heads, 1, wa);
    if (Ka != s.nnz_a) {
      EXPECT_EQ(w.a_source, CoefSource::PerOffset);
    }
    check_against_dense(w, d, c.spec + " per offset");
    WeightArrays only_b;  // A seeded, B per offset
    only_b.b = wa.b;
    check_against_dense(weights_from_arrays<double>(p, c.heads, 1, only_b), d, c.spec + " seeded A");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Families, AdjointVsDense,
    ::testing::Values(AdjointCase{"pow2", 70, 2, 3}, AdjointCase{"sq1", 60, 1, 4},
                      AdjointCase{"pow2+cache", 70, 2, 2}, AdjointCase{"sq1+cache", 50, 1, 3},
                      AdjointCase{"window:4", 40, 3, 2}, AdjointCase{"dilated:3,2", 40, 1, 3},
                      AdjointCase{"ssm", 30, 2, 2}, AdjointCase{"window:3|dilated:2,4", 45, 1, 2},
                      AdjointCase{"pow2|sink:2", 40, 2, 2}, AdjointCase{"sink:2", 30, 1, 3},
                      AdjointCase{"bigbird:2,1,3", 40, 2, 2}, AdjointCase{"block:4", 30, 1, 2},
                      AdjointCase{"local:3", 30, 2, 2}, AdjointCase{"attention", 20, 1, 3},
                      AdjointCase{"pow2", 300, 1, 64}, AdjointCase{"sq1+cache", 200, 1, 16}),
    [](const auto& info) {
      std::string s =
          info.param.spec + "_" + std::to_string(info.param.n) + "_" + std::to_string(info.param.dh);
      for (char& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return s;
    });

TEST(Adjoint, GatesAndInputGates) {
  const pos_t n = 50;
  const std::size_t d = 5;
  const Pattern p = make_pattern("ssm", n);
  std::vector<double> gates(std::size_t(n) * d), ugates(std::size_t(n) * d);
  for (std::size_t k = 0; k < gates.size(); ++k) {
    gates[k] = 0.95 * hash_uniform(9, 1, k, 0);
    ugates[k] = 2 * hash_uniform(9, 2, k, 0) - 1;
  }
  WeightArrays wa;
  wa.gates = view_of(gates, n, d, "gates");
  check_against_dense(weights_from_arrays<double>(p, int(d), 1, wa), d, "gates");
  wa.input_gates = view_of(ugates, n, d, "input_gates");
  const auto w = weights_from_arrays<double>(p, int(d), 1, wa);
  check_against_dense(w, d, "gates and input gates");
  // the gates' gradient back in the (n, d) layout: dG[i, c] = z[i, c] y[i-1, c], dU[i, c] = z[i, c] x[i, c]
  const auto x = inputs(n, d, 7), g = inputs(n, d, 8);
  std::vector<double> y(x.size()), z(x.size()), da(w.a.size(), 0), db(w.b.size(), 0);
  solve_mixer(w, x.data(), y.data(), d, 1);
  solve_adjoint(w, adjoint_structure(w.s), x.data(), y.data(), g.data(), d,
                AdjointOut<double>{nullptr, da.data(), db.data(), z.data()}, 1);
  std::vector<double> dG(x.size()), dU(x.size());
  to_gate_rows(n, d, db.data(), dG.data());
  to_gate_rows(n, d, da.data(), dU.data());
  for (pos_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) {
      const std::size_t q = std::size_t(i) * d + c;
      EXPECT_DOUBLE_EQ(dU[q], z[q] * x[q]);
      EXPECT_DOUBLE_EQ(dG[q], i == 0 ? 0.0 : z[q] * y[q - d]);
    }
}

TEST(Adjoint, PerPositionLayoutRoundTrips) {
  // to_per_position is the inverse of the (H, nnz) loader, on an implicit and an explicit pattern
  for (const char* spec : {"pow2", "sq1+cache"}) {
    const Pattern p = make_pattern(spec, 40);
    const SolveStructure s = solve_structure(p);
    const auto vb = values(2, s.nnz_b, 6, 0.1), va = values(2, s.nnz_a, 7, 1);
    WeightArrays wa;
    wa.a = view_of(va, 2, s.nnz_a, "a");
    wa.b = view_of(vb, 2, s.nnz_b, "b");
    const auto w = weights_from_arrays<double>(p, 2, 1, wa);
    std::vector<double> ra(va.size()), rb(vb.size());
    to_per_position(w.s, true, 2, w.a.data(), ra.data());
    to_per_position(w.s, false, 2, w.b.data(), rb.data());
    EXPECT_EQ(ra, va) << spec;
    EXPECT_EQ(rb, vb) << spec;
  }
}

TEST(Adjoint, Fp32AgreesWithFp64) {
  const Pattern p = make_pattern("sq1+cache", 300);
  const std::size_t d = 32;
  const auto w64 = make_mixer_weights<double>(p, 2, 5);
  const auto w32 = make_mixer_weights<float>(p, 2, 5);
  const auto x = inputs(p.n, d, 1), g = inputs(p.n, d, 2);
  std::vector<float> xf(x.begin(), x.end()), gf(g.begin(), g.end());
  std::vector<double> y(x.size()), dx(x.size()), db(w64.b.size(), 0);
  std::vector<float> yf(x.size()), dxf(x.size()), dbf(w32.b.size(), 0);
  solve_mixer(w64, x.data(), y.data(), d);
  solve_mixer(w32, xf.data(), yf.data(), d);
  const auto adj = adjoint_structure(w64.s);
  solve_adjoint(w64, adj, x.data(), y.data(), g.data(), d, AdjointOut<double>{dx.data(), nullptr, db.data()});
  solve_adjoint(w32, adj, xf.data(), yf.data(), gf.data(), d,
                AdjointOut<float>{dxf.data(), nullptr, dbf.data()});
  EXPECT_LE(rel(std::vector<double>(dxf.begin(), dxf.end()), dx), 1e-5);
  EXPECT_LE(rel(std::vector<double>(dbf.begin(), dbf.end()), db), 1e-5);
}

TEST(Adjoint, RefusesMismatches) {
  const Pattern p = make_pattern("pow2", 64), q = make_pattern("pow2", 65);
  const auto w = make_mixer_weights<double>(p, 2, 1);
  std::vector<double> x(64 * 4), y(x.size()), g(x.size()), dx(x.size());
  EXPECT_THROW(solve_adjoint(w, adjoint_structure(solve_structure(q)), x.data(), y.data(), g.data(), 4,
                             AdjointOut<double>{dx.data()}),
               UsageError);
  EXPECT_THROW(solve_adjoint(w, adjoint_structure(w.s), x.data(), y.data(), g.data(), 3,
                             AdjointOut<double>{dx.data()}),
               UsageError);
}

}  // namespace
