// Tests of the weights the solvers use: seeded weights made where used (weight_gen.hpp) against the stored
// ones and the CSR draw (random_weights), weights per offset and from files (weight_files.hpp), on the CPU
// and, where a GPU is present, on the GPU (coefficients written on the device).
// References: dense Eigen solves from the pattern's reads; the scheme's bounds from its definition; the
// stored arrays of the same weights (bit-for-bit, since the arithmetic order is the same).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "dense_mixer.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/npy.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/weight_files.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;

namespace {

using mixgraph::test::inputs;

double relerr(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    num += (a[k] - b[k]) * (a[k] - b[k]);
    den += b[k] * b[k];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

// Y_h = (I - B_h)^{-1} A_h X_h with dense Eigen, by a triangular solve.
std::vector<double> dense_triangular(const std::vector<WeightedPattern>& hs, pos_t n,
                                     const std::vector<double>& x, std::size_t d) {
  return mixgraph::test::dense(hs, n, x, d, mixgraph::test::DenseSolve::Triangular);
}

struct WeightCase {
  std::string spec;
  pos_t n;
  int heads;
  std::size_t dh;
};

const std::vector<WeightCase> kWeightCases = {
    {"pow2", 200, 1, 3},       {"pow2", 97, 3, 5},         {"sq1", 150, 2, 4},     {"pow2+cache", 180, 2, 2},
    {"sq1+cache", 120, 1, 40}, {"ssm", 90, 7, 1},          {"window:3", 64, 4, 1}, {"local:4", 80, 2, 3},
    {"attention", 40, 1, 2},   {"offsets:2,5", 70, 1, 33}, {"pow2", 130, 64, 1},   {"pow2", 140, 1, 64},
    {"sq1", 140, 2, 32},       {"block:8", 60, 2, 3},      {"sink:2", 50, 1, 8}};

}  // namespace

// The scheme of weights.hpp from its definition: |beta_ij| in [0.45 / r_i, 0.9 / r_i), |alpha_ij| in
// [0.5 / c_i, 1 / c_i), both signs present, and head h of a seed is random_weights(seed + h).
TEST(SeededWeights, SchemeBoundsAndSigns) {
  const Pattern p = make_pattern("sq1", 400);
  const auto w = random_weights(p, 9);
  std::size_t neg = 0, all = 0;
  for (const auto& [m, total] : {std::pair{&w.b, 0.9}, std::pair{&w.a, 1.0}})
    for (pos_t i = 0; i < p.n; ++i) {
      const double r = double(m->ptr[i + 1] - m->ptr[i]);
      for (nnz_t e = m->ptr[i]; e < m->ptr[i + 1]; ++e) {
        const double v = std::abs(m->val[e]) * r / total;
        EXPECT_GE(v, 0.5);
        EXPECT_LT(v, 1.0);
        neg += m->val[e] < 0;
        ++all;
      }
    }
  EXPECT_GT(neg, all / 3);
  EXPECT_LT(neg, 2 * all / 3);
  const auto st = make_mixer_weights<double>(p, 3, 4);
  const auto h2 = mixer_weights_from<double>(p, {random_weights(p, 6)});
  EXPECT_TRUE(std::equal(h2.b.begin(), h2.b.end(), st.b.begin() + std::ptrdiff_t(2 * st.b_stride())));
  EXPECT_TRUE(std::equal(h2.a.begin(), h2.a.end(), st.a.begin() + std::ptrdiff_t(2 * st.a_stride())));
}

// Weights made where they are used give the same bits as the same weights stored, on every kernel of
// the CPU solver (one head per tile, several heads per tile, CSR), and match a dense solve.
TEST(SeededWeights, SolveGivesTheStoredBitsAndMatchesDense) {
  for (const WeightCase& c : kWeightCases) {
    const Pattern p = make_pattern(c.spec, c.n);
    const std::size_t d = std::size_t(c.heads) * c.dh;
    const auto seeded = seeded_mixer_weights<double>(p, c.heads, 21);
    EXPECT_TRUE(seeded.a.empty() && seeded.b.empty()) << c.spec;
    const auto stored = make_mixer_weights<double>(p, c.heads, 21);
    const auto x = inputs(p.n, d, 2);
    std::vector<double> y1(x.size()), y2(x.size());
    for (int threads : {1, 2}) {
      solve_mixer(seeded, x.data(), y1.data(), d, threads);
      solve_mixer(stored, x.data(), y2.data(), d, threads);
      EXPECT_EQ(y1, y2) << c.spec << " threads " << threads;
    }
    std::vector<WeightedPattern> hs;
    for (int h = 0; h < c.heads; ++h) hs.push_back(random_weights(p, 21 + h));
    EXPECT_LE(relerr(y1, dense_triangular(hs, p.n, x, d)), 1e-12) << c.spec;
    const auto seeded32 = seeded_mixer_weights<float>(p, c.heads, 21);
    const auto stored32 = make_mixer_weights<float>(p, c.heads, 21);
    std::vector<float> xf(x.begin(), x.end()), yf1(x.size()), yf2(x.size());
    solve_mixer(seeded32, xf.data(), yf1.data(), d, 2);
    solve_mixer(stored32, xf.data(), yf2.data(), d, 2);
    EXPECT_EQ(yf1, yf2) << c.spec;
  }
}

// Far reads (offsets >= 4096) and the two-thread pipelined tiles with seeded weights.
TEST(SeededWeights, PipelinedFarReadsGiveTheStoredBits) {
  const Pattern p = make_pattern("sq1", 20011);
  const auto seeded = seeded_mixer_weights<double>(p, 1, 5);
  const auto stored = make_mixer_weights<double>(p, 1, 5);
  const auto x = inputs(p.n, 64, 1);
  std::vector<double> y1(x.size()), y2(x.size());
  const auto i1 = solve_mixer(seeded, x.data(), y1.data(), 64, 2);
  solve_mixer(stored, x.data(), y2.data(), 64, 1);
  EXPECT_EQ(i1.kernel, "cpu-implicit-tiled-pipelined");
  EXPECT_EQ(y1, y2);
}

// Weights per offset (weight sharing): the same as a stored array with the offset's coefficient on every
// row, checked against a dense solve built from that definition.
TEST(PerOffsetWeights, MatchDenseFromTheDefinition) {
  for (const std::string spec : {"pow2", "sq1", "ssm", "local:3"}) {
    const Pattern p = make_pattern(spec, 120);
    const int heads = 2;
    auto w = seeded_mixer_weights<double>(p, heads, 1);
    const std::size_t Ka = w.s.a_offsets.size(), Kb = w.s.b_offsets.size();
    w.a.resize(heads * Ka);
    w.b.resize(heads * Kb);
    for (std::size_t q = 0; q < w.a.size(); ++q) w.a[q] = 0.3 + 0.1 * double(q % 5) - (q % 2 ? 0.5 : 0);
    for (std::size_t q = 0; q < w.b.size(); ++q) w.b[q] = 0.9 / double(Kb) * (q % 3 ? 0.7 : -0.6);
    w.a_source = w.b_source = CoefSource::PerOffset;
    std::vector<WeightedPattern> hs(heads);
    for (int h = 0; h < heads; ++h) {
      for (const auto& [m, offs, v] :
           {std::tuple{&hs[h].a, &w.s.a_offsets, &w.a}, std::tuple{&hs[h].b, &w.s.b_offsets, &w.b}}) {
        m->n = p.n;
        m->ptr.assign(1, 0);
        for (pos_t i = 0; i < p.n; ++i) {
          for (std::size_t k = offs->size(); k-- > 0;)
            if ((*offs)[k] <= i) {
              m->idx.push_back(i - (*offs)[k]);
              m->val.push_back((*v)[h * offs->size() + k]);
            }
          m->ptr.push_back(m->idx.size());
        }
      }
    }
    const std::size_t d = 6;
    const auto x = inputs(p.n, d, 4);
    std::vector<double> y(x.size());
    solve_mixer(w, x.data(), y.data(), d, 2);
    EXPECT_LE(relerr(y, dense_triangular(hs, p.n, x, d)), 1e-12) << spec;
  }
}

// Files: (H, K), (H, nnz) and gates (n, d) in, the solve against dense Eigen from the same numbers; and
// --save-weights' layout read back gives the same weights.
TEST(WeightFiles, ThreeFormsRoundTrip) {
  const auto dir = std::filesystem::temp_directory_path() / ("mg_weights_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const Pattern p = make_pattern("pow2", 40);
  const auto seeded = seeded_mixer_weights<double>(p, 2, 3);
  const auto paths = save_weights((dir / "w").string(), seeded, 0);
  WeightFiles f;
  f.a = paths.first;
  f.b = paths.second;
  const auto back = weights_from_files<double>(p, 2, 99, f, 0);  // a different seed: the files decide
  EXPECT_EQ(back.a_source, CoefSource::Stored);
  EXPECT_EQ(stored_weights(back).a, stored_weights(seeded).a);
  EXPECT_EQ(stored_weights(back).b, stored_weights(seeded).b);
  // per offset (H, K)
  NpyArray po;
  po.rows = 2;
  po.cols = seeded.s.b_offsets.size();
  po.f64.resize(po.rows * po.cols);
  for (std::size_t q = 0; q < po.f64.size(); ++q) po.f64[q] = 0.05 * double(q % 7) - 0.1;
  write_npy((dir / "po.npy").string(), po);
  WeightFiles g;
  g.b = (dir / "po.npy").string();
  const auto wpo = weights_from_files<double>(p, 2, 3, g, 0);
  EXPECT_EQ(wpo.b_source, CoefSource::PerOffset);
  EXPECT_EQ(wpo.b, po.f64);
  // a wrong shape is an InputError naming both layouts
  po.cols += 1;
  po.f64.resize(po.rows * po.cols);
  write_npy((dir / "bad.npy").string(), po);
  g.b = (dir / "bad.npy").string();
  EXPECT_THROW(weights_from_files<double>(p, 2, 3, g, 0), InputError);
  // gates (n, d) on ssm, d = 3 channels
  const Pattern s = make_pattern("ssm", 30);
  NpyArray gt;
  gt.rows = 30;
  gt.cols = 3;
  gt.f64.resize(90);
  for (std::size_t q = 0; q < 90; ++q) gt.f64[q] = 0.2 + 0.7 * hash_uniform(1, 2, q, 0);
  write_npy((dir / "g.npy").string(), gt);
  WeightFiles gf;
  gf.gates = (dir / "g.npy").string();
  const auto wg = weights_from_files<double>(s, 3, 1, gf, 0);
  const auto x = inputs(30, 3, 8);
  std::vector<double> y(x.size());
  solve_mixer(wg, x.data(), y.data(), 3, 1);
  for (std::size_t c = 0; c < 3; ++c) {  // y_i = g_i y_{i-1} + x_i, per channel
    double prev = 0;
    for (std::size_t i = 0; i < 30; ++i) {
      const double want = (i ? gt.f64[i * 3 + c] * prev : 0.0) + x[i * 3 + c];
      EXPECT_NEAR(y[i * 3 + c], want, 1e-12 * (1 + std::abs(want)));
      prev = want;
    }
  }
  EXPECT_THROW(weights_from_files<double>(p, 3, 1, gf, 0), UsageError);  // gates on pow2
  std::filesystem::remove_all(dir);
}

// GPU: seeded and per-offset coefficients written on the device give the bits of the same weights
// uploaded, for implicit and CSR structures, blockinv, pipeline and scan kernels.
TEST(SeededWeightsGpu, DeviceWeightsGiveTheUploadedBits) {
  const auto info = gpu::device_info();
  if (!info.usable()) GTEST_SKIP() << info.note;
  const BackendChoice be = choose_backend(Backend::Gpu);
  for (const WeightCase& c : std::vector<WeightCase>{{"pow2", 4096, 1, 64},
                                                     {"sq1", 3000, 2, 32},
                                                     {"ssm", 5000, 64, 1},
                                                     {"pow2+cache", 2000, 1, 32},
                                                     {"local:4", 1000, 2, 16},
                                                     {"pow2", 3000, 256, 1}}) {
    const Pattern p = make_pattern(c.spec, c.n);
    const std::size_t d = std::size_t(c.heads) * c.dh;
    const auto x = inputs(p.n, d, 3);
    std::vector<float> xf(x.begin(), x.end()), y1(x.size()), y2(x.size()), yc(x.size());
    const auto seeded = seeded_mixer_weights<float>(p, c.heads, 7);
    const auto stored = make_mixer_weights<float>(p, c.heads, 7);
    const auto r1 = solve_on(be, seeded, xf.data(), y1.data(), d);
    const auto r2 = solve_on(be, stored, xf.data(), y2.data(), d);
    EXPECT_EQ(r1.kernel, r2.kernel);
    EXPECT_EQ(y1, y2) << c.spec << " " << r1.kernel;
    EXPECT_GE(r1.total_seconds, r1.seconds);
    solve_mixer(stored, xf.data(), yc.data(), d, 2);
    const std::vector<double> a(y1.begin(), y1.end()), b(yc.begin(), yc.end());
    EXPECT_LE(relerr(a, b), 1e-5) << c.spec << " " << r1.kernel;
    if (!seeded.s.implicit) continue;
    auto po = seeded;  // per offset
    po.a.assign(std::size_t(c.heads) * po.s.a_offsets.size(), 0.5f);
    po.b.assign(std::size_t(c.heads) * po.s.b_offsets.size(), 0.4f / float(po.s.b_offsets.size()));
    po.a_source = po.b_source = CoefSource::PerOffset;
    solve_on(be, po, xf.data(), y1.data(), d);
    solve_on(be, stored_weights(po), xf.data(), y2.data(), d);
    EXPECT_EQ(y1, y2) << c.spec << " per offset";
  }
}
