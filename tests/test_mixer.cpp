// Tests of the Mixer (mixer.hpp): its solves give the bits of the free functions (solve_mixer, solve_adjoint)
// on every family, from several threads at once, and after release(); the free solve itself is checked
// against the plain recurrence of Eq. 1 here too, so a shared mistake would show.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "mixgraph/error.hpp"
#include "mixgraph/mixer.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_adjoint.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/weight_gen.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;

namespace {

template <class T>
std::vector<T> input(pos_t n, std::size_t d, std::uint64_t seed) {
  std::vector<T> x(std::size_t(n) * d);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = T(wgen::input_value(seed, k / d, k % d));
  return x;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// A small real lower-triangular B in Matrix Market form (n = 40), written once.
std::string mtx_file() {
  // never destroyed: the exit handler that removes the file reads it after static destructors have run
  static const std::string* const path = [] {
    const auto p = std::filesystem::temp_directory_path() /
                   ("mixgraph_test_mixer_" + std::to_string(::getpid()) + ".mtx");
    std::FILE* f = std::fopen(p.string().c_str(), "w");
    const int n = 40;
    // no duplicates: (i, i-1), (i, i/2) when distinct, (i, 1) when distinct from both
    std::vector<std::string> uniq;
    for (int i = 2; i <= n; ++i) {
      std::vector<int> js = {i - 1};
      if (i / 2 != i - 1) js.push_back(i / 2);
      if (1 != i - 1 && 1 != i / 2) js.push_back(1);
      for (int j : js)
        uniq.push_back(std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(0.3 / (1 + j % 3)));
    }
    std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %zu\n", n, n, uniq.size());
    for (const auto& r : uniq) std::fprintf(f, "%s\n", r.c_str());
    std::fclose(f);
    const auto* kept = new std::string(p.string());
    std::atexit([] { std::remove(mtx_file().c_str()); });
    return kept;
  }();
  return *path;
}

struct Case {
  std::string spec;
  pos_t n;
  int heads;
  std::size_t d;
};

std::vector<Case> cases() {
  return {{"pow2", 300, 1, 64},
          {"pow2", 200, 2, 6},
          {"sq1", 250, 1, 16},
          {"pow2+cache", 300, 2, 64},
          {"sq1+cache", 260, 1, 8},
          {"window:4", 100, 1, 5},
          {"dilated:3,2", 120, 1, 4},
          {"ssm", 150, 3, 3},
          {"ssm", 150, 1, 130},
          {"pow2|ssm", 90, 1, 7},
          {"window:2@A|pow2@B", 90, 2, 4},
          {"sink:2", 70, 1, 3},
          {"bigbird:3,2,2", 80, 1, 3},
          {"block:8", 64, 1, 2},
          {"local:5", 70, 2, 4},
          {"dense", 50, 1, 3},
          {"attention", 45, 1, 2},
          {"heads:pow2;ssm", 60, 2, 4},
          {"mtx:" + mtx_file(), 0, 1, 3}};
}

/// The free functions' answer with seeded weights (as the CLI solves).
template <class T>
std::vector<T> free_solve(const Pattern& p, int heads, std::uint64_t seed, const std::vector<T>& x,
                          std::size_t d, int threads) {
  const MixerWeights<T> w = seeded_mixer_weights<T>(p, heads, seed);
  std::vector<T> y(x.size());
  solve_mixer(w, x.data(), y.data(), d, threads);
  return y;
}

template <class T>
void check_family(const Case& c) {
  const Pattern p = make_pattern(c.spec, c.n);
  const Precision prec = sizeof(T) == 8 ? Precision::Fp64 : Precision::Fp32;
  const Mixer m(p, {c.heads, prec});
  EXPECT_EQ(m.n(), p.n);
  const std::vector<T> x = input<T>(p.n, c.d, 7);
  for (int threads : {1, 2}) {
    // seeded coefficients
    const std::vector<T> ref = free_solve<T>(p, c.heads, 3, x, c.d, threads);
    std::vector<T> y(x.size());
    m.solve(x.data(), y.data(), c.d, std::uint64_t(3), threads);
    EXPECT_TRUE(same_bits(y, ref)) << c.spec << " threads " << threads;
    std::vector<T> y2(x.size());
    m.solve(x.data(), y2.data(), c.d, m.seeded<T>(3), threads);
    EXPECT_TRUE(same_bits(y2, ref)) << c.spec;
    // stored coefficients (every coefficient in the arrays)
    const MixerWeights<T> w = make_mixer_weights<T>(p, c.heads, 5);
    std::vector<T> ys(x.size()), yw(x.size());
    solve_mixer(w, x.data(), yw.data(), c.d, threads);
    m.solve(x.data(), ys.data(), c.d, MixerCoefs<T>::of(w), threads);
    EXPECT_TRUE(same_bits(ys, yw)) << c.spec;
  }
  // the free solve against the plain recurrence (an independent reference), one head
  if (c.heads == 1) {
    const std::vector<T> ref = free_solve<T>(p, 1, 11, x, c.d, 1);
    std::vector<T> rec(x.size());
    solve_recurrence<T>({random_weights(p, 11)}, p.n, x.data(), rec.data(), c.d);
    double num = 0, den = 0;
    for (std::size_t k = 0; k < rec.size(); ++k) {
      num += double(ref[k] - rec[k]) * double(ref[k] - rec[k]);
      den += double(rec[k]) * double(rec[k]);
    }
    EXPECT_LE(std::sqrt(num / (den > 0 ? den : 1)), sizeof(T) == 8 ? 1e-12 : 1e-5) << c.spec;
  }
}

TEST(Mixer, SameBitsAsFreeSolveEveryFamilyFp64) {
  for (const Case& c : cases()) check_family<double>(c);
}

TEST(Mixer, SameBitsAsFreeSolveEveryFamilyFp32) {
  for (const Case& c : cases()) check_family<float>(c);
}

TEST(Mixer, PerOffsetCoefficientsSameBits) {
  const Pattern p = make_pattern("pow2", 500);
  const Mixer m(p, {2, Precision::Fp64});
  MixerWeights<double> w = seeded_mixer_weights<double>(p, 2, 1);
  w.b_source = CoefSource::PerOffset;
  w.b.resize(2 * w.s.b_offsets.size());
  for (std::size_t k = 0; k < w.b.size(); ++k) w.b[k] = 0.05 * double(k % 7) - 0.1;
  const auto x = input<double>(p.n, 32, 2);
  std::vector<double> y1(x.size()), y2(x.size());
  solve_mixer(w, x.data(), y1.data(), 32, 2);
  m.solve(x.data(), y2.data(), 32, MixerCoefs<double>::of(w), 2);
  EXPECT_TRUE(same_bits(y1, y2));
}

template <class T>
void check_adjoint(const Case& c) {
  const Pattern p = make_pattern(c.spec, c.n);
  const Mixer m(p, {c.heads, sizeof(T) == 8 ? Precision::Fp64 : Precision::Fp32});
  const std::vector<T> x = input<T>(p.n, c.d, 1), g = input<T>(p.n, c.d, 2);
  for (bool seeded : {true, false}) {
    const MixerWeights<T> w =
        seeded ? seeded_mixer_weights<T>(p, c.heads, 4) : make_mixer_weights<T>(p, c.heads, 4);
    std::vector<T> y(x.size());
    solve_mixer(w, x.data(), y.data(), c.d);
    const MixerWeights<T> st = stored_weights(w);  // the gradients' layout
    auto run = [&](bool mixer) {
      std::vector<T> dx(x.size()), z(x.size()), da(st.a.size()), db(st.b.size());
      const AdjointOut<T> out{dx.data(), da.data(), db.data(), z.data()};
      if (mixer && seeded)
        m.solve_adjoint(x.data(), y.data(), g.data(), c.d, std::uint64_t(4), out, 2);
      else if (mixer)
        m.solve_adjoint(x.data(), y.data(), g.data(), c.d, MixerCoefs<T>::of(w), out, 2);
      else
        solve_adjoint(w, adjoint_structure(w.s), x.data(), y.data(), g.data(), c.d, out, 2);
      return std::vector<std::vector<T>>{dx, z, da, db};
    };
    const auto a = run(true), b = run(false);
    for (std::size_t k = 0; k < a.size(); ++k)
      EXPECT_TRUE(same_bits(a[k], b[k])) << c.spec << " output " << k << (seeded ? " seeded" : " stored");
  }
}

TEST(Mixer, AdjointSameBitsEveryFamily) {
  for (const Case& c : cases()) {
    check_adjoint<double>(c);
    check_adjoint<float>(c);
  }
}

TEST(Mixer, ConcurrentSolvesGiveTheSequentialBits) {
  for (const std::string spec : {"pow2+cache", "sq1", "window:3|pow2"}) {
    const Pattern p = make_pattern(spec, 700);
    const Mixer m(p, {2, Precision::Fp32});
    const std::size_t d = 64;
    const int calls = 6;
    std::vector<std::vector<float>> xs, want(calls), got(calls);
    for (int k = 0; k < calls; ++k) {
      xs.push_back(input<float>(p.n, d, 100 + k));
      want[k] = free_solve<float>(p, 2, 10 + k, xs[k], d, 1);
      got[k].assign(xs[k].size(), 0.f);
    }
    std::vector<std::thread> ts;
    for (int k = 0; k < calls; ++k)
      ts.emplace_back([&, k] {
        for (int rep = 0; rep < 3; ++rep) m.solve(xs[k].data(), got[k].data(), d, std::uint64_t(10 + k), 1);
      });
    for (auto& t : ts) t.join();
    for (int k = 0; k < calls; ++k) EXPECT_TRUE(same_bits(got[k], want[k])) << spec << " call " << k;
  }
}

TEST(Mixer, ReleaseFreesAndTheNextSolveRebuilds) {
  const Pattern p = make_pattern("sq1+cache", 400);
  Mixer m(p, {1, Precision::Fp64});
  const auto x = input<double>(p.n, 8, 3), g = input<double>(p.n, 8, 4);
  std::vector<double> y0(x.size()), y1(x.size());
  m.solve(x.data(), y0.data(), 8, std::uint64_t(1));
  std::vector<double> dx0(x.size()), dx1(x.size());
  m.solve_adjoint(x.data(), y0.data(), g.data(), 8, std::uint64_t(1), AdjointOut<double>{dx0.data()});
  EXPECT_TRUE(m.planned());
  const std::uint64_t held = m.bytes();
  EXPECT_GT(held, std::uint64_t(400) * 8);  // CSR of B and A, the adjoint's transposes
  const std::shared_ptr<const SolveStructure> kept = m.structure();
  m.release();
  EXPECT_FALSE(m.planned());
  EXPECT_EQ(m.bytes(), 0u);
  EXPECT_EQ(kept->n, p.n);  // a holder keeps its plan across release()
  m.solve(x.data(), y1.data(), 8, std::uint64_t(1));
  EXPECT_TRUE(m.planned());
  EXPECT_TRUE(same_bits(y0, y1));
  m.solve_adjoint(x.data(), y1.data(), g.data(), 8, std::uint64_t(1), AdjointOut<double>{dx1.data()});
  EXPECT_TRUE(same_bits(dx0, dx1));
  EXPECT_EQ(m.bytes(), held);
}

TEST(Mixer, ReleaseBesideRunningSolves) {
  const Pattern p = make_pattern("pow2+cache", 2000);
  Mixer m(p, {1, Precision::Fp32});
  const auto x = input<float>(p.n, 64, 9);
  const auto want = free_solve<float>(p, 1, 2, x, 64, 1);
  std::vector<std::vector<float>> got(4, std::vector<float>(x.size()));
  std::vector<std::thread> ts;
  for (int k = 0; k < 4; ++k)
    ts.emplace_back([&, k] {
      for (int rep = 0; rep < 5; ++rep) m.solve(x.data(), got[k].data(), 64, std::uint64_t(2), 1);
    });
  for (int r = 0; r < 20; ++r) m.release();
  for (auto& t : ts) t.join();
  for (const auto& g : got) EXPECT_TRUE(same_bits(g, want));
}

// The device problem made from a Mixer's plan (what mixgraph.solve hands the GPU for CUDA tensors) is the one
// made from the free weights: every field, and the arrays behind every pointer.
void expect_same_matrix(const gpu::SolveMatrix& a, const gpu::SolveMatrix& b, pos_t n, std::size_t vals,
                        const std::string& what) {
  EXPECT_EQ(a.implicit, b.implicit) << what;
  EXPECT_EQ(a.k, b.k) << what;
  EXPECT_EQ(a.hs, b.hs) << what;
  EXPECT_EQ(a.is, b.is) << what;
  EXPECT_EQ(a.ks, b.ks) << what;
  EXPECT_EQ(int(a.gen), int(b.gen)) << what;
  EXPECT_EQ(a.gen_seed, b.gen_seed) << what;
  EXPECT_EQ(a.gen_matrix, b.gen_matrix) << what;
  EXPECT_EQ(a.gen_total, b.gen_total) << what;
  EXPECT_EQ(a.vals_on_device, b.vals_on_device) << what;
  if (a.implicit) {
    EXPECT_EQ(std::vector<std::uint32_t>(a.offsets, a.offsets + a.k),
              std::vector<std::uint32_t>(b.offsets, b.offsets + b.k))
        << what;
  } else {
    EXPECT_EQ(std::vector<std::uint64_t>(a.ptr, a.ptr + n + 1),
              std::vector<std::uint64_t>(b.ptr, b.ptr + n + 1))
        << what;
    EXPECT_EQ(std::vector<std::uint32_t>(a.idx, a.idx + a.ptr[n]),
              std::vector<std::uint32_t>(b.idx, b.idx + b.ptr[n]))
        << what;
  }
  EXPECT_EQ(a.vals == nullptr, b.vals == nullptr) << what;
  if (vals > 0 && a.vals && b.vals) {
    EXPECT_EQ(std::memcmp(a.vals, b.vals, vals * sizeof(float)), 0) << what;
  }
}

TEST(Mixer, GpuProblemFromThePlanIsTheWeightsOne) {
  for (const std::string& spec :
       std::vector<std::string>{"pow2", "pow2+cache", "local:3", "mtx:" + mtx_file()}) {
    const Pattern p = make_pattern(spec, spec.rfind("mtx:", 0) == 0 ? 0 : 120);
    const Mixer m(p, {2, Precision::Fp32});
    const MixerWeights<float> w = seeded_mixer_weights<float>(p, 2, 9);
    const auto st = m.structure();
    const gpu::SolveProblem a = gpu_problem(*st, m.seeded<float>(9), 8), b = gpu_problem(w, 8);
    EXPECT_EQ(a.n, b.n);
    EXPECT_EQ(a.d, b.d);
    EXPECT_EQ(a.heads, b.heads);
    EXPECT_EQ(a.fp64, b.fp64);
    expect_same_matrix(a.a, b.a, p.n, w.a.size(), spec + " A");
    expect_same_matrix(a.b, b.b, p.n, w.b.size(), spec + " B");
  }
}

TEST(Mixer, KeptWeightsGiveTheSameBits) {
  for (const std::string& spec : std::vector<std::string>{"pow2", "sq1+cache", "mtx:" + mtx_file()}) {
    const Pattern p = make_pattern(spec, spec.rfind("mtx:", 0) == 0 ? 0 : 300);
    const Mixer plain(p, {2, Precision::Fp64});
    const Mixer kept(p, {2, Precision::Fp64, MixerDevice::Cpu, true});
    const std::uint64_t before = kept.bytes();
    EXPECT_EQ(before, plain.bytes());
    const auto x = input<double>(p.n, 16, 1), g = input<double>(p.n, 16, 2);
    for (std::uint64_t seed : {3, 3, 4}) {
      const auto want = free_solve<double>(p, 2, seed, x, 16, 2);
      std::vector<double> y(x.size());
      kept.solve(x.data(), y.data(), 16, seed, 2);
      EXPECT_TRUE(same_bits(y, want)) << spec << " seed " << seed;
      std::vector<double> dx1(x.size()), dx2(x.size());
      kept.solve_adjoint(x.data(), y.data(), g.data(), 16, seed, AdjointOut<double>{dx1.data()}, 2);
      plain.solve_adjoint(x.data(), y.data(), g.data(), 16, seed, AdjointOut<double>{dx2.data()}, 2);
      EXPECT_TRUE(same_bits(dx1, dx2)) << spec;
      // the same plan (and adjoint structure) plus every coefficient of this seed
      const MixerWeights<double> st = stored_weights(seeded_mixer_weights<double>(p, 2, seed));
      EXPECT_EQ(kept.bytes(), plain.bytes() + (st.a.size() + st.b.size()) * sizeof(double)) << spec;
    }
  }
}

TEST(Mixer, BadCallsAreUsageErrors) {
  const Pattern p = make_pattern("pow2+cache", 50);
  const Mixer m(p, {2, Precision::Fp32});
  std::vector<float> x(50 * 4), y(50 * 4);
  std::vector<double> xd(50 * 4), yd(50 * 4);
  EXPECT_THROW(m.solve(xd.data(), yd.data(), 4, std::uint64_t(1)), UsageError);  // another precision
  EXPECT_THROW(m.solve(x.data(), y.data(), 3, std::uint64_t(1)), UsageError);    // d not a multiple of 2
  EXPECT_THROW(m.solve(x.data(), static_cast<float*>(nullptr), 4, std::uint64_t(1)), UsageError);
  MixerCoefs<float> c = m.seeded<float>(1);
  c.heads = 1;
  EXPECT_THROW(m.solve(x.data(), y.data(), 4, c), UsageError);  // heads differ
  const MixerWeights<float> w = make_mixer_weights<float>(p, 2, 1);
  c = MixerCoefs<float>::of(w);
  c.b_size -= 1;
  EXPECT_THROW(m.solve(x.data(), y.data(), 4, c), UsageError);  // B's array too short
  c = MixerCoefs<float>::of(w);
  c.a_source = CoefSource::PerOffset;
  EXPECT_THROW(m.solve(x.data(), y.data(), 4, c), UsageError);  // per offset on an explicit structure
  EXPECT_THROW(Mixer(p, {0, Precision::Fp32}), UsageError);
  EXPECT_THROW(Mixer(p, {1, Precision::Fp32, MixerDevice::Gpu}), UsageError);
  EXPECT_THROW(Mixer("nope", 10), UsageError);
}

}  // namespace

TEST(MixerSpec, ARebuildAfterReleaseParsesNothing) {
  const std::uint64_t n = 500;
  auto before = mixgraph::spec_parse_count();
  mixgraph::Mixer m("pow2|sink:4", n, {1, mixgraph::Precision::Fp64});
  EXPECT_EQ(mixgraph::spec_parse_count() - before, 1u);  // the constructor's one parse
  std::vector<double> x(n * 2), y(n * 2), y2(n * 2);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::sin(0.1 * double(k));
  m.solve(x.data(), y.data(), 2, m.seeded<double>(3));
  before = mixgraph::spec_parse_count();
  for (int rep = 0; rep < 3; ++rep) {
    m.release();
    EXPECT_FALSE(m.planned());
    m.solve(x.data(), y2.data(), 2, m.seeded<double>(3));  // rebuilt from the parsed spec
    EXPECT_EQ(y2, y);
  }
  EXPECT_EQ(mixgraph::spec_parse_count() - before, 0u);
  EXPECT_EQ(m.spec_tree(), mixgraph::parse_pattern_spec("pow2|sink:4"));
  // from a tree: no parse at all
  const auto tree = mixgraph::parse_pattern_spec("sq1+cache");
  before = mixgraph::spec_parse_count();
  mixgraph::Mixer t(tree, n);
  t.release();
  std::vector<float> xf(n), yf(n);
  t.solve(xf.data(), yf.data(), 1, t.seeded<float>(1));
  EXPECT_EQ(mixgraph::spec_parse_count() - before, 0u);
}
