#pragma once
// The mixer's backward pass (docs/math.md §1, "Gradients"): for Y = (I - B)^{-1} A X and a loss L with
// G = dL/dY, the adjoint solve Z = (I - B)^{-T} G, then
//   dL/dX = A^T Z,   dL/dalpha_ij = <Z_i, X_j>,   dL/dbeta_ij = <Z_i, Y_j>
// (inner products over the columns of the entry's head), each weight gradient in the layout its
// weights are stored in (MixerWeights).
//
//   auto adj = mixgraph::adjoint_structure(w.s);                  // once per pattern: O(n + nnz)
//   std::vector<double> dx(n * d), da(w.a.size()), db(w.b.size());  // da, db are added to: zero them
//   mixgraph::solve_adjoint(w, adj, x.data(), y.data(), g.data(), d, {dx.data(), da.data(), db.data()});
//
// Z is solved by the forward engine (solve_mixer) on reversed positions: with J the reversal,
// (I - B)^{-T} = J (I - J B^T J)^{-1} J, and J B^T J is strictly lower triangular again. For a
// translation-invariant pattern it reads the same offsets (row r at offset o holds beta_{n-1-r+o, n-1-r},
// 0-indexed); for the other families it is the transposed structure, built once by adjoint_structure.
#include <cstddef>
#include <vector>

#include "mixgraph/csr.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph {

/// What the backward pass needs of a pattern besides its SolveStructure, built once. Translation-invariant
/// patterns: the reversed structure (the same B offsets, A the diagonal) and nothing else. The other
/// families: the reversed transposed B (row r reads n-1-i for every reader i of position n-1-r), the
/// transposed A, and where each of their entries sits in the forward's CSR.
struct AdjointStructure {
  SolveStructure rev;          ///< J B^T J with A = I, in solver form (what Z is solved on)
  std::vector<nnz_t> b_entry;  ///< explicit: entry t of rev.b is entry b_entry[t] of the forward's B
  Csr at;                      ///< explicit: A^T without values (row j lists the readers i of x_j, ascending)
  std::vector<nnz_t> a_entry;  ///< explicit: entry t of at is entry a_entry[t] of the forward's A
};

/// The adjoint structure of s. O(n + nnz_A + nnz_B) time and memory for explicit families, O(#offsets) for
/// translation-invariant ones.
AdjointStructure adjoint_structure(const SolveStructure& s);

/// Where solve_adjoint writes; a null pointer is not computed.
template <class T>
struct AdjointOut {
  T* dx =
      nullptr;  ///< n x d row-major, written: dL/dX = A^T Z (also scratch before that: must not overlap g)
  T* da = nullptr;  ///< laid out as the stored A (see solve_adjoint), ADDED to
  T* db = nullptr;  ///< laid out as the stored B, ADDED to
  T* z = nullptr;   ///< n x d row-major, written: Z itself
};

/// The backward pass of solve_mixer(w, x, y, d): x the forward's X, y its Y, g = dL/dY (all n x d
/// row-major, column c in head c / (d / heads)). Weight gradients come in the layout of the weights as
/// stored_weights(w) holds them (Seeded coefficients count as stored; their gradient is still computed):
/// PerOffset [h][k] (summed over the rows), Stored implicit [h][i][k] (0 where o_k > i), Stored CSR
/// [h][e] — each the sum over the head's columns. da and db are added to, so a batch of independent
/// sequences on the same weights sums its gradients by calling once per sequence. O(d (nnz_A + nnz_B))
/// work, plus O(heads (n K_B + nnz_B)) to lay out the reversed coefficients and 2 n d values of scratch.
/// OpenMP like solve_mixer (threads = 0: all); the results do not depend on the thread count. Errors:
/// UsageError (exit 2) for d not a positive multiple of the heads, per-offset weights on an explicit
/// structure, or an adjoint structure of another pattern; std::bad_alloc when memory runs out. Under a
/// CancelScope (mixgraph/cancel.hpp) whose flag is set, it stops within a block of rows of each stage and
/// throws Cancelled (the outputs are then part-written); adjoint_structure stops the same way.
template <class T>
SolveInfo solve_adjoint(const MixerWeights<T>& w, const AdjointStructure& adj, const T* x, const T* y,
                        const T* g, std::size_t d, const AdjointOut<T>& out, int threads = 0);

/// solve_adjoint on a structure and coefficients given apart (the same bits): what a Mixer (mixer.hpp) calls;
/// s and adj are read, never copied.
template <class T>
SolveInfo solve_adjoint(const SolveStructure& s, const AdjointStructure& adj, const MixerCoefs<T>& c,
                        const T* x, const T* y, const T* g, std::size_t d, const AdjointOut<T>& out,
                        int threads = 0);

}  // namespace mixgraph
