#pragma once
// Plan once, solve many: a Mixer owns everything of a solve that depends only on the structure (the
// pattern's solver form, implicit offsets or CSR; the adjoint's transposed structure; the files' values of
// mtx: patterns), built once, and solves Y = (I - B)^{-1} A X for any X and coefficients with it.
//
//   mixgraph::Mixer m("pow2+cache", 1 << 16, {/*heads=*/4, mixgraph::Precision::Fp32});
//   std::vector<float> x(m.n() * 64), y(m.n() * 64);             // row-major n x d, d = heads * d_h
//   m.solve(x.data(), y.data(), 64, m.seeded<float>(/*seed=*/1)); // the bits of solve_mixer(seeded weights)
//   m.solve(x.data(), y.data(), 64, mixgraph::MixerCoefs<float>::of(w)); // weights w made on this pattern
//   m.release();                                                   // frees the plan; the next solve rebuilds
//
// Every solve is the free function's kernel (solve_mixer / solve_adjoint) on the Mixer's structure: the
// same bits, without the per-call O(n + nnz) copy of the structure that building MixerWeights costs.
// Thread safety: the const member functions may run from several threads at once (the plan is shared,
// read-only, held by each call until it returns); release() may run beside them (a running call keeps the
// plan it started with, so its memory is freed when the last such call returns).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_adjoint.hpp"

namespace mixgraph {

enum class Precision { Fp32, Fp64 };
enum class MixerDevice { Cpu, Gpu };

struct MixerOptions {
  int heads = 1;
  Precision precision = Precision::Fp32;
  MixerDevice device = MixerDevice::Cpu;  ///< Gpu: refused (UsageError) in this library (see Mixer())
  /// Seeded solves store the coefficients of the last seed (every one: O(heads (n K + nnz)) values held
  /// until another seed or release()) and read them in later calls instead of making them in the kernel:
  /// faster repeated calls (most at small d and for patterns with many reads per row), at that memory.
  bool keep_weights = false;
};

class Mixer {
 public:
  /// Plans for p: solve_structure(p) (O(n + nnz) time and memory for explicit families, O(#offsets) for
  /// implicit ones) and, for mtx: patterns, the files' values (heads copies, as seeded_mixer_weights keeps
  /// them). The adjoint structure is built by the first solve_adjoint (O(n + nnz) more). Errors: UsageError
  /// (exit 2) for heads < 1 or device Gpu (the GPU solve is solve_on, solve_backend.hpp).
  explicit Mixer(const Pattern& p, MixerOptions o = {});
  /// The same for make_pattern(spec, n) (its errors included): the spec is parsed once, here.
  Mixer(const std::string& spec, std::uint64_t n, MixerOptions o = {});
  /// The same for make_pattern(tree, n): no parse.
  Mixer(const PatternSpec& spec, std::uint64_t n, MixerOptions o = {});

  /// Y = (I - B)^{-1} A X with coefficients c (heads = the Mixer's; Stored arrays of heads * stride values,
  /// PerOffset of heads * K): the bits of solve_mixer(w, x, y, d, threads) for weights w on this pattern
  /// with these coefficients. O(d (nnz_A + nnz_B)) work, O(threads x tile) working memory (a tile: 64
  /// columns by 64 rows of coefficients). T must be the Mixer's precision. Errors: UsageError for a null x
  /// or y, d not a positive multiple of the heads, another precision or head count, arrays too short for
  /// the structure, per-offset coefficients on an explicit structure; those of solve_mixer otherwise.
  /// After release() the plan is rebuilt first (from the pattern's parsed spec, without parsing it again:
  /// the cost of the constructor).
  template <class T>
  SolveInfo solve(const T* x, T* y, std::size_t d, const MixerCoefs<T>& c, int threads = 0) const;

  /// solve with the seeded coefficients of seed (head h draws with seed + h; mtx: patterns keep their
  /// files' values): the bits of solve_mixer(seeded_mixer_weights(p, heads, seed), ...).
  template <class T>
  SolveInfo solve(const T* x, T* y, std::size_t d, std::uint64_t seed, int threads = 0) const;

  /// The seeded coefficients of seed (head h draws with seed + h; mtx: patterns keep their files' values):
  /// what seeded_mixer_weights(p, heads, seed) holds, as a view of the plan (valid until release()).
  template <class T>
  MixerCoefs<T> seeded(std::uint64_t seed) const;

  /// The backward pass (solve_adjoint.hpp) with coefficients c on the Mixer's structure: the bits of
  /// solve_adjoint(w, adjoint_structure(w.s), ...). O(d (nnz_A + nnz_B)) work plus 2 n d values of scratch
  /// and, for seeded coefficients, their stored copy (as the free function). The first call builds the
  /// adjoint structure (kept until release()). Errors: as solve, and solve_adjoint's.
  template <class T>
  SolveInfo solve_adjoint(const T* x, const T* y, const T* g, std::size_t d, const MixerCoefs<T>& c,
                          const AdjointOut<T>& out, int threads = 0) const;

  /// solve_adjoint with the seeded coefficients of seed.
  template <class T>
  SolveInfo solve_adjoint(const T* x, const T* y, const T* g, std::size_t d, std::uint64_t seed,
                          const AdjointOut<T>& out, int threads = 0) const;

  /// Frees the plan (structure, adjoint structure, files' values, kept weights). Coefficient views from
  /// seeded() become invalid; later calls rebuild the plan from the pattern's spec and n. O(1) (the memory is
  /// freed when the last running call returns).
  void release();
  /// Whether a plan is held now (false after release() until a call rebuilds it).
  bool planned() const;
  /// Bytes the plan holds now (structure, adjoint structure, files' values, kept weights); 0 when released.
  std::uint64_t bytes() const;

  pos_t n() const { return n_; }
  int heads() const { return opt_.heads; }
  Precision precision() const { return opt_.precision; }
  const std::string& spec() const { return spec_; }
  /// The parsed spec the plan is (re)built from.
  const PatternSpec& spec_tree() const { return tree_; }

  /// The options the Mixer was made with.
  const MixerOptions& options() const { return opt_; }

  /// The plan's structure (shared: it stays valid while held, also across release()).
  std::shared_ptr<const SolveStructure> structure() const;

  struct Plan;  ///< opaque: the structure and the seeded coefficients' arrays

 private:
  std::shared_ptr<const Plan> plan() const;
  std::shared_ptr<const AdjointStructure> adjoint() const;
  template <class T>
  void check(const T* x, const void* y, std::size_t d, const MixerCoefs<T>& c, const Plan& p) const;
  /// The seeded coefficients of seed for a call: a view of the plan, or (keep_weights) of the stored ones
  /// of seed, made now unless kept; *hold keeps what the view points into alive for the call.
  template <class T>
  MixerCoefs<T> call_coefs(const std::shared_ptr<const Plan>& p, std::uint64_t seed,
                           std::shared_ptr<const void>* hold) const;

  std::string spec_;
  PatternSpec tree_;  // what plan() rebuilds from after release(): no parse
  pos_t n_ = 0;
  MixerOptions opt_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const Plan> plan_;
  mutable std::shared_ptr<const AdjointStructure> adj_;
  mutable std::shared_ptr<const void> kept_;  // keep_weights: OwnedCoefs<T> of kept_seed_
  mutable std::uint64_t kept_seed_ = 0;
};

}  // namespace mixgraph
