// Plan once, solve many (mixer.hpp): time per call of Mixer::solve against the free solve, fp32, seeded
// weights, on the CPU.
//   bench_mixer [log2n=16] [d=64] [reps=20] [threads=0] [spec ...]   (default specs: pow2+cache sq1+cache)
// For each spec, the median over reps calls of
//   free    seeded_mixer_weights(p, 1, seed) + solve_mixer: what a call without a plan pays (the CLI's
//           solve, mixgraph.solve before the Mixer): the solver form of the pattern rebuilt every call;
//   mixer   Mixer::solve(x, y, d, seed) on a Mixer made once;
//   stored  solve_mixer on weights stored once (make_mixer_weights, every coefficient in an array): the
//           kernel reading coefficients instead of making them, for reference (it costs O(n K) memory);
// and the ratio free / mixer. Every Y is compared bit for bit with the free solve's.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mixgraph/mixer.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/weight_gen.hpp"

using namespace mixgraph;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double time_calls(int reps, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 16;
  const std::size_t d = argc > 2 ? std::size_t(std::atol(argv[2])) : 64;
  const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 20;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 0;
  std::vector<std::string> specs;
  for (int a = 5; a < argc; ++a) specs.push_back(argv[a]);
  if (specs.empty()) specs = {"pow2+cache", "sq1+cache"};
  const pos_t n = pos_t(1) << log2n;
  std::vector<float> x(std::size_t(n) * d);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = float(wgen::input_value(1, k / d, k % d));
  std::printf("bench_mixer: n = %u, d = %zu, fp32, 1 head, threads %d, reps %d (median ms per call)\n", n, d,
              threads > 0 ? threads : omp_get_max_threads(), reps);
  std::printf("%-12s %10s %10s %10s %8s %10s %6s\n", "pattern", "free", "mixer", "stored", "free/mix",
              "plan ms", "bits");
  for (const std::string& spec : specs) {
    const Pattern p = make_pattern(spec, n);
    std::vector<float> yf(x.size()), ym(x.size()), ys(x.size());
    const double tp0 = now();
    const Mixer m(p, {1, Precision::Fp32});
    const double plan_ms = (now() - tp0) * 1e3;
    const MixerWeights<float> stored = make_mixer_weights<float>(p, 1, 2);
    // interleaved, one warm-up each
    const auto free_call = [&] {
      const MixerWeights<float> w = seeded_mixer_weights<float>(p, 1, 2);
      solve_mixer(w, x.data(), yf.data(), d, threads);
    };
    const auto mixer_call = [&] { m.solve(x.data(), ym.data(), d, std::uint64_t(2), threads); };
    const auto stored_call = [&] { solve_mixer(stored, x.data(), ys.data(), d, threads); };
    free_call();
    mixer_call();
    stored_call();
    std::vector<double> tf, tm, ts;
    for (int r = 0; r < reps; ++r) {
      tf.push_back(time_calls(1, free_call));
      tm.push_back(time_calls(1, mixer_call));
      ts.push_back(time_calls(1, stored_call));
    }
    const double f = median(tf) * 1e3, mm = median(tm) * 1e3, s = median(ts) * 1e3;
    const bool same = std::memcmp(yf.data(), ym.data(), yf.size() * sizeof(float)) == 0 &&
                      std::memcmp(yf.data(), ys.data(), yf.size() * sizeof(float)) == 0;
    std::printf("%-12s %10.3f %10.3f %10.3f %8.2f %10.3f %6s\n", spec.c_str(), f, mm, s, f / mm, plan_ms,
                same ? "same" : "DIFFER");
    if (!same) return 1;
  }
  return 0;
}
