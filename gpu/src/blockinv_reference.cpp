// CPU reference of gpu-blockinv's package build (blockinv_reference.hpp; the kernel: blockinv_build.cuh).
// Each step mirrors bi_build: the reads of row i in load order (offsets ascending), the in-chunk reads
// (offset 1 apart, kept separately) in a list padded to ks = max(kin, ku) entries of coefficient 0 and row 0,
// and column j of L^{-1} by forward substitution with std::fma in bi_build's order: the first ku reads into
// two alternating accumulators, the rest into the first, then y_q = b1_q y_{q-1} + (a0 + a1).
#include "mixgraph/blockinv_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace mixgraph::gpu {

namespace {

std::uint32_t round16(std::uint32_t b) {
  return (b + 15u) & ~15u;
}

std::uint32_t lrow_len(std::uint32_t r, std::uint32_t ep) {
  const std::uint32_t pieces = r / ep + 1;
  return (pieces + ((pieces & 1u) ? 0u : 1u)) * ep;
}

struct Read {
  std::uint32_t o;
  double v;  // the coefficient (exact in double for both precisions)
};

// Row i's reads of earlier rows in bi_build's load order (offsets ascending), coefficients of head h.
template <class T>
std::vector<Read> row_reads(const SolveMatrix& b, std::uint32_t i, std::uint32_t h) {
  std::vector<Read> out;
  const T* vals = static_cast<const T*>(b.vals);
  if (b.implicit) {
    for (std::uint32_t k = 0; k < b.k && b.offsets[k] <= i; ++k)
      out.push_back({b.offsets[k], double(vals[h * b.hs + std::uint64_t(i) * b.is + k * b.ks])});
  } else {
    for (std::uint64_t e = b.ptr[i + 1]; e > b.ptr[i]; --e)
      if (b.idx[e - 1] < i) out.push_back({i - b.idx[e - 1], double(vals[h * b.hs + (e - 1) * b.is])});
  }
  return out;
}

template <class T>
void build(const SolveProblem& p, const PackageLayout& L, std::vector<unsigned char>& out) {
  const std::uint32_t C = L.chunk, n = p.n;
  const std::uint32_t nch = (n + C - 1) / C, ks = std::max(L.kin, L.ku);
  std::vector<std::uint32_t> rs(C + 1);
  for (std::uint32_t q = 0; q <= C; ++q) rs[q] = lrow_start(q, sizeof(T) == 8);
  out.assign(std::size_t(p.heads) * nch * L.pkg_bytes, 0);
  struct InRead {
    T c;
    std::uint32_t src;  // the source row in the chunk; padding: c = 0, src = 0
  };
  std::vector<InRead> rd(std::size_t(C) * ks);
  std::vector<std::uint32_t> nin(C);
  std::vector<T> b1(C), lv(rs[C]);
  for (std::uint32_t h = 0; h < p.heads; ++h)
    for (std::uint32_t c = 0; c < nch; ++c) {
      unsigned char* pk = out.data() + (std::size_t(h) * nch + c) * L.pkg_bytes;
      unsigned char* es = pk + L.linv_bytes;
      T* ec = reinterpret_cast<T*>(es);
      std::uint32_t* eo = reinterpret_cast<std::uint32_t*>(es + std::size_t(L.kx) * C * sizeof(T));
      std::uint32_t* ecnt = L.nooff ? eo : eo + std::size_t(L.kx) * C;
      for (std::uint32_t r = 0; r < C; ++r) {
        const std::uint32_t i = c * C + r;
        std::uint32_t m = 0, x = 0, nn = 0, nr = 0;
        b1[r] = T(0);
        for (std::uint32_t u = 0; u < ks; ++u) rd[r * ks + u] = {T(0), 0};
        if (i < n)
          for (const Read& e : row_reads<T>(p.b, i, h)) {
            const std::uint32_t o = e.o;
            const T v = T(e.v);
            if (o == 0 || o > i) continue;
            if (L.split && o >= L.split) continue;
            if (o == 1 && r > 0) {
              b1[r] += v;
              continue;
            }
            if (o <= r) {
              if (m >= L.kin) throw std::runtime_error("blockinv reference: in-chunk reads exceed kin");
              rd[r * ks + m++] = {v, r - o};
              continue;
            }
            if (x >= L.kx) throw std::runtime_error("blockinv reference: read list exceeds kx");
            ec[std::size_t(x) * C + r] = v;
            if (!L.nooff) eo[std::size_t(x) * C + r] = o;
            ++x;
            if (o <= r + C) nn = x;
            if (o <= L.R - C) nr = x;
          }
        nr = std::max(nr, nn);
        ecnt[r] = nn | (nr << 10) | (x << 20);
        nin[r] = m;
      }
      // L^{-1}, column j by forward substitution (rows above the diagonal are 0)
      std::fill(lv.begin(), lv.end(), T(0));
      for (std::uint32_t j = 0; j < C; ++j) {
        T prev = T(1);
        lv[rs[j] + j] = prev;
        auto y_of = [&](const InRead& e) { return e.src >= j ? lv[rs[e.src] + j] : T(0); };
        for (std::uint32_t q = j + 1; q < C; ++q) {
          T a0 = T(0), a1 = T(0);
          for (std::uint32_t u = 0; u < L.ku; ++u) {
            const InRead& e = rd[q * ks + u];
            T& a = (u % 2 == 0) ? a0 : a1;
            a = std::fma(e.c, y_of(e), a);
          }
          for (std::uint32_t u = L.ku; u < nin[q]; ++u) {
            const InRead& e = rd[q * ks + u];
            if (e.src >= j) a0 = std::fma(e.c, lv[rs[e.src] + j], a0);
          }
          prev = std::fma(b1[q], prev, a0 + a1);
          lv[rs[q] + j] = prev;
        }
      }
      if (sizeof(T) == 4 && L.mma) {
        const std::uint32_t tiles = (C / 16) * (C / 16 + 1);
        for (std::uint32_t g = 0; g < tiles * 32; ++g) {
          const std::uint32_t t = g / 32, l = g % 32;
          const std::uint32_t mi = (t >= 2u) + (t >= 6u) + (t >= 12u);
          const std::uint32_t r0 = 16 * mi + l / 4, c0 = 8 * (t - mi * (mi + 1)) + l % 4;
          auto at = [&](std::uint32_t q, std::uint32_t j) { return j <= q ? float(lv[rs[q] + j]) : 0.f; };
          const float v[4] = {at(r0, c0), at(r0 + 8, c0), at(r0, c0 + 4), at(r0 + 8, c0 + 4)};
          std::memcpy(pk + std::size_t(g) * 16, v, 16);
        }
      } else {
        std::memcpy(pk, lv.data(), lv.size() * sizeof(T));
      }
    }
}

}  // namespace

std::uint32_t lrow_start(std::uint32_t q, bool fp64) {
  const std::uint32_t ep = fp64 ? 2 : 4;
  std::uint32_t s = 0;
  for (std::uint32_t r = 0; r < q; ++r) s += lrow_len(r, ep);
  return s;
}

void complete_layout(const SolveProblem& p, PackageLayout& L) {
  const std::uint32_t es = p.fp64 ? 8 : 4, C = L.chunk;
  const std::uint32_t rows = round16(lrow_start(C, p.fp64) * es), frag = (C / 16) * (C / 16 + 1) * 512;
  if (!L.linv_bytes) L.linv_bytes = (!p.fp64 && L.mma) ? frag : rows;
  if (!L.e_bytes) L.e_bytes = round16(L.kx * C * es + (L.nooff ? 0 : L.kx * C * 4) + C * 4);
  if (!L.pkg_bytes) L.pkg_bytes = L.linv_bytes + L.e_bytes;
}

std::vector<unsigned char> blockinv_packages_reference(const SolveProblem& p, PackageLayout L) {
  if (L.chunk != 32 && L.chunk != 64) throw std::runtime_error("blockinv reference: chunk must be 32 or 64");
  complete_layout(p, L);
  std::vector<unsigned char> out;
  if (p.fp64)
    build<double>(p, L, out);
  else
    build<float>(p, L, out);
  return out;
}

}  // namespace mixgraph::gpu
