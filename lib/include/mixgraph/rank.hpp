#pragma once
// Interaction rank of the induced operator M = (I - B)^{-1} A (docs/math.md §5): the cut-rank profile
// r(K) = rank M[K+1..n, 1..K], numerically (dense or sketched) and combinatorially (Menger / max-flow).
//
//   auto p = mixgraph::make_pattern("pow2+cache", 256);
//   auto prof = mixgraph::cut_rank_profile(p, {});          // every cut, dense numerics + flow
//   prof.max_cut_rank;                                       // 14 (max cache 8)
//
//   // the pieces, for callers that want one side only:
//   auto w = mixgraph::induced_weights(p, /*seed=*/1);      // random_weights (weights.hpp) or file values
//   auto num = mixgraph::cut_ranks_dense(w, mixgraph::all_cuts(p.n), {});
//   auto flo = mixgraph::cut_ranks_flow(w, mixgraph::all_cuts(p.n));
//
// Cuts K are counted 1-indexed as in the paper: cut K separates positions 1..K from K+1..n (1 <= K < n).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph {

/// True when some of p's weights come from its .mtx values (so no weights of p are generic). O(1).
bool has_file_weights(const Pattern& p);

/// A and B with weights for M = (I - B)^{-1} A: random_weights(p, seed) (weights.hpp documents the scheme:
/// every nonzero drawn independently, beta row sums <= 0.9, alpha row sums <= 1), except that Matrix
/// patterns keep their files' values. `generic` is false when any weight came from a file: then numeric
/// ranks may legitimately be below the flow (Menger) ranks.
struct InducedWeights {
  WeightedPattern w;
  bool generic = true;
  bool a_diagonal = false;  ///< every A row reads only its own position: r(K) <= |C_K|
};
InducedWeights induced_weights(const Pattern& p, std::uint64_t seed);

/// The dense operator, transposed: Mt(j, i) = M(i, j) (column i of Mt is row i of M), built row by row
/// M[i, :] = A[i, :] + sum_j beta_ij M[j, :]. O(n^2 + n * nnz(B)) time, 8 n^2 bytes.
Eigen::MatrixXd dense_operator_transposed(const WeightedPattern& w);

/// Every cut 1..n-1.
std::vector<pos_t> all_cuts(pos_t n);
/// COUNT cuts evenly spaced in 1..n-1: K_c = round(c * n / (COUNT + 1)), c = 1..COUNT, de-duplicated
/// (all cuts when COUNT >= n - 1).
std::vector<pos_t> spaced_cuts(pos_t n, std::uint64_t count);

struct NumericRankOptions {
  /// Relative tolerance tau (0: the default, default_rank_tolerance(n) = 1e-13).
  /// Dense: r(K) = #{ l : |R_ll| > tau * |R_11| } from a column-pivoted Householder QR of the block
  /// (numeric_rank_colpiv).
  /// Sketch: a column of a new sketch block counts when its |R_ll| after projection exceeds
  /// tau * (largest sketch column norm seen at this cut).
  double tol = 0.0;
  std::uint64_t seed = 1;         ///< sketch: the random test matrix G (hash of seed, row, column)
  std::uint32_t first_block = 8;  ///< sketch: first block of columns (then the block doubles)
  /// sketch: refuse (RuntimeFailure) a block whose memory estimate exceeds this (0: physical memory,
  /// ~0: never check)
  std::uint64_t mem_limit = 0;
};

struct NumericCutRanks {
  std::vector<pos_t> cuts;
  std::vector<std::uint32_t> rank;     ///< parallel to cuts
  std::vector<std::uint32_t> columns;  ///< sketch: random columns used per cut (dense: 0)
  double tolerance = 0.0;              ///< tau actually used (exact: 0)
  std::string rule;                    ///< the tolerance rule in words
  /// exact: P(some r(K) below the generic rank) <= this (Schwartz-Zippel; 0 for the float methods)
  double failure_bound = 0.0;
  /// dense/sketch: the singular-value gap the tolerance fell into, relative to the largest pivot: the
  /// smallest counted |R_ll| and the largest uncounted one over all cuts (-1: none)
  double smallest_kept = -1.0, largest_dropped = -1.0;
};

/// Default relative tolerance: 1e-13 for every n (rank.cpp says why it is not n * eps * c).
double default_rank_tolerance(pos_t n);

/// Dense numeric cut ranks: builds Mt (8 n^2 bytes; call check_memory first) and factors every requested
/// block with numeric_rank_colpiv (column-pivoted Householder QR, stopped at the first small pivot).
/// O(n nnz(B) + n^2 + sum_K (n-K) K r(K)) time; OpenMP over cuts. Never looks at the flow side.
NumericCutRanks cut_ranks_dense(const WeightedPattern& w, const std::vector<pos_t>& cuts,
                                const NumericRankOptions& opt = {});

/// Sketched numeric cut ranks (adaptive range finder). For cut K: Y = M[:, 1..K] G for a block of random
/// columns G (rows 1..K; a sparse forward substitution through A and B, O((nnz(A) + nnz(B)) s) for s
/// columns), rows K+1..n kept, projected against the basis found so far (twice when needed), then an
/// unpivoted QR of the residual block by panels of 64 columns (block Gram-Schmidt with re-orthogonalisation,
/// a HouseholderQR per panel); when a diagonal entry falls below the threshold (a deficit: the columns are
/// random combinations, so an unpivoted QR shows it), a column-pivoted Householder QR of that block counts
/// the rank exactly. Otherwise the basis grows and the next block is as wide as the basis. Stops at
/// min(K, n-K). O((nnz + (n-K) r) r) per cut; OpenMP over cuts.
NumericCutRanks cut_ranks_sketch(const WeightedPattern& w, const std::vector<pos_t>& cuts,
                                 const NumericRankOptions& opt = {});

/// The prime of cut_ranks_exact: p = 2^61 - 1.
std::uint64_t exact_rank_prime();

/// Exact cut ranks over GF(p), p = 2^61 - 1, for generic weights: w's sparsity only (its values are
/// ignored); every nonzero of A and B gets an independent uniform weight in GF(p) from opt.seed. For cut K
/// the columns of M[K+1..n, 1..K] G (random G, a sparse forward substitution mod p, blocks of first_block
/// columns then doubling) are added to an echelon basis by Gaussian elimination until one is dependent. The
/// result never exceeds the Menger rank (the block factors through every vertex separator, over any field),
/// and equals it except with probability <= sum over cuts of (n + min(K, n-K)) / p (Schwartz-Zippel on the
/// Lindstrom-Gessel-Viennot minor; reported as failure_bound). O((nnz(A) + nnz(B)) r + (n-K) r^2) per cut;
/// OpenMP over cuts. Never looks at the flow side.
NumericCutRanks cut_ranks_exact(const WeightedPattern& w, const std::vector<pos_t>& cuts,
                                const NumericRankOptions& opt = {});

/// The same for the product M = M_L ... M_1 of layers applied in sequence (layers[0] first), M_l =
/// (I - B_l)^{-1} A_l: layer l (0-indexed) gets its GF(p) weights from opt.seed + l, G from opt.seed, so one
/// layer gives exactly cut_ranks_exact. Never exceeds the Menger rank of the stacked graph, and equals it
/// except with probability <= sum over cuts of (L n + min(K, n-K)) / p. O(L (nnz) r + (n-K) r^2) per cut.
/// Throws UsageError for no layers or layers of unequal n.
NumericCutRanks cut_ranks_exact_product(const std::vector<const WeightedPattern*>& layers,
                                        const std::vector<pos_t>& cuts, const NumericRankOptions& opt = {});

struct FlowCutRanks {
  std::vector<pos_t> cuts;
  std::vector<std::uint32_t> rank;  ///< max number of vertex-disjoint x_{<=K} -> y_{>K} paths
  std::uint64_t augmentations = 0;  ///< unit augmentations over all cuts (incremental work)
  std::uint64_t phases = 0;         ///< Dinic phases (BFS layerings) over all cuts
  std::uint64_t cancelled = 0;      ///< flow units removed when a sink became an inner node
};

/// Menger cut ranks on the layered DAG (docs/math.md §3, §5): nodes x_1..x_n, y_1..y_n, edge x_j -> y_i for
/// each alpha_ij != 0 (A's stored entries), y_j -> y_i for each beta_ij != 0 (B's stored entries), unit node
/// capacities by node splitting. A hand-written Dinic max-flow; cuts are processed in increasing order and
/// each starts from the previous cut's flow: moving K to K' adds sources x_{K+1..K'}, turns sinks
/// y_{K+1..K'} into inner nodes (the paths that ended there are cancelled), then augments.
/// Memory O(n + nnz); time O(E) per Dinic phase, E = nnz(A) + nnz(B) + 3n.
FlowCutRanks cut_ranks_flow(const WeightedPattern& w, const std::vector<pos_t>& cuts);

/// Reference: the same max-flow from scratch for every cut with Boost.Graph's boykov_kolmogorov_max_flow on
/// the split graph. For tests and benchmarks. O(cuts * BK(E)).
std::vector<std::uint32_t> cut_ranks_flow_boost(const WeightedPattern& w, const std::vector<pos_t>& cuts);

/// Auto/Both: numeric and flow; the numeric side is Exact for generic (seeded) weights, and for file weights
/// (not generic) the floating-point Dense (n <= 1024) or Sketch (above). Exact/Dense/Sketch: that numeric
/// method only (Exact refuses file weights: they are not generic). Flow: Menger only.
enum class CutRankMethod { Auto, Dense, Sketch, Flow, Both, Exact };
/// "auto", "dense", "sketch", "flow", "both" or "exact" (the CLI's --method names). O(1).
const char* to_string(CutRankMethod m);
/// The method of one of to_string's names; nullopt for any other text. O(1).
std::optional<CutRankMethod> cut_rank_method_from(const std::string& name);

struct CutRankParams {
  std::uint64_t seed = 1;
  CutRankMethod method = CutRankMethod::Auto;
  std::vector<pos_t> cuts;  ///< empty: every cut for n <= 1024, else 64 spaced cuts
  double tol = 0.0;         ///< 0: default_rank_tolerance(n)
  std::uint64_t mem_limit = 0;
  /// The user's weights on p (weight_files.hpp head_weights) instead of the seeded ones: not generic.
  const WeightedPattern* weights = nullptr;
};

struct CutRankProfile {
  pos_t n = 0;
  std::vector<pos_t> cuts;
  bool numeric_done = false, flow_done = false;
  std::string numeric_method;                 ///< "exact", "dense" or "sketch" (empty when not done)
  std::vector<std::uint32_t> numeric;         ///< parallel to cuts
  std::vector<std::uint32_t> flow;            ///< parallel to cuts
  std::vector<std::uint32_t> cache_at_cut;    ///< |C_K| (profile.hpp cache_size[K - 1])
  std::vector<std::uint32_t> sketch_columns;  ///< sketch and exact: random columns used per cut
  std::uint32_t max_cut_rank = 0;             ///< over the computed cuts (flow if done, else numeric)
  pos_t argmax_cut = 0;                       ///< the first K reaching it
  std::uint32_t max_cache = 0;                ///< max over all positions of |C_i|
  bool agree = true;                          ///< numeric == flow on every cut (true if one side only)
  std::vector<pos_t> disagreements;           ///< cuts K where they differ
  bool generic_weights = true;
  bool a_diagonal = false;
  std::vector<pos_t> bound_violations;  ///< cuts where r(K) > 2|C_K| (|C_K| when A diagonal)
  double tolerance = 0.0;
  std::string tolerance_rule;
  double failure_bound = 0.0;                           ///< exact: NumericCutRanks::failure_bound
  double smallest_kept = -1.0, largest_dropped = -1.0;  ///< dense/sketch: NumericCutRanks's pivot gap
  std::vector<pos_t> numeric_above_flow;  ///< cuts with numeric > flow (impossible for exact ranks)
  FlowCutRanks flow_stats;
};

/// Both sides plus the cache bound. Refuses (RuntimeFailure) dense work over the memory limit.
CutRankProfile cut_rank_profile(const Pattern& p, const CutRankParams& params);

/// Numeric rank of every dyadic off-diagonal block of a dense lower-triangular T x T matrix given
/// transposed (Mt(col, row)): at level l (block size 2^l, l = 0..), rows [2^l(2m+1), 2^l(2m+2)) x columns
/// [2^l 2m, 2^l(2m+1)), clipped to T. max_rank[l] over the blocks of that level, numeric_rank_colpiv with
/// relative tolerance tol. O(T^3) worst case.
struct DyadicRanks {
  std::vector<std::uint32_t> block_size;  ///< 2^l
  std::vector<std::uint32_t> blocks;      ///< number of (non-empty) blocks at level l
  std::vector<std::uint32_t> max_rank;
  /// per level: the largest |R_ll| / |R_11| of a first pivot not counted (for a numeric rank-1 block its
  /// |R_22| / |R_11|); -1 when no block left one
  std::vector<double> largest_dropped;
};
DyadicRanks dyadic_block_ranks_transposed(const Eigen::MatrixXd& Mt, double tol);

/// Numeric rank of a matrix by Householder QR with column pivoting (largest remaining column norm first, as
/// Eigen's ColPivHouseholderQR and LAPACK's xGEQP3): #{ l : |R_ll| > tol * |R_11| } (0 for a zero matrix),
/// stopping at the first |R_ll| below the threshold. O(rows * cols * rank).
std::uint32_t numeric_rank_colpiv(const Eigen::MatrixXd& m, double tol);
/// The same, also giving |R_ll| / |R_11| of the last pivot counted (kept) and of the first one not counted
/// (dropped; -1 when the factorisation ran to the end); both -1 for a zero matrix.
std::uint32_t numeric_rank_colpiv(const Eigen::MatrixXd& m, double tol, double& kept, double& dropped);

}  // namespace mixgraph
