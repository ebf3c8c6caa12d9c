#pragma once
// Seeded random weights on a pattern's nonzeros, for the induced operator M = (I - B)^{-1} A and the solver.
//
//   auto w = mixgraph::random_weights(mixgraph::make_pattern("pow2", 256), /*seed=*/1);
//   // w.a, w.b: CSR (rows = readers, 0-indexed), values filled
//
// Scheme (generic: every nonzero drawn independently): u = +-U[0.5, 1) with a random sign, from the
// counter-based generator of weight_gen.hpp keyed by (seed, matrix, row, column), so results do not depend
// on thread count or order, and the solvers can make the same numbers where they use them:
//   beta_ij  = 0.9 u / r_i   (r_i = number of B reads of row i), so sum_j |beta_ij| <= 0.9 and
//              ||(I - B)^{-1}||_inf <= 10: the solve stays finite and well conditioned at any n;
//   alpha_ij = u / c_i       (c_i = number of A reads of row i), so sum_j |alpha_ij| <= 1.
// Matrix patterns keep their files' values (B, and A when given as a file; A's weights for mtx:B.mtx
// are drawn as above). Pattern-only .mtx files (field 'pattern') get random weights too.
// docs/formats.md ("Seeded weights") reproduces the weights in numpy.
#include <cstdint>

#include "mixgraph/pattern.hpp"

namespace mixgraph {

struct WeightedPattern {
  Csr a;  ///< A: rows = readers, diagonal included where A has it
  Csr b;  ///< B: strictly lower
};

/// One uniform draw in [0, 1) from (seed, stream, row, col): splitmix64 of the mixed key.
double hash_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col);

/// Materialises A and B with weights (O(n + nnz) memory; refuse large n with check_memory first). Head h
/// of a solve with seed s has the weights of random_weights(p, s + h). Under a CancelScope
/// (mixgraph/cancel.hpp) whose flag is set, it stops within a block of rows and throws Cancelled.
WeightedPattern random_weights(const Pattern& p, std::uint64_t seed);

}  // namespace mixgraph
