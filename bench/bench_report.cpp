// Benchmarks for the report's expensive parts: drawing heatmaps with cairo, and the dense induced operator.
// Peers in the same run: Eigen's dense triangular solve for M = (I - B)^{-1} A (the naive reference), and
// matplotlib's imshow + colorbar + savefig for the same picture (bench/peer_matplotlib_heatmap.py).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <vector>

#include "mixgraph/induced.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/plot.hpp"
#include "mixgraph/weights.hpp"

#ifdef MIXGRAPH_HAVE_BENCHMARK
#include <benchmark/benchmark.h>
#endif

namespace {

using namespace mixgraph;

/// |M| of pow2 with seed 1 at n, lower triangle, NaN above the diagonal.
std::vector<double> abs_operator(pos_t n) {
  const Eigen::MatrixXd m = induced_operator_dense(make_pattern("pow2", n), 1);
  std::vector<double> v(static_cast<std::size_t>(n) * n, std::numeric_limits<double>::quiet_NaN());
  for (pos_t i = 0; i < n; ++i)
    for (pos_t j = 0; j <= i; ++j)
      if (m(i, j) != 0) v[static_cast<std::size_t>(i) * n + j] = std::abs(m(i, j));
  return v;
}

std::string tmp_png(const char* name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

void heatmap_log(pos_t n) {
  static std::vector<double> v;
  static pos_t cached = 0;
  if (cached != n) v = abs_operator(n), cached = n;
  HeatmapOptions o;
  o.title = "|M| of pow2";
  o.scale = ColorScale::Log;
  write_heatmap(tmp_png("mixgraph_bench_heatmap.png"), MatrixView::dense(v, n, n), o);
}

void mask_heatmap(pos_t n) {
  static Pattern p;
  if (p.n != n) p = make_pattern("sq1", n);
  MatrixView view{n, n, [&](std::size_t i, std::size_t j) {
                    // Translation-invariant: i reads j iff i - j is an offset.
                    if (j >= i) return std::numeric_limits<double>::quiet_NaN();
                    const pos_t d = static_cast<pos_t>(i - j);
                    return std::binary_search(p.b_offsets.begin(), p.b_offsets.end(), d)
                               ? 1.0
                               : std::numeric_limits<double>::quiet_NaN();
                  }};
  HeatmapOptions o;
  o.title = "B mask of sq1";
  o.mask_label = "nonzero";
  write_heatmap(tmp_png("mixgraph_bench_mask.png"), view, o);
}

Eigen::MatrixXd eigen_dense_solve(const Pattern& p) {
  const auto w = random_weights(p, 1);
  const int n = static_cast<int>(p.n);
  Eigen::MatrixXd IminusB = Eigen::MatrixXd::Identity(n, n), A = Eigen::MatrixXd::Zero(n, n);
  for (pos_t i = 0; i < p.n; ++i) {
    for (std::size_t k = 0; k < w.a.row(i).size(); ++k) A(i, w.a.row(i)[k]) += w.a.row_values(i)[k];
    for (std::size_t k = 0; k < w.b.row(i).size(); ++k) IminusB(i, w.b.row(i)[k]) -= w.b.row_values(i)[k];
  }
  return IminusB.triangularView<Eigen::UnitLower>().solve(A);
}

}  // namespace

#ifdef MIXGRAPH_HAVE_BENCHMARK
static void BM_HeatmapPngLog(benchmark::State& st) {
  const auto n = static_cast<pos_t>(st.range(0));
  heatmap_log(n);  // warm the cached matrix
  for (auto _ : st) heatmap_log(n);
}
BENCHMARK(BM_HeatmapPngLog)->Arg(1024)->Unit(benchmark::kMillisecond);

static void BM_MaskHeatmapPngPooled(benchmark::State& st) {
  const auto n = static_cast<pos_t>(st.range(0));
  for (auto _ : st) mask_heatmap(n);
}
BENCHMARK(BM_MaskHeatmapPngPooled)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);

static void BM_InducedOperatorDense(benchmark::State& st) {
  const Pattern p = make_pattern("pow2", static_cast<pos_t>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(induced_operator_dense(p, 1).data());
}
BENCHMARK(BM_InducedOperatorDense)->Arg(1024)->Unit(benchmark::kMillisecond);

static void BM_EigenDenseTriangularSolve(benchmark::State& st) {
  const Pattern p = make_pattern("pow2", static_cast<pos_t>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(eigen_dense_solve(p).data());
}
BENCHMARK(BM_EigenDenseTriangularSolve)->Arg(1024)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
#else
int main() {
  auto time = [](const char* what, auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    std::printf("%-36s %8.1f ms\n", what,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  };
  heatmap_log(1024);
  time("heatmap png log n=1024", [] { heatmap_log(1024); });
  time("mask heatmap png n=4096 (pooled)", [] { mask_heatmap(4096); });
  const Pattern p = make_pattern("pow2", 1024);
  time("induced_operator_dense pow2 n=1024", [&] { induced_operator_dense(p, 1); });
  time("Eigen dense triangular solve n=1024", [&] { eigen_dense_solve(p); });
}
#endif
