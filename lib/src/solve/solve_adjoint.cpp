// The mixer's backward pass (solve_adjoint.hpp): Z by the forward engine on reversed positions, then
// A^T Z and the weight gradients, each a sum in a fixed order (the same bits for any thread count).
#include "mixgraph/solve_adjoint.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph {

namespace {

constexpr pos_t kChunk = 256;  // rows per partial sum of a per-offset gradient (fixed: thread-independent)

int resolve_threads(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}

/// One matrix's coefficients, stored or per offset (Seeded ones are stored before they get here).
template <class T>
struct Coefs {
  const T* v = nullptr;
  bool per_offset = false;
  std::size_t K = 0;       // implicit: offsets
  std::size_t stride = 0;  // values per head
  pos_t n = 0;
  Coefs(const SolveStructure& s, const MixerCoefs<T>& w, bool is_a) {
    v = is_a ? w.a : w.b;
    per_offset = (is_a ? w.a_source : w.b_source) == CoefSource::PerOffset;
    K = (is_a ? s.a_offsets : s.b_offsets).size();
    stride = per_offset ? K : (s.implicit ? std::size_t(s.n) * K : std::size_t(is_a ? s.a.nnz() : s.b.nnz()));
    n = s.n;
  }
  /// implicit: the coefficient of row i at offset slot k of head h
  T at(int h, pos_t i, std::size_t k) const {
    return per_offset ? v[std::size_t(h) * K + k] : v[std::size_t(h) * stride + std::size_t(i) * K + k];
  }
  /// explicit: the coefficient of entry e of head h
  T entry(int h, nnz_t e) const { return v[std::size_t(h) * stride + e]; }
};

/// <a, b> over w values (a vectorised sum: its order is fixed by the build, not by the thread count).
template <class T>
inline T dot(const T* a, const T* b, std::size_t w) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (std::size_t c = 0; c < w; ++c) s += a[c] * b[c];
  return s;
}

/// Coefficient arrays with the view of them (the arrays owned, the view pointing into them or elsewhere).
template <class T>
struct AdjCoefs {
  std::vector<T> a, b;
  MixerCoefs<T> c;
  void point() {  // c views a and b (where they are c's arrays)
    c.a = a.data();
    c.a_size = a.size();
    c.b = b.data();
    c.b_size = b.size();
  }
};

/// The coefficients of the reversed problem on adj.rev: A = I, B = J B^T J with the forward's coefficients.
template <class T>
AdjCoefs<T> reversed_weights(const SolveStructure& s, const MixerCoefs<T>& w, const AdjointStructure& adj,
                             int nt) {
  const pos_t n = s.n;
  AdjCoefs<T> o;
  MixerCoefs<T>& r = o.c;
  r.heads = w.heads;
  const std::size_t H = std::size_t(w.heads);
  if (s.implicit) {
    o.a.assign(H, T(1));
    r.a_source = CoefSource::PerOffset;
  } else {
    o.a.assign(H * n, T(1));
    r.a_source = CoefSource::Stored;
  }
  const Coefs<T> B(s, w, false);
  if (B.per_offset) {  // the same coefficient on every row: the reversal changes nothing
    o.point();
    r.b = w.b;
    r.b_size = w.b_size;
    r.b_source = CoefSource::PerOffset;
    return o;
  }
  r.b_source = CoefSource::Stored;
  o.b.resize(B.stride * H);
  const std::atomic<bool>* stop = cancel_flag();  // polled per row (an exception may not leave the region)
  if (s.implicit) {
    const std::size_t K = B.K;
    const pos_t* offs = s.b_offsets.data();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t rr = 0; rr < std::int64_t(n); ++rr) {
      if (cancel_requested(stop)) continue;
      const pos_t row = pos_t(rr);
      for (std::size_t h = 0; h < H; ++h) {
        T* out = o.b.data() + h * B.stride + std::size_t(row) * K;
        for (std::size_t k = 0; k < K; ++k)  // row r at offset o reads beta_{n-1-r+o, n-1-r}
          out[k] = offs[k] <= row ? B.at(int(h), n - 1 - row + offs[k], k) : T(0);
      }
    }
  } else {
    const std::size_t nnz = adj.b_entry.size();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t t = 0; t < std::int64_t(nnz); ++t) {
      if ((t & 4095) == 0 && cancel_requested(stop)) continue;
      for (std::size_t h = 0; h < H; ++h) o.b[h * nnz + std::size_t(t)] = B.entry(int(h), adj.b_entry[t]);
    }
  }
  throw_if_cancelled(stop);
  o.point();
  return o;
}

/// Adds the gradient of one matrix (A with src = X, B with src = Y): dM_ij = <Z_i, src_j> per head.
template <class T>
void weight_gradient(const SolveStructure& s, const MixerCoefs<T>& w, bool is_a, const T* z_rev, const T* src,
                     std::size_t d, T* out, int nt) {
  const pos_t n = s.n;
  const Coefs<T> M(s, w, is_a);
  const std::size_t H = std::size_t(w.heads), dh = d / H;
  auto zrow = [&](pos_t i) { return z_rev + std::size_t(n - 1 - i) * d; };
  const std::atomic<bool>* stop = cancel_flag();  // polled per row; Cancelled is thrown after the region
  if (!s.implicit) {
    const Csr& c = is_a ? s.a : s.b;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t ii = 0; ii < std::int64_t(n); ++ii) {
      if (cancel_requested(stop)) continue;
      const pos_t i = pos_t(ii);
      const T* zi = zrow(i);
      for (nnz_t e = c.ptr[i]; e < c.ptr[i + 1]; ++e) {
        const T* sj = src + std::size_t(c.idx[e]) * d;
        for (std::size_t h = 0; h < H; ++h) out[h * M.stride + e] += dot(zi + h * dh, sj + h * dh, dh);
      }
    }
    throw_if_cancelled(stop);
    return;
  }
  const std::vector<pos_t>& offs = is_a ? s.a_offsets : s.b_offsets;
  const std::size_t K = offs.size();
  if (K == 0) return;
  if (!M.per_offset) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t ii = 0; ii < std::int64_t(n); ++ii) {
      if (cancel_requested(stop)) continue;
      const pos_t i = pos_t(ii);
      const T* zi = zrow(i);
      for (std::size_t k = 0; k < K && offs[k] <= i; ++k) {
        const T* sj = src + std::size_t(i - offs[k]) * d;
        for (std::size_t h = 0; h < H; ++h)
          out[h * M.stride + std::size_t(i) * K + k] += dot(zi + h * dh, sj + h * dh, dh);
      }
    }
    throw_if_cancelled(stop);
    return;
  }
  // per offset: per chunk of rows, column sums acc[k][c] of z_ic src_{i-o_k,c} (vectorised), reduced to the
  // heads at the chunk's end; then the chunks in order
  const pos_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<T> part(std::size_t(chunks) * H * K, T(0));
#pragma omp parallel num_threads(nt)
  {
    std::vector<T> acc(K * d);
#pragma omp for schedule(static)
    for (std::int64_t ch = 0; ch < std::int64_t(chunks); ++ch) {
      if (cancel_requested(stop)) continue;
      std::fill(acc.begin(), acc.end(), T(0));
      const pos_t lo = pos_t(ch) * kChunk, hi = std::min<pos_t>(n, lo + kChunk);
      for (pos_t i = lo; i < hi; ++i) {
        const T* zi = zrow(i);
        for (std::size_t k = 0; k < K && offs[k] <= i; ++k) {
          const T* sj = src + std::size_t(i - offs[k]) * d;
          T* a = acc.data() + k * d;
#pragma omp simd
          for (std::size_t c = 0; c < d; ++c) a[c] += zi[c] * sj[c];
        }
      }
      T* p = part.data() + std::size_t(ch) * H * K;
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t k = 0; k < K; ++k) {
          T sum = 0;
          for (std::size_t c = 0; c < dh; ++c) sum += acc[k * d + h * dh + c];
          p[h * K + k] = sum;
        }
    }
  }
  throw_if_cancelled(stop);
  for (pos_t ch = 0; ch < chunks; ++ch)
    for (std::size_t q = 0; q < H * K; ++q) out[q] += part[std::size_t(ch) * H * K + q];
}

/// dX = A^T Z, row j gathering from its readers i (ascending offsets / A^T's rows: a fixed order).
template <class T>
void input_gradient(const SolveStructure& s, const MixerCoefs<T>& w, const AdjointStructure& adj,
                    const T* z_rev, std::size_t d, T* dx, int nt) {
  const pos_t n = s.n;
  const Coefs<T> A(s, w, true);
  const std::size_t H = std::size_t(w.heads), dh = d / H;
  auto zrow = [&](pos_t i) { return z_rev + std::size_t(n - 1 - i) * d; };
  const std::atomic<bool>* stop = cancel_flag();  // polled per row; Cancelled is thrown after the region
#pragma omp parallel for schedule(static) num_threads(nt)
  for (std::int64_t jj = 0; jj < std::int64_t(n); ++jj) {
    if (cancel_requested(stop)) continue;
    const pos_t j = pos_t(jj);
    T* out = dx + std::size_t(j) * d;
    std::fill(out, out + d, T(0));
    auto add = [&](pos_t i, auto coef) {
      const T* zi = zrow(i);
      for (std::size_t h = 0; h < H; ++h) {
        const T cf = coef(int(h));
        T* o = out + h * dh;
        const T* zh = zi + h * dh;
        for (std::size_t c = 0; c < dh; ++c) o[c] += cf * zh[c];
      }
    };
    if (s.implicit) {
      for (std::size_t k = 0; k < s.a_offsets.size(); ++k) {
        const std::uint64_t i = std::uint64_t(j) + s.a_offsets[k];
        if (i >= n) break;  // offsets ascending
        add(pos_t(i), [&](int h) { return A.at(h, pos_t(i), k); });
      }
    } else {
      for (nnz_t t = adj.at.ptr[j]; t < adj.at.ptr[j + 1]; ++t)
        add(adj.at.idx[t], [&](int h) { return A.entry(h, adj.a_entry[t]); });
    }
  }
  throw_if_cancelled(stop);
}

/// w with its Seeded matrices stored (the others viewed as they are): O(heads (n K + nnz)) values.
template <class T>
AdjCoefs<T> with_seeded_stored(const SolveStructure& s, const MixerCoefs<T>& w) {
  AdjCoefs<T> o;
  o.c = w;
  if (w.a_source == CoefSource::Seeded) o.a = stored_coefs(s, w, true);
  if (w.b_source == CoefSource::Seeded) o.b = stored_coefs(s, w, false);
  if (w.a_source == CoefSource::Seeded) {
    o.c.a = o.a.data();
    o.c.a_size = o.a.size();
    o.c.a_source = CoefSource::Stored;
  }
  if (w.b_source == CoefSource::Seeded) {
    o.c.b = o.b.data();
    o.c.b_size = o.b.size();
    o.c.b_source = CoefSource::Stored;
  }
  return o;
}

}  // namespace

AdjointStructure adjoint_structure(const SolveStructure& s) {
  AdjointStructure r;
  const pos_t n = s.n;
  r.rev.n = n;
  r.rev.implicit = s.implicit;
  r.rev.family = s.family;
  r.rev.nnz_b = s.nnz_b;
  r.rev.nnz_a = n;
  if (s.implicit) {
    r.rev.b_offsets = s.b_offsets;
    r.rev.a_offsets = {0};
    return r;
  }
  // J B^T J: entry (i, j) of B becomes row n-1-j reading n-1-i; readers i descending fill each row ascending
  Csr& b = r.rev.b;
  b.n = n;
  b.ptr.assign(std::size_t(n) + 1, 0);
  for (nnz_t e = 0; e < s.b.nnz(); ++e) ++b.ptr[std::size_t(n - 1 - s.b.idx[e]) + 1];
  for (pos_t q = 0; q < n; ++q) b.ptr[q + 1] += b.ptr[q];
  b.idx.resize(s.b.nnz());
  r.b_entry.resize(s.b.nnz());
  std::vector<nnz_t> fill(b.ptr.begin(), b.ptr.end() - 1);
  const std::atomic<bool>* stop = cancel_flag();  // O(nnz) transposes: a look every 4096 rows
  for (pos_t i = n; i-- > 0;) {
    if ((i & 4095) == 0) throw_if_cancelled(stop);
    for (nnz_t e = s.b.ptr[i]; e < s.b.ptr[i + 1]; ++e) {
      const nnz_t t = fill[n - 1 - s.b.idx[e]]++;
      b.idx[t] = n - 1 - i;
      r.b_entry[t] = e;
    }
  }
  Csr& a = r.rev.a;  // the diagonal
  a.n = n;
  a.ptr.resize(std::size_t(n) + 1);
  a.idx.resize(n);
  for (pos_t q = 0; q <= n; ++q) a.ptr[q] = q;
  for (pos_t q = 0; q < n; ++q) a.idx[q] = q;
  // A^T: row j lists the readers i ascending
  Csr& at = r.at;
  at.n = n;
  at.ptr.assign(std::size_t(n) + 1, 0);
  for (nnz_t e = 0; e < s.a.nnz(); ++e) ++at.ptr[std::size_t(s.a.idx[e]) + 1];
  for (pos_t q = 0; q < n; ++q) at.ptr[q + 1] += at.ptr[q];
  at.idx.resize(s.a.nnz());
  r.a_entry.resize(s.a.nnz());
  fill.assign(at.ptr.begin(), at.ptr.end() - 1);
  for (pos_t i = 0; i < n; ++i) {
    if ((i & 4095) == 0) throw_if_cancelled(stop);
    for (nnz_t e = s.a.ptr[i]; e < s.a.ptr[i + 1]; ++e) {
      const nnz_t t = fill[s.a.idx[e]]++;
      at.idx[t] = i;
      r.a_entry[t] = e;
    }
  }
  return r;
}

template <class T>
SolveInfo solve_adjoint(const MixerWeights<T>& w, const AdjointStructure& adj, const T* x, const T* y,
                        const T* g, std::size_t d, const AdjointOut<T>& out, int threads) {
  return solve_adjoint(w.s, adj, MixerCoefs<T>::of(w), x, y, g, d, out, threads);
}

template <class T>
SolveInfo solve_adjoint(const SolveStructure& s, const AdjointStructure& adj, const MixerCoefs<T>& w_in,
                        const T* x, const T* y, const T* g, std::size_t d, const AdjointOut<T>& out,
                        int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  if (d == 0 || w_in.heads < 1 || d % static_cast<std::size_t>(w_in.heads) != 0)
    throw UsageError("solve_adjoint: d = " + std::to_string(d) +
                     " columns must be a positive multiple of the " + std::to_string(w_in.heads) + " heads");
  const bool same = adj.rev.n == s.n && adj.rev.implicit == s.implicit &&
                    (s.implicit ? adj.rev.b_offsets == s.b_offsets
                                : adj.b_entry.size() == s.b.nnz() && adj.a_entry.size() == s.a.nnz());
  if (!same) throw UsageError("solve_adjoint: the adjoint structure was built for another pattern");
  if (!s.implicit && (w_in.a_source == CoefSource::PerOffset || w_in.b_source == CoefSource::PerOffset))
    throw UsageError("solve: weights per offset need a translation-invariant pattern");
  const bool seeded = w_in.a_source == CoefSource::Seeded || w_in.b_source == CoefSource::Seeded;
  const AdjCoefs<T> st = seeded ? with_seeded_stored(s, w_in) : AdjCoefs<T>{};
  const MixerCoefs<T>& w = seeded ? st.c : w_in;
  const int nt = resolve_threads(threads);
  const pos_t n = s.n;
  const std::size_t nd = std::size_t(n) * d;

  // Z: the forward engine on the reversed positions (z_rev row r = Z row n-1-r). The reversed G goes into
  // dX's memory when dX is asked for (dX is written only once Z is solved), else into a buffer of its own:
  // fresh memory costs page faults in every call (about as long as the solve). Neither buffer is zeroed
  // (every value is written before it is read).
  const std::unique_ptr<T[]> z_buf(new T[nd]);
  T* const z_rev = z_buf.get();
  SolveInfo info;
  {
    const AdjCoefs<T> r = reversed_weights(s, w, adj, nt);
    const std::unique_ptr<T[]> g_buf(out.dx ? nullptr : new T[nd]);
    T* const g_rev = out.dx ? out.dx : g_buf.get();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i)
      std::copy_n(g + std::size_t(n - 1 - pos_t(i)) * d, d, g_rev + std::size_t(i) * d);
    info = solve_mixer(adj.rev, r.c, g_rev, z_rev, d, threads);
    throw_if_cancelled();  // the solve returns early, Z part-written, when it was cancelled
  }
  if (out.z) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i)
      std::copy_n(z_rev + std::size_t(n - 1 - pos_t(i)) * d, d, out.z + std::size_t(i) * d);
  }
  if (out.dx) input_gradient(s, w, adj, z_rev, d, out.dx, nt);
  if (out.da) weight_gradient(s, w, true, z_rev, x, d, out.da, nt);
  if (out.db) weight_gradient(s, w, false, z_rev, y, d, out.db, nt);
  info.kernel = "cpu-adjoint(" + info.kernel + ")";
  info.threads = nt;
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  info.total_seconds = info.seconds;
  return info;
}

template SolveInfo solve_adjoint<float>(const MixerWeights<float>&, const AdjointStructure&, const float*,
                                        const float*, const float*, std::size_t, const AdjointOut<float>&,
                                        int);
template SolveInfo solve_adjoint<double>(const MixerWeights<double>&, const AdjointStructure&, const double*,
                                         const double*, const double*, std::size_t, const AdjointOut<double>&,
                                         int);

template SolveInfo solve_adjoint<float>(const SolveStructure&, const AdjointStructure&,
                                        const MixerCoefs<float>&, const float*, const float*, const float*,
                                        std::size_t, const AdjointOut<float>&, int);
template SolveInfo solve_adjoint<double>(const SolveStructure&, const AdjointStructure&,
                                         const MixerCoefs<double>&, const double*, const double*,
                                         const double*, std::size_t, const AdjointOut<double>&, int);

}  // namespace mixgraph
