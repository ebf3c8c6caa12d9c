// Benchmarks of the copy-task congestion analysis (figures in docs/benchmarks.md). A plain timing main:
//   bench_congestion            shift at N = 10^6, minmax at N = 10^4, LP sizes, with peers
//   bench_congestion shift|minmax|lp [pattern N ...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "mixgraph/congestion.hpp"
#include "mixgraph/routing.hpp"

using namespace mixgraph;

namespace {

double timed(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void bench_shift(const std::string& spec, pos_t N) {
  CopyGraph g;
  std::vector<std::uint32_t> delta;
  Routing r;
  RoutingStats s;
  const double tg = timed([&] { g = make_copy_graph(make_pattern(spec, 2ULL * N), N); });
  const double td = timed([&] { delta = offset_distances(g.b_off, N); });
  const double ts = timed([&] { r = shift_routing(g, delta); });
  const double tc = timed([&] { s = check_routing(g, r); });
  Routing rr;
  const double tr = timed([&] { rr = random_routing(g, 1, delta); });
  RoutingStats sr = check_routing(g, rr);
  std::printf(
      "shift   %-12s N=%-8u d=%-3u C=%-3u pattern %.3fs  distances %.3fs  shift+loads %.3fs  check %.3fs"
      "  | peer random %.3fs (C=%u)\n",
      spec.c_str(), N, delta[N], s.congestion, tg, td, ts, tc, tr, sr.congestion);
}

void bench_minmax(const std::string& spec, pos_t N) {
  auto g = make_copy_graph(make_pattern(spec, 2ULL * N), N);
  const bool ti = g.ti && !g.explicit_a();
  std::vector<std::uint32_t> delta;
  if (ti) delta = offset_distances(g.b_off, N);
  Routing start;
  const double t0 = timed([&] { start = ti ? shift_routing(g, delta) : random_routing(g, 1, delta); });
  const auto c0 = check_routing(g, start).congestion;
  std::uint32_t lb = 1;
  const double tcut = timed([&] {
    if (copy_cut_flow_edges(g) <= 30'000'000ULL) {
      const pos_t kappa = copy_cut_kappa(g);
      lb = (N + kappa - 1) / kappa;
    }
  });
  if (ti) lb = std::max(lb, prop47_bound(std::vector<std::uint32_t>(N, delta[N])));
  MinmaxOptions mo;
  mo.lower_bound = lb;
  Routing m;
  const double tm = timed([&] { m = minmax_routing(g, start, mo, delta); });
  const auto s = check_routing(g, m);
  std::printf(
      "minmax  %-12s N=%-6u start %s C=%u (%.3fs)  minmax C=%u in %.3fs  lower bound %u (cut %.3fs)\n   %s\n",
      spec.c_str(), N, start.name.c_str(), c0, t0, s.congestion, tm, lb, tcut, m.note.c_str());
}

void bench_lp(const std::string& spec, pos_t N) {
  auto g = make_copy_graph(make_pattern(spec, 2ULL * N), N);
  LpResult lp;
  const double t = timed([&] { lp = lp_congestion(g, false); });
  std::printf("lp      %-12s N=%-5u vars %-9llu rows %-7llu LP %.6f  dual %.6f  bound %u  %.2fs  %s\n",
              spec.c_str(), N, static_cast<unsigned long long>(lp.variables),
              static_cast<unsigned long long>(lp.constraints), lp.value, lp.dual_value, lp.bound, t,
              lp.status.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  if (argc > 3) {
    for (int k = 2; k + 1 < argc; k += 2) {
      const std::string spec = argv[k];
      const pos_t N = static_cast<pos_t>(std::strtoull(argv[k + 1], nullptr, 10));
      if (what == "shift") bench_shift(spec, N);
      if (what == "minmax") bench_minmax(spec, N);
      if (what == "lp") bench_lp(spec, N);
    }
    return 0;
  }
  if (what == "all" || what == "shift") {
    bench_shift("pow2", 1000000);
    bench_shift("sq1", 1000000);
    bench_shift("pow2", 1000003);
  }
  if (what == "all" || what == "minmax") {
    bench_minmax("sq1", 10000);
    bench_minmax("pow2+cache", 10000);
    bench_minmax("window:8", 10000);
    bench_minmax("pow2", 10000);
    bench_minmax("pow:3", 10000);
  }
  if (what == "all" || what == "lp") {
    if (!lp_built_in()) {
      std::printf("lp      not built in\n");
      return 0;
    }
    for (pos_t N : {20u, 40u, 60u, 80u, 100u, 120u}) bench_lp("pow2", N);
    for (pos_t N : {20u, 40u, 60u, 80u, 100u}) bench_lp("sq1", N);
    for (pos_t N : {20u, 40u, 60u, 80u}) bench_lp("pow2+cache", N);
  }
  return 0;
}
