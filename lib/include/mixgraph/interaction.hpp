#pragma once
// Ghodsi interaction rank (docs/math.md §5, "How Many Heads Make an SSM?"): a mixer y_i = sum_j W_ij x_j with
// W_ij in R^{p x d} has interaction rank k = dim span{W_ij}; it needs H >= k heads, and the best H-head
// approximation in Frobenius norm leaves sqrt(sum_{l > H} sigma_l^2) (Eckart-Young).
//
//   auto ssm = mixgraph::random_stable_ssm(/*N=*/8, /*p=*/4, /*d=*/4, /*seed=*/1);
//   auto r = mixgraph::ssm_interaction_rank(ssm, /*n=*/256, /*tol=*/0);
//   r.rank; r.residual_by_heads[r.rank - 1];   // clearly nonzero
//   r.residual_by_heads[r.rank];               // rounding level
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph {

/// An LTI SSM h_t = Abar h_{t-1} + Bbar x_t, y_t = C h_t: W(tau) = C Abar^tau Bbar (p x d).
struct SsmMatrices {
  Eigen::MatrixXd A;  ///< Abar, N x N
  Eigen::MatrixXd B;  ///< Bbar, N x d
  Eigen::MatrixXd C;  ///< C, p x N
};

/// Random stable SSM: G with entries 2u - 1 (u = hash_uniform(seed, stream, row, col), i.i.d. uniform in
/// [-1, 1)), Abar = 0.95 G / ||G||_2 (spectral norm by JacobiSVD), so ||Abar||_2 = 0.95 and
/// ||Abar^tau|| <= 0.95^tau: stable at any n. Bbar and C: entries (2u - 1) / sqrt(N).
SsmMatrices random_stable_ssm(std::uint32_t N, std::uint32_t p, std::uint32_t d, std::uint64_t seed);

/// The rank-gap example: Abar = [[0, -1], [1, 0]] (rotation by 90 degrees), Bbar = C = I_2. k = 2.
SsmMatrices rotation_ssm();

/// Abar, Bbar, C from Matrix Market files (coordinate or array; real or integer; general). Checks shapes
/// (Abar square, Bbar rows = N, C columns = N); InputError naming the file otherwise.
SsmMatrices read_ssm_matrices(const std::string& a_path, const std::string& b_path,
                              const std::string& c_path);

/// Dense Matrix Market reader (coordinate or array, real/integer, general). InputError on bad files.
Eigen::MatrixXd read_mtx_dense(const std::string& path);

struct InteractionRank {
  std::uint32_t rank = 0;                 ///< #{ l : sigma_l > tol * sigma_1 }
  std::vector<double> singular_values;    ///< descending
  std::vector<double> residual_by_heads;  ///< [H] = sqrt(sum_{l > H} sigma_l^2), H = 0..L
  double tolerance = 0.0;                 ///< relative tol used
};

/// Default relative tolerance for interaction ranks: 1e-8.
constexpr double kInteractionTolerance = 1e-8;

/// The stack S (n x pd): row tau = sqrt(n - tau) vec(C Abar^tau Bbar), tau = 0..n-1 (vec column-major).
/// ||S||_F^2 = sum over all pairs j <= i of ||W_ij||_F^2 (W_ij = W(i - j)). O(n N^2 d) time, 8 n p d bytes.
Eigen::MatrixXd ssm_lag_stack(const SsmMatrices& m, std::uint64_t n);

/// Singular values of any stack of vec(W) rows, the rank at relative tol (0: kInteractionTolerance) and the
/// Eckart-Young residuals. O(rows * cols^2).
InteractionRank interaction_rank_of_stack(const Eigen::MatrixXd& stack, double tol);

/// k of an LTI SSM on length n: interaction_rank_of_stack(ssm_lag_stack(m, n), tol).
InteractionRank ssm_interaction_rank(const SsmMatrices& m, std::uint64_t n, double tol);

/// A token mixer with H heads: W_ij = sum_h [(I - B_h)^{-1} A_h]_ij V_h (each V_h p x d, all heads on the
/// same n). Stack rows: vec(W_ij) for every pair j <= i (n(n+1)/2 rows). Rank <= H. O(H n^2 (nnz/n + pd)).
InteractionRank heads_interaction_rank(const std::vector<WeightedPattern>& heads,
                                       const std::vector<Eigen::MatrixXd>& values, double tol);

/// Random value matrix V (p x d), entries 2u - 1 from hash_uniform(seed, 0x7a1e + head, row, col).
Eigen::MatrixXd random_value_matrix(std::uint32_t p, std::uint32_t d, std::uint64_t seed, std::uint32_t head);

}  // namespace mixgraph
