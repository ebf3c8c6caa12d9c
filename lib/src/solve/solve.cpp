// The CPU solve engine (solve.hpp): structure, coefficients, the tiled real solve, the Eq. 1 reference,
// and the semiring solves (distances, reachability, shortest-path counts).
#include "mixgraph/solve.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "mixgraph/commgraph.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/solve_cancel.hpp"
#include "mixgraph/weight_gen.hpp"

namespace mixgraph {

namespace {

/// Rows between two looks at the cancel flag (a few ms of work at most): a power of two.
constexpr unsigned kCancelRows = 4096;
inline bool stopped(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

int resolve_threads(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}

nnz_t implicit_nnz(const std::vector<pos_t>& offs, pos_t n) {
  nnz_t s = 0;
  for (pos_t o : offs)
    if (o < n) s += n - o;
  return s;
}

Csr strip_values(Csr c) {
  c.val.clear();
  c.val.shrink_to_fit();
  return c;
}

/// Values of one head's CSR (rows ascending j) into the implicit [i][k] layout (k over ascending offsets).
template <class T>
void scatter_implicit(const Csr& m, const std::vector<pos_t>& offs, T* out) {
  const std::size_t K = offs.size();
  for (pos_t i = 0; i < m.n; ++i) {
    T* row = out + std::size_t(i) * K;
    std::fill(row, row + K, T(0));
    const nnz_t lo = m.ptr[i], hi = m.ptr[i + 1];
    // entries ascending in j = descending in offset: entry t <-> offset index (m_i - 1 - t)
    std::size_t m_i = 0;
    while (m_i < K && offs[m_i] <= i) ++m_i;
    if (hi - lo != m_i) throw std::logic_error("solve: CSR row does not match the implicit offsets");
    for (nnz_t e = lo; e < hi; ++e) {
      const std::size_t k = m_i - 1 - (e - lo);
      if (i - m.idx[e] != offs[k])
        throw std::logic_error("solve: CSR entry does not match the implicit offset");
      row[k] = static_cast<T>(m.val[e]);
    }
  }
}

/// What the kernels read: a structure and coefficients given apart (MixerWeights' fields by reference, or a
/// Mixer's structure with the caller's MixerCoefs), so that neither is copied per call.
template <class T>
struct View {
  const SolveStructure& s;
  int heads;
  const T* a;
  const T* b;
  CoefSource a_source, b_source;
  std::uint64_t seed;
  View(const SolveStructure& st, const MixerCoefs<T>& c)
      : s(st), heads(c.heads), a(c.a), b(c.b), a_source(c.a_source), b_source(c.b_source), seed(c.seed) {}
  explicit View(const MixerWeights<T>& w) : View(w.s, MixerCoefs<T>::of(w)) {}
  std::size_t a_stride() const { return s.implicit ? std::size_t(s.n) * s.a_offsets.size() : s.a.nnz(); }
  std::size_t b_stride() const { return s.implicit ? std::size_t(s.n) * s.b_offsets.size() : s.b.nnz(); }
};

// ---- coefficients of one (matrix, head), whatever their source ----

/// Rows of coefficients of one matrix and head. Implicit: rows(r0, rows, klo, khi, buf) returns p with
/// p[r * K + k] the coefficient of row r0 + r, offset slot k (only slots in [klo, khi) with o_k <= r0 + r
/// are valid). CSR: row(i, buf) returns p with p[e - ptr[i]] the coefficient of entry e. Stored arrays
/// are returned in place; seeded and per-offset coefficients are written into buf (implicit: rows * K
/// values, CSR: max_row() values).
template <class T>
struct CoefView {
  CoefSource src = CoefSource::Stored;
  const T* base = nullptr;  // Stored: the head's array; PerOffset: the head's K coefficients
  std::uint64_t key = 0;
  double total = 0;
  const std::vector<pos_t>* offs = nullptr;
  const Csr* csr = nullptr;
  std::size_t K = 0;

  CoefView(const View<T>& W, bool is_a, int h) {
    const SolveStructure& s = W.s;
    src = is_a ? W.a_source : W.b_source;
    const T* v = is_a ? W.a : W.b;
    offs = is_a ? &s.a_offsets : &s.b_offsets;
    csr = is_a ? &s.a : &s.b;
    K = offs->size();
    if (src == CoefSource::Stored) base = v + std::size_t(h) * (is_a ? W.a_stride() : W.b_stride());
    if (src == CoefSource::PerOffset) base = v + std::size_t(h) * K;
    key = wgen::stream_key(W.seed, std::uint64_t(h), is_a ? wgen::kMatrixA : wgen::kMatrixB);
    total = is_a ? wgen::kTotalA : wgen::kTotalB;
  }
  std::size_t max_row() const {
    if (!csr->ptr.empty() && csr->n > 0) {
      nnz_t m = 0;
      for (pos_t i = 0; i < csr->n; ++i) m = std::max(m, csr->ptr[i + 1] - csr->ptr[i]);
      return std::size_t(m);
    }
    return 0;
  }
  const T* rows(pos_t r0, pos_t nrows, std::size_t klo, std::size_t khi, T* buf) const {
    if (src == CoefSource::Stored) return base + std::size_t(r0) * K;
    const pos_t* o = offs->data();
    std::size_t reads = 0;  // offsets <= row
    for (pos_t r = 0; r < nrows; ++r) {
      const pos_t i = r0 + r;
      while (reads < K && o[reads] <= i) ++reads;
      T* out = buf + std::size_t(r) * K;
      const std::size_t hi = std::min(khi, reads);
      if (src == CoefSource::PerOffset) {
        for (std::size_t k = klo; k < hi; ++k) out[k] = base[k];
      } else {
        for (std::size_t k = klo; k < hi; ++k)
          out[k] = static_cast<T>(wgen::weight(key, total, std::uint32_t(reads), i, i - o[k]));
      }
    }
    return buf;
  }
  const T* row(pos_t i, T* buf) const {
    const nnz_t lo = csr->ptr[i], hi = csr->ptr[i + 1];
    if (src == CoefSource::Stored) return base + lo;
    for (nnz_t e = lo; e < hi; ++e)
      buf[e - lo] = static_cast<T>(wgen::weight(key, total, std::uint32_t(hi - lo), i, csr->idx[e]));
    return buf;
  }
};

// ---- the real tiled kernel ----

constexpr std::size_t kTile = 64;  // columns per task (a row of the tile: 256 B fp32, 512 B fp64)

struct Tile {
  std::size_t c0, w;  // columns [c0, c0 + w)
  int h;              // head of column c0
};

// One tile inside one head: every coefficient is a scalar for the whole tile.
template <class T>
void tile_one_head(const View<T>& W, const T* x, T* y, std::size_t d, const Tile& t,
                   const std::atomic<bool>* stop) {
  const auto& s = W.s;
  const pos_t n = s.n;
  const std::size_t w = t.w;
  T acc[kTile];
  // acc[c] += cf * src[c] over the tile's w columns: one read, a coefficient times a source row
  const auto add_scaled = [&acc, w](T cf, const T* src) {
#pragma omp simd
    for (std::size_t c = 0; c < w; ++c) acc[c] += cf * src[c];
  };
  const CoefView<T> A(W, true, t.h), B(W, false, t.h);
  if (s.implicit) {
    const std::size_t Ka = s.a_offsets.size(), Kb = s.b_offsets.size();
    std::vector<T> abuf(Ka), bbuf(Kb);
    for (pos_t i = 0; i < n; ++i) {
      if (i % kCancelRows == 0 && stopped(stop)) return;
      for (std::size_t c = 0; c < w; ++c) acc[c] = T(0);
      const T* arow = A.rows(i, 1, 0, Ka, abuf.data());
      for (std::size_t k = 0; k < Ka && s.a_offsets[k] <= i; ++k)
        add_scaled(arow[k], x + std::size_t(i - s.a_offsets[k]) * d + t.c0);
      const T* brow = B.rows(i, 1, 0, Kb, bbuf.data());
      for (std::size_t k = 0; k < Kb && s.b_offsets[k] <= i; ++k)
        add_scaled(brow[k], y + std::size_t(i - s.b_offsets[k]) * d + t.c0);
      T* yo = y + std::size_t(i) * d + t.c0;
      for (std::size_t c = 0; c < w; ++c) yo[c] = acc[c];
    }
  } else {
    std::vector<T> abuf(A.src == CoefSource::Stored ? 0 : A.max_row()),
        bbuf(B.src == CoefSource::Stored ? 0 : B.max_row());
    for (pos_t i = 0; i < n; ++i) {
      if (i % kCancelRows == 0 && stopped(stop)) return;
      for (std::size_t c = 0; c < w; ++c) acc[c] = T(0);
      const nnz_t alo = s.a.ptr[i], blo = s.b.ptr[i];
      const T* ar = A.row(i, abuf.data());
      for (nnz_t e = alo; e < s.a.ptr[i + 1]; ++e)
        add_scaled(ar[e - alo], x + std::size_t(s.a.idx[e]) * d + t.c0);
      const T* br = B.row(i, bbuf.data());
      for (nnz_t e = blo; e < s.b.ptr[i + 1]; ++e)
        add_scaled(br[e - blo], y + std::size_t(s.b.idx[e]) * d + t.c0);
      T* yo = y + std::size_t(i) * d + t.c0;
      for (std::size_t c = 0; c < w; ++c) yo[c] = acc[c];
    }
  }
}

// The hot path: implicit offsets, one head, a compile-time tile of W columns (accumulators stay in
// registers). Compiled twice, for AVX2 and for the baseline, and picked at run time; no FMA contraction
// (ISO C++ mode), so both give the same bits.
// Rows in blocks of kBlock. Reads at offsets >= kFar ("far") only touch rows finished kFar / kBlock blocks
// back, so a block's far part (plus part of A X) can be *gathered* ahead: for each far offset the block's
// sources are one contiguous run of rows (a sequential stream). The near offsets (< kFar) and the rest of A X
// then *finish* each row in order. With one thread per tile, gather and finish alternate block by block;
// with two (a tile and a spare thread), one thread gathers up to kRing blocks ahead of the other, which
// finishes. Both orders do the same arithmetic per block, so the bits do not depend on the thread count.
constexpr pos_t kBlock = 64;
constexpr pos_t kFar = 4096;
constexpr pos_t kRing = 16;  // gathered blocks in flight between the two threads of a tile
static_assert(kRing * kBlock <= kFar, "a gathered block only reads rows finished before its ring slot was");

struct BlockPlan {
  std::size_t Ka, Kb, kn, ka0;  // B offsets [0, kn) are near; A offsets [0, ka0) are summed by the finisher
};

inline BlockPlan block_plan(const SolveStructure& s) {
  BlockPlan p{s.a_offsets.size(), s.b_offsets.size(), 0, 0};
  while (p.kn < p.Kb && s.b_offsets[p.kn] < kFar) ++p.kn;
  // balance the two threads' reads: the finisher does A offsets [0, ka0) and the near B offsets
  // (measured on pow2, n = 2^20, d = 64: this split, 8 of 21 A offsets to the finisher, and 12 were equally
  // fast; 16 was 15% slower)
  const std::ptrdiff_t want = (std::ptrdiff_t(p.Ka + p.Kb) - 2 * std::ptrdiff_t(p.kn)) / 2;
  p.ka0 = std::size_t(std::clamp<std::ptrdiff_t>(want, 0, std::ptrdiff_t(p.Ka)));
  return p;
}

// acc = sum over A offsets [ka0, Ka) and far B offsets, for the rows of block b (ac, bc: the block's
// coefficient rows, ac[r * Ka + k] for row b * kBlock + r)
template <class T, int W>
inline void gather_block(const T* ac, const T* bc, const SolveStructure& s, const BlockPlan& bp, const T* x,
                         const T* y, std::size_t d, std::size_t c0, pos_t b, T (*acc)[W]) {
  const pos_t r0 = b * kBlock, rows = std::min<pos_t>(kBlock, s.n - r0);
  const pos_t* ao = s.a_offsets.data();
  const pos_t* bo = s.b_offsets.data();
  for (pos_t r = 0; r < rows; ++r)
    for (int c = 0; c < W; ++c) acc[r][c] = T(0);
  for (std::size_t k = bp.ka0; k < bp.Ka; ++k) {
    const pos_t o = ao[k];
    for (pos_t r = (o > r0 ? o - r0 : 0); r < rows; ++r) {
      const pos_t i = r0 + r;
      const T cf = ac[std::size_t(r) * bp.Ka + k];
      const T* xr = x + std::size_t(i - o) * d + c0;
      for (int c = 0; c < W; ++c) acc[r][c] += cf * xr[c];
    }
  }
  for (std::size_t k = bp.kn; k < bp.Kb; ++k) {
    const pos_t o = bo[k];
    if (o >= r0 + rows) break;
    for (pos_t r = (o > r0 ? o - r0 : 0); r < rows; ++r) {
      const pos_t i = r0 + r;
      const T cf = bc[std::size_t(r) * bp.Kb + k];
      const T* yr = y + std::size_t(i - o) * d + c0;
      for (int c = 0; c < W; ++c) acc[r][c] += cf * yr[c];
    }
  }
}

// finishes block b in row order: acc + A offsets [0, ka0) + near B offsets (ac, bc as gather_block's)
template <class T, int W>
inline void finish_block(const T* ac, const T* bc, const SolveStructure& s, const BlockPlan& bp, const T* x,
                         T* y, std::size_t d, std::size_t c0, pos_t b, const T (*acc)[W]) {
  const pos_t r0 = b * kBlock, rows = std::min<pos_t>(kBlock, s.n - r0);
  const pos_t* ao = s.a_offsets.data();
  const pos_t* bo = s.b_offsets.data();
  for (pos_t r = 0; r < rows; ++r) {
    const pos_t i = r0 + r;
    T a[W];
    for (int c = 0; c < W; ++c) a[c] = acc[r][c];
    const T* arow = ac + std::size_t(r) * bp.Ka;
    for (std::size_t k = 0; k < bp.ka0 && ao[k] <= i; ++k) {
      const T cf = arow[k];
      const T* xr = x + std::size_t(i - ao[k]) * d + c0;
      for (int c = 0; c < W; ++c) a[c] += cf * xr[c];
    }
    const T* brow = bc + std::size_t(r) * bp.Kb;
    for (std::size_t k = 0; k < bp.kn && bo[k] <= i; ++k) {
      const T cf = brow[k];
      const T* yr = y + std::size_t(i - bo[k]) * d + c0;
      for (int c = 0; c < W; ++c) a[c] += cf * yr[c];
    }
    T* yo = y + std::size_t(i) * d + c0;
    for (int c = 0; c < W; ++c) yo[c] = a[c];
  }
}

template <class T, int W>
__attribute__((target("avx2"))) void gather_avx2(const T* ac, const T* bc, const SolveStructure& s,
                                                 const BlockPlan& bp, const T* x, const T* y, std::size_t d,
                                                 std::size_t c0, pos_t b, T (*acc)[W]) {
  gather_block<T, W>(ac, bc, s, bp, x, y, d, c0, b, acc);
}
template <class T, int W>
void gather_base(const T* ac, const T* bc, const SolveStructure& s, const BlockPlan& bp, const T* x,
                 const T* y, std::size_t d, std::size_t c0, pos_t b, T (*acc)[W]) {
  gather_block<T, W>(ac, bc, s, bp, x, y, d, c0, b, acc);
}
template <class T, int W>
__attribute__((target("avx2"))) void finish_avx2(const T* ac, const T* bc, const SolveStructure& s,
                                                 const BlockPlan& bp, const T* x, T* y, std::size_t d,
                                                 std::size_t c0, pos_t b, const T (*acc)[W]) {
  finish_block<T, W>(ac, bc, s, bp, x, y, d, c0, b, acc);
}
template <class T, int W>
void finish_base(const T* ac, const T* bc, const SolveStructure& s, const BlockPlan& bp, const T* x, T* y,
                 std::size_t d, std::size_t c0, pos_t b, const T (*acc)[W]) {
  finish_block<T, W>(ac, bc, s, bp, x, y, d, c0, b, acc);
}

bool have_avx2() {
  static const bool v = __builtin_cpu_supports("avx2");
  return v;
}

// The two threads of a pipelined tile: blocks gathered and blocks finished, each published with release and
// read with acquire (no barriers: an earlier version with one OpenMP barrier per block was 10x slower on the
// shared 2-core machine).
struct TilePipe {
  std::atomic<pos_t> gathered{0}, finished{0};
};
// false when the solve was cancelled meanwhile (the other thread may have stopped)
inline bool wait_for(const std::atomic<pos_t>& a, pos_t want, const std::atomic<bool>* stop) {
  for (unsigned it = 0; a.load(std::memory_order_acquire) < want; ++it) {
    if (stopped(stop)) return false;
    if (it < 256) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();  // the other thread may have lost its core on a shared machine
    }
  }
  return true;
}

// One tile of W columns through all blocks. role: -1 gathers and finishes every block in turn; 1 gathers,
// 0 finishes (the two threads of a pipelined tile, sharing `pipe` and a ring of kRing gathered blocks).
template <class T, int W>
void rows_implicit_blocked(const CoefView<T>& A, const CoefView<T>& B, const SolveStructure& s, const T* x,
                           T* y, std::size_t d, std::size_t c0, int role, TilePipe* pipe, T* ring,
                           const std::atomic<bool>* stop) {
  constexpr pos_t kCancelBlocks = kCancelRows / kBlock;
  const BlockPlan bp = block_plan(s);
  const bool v = have_avx2();
  auto gather = v ? gather_avx2<T, W> : gather_base<T, W>;
  auto finish = v ? finish_avx2<T, W> : finish_base<T, W>;
  const pos_t nb = (s.n + kBlock - 1) / kBlock;
  // coefficient rows of one block, for sources that are not stored (each thread its own)
  std::vector<T> abuf(A.src == CoefSource::Stored ? 0 : std::size_t(kBlock) * bp.Ka),
      bbuf(B.src == CoefSource::Stored ? 0 : std::size_t(kBlock) * bp.Kb);
  auto rows_of = [&](pos_t b) { return std::min<pos_t>(kBlock, s.n - b * kBlock); };
  auto do_gather = [&](pos_t b, T(*acc)[W]) {
    gather(A.rows(b * kBlock, rows_of(b), bp.ka0, bp.Ka, abuf.data()),
           B.rows(b * kBlock, rows_of(b), bp.kn, bp.Kb, bbuf.data()), s, bp, x, y, d, c0, b, acc);
  };
  auto do_finish = [&](pos_t b, const T(*acc)[W]) {
    finish(A.rows(b * kBlock, rows_of(b), 0, bp.ka0, abuf.data()),
           B.rows(b * kBlock, rows_of(b), 0, bp.kn, bbuf.data()), s, bp, x, y, d, c0, b, acc);
  };
  if (role < 0) {
    std::vector<T> buf(std::size_t(kBlock) * W);
    auto acc = reinterpret_cast<T(*)[W]>(buf.data());
    for (pos_t b = 0; b < nb; ++b) {
      if (b % kCancelBlocks == 0 && stopped(stop)) return;
      do_gather(b, acc);
      do_finish(b, acc);
    }
    return;
  }
  auto acc = [&](pos_t b) { return reinterpret_cast<T(*)[W]>(ring + std::size_t(b % kRing) * kBlock * W); };
  for (pos_t b = 0; b < nb; ++b) {
    if (b % kCancelBlocks == 0 && stopped(stop)) return;
    if (role == 1) {
      // the slot's previous block is finished, and so are the rows the far reads need (kRing * kBlock <=
      // kFar)
      if (!wait_for(pipe->finished, b >= kRing ? b - kRing + 1 : 0, stop)) return;
      do_gather(b, acc(b));
      pipe->gathered.store(b + 1, std::memory_order_release);
    } else {
      if (!wait_for(pipe->gathered, b + 1, stop)) return;
      do_finish(b, acc(b));
      pipe->finished.store(b + 1, std::memory_order_release);
    }
  }
}

bool fixed_width(const SolveStructure& s, std::size_t w) {
  return s.implicit && (w == 64 || w == 32 || w == 16 || w == 8);
}

// false when no fixed-width kernel fits the tile (see rows_implicit_blocked for role, pipe and ring)
template <class T>
bool tile_fixed(const View<T>& W, const T* x, T* y, std::size_t d, const Tile& t,
                const std::atomic<bool>* stop, int role = -1, TilePipe* pipe = nullptr, T* ring = nullptr) {
  if (!fixed_width(W.s, t.w)) return false;
  const CoefView<T> ac(W, true, t.h), bc(W, false, t.h);
  switch (t.w) {
    case 64:
      rows_implicit_blocked<T, 64>(ac, bc, W.s, x, y, d, t.c0, role, pipe, ring, stop);
      break;
    case 32:
      rows_implicit_blocked<T, 32>(ac, bc, W.s, x, y, d, t.c0, role, pipe, ring, stop);
      break;
    case 16:
      rows_implicit_blocked<T, 16>(ac, bc, W.s, x, y, d, t.c0, role, pipe, ring, stop);
      break;
    default:
      rows_implicit_blocked<T, 8>(ac, bc, W.s, x, y, d, t.c0, role, pipe, ring, stop);
      break;
  }
  return true;
}

// A tile spanning several heads (d_h < tile): per-column coefficients (per-channel gates, d_h = 1).
template <class T>
void tile_many_heads(const View<T>& W, const T* x, T* y, std::size_t d, std::size_t dh, const Tile& t,
                     const std::atomic<bool>* stop) {
  const auto& s = W.s;
  const pos_t n = s.n;
  const std::size_t w = t.w;
  T acc[kTile];
  const std::size_t h0 = t.c0 / dh, nh = (t.c0 + w - 1) / dh - h0 + 1;
  std::size_t hc[kTile];  // column c's head, relative to h0
  for (std::size_t c = 0; c < w; ++c) hc[c] = (t.c0 + c) / dh - h0;
  std::vector<CoefView<T>> av, bv;
  for (std::size_t q = 0; q < nh; ++q) {
    av.emplace_back(W, true, int(h0 + q));
    bv.emplace_back(W, false, int(h0 + q));
  }
  const bool imp = s.implicit;
  const std::size_t Ka = s.a_offsets.size(), Kb = s.b_offsets.size();
  const std::size_t ra = imp ? Ka : av[0].max_row(), rb = imp ? Kb : bv[0].max_row();
  std::vector<T> abuf(nh * ra), bbuf(nh * rb);
  std::vector<const T*> ap(nh), bp(nh);  // each head's coefficients of row i
  for (pos_t i = 0; i < n; ++i) {
    if (i % kCancelRows == 0 && stopped(stop)) return;
    for (std::size_t c = 0; c < w; ++c) acc[c] = T(0);
    for (std::size_t q = 0; q < nh; ++q) {
      ap[q] = imp ? av[q].rows(i, 1, 0, Ka, abuf.data() + q * ra) : av[q].row(i, abuf.data() + q * ra);
      bp[q] = imp ? bv[q].rows(i, 1, 0, Kb, bbuf.data() + q * rb) : bv[q].row(i, bbuf.data() + q * rb);
    }
    if (imp) {
      for (std::size_t k = 0; k < Ka && s.a_offsets[k] <= i; ++k) {
        const T* xr = x + std::size_t(i - s.a_offsets[k]) * d + t.c0;
        for (std::size_t c = 0; c < w; ++c) acc[c] += ap[hc[c]][k] * xr[c];
      }
      for (std::size_t k = 0; k < Kb && s.b_offsets[k] <= i; ++k) {
        const T* yr = y + std::size_t(i - s.b_offsets[k]) * d + t.c0;
        for (std::size_t c = 0; c < w; ++c) acc[c] += bp[hc[c]][k] * yr[c];
      }
    } else {
      const nnz_t alo = s.a.ptr[i], blo = s.b.ptr[i];
      for (nnz_t e = alo; e < s.a.ptr[i + 1]; ++e) {
        const T* xr = x + std::size_t(s.a.idx[e]) * d + t.c0;
        for (std::size_t c = 0; c < w; ++c) acc[c] += ap[hc[c]][e - alo] * xr[c];
      }
      for (nnz_t e = blo; e < s.b.ptr[i + 1]; ++e) {
        const T* yr = y + std::size_t(s.b.idx[e]) * d + t.c0;
        for (std::size_t c = 0; c < w; ++c) acc[c] += bp[hc[c]][e - blo] * yr[c];
      }
    }
    T* yo = y + std::size_t(i) * d + t.c0;
    for (std::size_t c = 0; c < w; ++c) yo[c] = acc[c];
  }
}

// ---- the generic semiring engine on the structure (impulse inputs, weights fixed by the semiring) ----

// S provides: V, zero(), a_weight(bool diag) -> V (x ⊗ weight for x = one), add(V&, V), mul_b(V y) -> V.
template <class S>
std::vector<typename S::V> semiring_solve(const SolveStructure& s, const std::vector<pos_t>& sources,
                                          int threads) {
  using V = typename S::V;
  const pos_t n = s.n;
  const std::size_t S_ = sources.size();
  for (pos_t src : sources)
    if (src >= n)
      throw UsageError("source position " + std::to_string(src + 1) + " is outside 1.." + std::to_string(n));
  std::vector<V> y(std::size_t(n) * S_, S::zero());
  const std::size_t tiles = (S_ + kTile - 1) / kTile;
#pragma omp parallel for schedule(dynamic, 1) num_threads(resolve_threads(threads))
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::size_t c0 = t * kTile, w = std::min(kTile, S_ - c0);
    pos_t first = n;  // rows before the first impulse stay zero()
    for (std::size_t c = 0; c < w; ++c) first = std::min(first, sources[c0 + c]);
    V acc[kTile];
    for (pos_t i = first; i < n; ++i) {
      for (std::size_t c = 0; c < w; ++c) acc[c] = S::zero();
      auto a_read = [&](pos_t j) {
        const V wa = S::a_weight(j == i);
        for (std::size_t c = 0; c < w; ++c)
          if (sources[c0 + c] == j) S::add(acc[c], wa);
      };
      auto b_read = [&](pos_t j) {
        const V* yr = y.data() + std::size_t(j) * S_ + c0;
        for (std::size_t c = 0; c < w; ++c) S::add(acc[c], S::mul_b(yr[c]));
      };
      if (s.implicit) {
        for (pos_t o : s.a_offsets)
          if (o <= i) a_read(i - o);
        for (pos_t o : s.b_offsets)
          if (o <= i) b_read(i - o);
      } else {
        for (nnz_t e = s.a.ptr[i]; e < s.a.ptr[i + 1]; ++e) a_read(s.a.idx[e]);
        for (nnz_t e = s.b.ptr[i]; e < s.b.ptr[i + 1]; ++e) b_read(s.b.idx[e]);
      }
      V* yo = y.data() + std::size_t(i) * S_ + c0;
      for (std::size_t c = 0; c < w; ++c) yo[c] = acc[c];
    }
  }
  return y;
}

// the rings: one definition with the GPU's (semiring_ops.hpp)
using MinPlusRing = semiring::MinPlus;
using OrAndRing = semiring::OrAnd;
using CountRing = semiring::Count;

}  // namespace

SolveStructure solve_structure(const Pattern& p) {
  SolveStructure s;
  s.n = p.n;
  s.family = to_string(p.family);
  if (p.translation_invariant()) {
    s.implicit = true;
    s.b_offsets = p.b_offsets;
    switch (p.a_mode) {
      case AMode::Shared:
        s.a_offsets.push_back(0);
        s.a_offsets.insert(s.a_offsets.end(), p.b_offsets.begin(), p.b_offsets.end());
        break;
      case AMode::Diagonal:
        s.a_offsets = {0};
        break;
      case AMode::Explicit:
        s.a_offsets = p.a_offsets;
        break;
    }
    s.nnz_b = implicit_nnz(s.b_offsets, s.n);
    s.nnz_a = implicit_nnz(s.a_offsets, s.n);
  } else {  // copies of O(nnz): a cancel (cancel.hpp) is looked at between them
    s.b = strip_values(b_csr(p));
    throw_if_cancelled();
    s.a = strip_values(a_csr(p));
    throw_if_cancelled();
    s.nnz_b = s.b.nnz();
    s.nnz_a = s.a.nnz();
  }
  return s;
}

std::uint64_t mixer_weights_bytes(const Pattern& p, int heads, std::size_t value_bytes, CoefSource source) {
  const SolveStructure s = p.translation_invariant() ? solve_structure(p) : SolveStructure{};
  // the structure: CSR copies of A and B for the explicit families
  const std::uint64_t structure =
      p.translation_invariant() ? 0 : (std::uint64_t(p.n) * 2 + 2) * 8 + (p.b.nnz() * 2 + p.n) * 4;
  if (source == CoefSource::Seeded) {
    // the files' values of mtx: patterns stay stored
    const std::uint64_t file_values =
        p.family == PatternFamily::Matrix ? (p.b.nnz() + p.a.nnz()) * value_bytes * std::uint64_t(heads) : 0;
    return structure + file_values;
  }
  std::uint64_t per_head = 0;
  if (p.translation_invariant()) {
    per_head = std::uint64_t(p.n) * (s.a_offsets.size() + s.b_offsets.size()) * value_bytes;
  } else {
    per_head = (p.b.nnz() + p.a.nnz() + std::uint64_t(p.n) * 2) * value_bytes;
  }
  return per_head * std::uint64_t(heads) + structure;
}

template <class T>
MixerWeights<T> mixer_weights_from(const Pattern& p, const std::vector<WeightedPattern>& heads) {
  if (heads.empty()) throw UsageError("solve: at least one head is needed");
  MixerWeights<T> W;
  W.s = solve_structure(p);
  W.heads = static_cast<int>(heads.size());
  W.a.assign(W.a_stride() * heads.size(), T(0));
  W.b.assign(W.b_stride() * heads.size(), T(0));
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const auto& wp = heads[h];
    if (wp.a.n != p.n || wp.b.n != p.n) throw UsageError("solve: head weights do not match the pattern's n");
    if (W.s.implicit) {
      scatter_implicit(wp.a, W.s.a_offsets, W.a.data() + h * W.a_stride());
      scatter_implicit(wp.b, W.s.b_offsets, W.b.data() + h * W.b_stride());
    } else {
      if (wp.a.nnz() != W.s.a.nnz() || wp.b.nnz() != W.s.b.nnz())
        throw UsageError("solve: head weights do not lie on the pattern");
      for (nnz_t e = 0; e < wp.a.nnz(); ++e) W.a[h * W.a_stride() + e] = static_cast<T>(wp.a.val[e]);
      for (nnz_t e = 0; e < wp.b.nnz(); ++e) W.b[h * W.b_stride() + e] = static_cast<T>(wp.b.val[e]);
    }
  }
  return W;
}

template <class T>
MixerWeights<T> seeded_mixer_weights(const Pattern& p, int heads, std::uint64_t seed) {
  if (heads < 1) throw UsageError("--heads must be >= 1");
  MixerWeights<T> W;
  W.s = solve_structure(p);
  W.heads = heads;
  W.seed = seed;
  W.a_source = W.b_source = CoefSource::Seeded;
  // matrix patterns keep their files' values (as random_weights does), the same for every head
  auto keep = [&](const Csr& m, std::vector<T>& out, CoefSource& src) {
    src = CoefSource::Stored;
    out.resize(m.val.size() * std::size_t(heads));
    for (int h = 0; h < heads; ++h)
      for (std::size_t e = 0; e < m.val.size(); ++e) out[std::size_t(h) * m.val.size() + e] = T(m.val[e]);
  };
  if (p.family == PatternFamily::Matrix && p.b.has_values()) keep(p.b, W.b, W.b_source);
  if (p.family == PatternFamily::Matrix && p.a_mode == AMode::Explicit && p.a.has_values())
    keep(p.a, W.a, W.a_source);
  return W;
}

namespace {

/// One matrix's coefficients in the Stored layout. The caller's CancelScope (cancel.hpp): a long build
/// stops within a block of 4096 rows. The array is reserved, then grown block by block just ahead of the
/// rows written into it, so that its pages are first touched (seconds for a large array) as the build
/// goes: a cancelled build has only the pages it wrote to give back, instead of freeing gigabytes of zeros
/// after the cancel.
template <class T>
std::vector<T> store_one(const SolveStructure& s, const MixerCoefs<T>& w, bool is_a) {
  const CoefSource src = is_a ? w.a_source : w.b_source;
  if (src == CoefSource::Stored) {
    const T* v = is_a ? w.a : w.b;
    return std::vector<T>(v, v + (is_a ? w.a_size : w.b_size));
  }
  const View<T> view(s, w);
  const std::size_t stride = is_a ? view.a_stride() : view.b_stride();
  const std::atomic<bool>* stop = cancel_flag();
  const std::size_t total = stride * std::size_t(w.heads);
  std::vector<T> out;
  out.reserve(total);
  for (int h = 0; h < w.heads; ++h) {
    const CoefView<T> v(view, is_a, h);
    const std::size_t head0 = std::size_t(h) * stride;
    T* o = out.data() + head0;
    for (pos_t i = 0; i < s.n; ++i) {
      if ((i & 4095) == 0) {
        throw_if_cancelled(stop);
        const pos_t e = std::min<pos_t>(s.n, i + 4096);
        const std::size_t upto = head0 + (s.implicit ? std::size_t(e) * v.K : std::size_t(v.csr->ptr[e]));
        if (upto > out.size()) out.resize(std::min(total, upto), T(0));
      }
      if (s.implicit)
        v.rows(i, 1, 0, v.K, o + std::size_t(i) * v.K);
      else
        v.row(i, o + v.csr->ptr[i]);
    }
    out.resize(std::min(total, head0 + stride), T(0));
  }
  return out;
}

/// stored_weights, with the structure moved from *take (w's own, no longer needed) instead of copied when
/// take is given: a copy of a large explicit pattern's CSR takes longer than a cancel may wait.
template <class T>
MixerWeights<T> stored_from(const MixerWeights<T>& w, SolveStructure* take) {
  MixerWeights<T> W;
  W.heads = w.heads;
  W.seed = w.seed;
  const MixerCoefs<T> c = MixerCoefs<T>::of(w);
  W.a = store_one(w.s, c, true);
  W.b = store_one(w.s, c, false);
  if (take)
    W.s = std::move(*take);
  else
    W.s = w.s;
  return W;
}

}  // namespace

template <class T>
std::vector<T> stored_coefs(const SolveStructure& s, const MixerCoefs<T>& c, bool is_a) {
  return store_one(s, c, is_a);
}

template <class T>
MixerWeights<T> stored_weights(const MixerWeights<T>& w) {
  return stored_from(w, nullptr);
}

template <class T>
MixerWeights<T> make_mixer_weights(const Pattern& p, int heads, std::uint64_t seed) {
  MixerWeights<T> seeded = seeded_mixer_weights<T>(p, heads, seed);
  throw_if_cancelled();
  return stored_from(seeded, &seeded.s);
}

template <class T>
SolveInfo solve_mixer(const MixerWeights<T>& w, const T* x, T* y, std::size_t d, int threads) {
  return solve_mixer(w.s, MixerCoefs<T>::of(w), x, y, d, threads);
}

template <class T>
SolveInfo solve_mixer(const SolveStructure& structure, const MixerCoefs<T>& coefs, const T* x, T* y,
                      std::size_t d, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  const View<T> W(structure, coefs);
  if (d == 0 || d % static_cast<std::size_t>(W.heads) != 0)
    throw UsageError("solve: d = " + std::to_string(d) + " columns must be a positive multiple of the " +
                     std::to_string(W.heads) + " heads");
  if (!W.s.implicit && (W.a_source == CoefSource::PerOffset || W.b_source == CoefSource::PerOffset))
    throw UsageError("solve: weights per offset need a translation-invariant pattern");
  const std::size_t dh = d / static_cast<std::size_t>(W.heads);
  const int nt = resolve_threads(threads);
  const std::atomic<bool>* stop =
      cancel_flag();  // the caller's SolveCancelScope (the tiles run on other threads)
  // tile width: kTile columns (whole rows of 512 B in fp64 measured fastest; narrower tiles for more threads
  // were slower per column on the development machine), one tile per OpenMP task
  const std::size_t tw = kTile;
  const bool many = dh < tw && dh * 2 <= tw;  // tiles span several heads (per-channel gates)
  std::vector<Tile> tiles;
  if (!many) {
    for (int h = 0; h < W.heads; ++h)
      for (std::size_t c = 0; c < dh; c += tw) tiles.push_back({h * dh + c, std::min(tw, dh - c), h});
  } else {
    for (std::size_t c = 0; c < d; c += tw) tiles.push_back({c, std::min(tw, d - c), int(c / dh)});
  }
  // two threads per tile when there are threads to spare (d = 64 on two cores): one gathers, one finishes
  bool piped = !many && tiles.size() * 2 <= std::size_t(nt) &&
               std::all_of(tiles.begin(), tiles.end(), [&](const Tile& t) { return fixed_width(W.s, t.w); });
  if (piped) {
    const int want = int(tiles.size()) * 2;
    std::vector<TilePipe> pipes(tiles.size());
    std::vector<T> rings(tiles.size() * std::size_t(kRing) * kBlock * kTile);
    int got = 0;
#pragma omp parallel num_threads(want)
    {
      const int me = omp_get_thread_num(), all = omp_get_num_threads();
      if (me == 0) got = all;
      if (all == want) {  // thread pairs: finisher 2t, gatherer 2t + 1
        const std::size_t t = std::size_t(me / 2);
        tile_fixed(W, x, y, d, tiles[t], stop, me % 2, &pipes[t],
                   rings.data() + t * std::size_t(kRing) * kBlock * kTile);
      } else {  // fewer threads than asked for: whole tiles, one thread each
        for (std::size_t t = std::size_t(me); t < tiles.size(); t += std::size_t(all))
          tile_fixed(W, x, y, d, tiles[t], stop);
      }
    }
    piped = got == want;
  } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (std::size_t t = 0; t < tiles.size(); ++t) {
      if (many)
        tile_many_heads(W, x, y, d, dh, tiles[t], stop);
      else if (!tile_fixed(W, x, y, d, tiles[t], stop))
        tile_one_head(W, x, y, d, tiles[t], stop);
    }
  }
  SolveInfo info;
  info.kernel = std::string(W.s.implicit ? "cpu-implicit" : "cpu-csr") +
                (many ? "-multihead-tiled" : (piped ? "-tiled-pipelined" : "-tiled"));
  info.threads = nt;
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  info.total_seconds = info.seconds;
  return info;
}

template <class T>
void solve_recurrence(const std::vector<WeightedPattern>& heads, pos_t n, const T* x, T* y, std::size_t d) {
  if (heads.empty() || d % heads.size() != 0) throw UsageError("solve: d must be a multiple of the heads");
  const std::size_t dh = d / heads.size();
  for (pos_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < d; ++c) {
      const WeightedPattern& w = heads[c / dh];
      T v = 0;
      for (nnz_t e = w.a.ptr[i]; e < w.a.ptr[i + 1]; ++e)
        v += static_cast<T>(w.a.val[e]) * x[std::size_t(w.a.idx[e]) * d + c];
      for (nnz_t e = w.b.ptr[i]; e < w.b.ptr[i + 1]; ++e)
        v += static_cast<T>(w.b.val[e]) * y[std::size_t(w.b.idx[e]) * d + c];
      y[std::size_t(i) * d + c] = v;
    }
  }
}

std::vector<std::uint32_t> solve_distances(const SolveStructure& s, const std::vector<pos_t>& sources,
                                           int threads) {
  return semiring_solve<MinPlusRing>(s, sources, threads);
}

std::vector<std::uint32_t> solve_distances(const Pattern& p, const std::vector<pos_t>& sources, int threads) {
  return solve_distances(solve_structure(p), sources, threads);
}

std::vector<std::uint8_t> solve_reachability(const SolveStructure& s, const std::vector<pos_t>& sources,
                                             int threads) {
  return semiring_solve<OrAndRing>(s, sources, threads);
}

PathCounts solve_path_counts(const SolveStructure& s, const std::vector<pos_t>& sources, int threads) {
  const auto v = semiring_solve<CountRing>(s, sources, threads);
  PathCounts r;
  r.dist.resize(v.size());
  r.count.resize(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    r.dist[k] = v[k].d;
    r.count[k] = v[k].c;
    if (v[k].c == std::numeric_limits<std::uint64_t>::max()) r.overflow = true;
  }
  return r;
}

template struct MixerWeights<float>;
template struct MixerWeights<double>;
template MixerWeights<float> make_mixer_weights<float>(const Pattern&, int, std::uint64_t);
template MixerWeights<float> seeded_mixer_weights<float>(const Pattern&, int, std::uint64_t);
template MixerWeights<double> seeded_mixer_weights<double>(const Pattern&, int, std::uint64_t);
template MixerWeights<float> stored_weights<float>(const MixerWeights<float>&);
template std::vector<float> stored_coefs<float>(const SolveStructure&, const MixerCoefs<float>&, bool);
template std::vector<double> stored_coefs<double>(const SolveStructure&, const MixerCoefs<double>&, bool);
template MixerWeights<double> stored_weights<double>(const MixerWeights<double>&);
template MixerWeights<double> make_mixer_weights<double>(const Pattern&, int, std::uint64_t);
template MixerWeights<float> mixer_weights_from<float>(const Pattern&, const std::vector<WeightedPattern>&);
template MixerWeights<double> mixer_weights_from<double>(const Pattern&, const std::vector<WeightedPattern>&);
template SolveInfo solve_mixer<float>(const MixerWeights<float>&, const float*, float*, std::size_t, int);
template SolveInfo solve_mixer<double>(const MixerWeights<double>&, const double*, double*, std::size_t, int);
template SolveInfo solve_mixer<float>(const SolveStructure&, const MixerCoefs<float>&, const float*, float*,
                                      std::size_t, int);
template SolveInfo solve_mixer<double>(const SolveStructure&, const MixerCoefs<double>&, const double*,
                                       double*, std::size_t, int);
template void solve_recurrence<float>(const std::vector<WeightedPattern>&, pos_t, const float*, float*,
                                      std::size_t);
template void solve_recurrence<double>(const std::vector<WeightedPattern>&, pos_t, const double*, double*,
                                       std::size_t);

}  // namespace mixgraph
