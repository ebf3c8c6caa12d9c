// Benchmarks for distances. Plain timing main; prints one line per measurement.
//
//   bench_distances profile SPEC N [auto|bitset-bfs|dp]   distance profile (SPEC random27 = 27 random
//   offsets) bench_distances source SPEC N J                       single-source distances from position J
//   (1-based) bench_distances allpairs SPEC N [SOURCES_PER_BLOCK]   all-pairs summary (bit-parallel BFS)
//   bench_distances bgl-allpairs SPEC N SOURCES           Boost.Graph BFS from SOURCES evenly spread sources
//                                                         (on the CommGraph via boost_adapter, OpenMP across
//                                                         sources), extrapolated to all n sources
#include <boost/graph/breadth_first_search.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>

#include "bench_timing.hpp"
#include "mixgraph/boost_adapter.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/sweep.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace mixgraph;

static std::vector<pos_t> random_offsets(std::size_t k, pos_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<pos_t> o;
  while (o.size() < k) {
    const pos_t v = static_cast<pos_t>(1 + rng() % (n - 1));
    if (std::find(o.begin(), o.end(), v) == o.end()) o.push_back(v);
  }
  std::sort(o.begin(), o.end());
  return o;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: see the comment at the top of bench_distances.cpp\n");
    return 2;
  }
  const std::string mode = argv[1], spec = argv[2];
  const pos_t n = static_cast<pos_t>(parse_count(argv[3], "N"));
#ifdef _OPENMP
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  if (mode == "profile") {
    ProfileMethod m = ProfileMethod::Auto;
    const std::string ms = argc > 4 ? argv[4] : "auto";
    if (ms == "bitset-bfs")
      m = ProfileMethod::BitsetBfs;
    else if (ms == "dp")
      m = ProfileMethod::Dp;
    std::vector<pos_t> offs;
    const auto t0 = Clock::now();
    if (spec == "random27") {
      offs = random_offsets(27, n, 27);
    } else if (spec == "random27log") {  // 27 distinct offsets drawn log-uniformly in [1, n)
      std::mt19937_64 rng(27);
      std::uniform_real_distribution<double> u(0, std::log(static_cast<double>(n - 1)));
      std::set<pos_t> s;
      while (s.size() < 27) s.insert(static_cast<pos_t>(std::max(1.0, std::floor(std::exp(u(rng))))));
      offs.assign(s.begin(), s.end());
    } else {
      offs = make_pattern(spec, n).b_offsets;
    }
    const auto t1 = Clock::now();
    const auto prof = offset_distance_profile(offs, n, m);
    const auto t2 = Clock::now();
    std::uint32_t mx = 0;
    std::uint64_t unreach = 0, sum = 0;
    for (pos_t k = 0; k < n; ++k) {
      const auto d = prof[k];
      if (d == UNREACHABLE)
        ++unreach;
      else {
        mx = std::max(mx, d);
        sum += d;
      }
    }
    std::printf(
        "profile %s n=%u |F|=%zu method=%s threads=%d setup=%.3fs profile=%.3fs max=%u unreachable=%llu "
        "checksum=%llu width=%d\n",
        spec.c_str(), n, offs.size(), ms.c_str(), threads, secs(t0, t1), secs(t1, t2), mx,
        static_cast<unsigned long long>(unreach), static_cast<unsigned long long>(sum), prof.width());
  } else if (mode == "source") {
    const pos_t j = argc > 4 ? static_cast<pos_t>(std::atoll(argv[4]) - 1) : 0;
    const auto t0 = Clock::now();
    const auto p = make_pattern(spec, n);
    const auto t1 = Clock::now();
    const auto d = single_source_distances(p, j);
    const auto t2 = Clock::now();
    std::uint32_t mx = 0;
    for (auto x : d)
      if (x != UNREACHABLE) mx = std::max(mx, x);
    std::printf("source %s n=%u source=%u threads=%d pattern=%.3fs bfs=%.3fs maxdist=%u\n", spec.c_str(), n,
                j + 1, threads, secs(t0, t1), secs(t1, t2), mx);
  } else if (mode == "allpairs") {
    AllPairsOptions o;
    o.sources_per_block = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 64;
    const auto t0 = Clock::now();
    const auto p = make_pattern(spec, n);
    const auto t1 = Clock::now();
    const auto s = all_pairs_summary(p, o);
    const auto t2 = Clock::now();
    std::printf(
        "allpairs %s n=%u spb=%u threads=%d pattern=%.3fs allpairs=%.3fs diameter=%u mean=%.6f "
        "unreachable=%llu\n",
        spec.c_str(), n, o.sources_per_block, threads, secs(t0, t1), secs(t1, t2), s.diameter,
        s.mean_distance, static_cast<unsigned long long>(s.unreachable_pairs));
  } else if (mode == "bgl-allpairs") {
    const pos_t k = argc > 4 ? static_cast<pos_t>(std::atoi(argv[4])) : 256;
    const auto p = make_pattern(spec, n);
    const auto t0 = Clock::now();
    const CommGraph g = build_comm_graph(p);
    const auto t1 = Clock::now();
    std::uint64_t sum = 0;
    // the peer gets the same cores: sources split across OpenMP threads, one dist vector each
#pragma omp parallel reduction(+ : sum)
    {
      std::vector<unsigned> dist(n);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t r = 0; r < static_cast<std::int64_t>(k); ++r) {
        const pos_t s = static_cast<pos_t>((static_cast<std::uint64_t>(r) * n) / k);
        std::fill(dist.begin(), dist.end(), 0u);
        boost::breadth_first_search(g, s,
                                    boost::visitor(boost::make_bfs_visitor(
                                        boost::record_distances(dist.data(), boost::on_tree_edge()))));
        for (auto d : dist) sum += d;
      }
    }
    const auto t2 = Clock::now();
    const double per = secs(t1, t2) / k;
    std::printf(
        "bgl-allpairs %s n=%u sources=%u threads=%d build=%.3fs bfs_total=%.3fs per_source_wall=%.6fs "
        "extrapolated_all_sources=%.1fs checksum=%llu\n",
        spec.c_str(), n, k, threads, secs(t0, t1), secs(t1, t2), per, per * n,
        static_cast<unsigned long long>(sum));
  } else {
    std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  return 0;
}
