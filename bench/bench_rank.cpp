// Benchmarks for cut ranks. Plain timing main; one line per measurement.
//
//   bench_rank SPEC N COUNT [PEERS]
//     SPEC at N with COUNT evenly spaced cuts (COUNT = 0: every cut). Measures:
//       sketch      adaptive sketched numeric ranks (cut_ranks_sketch), OpenMP over cuts
//       flow        incremental Dinic Menger ranks (cut_ranks_flow), one pass over the sorted cuts
//     PEERS (comma list):
//       dense       dense numeric ranks on the same cuts (cut_ranks_dense: full M, pivoted QR per block)
//       boost       Boost.Graph boykov_kolmogorov_max_flow from scratch for every cut
//       scratch     our Dinic from scratch for every cut (a fresh flow per cut: what incremental saves)
//   and checks that all computed rank lists agree (exit 1 otherwise).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "bench_timing.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/sweep.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace mixgraph;

static std::clock_t cpu_mark = 0;
/// Process CPU seconds (all threads) since the previous call: shows contention on a shared machine.
static double cpu_since() {
  const std::clock_t now = std::clock();
  const double d = static_cast<double>(now - cpu_mark) / CLOCKS_PER_SEC;
  cpu_mark = now;
  return d;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_rank SPEC N COUNT [dense,boost,scratch]\n");
    return 2;
  }
  const std::string spec = argv[1];
  const auto n = static_cast<pos_t>(parse_count(argv[2], "N"));
  const auto count = std::strtoull(argv[3], nullptr, 10);
  const std::string peers = argc > 4 ? argv[4] : "";
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  auto t0 = Clock::now();
  const auto p = make_pattern(spec, n);
  const auto iw = induced_weights(p, 1);
  auto t1 = Clock::now();
  const auto cuts = count == 0 ? all_cuts(n) : spaced_cuts(n, count);
  std::printf("bench_rank %s n=%u cuts=%zu threads=%d nnzA=%llu nnzB=%llu\n", spec.c_str(), n, cuts.size(),
              threads, static_cast<unsigned long long>(iw.w.a.nnz()),
              static_cast<unsigned long long>(iw.w.b.nnz()));
  std::printf("  pattern+weights  %9.3f s\n", secs(t0, t1));
  bool ok = true;
  t0 = Clock::now();
  cpu_since();
  const auto sk = cut_ranks_sketch(iw.w, cuts);
  t1 = Clock::now();
  std::uint64_t cols = 0;
  std::uint32_t mx = 0;
  for (auto c : sk.columns) cols += c;
  for (auto r : sk.rank) mx = std::max(mx, r);
  std::printf("  sketch           %9.3f s  cpu %8.3f s  (max rank %u, %llu random columns in all)\n",
              secs(t0, t1), cpu_since(), mx, static_cast<unsigned long long>(cols));
  const double t_sketch = secs(t0, t1);
  t0 = Clock::now();
  cpu_since();
  const auto fl = cut_ranks_flow(iw.w, cuts);
  t1 = Clock::now();
  const double t_flow = secs(t0, t1);
  std::printf("  flow incremental %9.3f s  cpu %8.3f s  (%llu augmentations, %llu phases, %llu cancelled)\n",
              t_flow, cpu_since(), static_cast<unsigned long long>(fl.augmentations),
              static_cast<unsigned long long>(fl.phases), static_cast<unsigned long long>(fl.cancelled));
  if (fl.rank != sk.rank) {
    std::printf("  MISMATCH sketch vs flow\n");
    ok = false;
  }
  if (peers.find("dense") != std::string::npos) {
    t0 = Clock::now();
    cpu_since();
    cpu_since();
    const auto de = cut_ranks_dense(iw.w, cuts);
    t1 = Clock::now();
    std::printf("  peer dense       %9.3f s  cpu %8.3f s  (%.2fx sketch)\n", secs(t0, t1), cpu_since(),
                secs(t0, t1) / t_sketch);
    if (de.rank != sk.rank) {
      std::printf("  MISMATCH dense vs sketch\n");
      ok = false;
    }
  }
  if (peers.find("scratch") != std::string::npos) {
    t0 = Clock::now();
    cpu_since();
    cpu_since();
    std::vector<std::uint32_t> r;
    for (pos_t k : cuts) r.push_back(cut_ranks_flow(iw.w, {k}).rank[0]);
    t1 = Clock::now();
    std::printf("  peer dinic/cut   %9.3f s  cpu %8.3f s  (%.2fx incremental)\n", secs(t0, t1), cpu_since(),
                secs(t0, t1) / t_flow);
    if (r != fl.rank) {
      std::printf("  MISMATCH dinic from scratch vs incremental\n");
      ok = false;
    }
  }
  if (peers.find("boost") != std::string::npos) {
    t0 = Clock::now();
    cpu_since();
    cpu_since();
    const auto bk = cut_ranks_flow_boost(iw.w, cuts);
    t1 = Clock::now();
    std::printf("  peer boost BK    %9.3f s  cpu %8.3f s  (%.2fx incremental)\n", secs(t0, t1), cpu_since(),
                secs(t0, t1) / t_flow);
    if (bk != fl.rank) {
      std::printf("  MISMATCH boost vs incremental\n");
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
