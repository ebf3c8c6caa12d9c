// gpu::DevicePlan (gpu_plan.hpp): the plan key's checks and an empty or released plan on the CPU (unit);
// on a GPU (Gpu*: they skip without one) solve_planned against solve_device bit for bit across the
// families, reuse over calls with other X and coefficients, release and remake, and two threads on two
// streams sharing one plan.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mixgraph/device_mixer.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_plan.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/mixer.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/validate.hpp"

#ifdef MIXGRAPH_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using namespace mixgraph;

// ---- CPU: the key and its checks ----

gpu::SolveProblem implicit_problem(const std::vector<std::uint32_t>& offs) {
  gpu::SolveProblem p;
  p.n = 1000;
  p.d = 64;
  p.heads = 2;
  p.a.implicit = true;
  static const std::uint32_t diag[] = {0};
  p.a.offsets = diag;
  p.a.k = 1;
  p.a.gen = gpu::CoefGen::Seeded;
  p.b.implicit = true;
  p.b.offsets = offs.data();
  p.b.k = std::uint32_t(offs.size());
  p.b.gen = gpu::CoefGen::Seeded;
  return p;
}

TEST(DevicePlanKey, EqualProblemsMatchAndEachFieldIsNamed) {
  const std::vector<std::uint32_t> offs = {1, 2, 4, 8};
  const gpu::SolveProblem p = implicit_problem(offs);
  const gpu::PlanKey k = gpu::plan_key(p, 0);
  EXPECT_EQ(k.n, 1000u);
  EXPECT_EQ(k.b.k, 4u);
  EXPECT_EQ(gpu::plan_mismatch(k, p, 0), "");
  // the coefficient values and seeds are the call's: they never make a mismatch
  gpu::SolveProblem c = p;
  c.b.gen_seed = 99;
  c.a.gen_seed = 7;
  EXPECT_EQ(gpu::plan_mismatch(k, c, 0), "");
  struct Change {
    void (*f)(gpu::SolveProblem&);
    int device;
    const char* expect;
  };
  const Change changes[] = {
      {[](gpu::SolveProblem& q) { q.n = 999; }, 0, "n = 1000, the call has n = 999"},
      {[](gpu::SolveProblem& q) { q.d = 128; }, 0, "d = 64, the call has d = 128"},
      {[](gpu::SolveProblem& q) { q.heads = 4; }, 0, "heads = 2, the call has heads = 4"},
      {[](gpu::SolveProblem& q) { q.fp64 = true; }, 0, "fp32, the call is fp64"},
      {[](gpu::SolveProblem&) {}, 1, "device = 0, the call has device = 1"},
      {[](gpu::SolveProblem& q) { q.b.k = 3; }, 0, "B: the plan was made for 4 offsets, the call has 3"},
      {[](gpu::SolveProblem& q) { q.a.gen = gpu::CoefGen::Values; }, 0,
       "A: the plan was made for seeded coefficients, the call has values"},
      {[](gpu::SolveProblem& q) { q.b.implicit = false; }, 0,
       "B: the plan was made for implicit offsets, the call has a CSR structure"},
      {[](gpu::SolveProblem& q) {
         q.b.gen = gpu::CoefGen::PerOffset;
         q.b.vals_on_device = true;
       },
       0, "B: the plan was made for seeded coefficients, the call has per-offset"},
  };
  for (const Change& ch : changes) {
    gpu::SolveProblem q = p;
    ch.f(q);
    const std::string m = gpu::plan_mismatch(k, q, ch.device);
    EXPECT_NE(m.find(ch.expect), std::string::npos) << m << " | expected: " << ch.expect;
  }
  // values on the host against values on the device
  gpu::SolveProblem v = p;
  v.b.gen = gpu::CoefGen::Values;
  const gpu::PlanKey kv = gpu::plan_key(v, 0);
  v.b.vals_on_device = true;
  EXPECT_NE(gpu::plan_mismatch(kv, v, 0).find("coefficients on the host, the call has them on the device"),
            std::string::npos);
}

TEST(DevicePlanKey, CsrKeyTakesNnzFromPtr) {
  const Pattern pat = make_pattern("sq1+cache", 300);
  const auto w = seeded_mixer_weights<float>(pat, 1, 1);
  const gpu::SolveProblem p = gpu_problem(w, 8);
  const gpu::PlanKey k = gpu::plan_key(p, 0);
  EXPECT_FALSE(k.b.implicit);
  EXPECT_EQ(k.b.nnz, w.s.b.nnz());
  EXPECT_EQ(k.a.nnz, w.s.a.nnz());
  EXPECT_EQ(gpu::plan_mismatch(k, p, 0), "");
  // a call's CSR arrays are not read: a problem without them is checked by its scalars alone
  gpu::SolveProblem c = p;
  c.a.ptr = c.b.ptr = nullptr;
  c.a.idx = c.b.idx = nullptr;
  EXPECT_EQ(gpu::plan_mismatch(k, c, 0), "");
}

TEST(DevicePlanKey, EmptyAndReleasedPlansSayWhy) {
  gpu::DevicePlan plan;
  EXPECT_FALSE(plan.ready());
  EXPECT_EQ(plan.device_bytes(), 0u);
  plan.release();  // nothing to free: a no-op, twice
  plan.release();
  const std::vector<std::uint32_t> offs = {1, 2};
  const gpu::SolveProblem p = implicit_problem(offs);
  const gpu::SolveRun r = gpu::solve_planned(plan, p, nullptr, nullptr);
  EXPECT_FALSE(r.ran);
  EXPECT_NE(r.note.find("empty"), std::string::npos) << r.note;
  // a bad problem is refused before anything is planned (without a GPU: the device's note)
  gpu::SolveProblem bad = p;
  bad.n = 0;
  EXPECT_NE(gpu::make_device_plan(plan, bad), "");
  EXPECT_FALSE(plan.ready());
  if (!gpu::device_info().usable()) {
    const std::string note = gpu::make_device_plan(plan, p);
    EXPECT_NE(note, "");
    EXPECT_FALSE(plan.ready());
  }
  gpu::DevicePlan moved = std::move(plan);
  EXPECT_FALSE(moved.ready());
}

// ---- GPU: solve_planned against solve_device ----

#define REQUIRE_GPU()                                \
  do {                                               \
    const auto info_ = gpu::device_info();           \
    if (!info_.usable()) GTEST_SKIP() << info_.note; \
  } while (0)

// Device buffers of n x d values that free themselves.
struct Dev {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit Dev(std::size_t b) : bytes(b) {
    const std::string e = gpu::device_alloc(&p, b);
    if (!e.empty()) throw std::runtime_error(e);
  }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  ~Dev() { gpu::device_free(p); }
  std::vector<unsigned char> host() const {
    std::vector<unsigned char> h(bytes);
    const std::string e = gpu::copy_to_host(h.data(), p, bytes);
    if (!e.empty()) throw std::runtime_error(e);
    return h;
  }
};

// A small mtx file (real values, rows reading earlier columns) in the test's temporary folder.
std::string mtx_file(pos_t n) {
  const std::string path = ::testing::TempDir() + "/gpu_plan_b.mtx";
  std::vector<std::pair<pos_t, pos_t>> e;
  for (pos_t i = 1; i < n; ++i) {
    e.push_back({i, i - 1});
    if (i >= 9) e.push_back({i, i - 9});
    if (i >= 200) e.push_back({i, i / 3});
  }
  FILE* f = std::fopen(path.c_str(), "w");
  std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%u %u %zu\n", unsigned(n), unsigned(n),
               e.size());
  for (std::size_t k = 0; k < e.size(); ++k)
    std::fprintf(f, "%u %u %.6f\n", unsigned(e[k].first + 1), unsigned(e[k].second + 1),
                 0.25 / double(1 + k % 5));
  std::fclose(f);
  return path;
}

struct Family {
  std::string label, spec;
  pos_t n;
  int heads;
  std::uint32_t d;
  bool fp64 = false;
  bool stored = false;     // every coefficient a host array (CoefGen::Values)
  bool on_device = false;  // stored, and on the device (vals_on_device)
  gpu::SolveOptions o{};
};

template <class T>
void check_family(const Family& f) {
  SCOPED_TRACE(f.label);
  const Pattern pat = make_pattern(f.spec, f.n);
  const std::uint32_t n = std::uint32_t(pat.n);
  const std::size_t bytes = std::size_t(n) * f.d * sizeof(T);
  Dev x(bytes), y1(bytes), y2(bytes);
  // the coefficients of seed s: seeded on the device, or stored (host or device arrays)
  std::vector<MixerWeights<T>> ws;
  for (std::uint64_t s : {1, 2}) {
    auto w = seeded_mixer_weights<T>(pat, f.heads, s);
    ws.push_back(f.stored || f.on_device ? stored_weights(w) : std::move(w));
  }
  std::vector<std::unique_ptr<Dev>> dvals;  // device copies of the stored arrays (on_device)
  auto problem = [&](int which) {
    gpu::SolveProblem p = gpu_problem(ws[std::size_t(which)], f.d);
    if (f.on_device)
      for (gpu::SolveMatrix* m : {&p.a, &p.b}) {
        const std::size_t count = std::size_t(f.heads) * m->hs;
        dvals.push_back(std::make_unique<Dev>(std::max<std::size_t>(count, 1) * sizeof(T)));
        if (count && !gpu::copy_to_device(dvals.back()->p, m->vals, count * sizeof(T)).empty())
          throw std::runtime_error("copy to the device");
        m->vals = dvals.back()->p;
        m->vals_on_device = true;
      }
    return p;
  };
  gpu::DevicePlan plan;
  ASSERT_EQ(gpu::make_device_plan(plan, problem(0), f.o), "");
  ASSERT_TRUE(plan.ready());
  EXPECT_GT(plan.device_bytes(), 0u);
  // three calls: other X, other coefficients, then the first coefficients again
  const int coefs[] = {0, 1, 1};
  for (int call = 0; call < 3; ++call) {
    ASSERT_EQ(gpu::fill_seeded_x(x.p, n, f.d, sizeof(T) == 8, 10 + std::uint64_t(call)), "");
    const gpu::SolveProblem p = problem(coefs[call]);
    const gpu::SolveRun rd = gpu::solve_device(p, x.p, y1.p, f.o);
    ASSERT_TRUE(rd.ran) << rd.note;
    const gpu::SolveRun rp = gpu::solve_planned(plan, p, x.p, y2.p);
    ASSERT_TRUE(rp.ran) << rp.note;
    EXPECT_EQ(rp.kernel, rd.kernel);
    EXPECT_EQ(rp.plan, rd.plan);
    EXPECT_EQ(rp.kernel, plan.kernel());
    EXPECT_TRUE(y1.host() == y2.host()) << "call " << call << " " << rp.kernel;
    // the same seeded coefficients as the call before: the plan's array is read as it is (not for host
    // Values, such as an mtx file's values, which the call uploads unless marked vals_constant)
    const bool made_on_device = p.a.gen != gpu::CoefGen::Values && p.b.gen != gpu::CoefGen::Values;
    if (call == 2 && !f.stored && !f.on_device && made_on_device) {
      EXPECT_TRUE(rp.coefs_reused) << rp.kernel;
    }
  }
  // and against the CPU solver (an independent reference), on the last call's X and coefficients
  std::vector<T> xh(std::size_t(n) * f.d), yh(xh.size());
  ASSERT_EQ(gpu::copy_to_host(xh.data(), x.p, bytes), "");
  ASSERT_EQ(gpu::copy_to_host(yh.data(), y2.p, bytes), "");
  const std::vector<double> xd(xh.begin(), xh.end());
  std::vector<double> yr(xd.size());
  solve_mixer(seeded_mixer_weights<double>(pat, f.heads, 2), xd.data(), yr.data(), f.d, 1);
  EXPECT_LE(relative_frobenius(yh.data(), yr.data(), yh.size()), sizeof(T) == 8 ? 1e-12 : 1e-4);
  // a call of another shape is refused with the reason; the plan stays usable
  gpu::SolveProblem other = problem(0);
  other.d = f.d / 2;
  const gpu::SolveRun bad = gpu::solve_planned(plan, other, x.p, y2.p);
  EXPECT_FALSE(bad.ran);
  EXPECT_NE(bad.note.find("d = " + std::to_string(f.d)), std::string::npos) << bad.note;
  // release, then a call says so; made again, it solves again
  plan.release();
  EXPECT_FALSE(plan.ready());
  EXPECT_EQ(plan.device_bytes(), 0u);
  const gpu::SolveRun rel = gpu::solve_planned(plan, problem(0), x.p, y2.p);
  EXPECT_FALSE(rel.ran);
  EXPECT_NE(rel.note.find("released"), std::string::npos) << rel.note;
  ASSERT_EQ(gpu::make_device_plan(plan, problem(0), f.o), "");
  const gpu::SolveRun again = gpu::solve_planned(plan, problem(0), x.p, y2.p);
  ASSERT_TRUE(again.ran) << again.note;
  const gpu::SolveRun rd = gpu::solve_device(problem(0), x.p, y1.p, f.o);
  ASSERT_TRUE(rd.ran) << rd.note;
  EXPECT_TRUE(y1.host() == y2.host());
}

void check(const Family& f) {
  if (f.fp64)
    check_family<double>(f);
  else
    check_family<float>(f);
}

TEST(GpuPlan, SameBitsAsSolveDeviceAcrossFamilies) {
  REQUIRE_GPU();
  gpu::SolveOptions pipe;
  pipe.kernel = gpu::SolveOptions::Kernel::Pipeline;
  const std::vector<Family> fams = {
      {"pow2", "pow2", 5000, 2, 64},
      {"pow2 fp64", "pow2", 3000, 1, 16, true},
      {"pow2+cache", "pow2+cache", 5000, 2, 64},
      {"sq1+cache", "sq1+cache", 4000, 1, 32},
      {"union", "window:3|local:6", 3000, 2, 32},
      {"union of offsets", "window:8|dilated:4,8|offsets:50", 3000, 1, 32},
      {"mtx", "mtx:" + mtx_file(3000), 0, 1, 32},
      {"csr host values", "sq1+cache", 4000, 2, 32, false, true},
      {"csr device values", "pow2+cache", 4000, 2, 32, false, false, true},
      {"implicit device values", "pow2", 4000, 2, 32, false, false, true},
      {"ssm per channel", "ssm", 4000, 64, 64},
      {"pipeline csr", "sq1+cache", 3000, 1, 40, false, false, false, pipe},
  };
  for (const Family& f : fams) check(f);
}

#ifdef MIXGRAPH_HAVE_CUDA
// One plan, two threads, two streams: the calls are serialized by the plan, each gives solve_device's bits.
TEST(GpuPlan, TwoThreadsShareOnePlanOnTwoStreams) {
  REQUIRE_GPU();
  const Pattern pat = make_pattern("sq1+cache", 6000);
  const std::uint32_t n = std::uint32_t(pat.n), d = 64;
  const auto w = seeded_mixer_weights<float>(pat, 2, 3);
  const gpu::SolveProblem p = gpu_problem(w, d);
  const std::size_t bytes = std::size_t(n) * d * sizeof(float);
  gpu::DevicePlan plan;
  ASSERT_EQ(gpu::make_device_plan(plan, p), "");
  Dev xa(bytes), xb(bytes), ya(bytes), yb(bytes), ref(bytes);
  ASSERT_EQ(gpu::fill_seeded_x(xa.p, n, d, false, 1), "");
  ASSERT_EQ(gpu::fill_seeded_x(xb.p, n, d, false, 2), "");
  std::string err[2];
  auto worker = [&](int t) {
    cudaStream_t st = nullptr;
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess) {
      err[t] = "cudaStreamCreate";
      return;
    }
    for (int rep = 0; rep < 4 && err[t].empty(); ++rep) {
      const auto r = gpu::solve_planned(plan, p, t ? xb.p : xa.p, t ? yb.p : ya.p, st);
      if (!r.ran) err[t] = r.note;
    }
    cudaStreamDestroy(st);
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  ASSERT_EQ(err[0], "");
  ASSERT_EQ(err[1], "");
  ASSERT_TRUE(gpu::solve_device(p, xa.p, ref.p).ran);
  EXPECT_TRUE(ref.host() == ya.host());
  ASSERT_TRUE(gpu::solve_device(p, xb.p, ref.p).ran);
  EXPECT_TRUE(ref.host() == yb.host());
}
#endif

}  // namespace

namespace {

using namespace mixgraph;

// DeviceMixer (device_mixer.hpp): a Mixer on the GPU through one device plan.
TEST(DeviceMixer, RefusesWithoutAGpuOrWithBadArguments) {
  EXPECT_THROW(DeviceMixer(nullptr), UsageError);
  auto m = std::make_shared<const Mixer>("pow2+cache", 256, MixerOptions{2, Precision::Fp32});
  DeviceMixer g(m);
  EXPECT_FALSE(g.planned());
  EXPECT_EQ(g.device_bytes(), 0u);
  EXPECT_THROW(g.solve<float>(nullptr, nullptr, 3, 1), UsageError);   // d not a multiple of 2 heads
  EXPECT_THROW(g.solve<double>(nullptr, nullptr, 4, 1), UsageError);  // another precision
  if (!gpu::device_info().usable()) {
    EXPECT_THROW(g.solve<float>(nullptr, nullptr, 4, 1), GpuRequired);
  }
  g.release();
  EXPECT_FALSE(g.planned());
}

TEST(GpuDeviceMixer, PlansOnceAndGivesSolveDeviceBits) {
  REQUIRE_GPU();
  const pos_t n = 5000;
  const std::uint32_t d = 64;
  auto m = std::make_shared<const Mixer>("sq1+cache", n, MixerOptions{2, Precision::Fp32});
  DeviceMixer g(m);
  const std::size_t bytes = std::size_t(n) * d * sizeof(float);
  Dev x(bytes), y1(bytes), y2(bytes);
  ASSERT_EQ(gpu::fill_seeded_x(x.p, n, d, false, 4), "");
  for (std::uint64_t seed : {1, 1, 2}) {
    const auto r = g.solve<float>(static_cast<const float*>(x.p), static_cast<float*>(y1.p), d, seed);
    EXPECT_TRUE(g.planned());
    const auto w = seeded_mixer_weights<float>(make_pattern("sq1+cache", n), 2, seed);
    const auto rd = gpu::solve_device(gpu_problem(w, d), x.p, y2.p);
    ASSERT_TRUE(rd.ran) << rd.note;
    EXPECT_EQ(r.kernel, rd.kernel);
    EXPECT_TRUE(y1.host() == y2.host()) << seed;
  }
  EXPECT_GT(g.device_bytes(), 0u);
  g.release();
  EXPECT_EQ(g.device_bytes(), 0u);
}

}  // namespace
