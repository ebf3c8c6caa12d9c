// The CPU reference of gpu-blockinv's package build (blockinv_reference.hpp): its chunk inverses against a
// dense Eigen inverse of the chunk's block of I - B, its read lists against the pattern's reads, its mma
// fragment order against the documented layout; and, on a GPU, the GPU's packages byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mixgraph/blockinv_reference.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve_backend.hpp"
#include "problem_reads.hpp"

using namespace mixgraph;

namespace {

using test::Read;

struct Case {
  std::string spec;
  std::uint32_t n;
  int heads;
};

template <class T>
void check_against_dense(const Case& cs, std::uint32_t C, bool mma) {
  const Pattern pat = make_pattern(cs.spec, cs.n);
  const auto w = make_mixer_weights<T>(pat, cs.heads, 7);
  const gpu::SolveProblem p = gpu_problem(w, std::size_t(cs.heads) * 8);
  // kx, kin as the planner counts them: the longest lists over all rows
  gpu::PackageLayout L;
  L.chunk = C;
  L.R = 8 * C;
  L.mma = mma;
  std::uint32_t kx = 1, kin = 1;
  for (std::uint32_t i = 0; i < p.n; ++i) {
    std::uint32_t in = 0, out = 0;
    for (const Read& r : test::b_reads(p, i, 0)) {
      if (r.o > i % C)
        ++out;
      else if (r.o != 1)
        ++in;
    }
    kx = std::max(kx, out);
    kin = std::max(kin, in);
  }
  L.kx = kx;
  L.kin = kin;
  L.ku = kin <= 4 ? 4 : (kin <= 8 ? kin : 8);
  gpu::complete_layout(p, L);
  const auto bytes = gpu::blockinv_packages_reference(p, L);
  const std::uint32_t nch = (p.n + C - 1) / C;
  ASSERT_EQ(bytes.size(), std::size_t(p.heads) * nch * L.pkg_bytes);
  const double tol = sizeof(T) == 8 ? 1e-11 : 2e-5;
  for (std::uint32_t h = 0; h < p.heads; ++h)
    for (std::uint32_t c = 0; c < nch; ++c) {
      const unsigned char* pk = bytes.data() + (std::size_t(h) * nch + c) * L.pkg_bytes;
      // the chunk's block of I - B (rows past n: identity), inverted densely
      Eigen::MatrixXd M = Eigen::MatrixXd::Identity(C, C);
      for (std::uint32_t r = 0; r < C && c * C + r < p.n; ++r)
        for (const Read& e : test::b_reads(p, c * C + r, h))
          if (e.o <= r) M(r, r - e.o) -= e.v;
      const Eigen::MatrixXd Minv = M.inverse();
      // L^{-1} from the package: padded rows, or mma fragments (documented layout, decoded here)
      Eigen::MatrixXd Lp = Eigen::MatrixXd::Zero(C, C);
      if (mma && sizeof(T) == 4) {
        const float* f = reinterpret_cast<const float*>(pk);
        for (std::uint32_t mi = 0; mi < C / 16; ++mi)
          for (std::uint32_t ki = 0; ki <= 2 * mi + 1; ++ki)
            for (std::uint32_t l = 0; l < 32; ++l) {
              const float* v = f + ((mi * (mi + 1) + ki) * 32 + l) * 4;
              const std::uint32_t r0 = 16 * mi + l / 4, c0 = 8 * ki + l % 4;
              Lp(r0, c0) = v[0];
              Lp(r0 + 8, c0) = v[1];
              Lp(r0, c0 + 4) = v[2];
              Lp(r0 + 8, c0 + 4) = v[3];
            }
      } else {
        const T* lv = reinterpret_cast<const T*>(pk);
        for (std::uint32_t q = 0; q < C; ++q)
          for (std::uint32_t j = 0; j <= q; ++j)
            Lp(q, j) = double(lv[gpu::lrow_start(q, sizeof(T) == 8) + j]);
      }
      const double err = (Lp - Minv).cwiseAbs().maxCoeff() / std::max(1.0, Minv.cwiseAbs().maxCoeff());
      ASSERT_LE(err, tol) << cs.spec << " head " << h << " chunk " << c << " C=" << C;
      // read lists: row r's reads of earlier chunks, offsets ascending, classified near / ring / beyond
      const unsigned char* es = pk + L.linv_bytes;
      const T* ec = reinterpret_cast<const T*>(es);
      const std::uint32_t* eo =
          reinterpret_cast<const std::uint32_t*>(es + std::size_t(L.kx) * C * sizeof(T));
      const std::uint32_t* cnt = eo + std::size_t(L.kx) * C;
      for (std::uint32_t r = 0; r < C; ++r) {
        std::vector<Read> want;
        if (c * C + r < p.n)
          for (const Read& e : test::b_reads(p, c * C + r, h))
            if (e.o > r) want.push_back(e);
        std::sort(want.begin(), want.end(), [](const Read& a, const Read& b) { return a.o < b.o; });
        std::uint32_t nn = 0, nr = 0;
        for (std::uint32_t k = 0; k < want.size(); ++k) {
          if (want[k].o <= r + C) nn = k + 1;
          if (want[k].o <= L.R - C) nr = k + 1;
        }
        nr = std::max(nr, nn);
        ASSERT_EQ(cnt[r], nn | (nr << 10) | (std::uint32_t(want.size()) << 20)) << cs.spec << " row " << r;
        for (std::uint32_t k = 0; k < L.kx; ++k) {
          const bool used = k < want.size();
          EXPECT_EQ(eo[k * C + r], used ? want[k].o : 0u);
          EXPECT_EQ(double(ec[k * C + r]), used ? double(T(want[k].v)) : 0.0);
        }
      }
    }
}

}  // namespace

TEST(BlockInvReference, InversesMatchDenseEigenAndListsMatchThePattern) {
  const Case cases[] = {{"pow2", 300, 2}, {"sq1", 700, 1}, {"local:7", 200, 3}, {"pow2+cache", 260, 2}};
  for (const Case& cs : cases)
    for (std::uint32_t C : {64u, 32u}) {
      check_against_dense<double>(cs, C, false);
      check_against_dense<float>(cs, C, false);
      check_against_dense<float>(cs, C, true);
    }
}

// On a GPU: the packages bi_build writes, byte for byte against the reference with the layout the planner
// chose (every byte but the 16-byte rounding after each package's counts): the warp-specialized plan
// (fragments, lists without offsets), bi_solve's (fragments, offsets), padded rows (fp32 without mma, fp64),
// CSR B, split mode (far reads left out) and chunks of 32.
TEST(BlockInvReference, GpuPackagesMatchByteForByte) {
  const auto info = gpu::device_info();
  if (!info.usable()) GTEST_SKIP() << info.note;
  using Opt = gpu::SolveOptions;
  struct G {
    std::string spec;
    std::uint32_t n;
    int heads;
    std::size_t dh;
    bool fp64;
    Opt o;
  };
  Opt base;
  base.kernel = Opt::Kernel::BlockInv;
  base.split = Opt::Split::Off;
  Opt nows = base, nomma = base, split = base, c32 = base;
  nows.ws = false;
  nomma.mma = false;
  split.split = Opt::Split::On;
  c32.chunk = 32;
  const G cases[] = {{"pow2", 3001, 2, 16, false, base},      {"pow2", 3001, 2, 16, false, nows},
                     {"pow2", 3001, 2, 16, false, nomma},     {"pow2", 3001, 2, 16, true, base},
                     {"pow2+cache", 2000, 2, 8, false, base}, {"pow2+cache", 2000, 1, 8, true, base},
                     {"sq1", 7000, 1, 24, false, split},      {"sq1", 3000, 1, 16, true, c32},
                     {"local:40", 3000, 1, 8, false, base}};
  for (const G& g : cases) {
    const Pattern pat = make_pattern(g.spec, g.n);
    std::vector<unsigned char> want;
    gpu::BlockInvPackages r;
    gpu::SolveProblem p;
    auto run = [&](const auto& w) {
      p = gpu_problem(w, std::size_t(g.heads) * g.dh);
      r = gpu::blockinv_packages(p, g.o);
      ASSERT_TRUE(r.ran) << g.spec << ": " << r.note;
      want = gpu::blockinv_packages_reference(p, r.layout);
    };
    const auto wd = make_mixer_weights<double>(pat, g.heads, 5);
    const auto wf = make_mixer_weights<float>(pat, g.heads, 5);
    if (g.fp64)
      run(wd);
    else
      run(wf);
    if (!r.ran) continue;
    const gpu::PackageLayout& L = r.layout;
    std::printf("  %s %s: %s\n", g.spec.c_str(), g.fp64 ? "fp64" : "fp32", r.kernel.c_str());
    ASSERT_EQ(r.bytes.size(), want.size()) << r.kernel;
    const std::size_t es = g.fp64 ? 8 : 4;
    const std::size_t defined =
        L.linv_bytes + L.kx * L.chunk * es + (L.nooff ? 0 : L.kx * L.chunk * 4) + L.chunk * 4;
    for (std::size_t k = 0; k < r.bytes.size() / L.pkg_bytes; ++k) {
      const unsigned char* a = r.bytes.data() + k * L.pkg_bytes;
      const unsigned char* b = want.data() + k * L.pkg_bytes;
      if (std::memcmp(a, b, defined) != 0) {
        std::size_t at = 0;
        while (a[at] == b[at]) ++at;
        FAIL() << g.spec << " " << r.kernel << ": package " << k << " differs at byte " << at
               << " (L^{-1}: " << L.linv_bytes << " bytes)";
      }
    }
  }
}
