#pragma once
// The user's own weights for the solver, from .npy files, and the weights a run used, back to .npy
// (docs/formats.md, "Weight files").
//
//   mixgraph::WeightFiles f;
//   f.b = "beta.npy";                                   // (H, K) per offset or (H, nnz) per position
//   auto w = mixgraph::weights_from_files<double>(p, heads, seed, f, mem_limit);  // A stays seeded
//   mixgraph::save_weights("used", w, mem_limit);       // used.A.npy, used.B.npy
//
// Layouts (rows = heads H, one row per head; per channel: H = d):
//   (H, K)   per offset, translation-invariant patterns: column k is the coefficient of the k-th offset
//            (ascending; A's offsets start with 0, the diagonal), the same on every row;
//   (H, nnz) per position: the matrix's nonzeros in CSR order (reader rows i ascending, within a row the
//            read columns j ascending), as the pattern's reads list them;
//   gates (n, d), ssm only: G[i, c] = beta_{i, i-1} of channel c (G[0, c] is not used); input gates
//            (n, d): alpha_{i, i} of channel c (default 1). Gates make every column its own head (H = d).
// When cols equals both K and nnz, the file is read as per position.
#include <cstdint>
#include <optional>
#include <string>

#include "mixgraph/npy.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph {

struct WeightFiles {
  std::string a, b;         ///< --weights-a / --weights-b (.npy): per offset or per position
  std::string gates;        ///< --gates (.npy, n x d): ssm per-channel gates of B
  std::string input_gates;  ///< --input-gates (.npy, n x d): ssm per-channel diagonal of A
  bool any() const { return !a.empty() || !b.empty() || !gates.empty() || !input_gates.empty(); }
};

/// One weight matrix read in place: row-major rows x cols doubles (fp64) or floats at data, e.g. a file
/// read by read_weight_file or a caller's array. `name` leads its error messages ("--weights-b b.npy").
struct WeightArray {
  std::uint64_t rows = 0, cols = 0;
  bool fp64 = true;
  const void* data = nullptr;
  std::string name;
};
/// The four weight options as arrays (absent = not given), with the meaning of WeightFiles' fields.
struct WeightArrays {
  std::optional<WeightArray> a, b, gates, input_gates;
};

/// A weight file read for `option` (e.g. "--weights-b"): checks the memory limit against the file's size
/// first; InputError for an unreadable or malformed file.
NpyArray read_weight_file(const std::string& path, const std::string& option, std::uint64_t mem_limit);
/// A view of a read file (the array must outlive it).
WeightArray weight_array(const NpyArray& a, std::string name);

/// weights_from_files on arrays already in memory (read in place, values converted to T as they are
/// stored in the solver's layout); the same rules and messages. Values must be finite (InputError).
template <class T>
MixerWeights<T> weights_from_arrays(const Pattern& p, int heads, std::uint64_t seed, const WeightArrays& f);

/// Coefficient arrays and the view of them (c points into a and b). Not copyable safely: move it.
template <class T>
struct OwnedCoefs {
  std::vector<T> a, b;
  MixerCoefs<T> c;
  OwnedCoefs() = default;
  OwnedCoefs(const OwnedCoefs&) = delete;
  OwnedCoefs& operator=(const OwnedCoefs&) = delete;
  OwnedCoefs(OwnedCoefs&&) = default;  // a vector's move keeps its data where it is
  OwnedCoefs& operator=(OwnedCoefs&&) = default;
};

/// weights_from_arrays on a structure built before (a Mixer's, mixer.hpp): the coefficients only, with
/// `seeded` (Mixer::seeded(seed)) where f gives no array; spec names the pattern in messages. The same
/// rules, messages and values. O(the arrays given) time and memory.
template <class T>
OwnedCoefs<T> coefs_from_arrays(const SolveStructure& s, const std::string& spec, const MixerCoefs<T>& seeded,
                                const WeightArrays& f);

/// Seeded weights (seeded_mixer_weights) with the matrices the files give replaced. With gates, heads must
/// be d (pass d). Throws UsageError for options that do not fit the pattern, InputError for files of the
/// wrong shape, MemoryLimitError before reading a file larger than the limit allows.
template <class T>
MixerWeights<T> weights_from_files(const Pattern& p, int heads, std::uint64_t seed, const WeightFiles& f,
                                   std::uint64_t mem_limit);

/// Writes w's A and B as <stem>.A.npy and <stem>.B.npy (a trailing ".npy" of stem is dropped): per offset
/// (H, K) where the weights are per offset, else per position (H, nnz), in T's precision. Checks the
/// memory limit first. Returns the two paths written.
template <class T>
std::pair<std::string, std::string> save_weights(const std::string& stem, const MixerWeights<T>& w,
                                                 std::uint64_t mem_limit);

/// The inverse of the per-position loader: one matrix in the solver's stored layout (w.a or w.b with
/// CoefSource::Stored, or a gradient laid out like them: implicit [h][i][k], CSR [h][e]) written to `out` as
/// (heads, nnz) per position, the reads in CSR order. O(heads (n K + nnz)).
template <class T>
void to_per_position(const SolveStructure& s, bool is_a, int heads, const T* stored, T* out);
/// The inverse of the gates loader: values in the gates' layout inside the weights ([c][i], one head per
/// channel) written to `out` as (n, d) row-major: out[i * d + c] = stored[c * n + i].
template <class T>
void to_gate_rows(pos_t n, std::size_t d, const T* stored, T* out);

/// Head h of w as CSR matrices with values (rows ascending, reads ascending), e.g. for the rank analysis.
WeightedPattern head_weights(const MixerWeights<double>& w, int h);

}  // namespace mixgraph
