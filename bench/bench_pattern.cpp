// Building patterns and their cache profiles at large n (the speed target: pow2 and pow2+cache at
// n = 2^24 in seconds on 2 cores, memory O(n + nnz)). Peer in the same run: Boost.Graph's CSR graph
// construction from sorted edges for the same pattern (what a generic graph library pays to hold it).
//   bench_pattern [--benchmark_filter=...]      (Google Benchmark when built with it)
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "mixgraph/commgraph.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"

#ifdef MIXGRAPH_HAVE_BENCHMARK
#include <benchmark/benchmark.h>
#endif

using namespace mixgraph;

namespace {

const char* kSpecs[] = {"pow2", "pow2+cache", "sq1", "sq1+cache"};

std::uint32_t build_and_profile(const std::string& spec, std::uint64_t n) {
  const auto p = make_pattern(spec, n);
  ProfileOptions o;
  o.per_position = true;
  return cache_profile(p, o).max_cache;
}

std::size_t boost_csr_build(const std::string& spec, std::uint64_t n) {
  const auto p = make_pattern(spec, n);
  std::vector<std::pair<pos_t, pos_t>> edges;
  for (pos_t i = 0; i < p.n; ++i) for_each_b_read(p, i, [&](pos_t j) { edges.emplace_back(j, i); });
  std::sort(edges.begin(), edges.end());
  using G = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                               boost::no_property, pos_t, nnz_t>;
  G g(boost::edges_are_sorted, edges.begin(), edges.end(), p.n);
  return num_edges(g);
}

}  // namespace

#ifdef MIXGRAPH_HAVE_BENCHMARK
static void BM_PatternAndProfile(benchmark::State& st) {
  const std::string spec = kSpecs[st.range(0)];
  const std::uint64_t n = std::uint64_t{1} << st.range(1);
  for (auto _ : st) benchmark::DoNotOptimize(build_and_profile(spec, n));
  st.SetLabel(spec + " n=2^" + std::to_string(st.range(1)));
  st.counters["positions/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PatternAndProfile)
    ->Args({0, 24})
    ->Args({1, 24})
    ->Args({2, 24})
    ->Args({1, 22})
    ->Args({3, 16})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

static void BM_BoostCsrBuild(benchmark::State& st) {
  const std::string spec = kSpecs[st.range(0)];
  const std::uint64_t n = std::uint64_t{1} << st.range(1);
  for (auto _ : st) benchmark::DoNotOptimize(boost_csr_build(spec, n));
  st.SetLabel("Boost CSR graph of " + spec + " n=2^" + std::to_string(st.range(1)));
}
BENCHMARK(BM_BoostCsrBuild)->Args({0, 24})->Args({1, 22})->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
#else
int main() {
  for (const char* spec : {"pow2", "pow2+cache"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto c = build_and_profile(spec, std::uint64_t{1} << 24);
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("%s n=2^24 build+profile %.3f s (max cache %u)\n", spec,
                std::chrono::duration<double>(t1 - t0).count(), c);
  }
  return 0;
}
#endif
