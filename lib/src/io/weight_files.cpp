// The user's weights from .npy files and the weights a run used back to .npy (weight_files.hpp).
#include "mixgraph/weight_files.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "io/input_file.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"

namespace mixgraph {

namespace {

double at(const WeightArray& a, std::size_t k) {
  return a.fp64 ? static_cast<const double*>(a.data)[k] : double(static_cast<const float*>(a.data)[k]);
}

std::string shape_text(const WeightArray& a) {
  return "(" + std::to_string(a.rows) + ", " + std::to_string(a.cols) + ")";
}

/// One matrix (A or B) from (H, K) per offset or (H, nnz) per position into w's layout.
template <class T>
void load_matrix(const WeightArray& f, const std::string& what, const SolveStructure& s, bool is_a, int heads,
                 std::vector<T>& out, CoefSource& src) {
  const std::vector<pos_t>& offs = is_a ? s.a_offsets : s.b_offsets;
  const nnz_t nnz = is_a ? s.nnz_a : s.nnz_b;
  const std::size_t K = offs.size();
  if (f.rows != std::uint64_t(heads))
    throw InputError(what + ": shape " + shape_text(f) + " has " + std::to_string(f.rows) +
                     " rows, need one per head (" + std::to_string(heads) + ")");
  if (f.cols == nnz) {  // per position, CSR order
    src = CoefSource::Stored;
    if (!s.implicit) {
      out.resize(std::size_t(heads) * nnz);
      for (std::size_t q = 0; q < out.size(); ++q) out[q] = static_cast<T>(at(f, q));
      return;
    }
    const std::size_t stride = std::size_t(s.n) * K;
    out.assign(stride * std::size_t(heads), T(0));
    for (int h = 0; h < heads; ++h) {
      std::size_t q = std::size_t(h) * nnz;
      std::size_t m = 0;  // offsets <= i
      for (pos_t i = 0; i < s.n; ++i) {
        while (m < K && offs[m] <= i) ++m;
        for (std::size_t t = 0; t < m; ++t)  // reads ascending in j = offsets descending
          out[std::size_t(h) * stride + std::size_t(i) * K + (m - 1 - t)] = static_cast<T>(at(f, q++));
      }
    }
    return;
  }
  if (s.implicit && f.cols == K) {  // per offset
    src = CoefSource::PerOffset;
    out.resize(std::size_t(heads) * K);
    for (std::size_t q = 0; q < out.size(); ++q) out[q] = static_cast<T>(at(f, q));
    return;
  }
  throw InputError(what + ": shape " + shape_text(f) + " fits neither (heads, nnz) = (" +
                   std::to_string(heads) + ", " + std::to_string(nnz) + ") per position" +
                   (s.implicit ? " nor (heads, offsets) = (" + std::to_string(heads) + ", " +
                                     std::to_string(K) + ") per offset"
                               : " (weights per offset need a translation-invariant pattern)"));
}

/// Gates (n, d) into the implicit per-head layout with K = 1: out[c * n + i] = g[i, c].
template <class T>
void load_gates(const WeightArray& g, const std::string& what, pos_t n, int d, std::vector<T>& out) {
  if (g.rows != n || g.cols != std::uint64_t(d))
    throw InputError(what + ": shape " + shape_text(g) + ", need (n, d) = (" + std::to_string(n) + ", " +
                     std::to_string(d) + ")");
  out.resize(std::size_t(n) * std::size_t(d));
  for (pos_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c)
      out[std::size_t(c) * n + i] = static_cast<T>(at(g, std::size_t(i) * std::size_t(d) + std::size_t(c)));
}

}  // namespace

NpyArray read_weight_file(const std::string& path, const std::string& option, std::uint64_t mem_limit) {
  // a FIFO or device is refused by name before anything is read ("not a regular file")
  const std::uint64_t bytes = detail::check_input_file(path, option + " file");
  check_memory(bytes * 2, mem_limit, "reading " + option + " " + path);
  return read_npy(path, "the " + option + " weights");
}

WeightArray weight_array(const NpyArray& a, std::string name) {
  WeightArray v;
  v.rows = a.rows;
  v.cols = a.cols;
  v.fp64 = a.fp64;
  v.data = a.fp64 ? static_cast<const void*>(a.f64.data()) : static_cast<const void*>(a.f32.data());
  v.name = std::move(name);
  return v;
}

namespace {

/// The coefficients with the given matrices replaced (a, b and their sources hold the seeded ones on
/// entry); get(k) returns matrix k (0 B, 1 A, 2 gates, 3 input gates, the order files are read in), finite,
/// valid until the next call.
template <class T, class Get>
void replace_given(const SolveStructure& s, const std::string& spec, int heads, const bool (&given)[4],
                   Get get, std::vector<T>& a, CoefSource& a_source, std::vector<T>& b,
                   CoefSource& b_source) {
  const bool gated = given[2] || given[3];
  if (gated) {
    if (!(s.implicit && s.b_offsets == std::vector<pos_t>{1} && s.a_offsets == std::vector<pos_t>{0}))
      throw UsageError("--gates / --input-gates need a first-order pattern with a diagonal A (ssm), not '" +
                       spec + "'");
    if ((given[2] && given[0]) || (given[3] && given[1]))
      throw UsageError(
          "give either --gates or --weights-b (and either --input-gates or --weights-a), not both");
  }
  if (given[0]) {
    const WeightArray& m = get(0);
    load_matrix(m, m.name, s, false, heads, b, b_source);
  }
  if (given[1]) {
    const WeightArray& m = get(1);
    load_matrix(m, m.name, s, true, heads, a, a_source);
  }
  if (given[2]) {
    const WeightArray& m = get(2);
    load_gates(m, m.name, s.n, heads, b);
    b_source = CoefSource::Stored;
  }
  if (gated && !given[3] && !given[1]) {  // A = I per channel
    a.assign(std::size_t(heads), T(1));
    a_source = CoefSource::PerOffset;
  }
  if (given[3]) {
    const WeightArray& m = get(3);
    load_gates(m, m.name, s.n, heads, a);
    a_source = CoefSource::Stored;
  }
}

/// The weights with the given matrices replaced (replace_given on seeded weights).
template <class T, class Get>
MixerWeights<T> build_weights(const Pattern& p, int heads, std::uint64_t seed, const bool (&given)[4],
                              Get get) {
  MixerWeights<T> w = seeded_mixer_weights<T>(p, heads, seed);
  replace_given(w.s, p.spec, heads, given, get, w.a, w.a_source, w.b, w.b_source);
  return w;
}

/// f's matrices checked finite, in build order.
auto finite_getter(const WeightArrays& f) {
  return [&f](int k) -> const WeightArray& {
    const std::optional<WeightArray>* m[4] = {&f.b, &f.a, &f.gates, &f.input_gates};
    const WeightArray& v = **m[k];
    require_finite(v.data, v.fp64, v.rows, v.cols, v.name);
    return v;
  };
}

}  // namespace

template <class T>
MixerWeights<T> weights_from_arrays(const Pattern& p, int heads, std::uint64_t seed, const WeightArrays& f) {
  const bool given[4] = {bool(f.b), bool(f.a), bool(f.gates), bool(f.input_gates)};
  return build_weights<T>(p, heads, seed, given, finite_getter(f));
}

template <class T>
OwnedCoefs<T> coefs_from_arrays(const SolveStructure& s, const std::string& spec, const MixerCoefs<T>& seeded,
                                const WeightArrays& f) {
  OwnedCoefs<T> o;
  o.c = seeded;
  o.a.assign(seeded.a, seeded.a + seeded.a_size);
  o.b.assign(seeded.b, seeded.b + seeded.b_size);
  const bool given[4] = {bool(f.b), bool(f.a), bool(f.gates), bool(f.input_gates)};
  replace_given(s, spec, seeded.heads, given, finite_getter(f), o.a, o.c.a_source, o.b, o.c.b_source);
  o.c.a = o.a.data();
  o.c.a_size = o.a.size();
  o.c.b = o.b.data();
  o.c.b_size = o.b.size();
  return o;
}

template <class T>
MixerWeights<T> weights_from_files(const Pattern& p, int heads, std::uint64_t seed, const WeightFiles& f,
                                   std::uint64_t mem_limit) {
  const std::string* path[4] = {&f.b, &f.a, &f.gates, &f.input_gates};
  const char* option[4] = {"--weights-b", "--weights-a", "--gates", "--input-gates"};
  const bool given[4] = {!f.b.empty(), !f.a.empty(), !f.gates.empty(), !f.input_gates.empty()};
  NpyArray file;  // one file in memory at a time
  WeightArray view;
  return build_weights<T>(p, heads, seed, given, [&](int k) -> const WeightArray& {
    file = read_weight_file(*path[k], option[k], mem_limit);
    view = weight_array(file, std::string(option[k]) + " " + *path[k]);
    require_finite(file, view.name);
    return view;
  });
}

template <class T>
std::pair<std::string, std::string> save_weights(const std::string& stem_in, const MixerWeights<T>& w,
                                                 std::uint64_t mem_limit) {
  std::string stem = stem_in;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".npy") == 0) stem.resize(stem.size() - 4);
  const SolveStructure& s = w.s;
  const std::uint64_t per = (s.nnz_a + s.nnz_b) * std::uint64_t(w.heads) * (sizeof(T) + 8);
  check_memory(per, mem_limit, "--save-weights " + stem_in);
  const MixerWeights<T> st = stored_weights(w);
  auto one = [&](bool is_a) {
    const CoefSource src = is_a ? w.a_source : w.b_source;
    const std::size_t K = (is_a ? s.a_offsets : s.b_offsets).size();
    NpyArray out;
    out.fp64 = sizeof(T) == 8;
    out.rows = std::uint64_t(w.heads);
    std::vector<T> v;
    if (src == CoefSource::PerOffset) {
      v = is_a ? w.a : w.b;
      out.cols = K;
    } else {
      const std::vector<T>& full = is_a ? st.a : st.b;
      const nnz_t nnz = is_a ? s.nnz_a : s.nnz_b;
      out.cols = nnz;
      v.resize(std::size_t(nnz) * std::size_t(w.heads));
      to_per_position(s, is_a, w.heads, full.data(), v.data());
    }
    if constexpr (sizeof(T) == 8)
      out.f64 = std::move(v);
    else
      out.f32 = std::move(v);
    const std::string path = stem + (is_a ? ".A.npy" : ".B.npy");
    write_npy(path, out);
    return path;
  };
  const std::string pa = one(true), pb = one(false);
  return {pa, pb};
}

template <class T>
void to_per_position(const SolveStructure& s, bool is_a, int heads, const T* stored, T* out) {
  const std::vector<pos_t>& offs = is_a ? s.a_offsets : s.b_offsets;
  const Csr& csr = is_a ? s.a : s.b;
  if (!s.implicit) {
    std::copy_n(stored, std::size_t(csr.nnz()) * std::size_t(heads), out);
    return;
  }
  const std::size_t K = offs.size(), stride = std::size_t(s.n) * K;
  for (int h = 0; h < heads; ++h) {
    std::size_t m = 0;
    for (pos_t i = 0; i < s.n; ++i) {
      while (m < K && offs[m] <= i) ++m;
      for (std::size_t t = 0; t < m; ++t)  // reads ascending in j = offsets descending
        *out++ = stored[std::size_t(h) * stride + std::size_t(i) * K + (m - 1 - t)];
    }
  }
}

template <class T>
void to_gate_rows(pos_t n, std::size_t d, const T* stored, T* out) {
  for (pos_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) out[std::size_t(i) * d + c] = stored[c * n + i];
}

WeightedPattern head_weights(const MixerWeights<double>& w, int h) {
  if (h < 0 || h >= w.heads) throw UsageError("head_weights: no head " + std::to_string(h));
  const MixerWeights<double> st = stored_weights(w);
  const SolveStructure& s = w.s;
  auto one = [&](bool is_a) {
    const std::vector<pos_t>& offs = is_a ? s.a_offsets : s.b_offsets;
    const std::vector<double>& v = is_a ? st.a : st.b;
    Csr m = is_a ? s.a : s.b;
    if (!s.implicit) {
      const std::size_t nnz = m.nnz();
      m.val.assign(v.begin() + std::ptrdiff_t(std::size_t(h) * nnz),
                   v.begin() + std::ptrdiff_t(std::size_t(h + 1) * nnz));
      return m;
    }
    const std::size_t K = offs.size(), stride = std::size_t(s.n) * K;
    m.n = s.n;
    m.ptr.assign(1, 0);
    std::size_t reads = 0;
    for (pos_t i = 0; i < s.n; ++i) {
      while (reads < K && offs[reads] <= i) ++reads;
      for (std::size_t t = reads; t-- > 0;) {  // offsets descending = columns ascending
        m.idx.push_back(i - offs[t]);
        m.val.push_back(v[std::size_t(h) * stride + std::size_t(i) * K + t]);
      }
      m.ptr.push_back(m.idx.size());
    }
    return m;
  };
  WeightedPattern r;
  r.a = one(true);
  r.b = one(false);
  return r;
}

template void to_per_position<float>(const SolveStructure&, bool, int, const float*, float*);
template void to_per_position<double>(const SolveStructure&, bool, int, const double*, double*);
template void to_gate_rows<float>(pos_t, std::size_t, const float*, float*);
template void to_gate_rows<double>(pos_t, std::size_t, const double*, double*);
template MixerWeights<float> weights_from_arrays<float>(const Pattern&, int, std::uint64_t,
                                                        const WeightArrays&);
template MixerWeights<double> weights_from_arrays<double>(const Pattern&, int, std::uint64_t,
                                                          const WeightArrays&);
template OwnedCoefs<float> coefs_from_arrays<float>(const SolveStructure&, const std::string&,
                                                    const MixerCoefs<float>&, const WeightArrays&);
template OwnedCoefs<double> coefs_from_arrays<double>(const SolveStructure&, const std::string&,
                                                      const MixerCoefs<double>&, const WeightArrays&);
template MixerWeights<float> weights_from_files<float>(const Pattern&, int, std::uint64_t, const WeightFiles&,
                                                       std::uint64_t);
template MixerWeights<double> weights_from_files<double>(const Pattern&, int, std::uint64_t,
                                                         const WeightFiles&, std::uint64_t);
template std::pair<std::string, std::string> save_weights<float>(const std::string&,
                                                                 const MixerWeights<float>&, std::uint64_t);
template std::pair<std::string, std::string> save_weights<double>(const std::string&,
                                                                  const MixerWeights<double>&, std::uint64_t);

}  // namespace mixgraph
