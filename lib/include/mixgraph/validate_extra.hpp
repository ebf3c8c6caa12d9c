#pragma once
// Two checks of `mixgraph validate` that tie the solve engine to the analyses (docs/math.md §4, §5):
//   * cut ranks read off the solved operator M = (I - B)^{-1} A (the engine run on X = I, d = n impulse
//     columns, through the validate run's backend) == the rank analysis (rank.hpp: dense numeric ranks of
//     an independently built M, and the Menger max-flow ranks), on the same seeded weights;
//   * copy-task routings (routing.hpp: shift, random shortest-path, minmax) valid against the (min,+)
//     distances of the solve engine: every hop a read, every length >= the solved shortest distance (==
//     for the routings that claim shortest paths).
// Both run on the first min(n, limit) positions of the pattern (a causal pattern's prefix is the pattern
// on fewer tokens), so they stay cheap at any n.
//
//   mixgraph::ValidateOptions o;
//   std::vector<std::string> kernels;
//   auto c = mixgraph::check_solved_cut_ranks(mixgraph::make_pattern("pow2+cache", 4096), o, kernels);
//   c.passed;  c.detail;   // "64 cuts compared on the first 512 positions ..., max rank 14 ..."
//   auto r = mixgraph::check_routings_against_distances(mixgraph::make_pattern("sq1", 4096), o);
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/routing.hpp"
#include "mixgraph/validate.hpp"

namespace mixgraph {

/// The pattern on its first m positions (1 <= m <= p.n): translation-invariant patterns keep the offsets
/// below m, explicit ones (cache-efficient, Matrix) their first m CSR rows (values kept). Equal to
/// make_pattern(p.spec, m) for every non-mtx spec (causality: row i reads only j <= i). O(m + nnz) explicit,
/// O(#offsets) translation-invariant. Throws UsageError for m outside 1..n.
Pattern leading_pattern(const Pattern& p, pos_t m);

/// M = (I - B)^{-1} A for one head of weights w on p (heads = 1), row-major m x m (M[i * m + j]), solved by
/// the engine from X = I: o.other_f64 when o.other_name is set and the hook exists (the GPU), else the CPU
/// solve_mixer. `kernel` receives the kernel that ran. O(m (nnz_A + nnz_B)) time, 16 m^2 bytes.
std::vector<double> solved_operator(const Pattern& p, const WeightedPattern& w, const ValidateOptions& o,
                                    std::string& kernel);

/// Numeric rank of every block M[K+1..m, 1..K] (1-indexed cut K) of a row-major m x m operator, by
/// numeric_rank_colpiv with relative tolerance tol. O(sum_K (m - K) K r(K)); OpenMP over cuts.
std::vector<std::uint32_t> cut_ranks_of_operator(const std::vector<double>& m_rowmajor, pos_t m,
                                                 const std::vector<pos_t>& cuts, double tol, int threads = 0);

/// The comparison: `solved` (parallel to prof.cuts) against prof.numeric, and against prof.flow when the
/// weights are generic (Matrix patterns with file values: numeric only, docs/math.md §5). passed = equal on
/// every cut; the detail names the cut count, the max rank and the first mismatch (1-indexed cut). `where`
/// describes the operator (positions, backend) for the detail. O(cuts).
ValidateCheck compare_cut_ranks(const std::vector<std::uint32_t>& solved, const CutRankProfile& prof,
                                const std::string& where);

/// The whole check "cut ranks from blocks of the solved M == rank analysis" on the first
/// min(n, o.rank_max_n) positions, with o.rank_cuts spaced cuts and the weights induced_weights(p, o.seed)
/// (the rank analysis's own). Adds the kernel that ran to `kernels` when new. Needs n >= 2.
/// O(m (nnz_A + nnz_B) + cuts (m^3 / 4)) worst case for m positions.
ValidateCheck check_solved_cut_ranks(const Pattern& p, const ValidateOptions& o,
                                     std::vector<std::string>& kernels);

/// (min,+) distances of the solve engine from every position of a pattern on n2 positions, laid out
/// dist[v * n2 + u] = d(v, u) (hops from x_u to y_v, kUnreachable when none):
/// `first` on the pattern itself (a first hop u -> v is valid iff first = 1), `later` on the pattern with
/// A reduced to its diagonal (B hops only: a later hop u -> v is valid iff later = 1).
/// O(n2 (nnz_A + nnz_B)) time, 8 n2^2 bytes.
struct SolvedCopyDistances {
  pos_t n = 0;
  std::vector<std::uint32_t> first, later;
  std::uint32_t at(pos_t v, pos_t u) const { return first[std::size_t(v) * n + u]; }
};
/// hook: when set (e.g. the GPU semiring solve), it computes both distance tables instead of the CPU engine;
/// kernel (when given) receives the name of the kernel that ran.
SolvedCopyDistances solved_copy_distances(const Pattern& p2N, int threads = 0,
                                          const DistancesHook* hook = nullptr, std::string* kernel = nullptr);

/// Checks every path of r against the solved distances: it starts at input i and ends at output i + N, its
/// first hop has first = 1, every later hop later = 1, and its length in hops is >= first(i + N, i) (== when
/// `shortest`). Returns "" when every path passes, else the first bad path in words (1-indexed positions).
/// `hops` receives the number of hops checked. O(total path length).
std::string compare_routing_with_distances(const CopyGraph& g, const Routing& r, bool shortest,
                                           const SolvedCopyDistances& d, std::uint64_t* hops = nullptr);

/// The whole check "routing paths valid against the solved distances": the copy task of length
/// N = min(n, o.routing_max_n) / 2 on the first 2N positions; shift (translation-invariant), random
/// shortest-path and minmax routings; also the routing code's copy distances == the solved ones. When the
/// copy is impossible there is no routing: the check passes iff the solved distances find exactly the
/// inputs the routing code calls impossible unreachable. Needs n >= 2. O(N (nnz_A + nnz_B) + routings).
ValidateCheck check_routings_against_distances(const Pattern& p, const ValidateOptions& o);

/// Appends both checks to r (n >= 2; nothing for n < 2: there is no cut and no copy task).
void add_rank_and_routing_checks(const Pattern& p, const ValidateOptions& o, ValidateResult& r);

}  // namespace mixgraph
