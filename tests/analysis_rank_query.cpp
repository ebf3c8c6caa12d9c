// analysis::RankQuery (mixgraph/analysis/rank_query.hpp), the cut ranks both front ends ask for, against
// references built here: M = (I - B)^{-1} A from the seeded weights, dense (stack_dense.hpp), and each
// block's rank by SVD (cut ranks, dyadic blocks), each head's pattern alone (heads' flow ranks), and the
// checks' messages with the option names the query is given (the CLI's flags or the Python arguments).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mixgraph/analysis/heads.hpp"
#include "mixgraph/analysis/rank_query.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/rank.hpp"
#include "stack_dense.hpp"

using namespace mixgraph;

namespace {

/// M = (I - B)^{-1} A of the seeded weights (the query's), dense: a stack of the one layer (stack_dense.hpp).
Eigen::MatrixXd rq_operator(const std::string& spec, pos_t n, std::uint64_t seed) {
  return test::dense_stack_product(make_stack("stack:" + spec, n), seed);
}

/// Singular values above rel * sigma_1 (0 for a zero block).
std::uint32_t rq_svd_rank(const Eigen::MatrixXd& block, double rel) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(block);
  const auto& s = svd.singularValues();
  std::uint32_t r = 0;
  for (Eigen::Index l = 0; l < s.size(); ++l)
    if (s(0) > 0 && s(l) > rel * s(0)) ++r;
  return r;
}

analysis::RankQuery rq_query(const std::string& spec, const std::string& n) {
  analysis::RankQuery q;
  q.pattern = spec;
  q.n = n;
  return q;
}

analysis::RankOptionNames python_names() {
  return {"n", "method", "tol", "cuts", "dyadic=True"};
}

/// The message of the UsageError that prepare throws (empty when it throws none or another kind).
std::string usage_message(const analysis::RankQuery& q) {
  try {
    analysis::rank_prepare(q);
  } catch (const UsageError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("other: ") + e.what();
  }
  return "";
}

}  // namespace

TEST(AnalysisRankQuery, NumericAndFlowRanksMatchTheSvdOfTheDenseOperator) {
  for (const std::string spec : {"pow2+cache", "window:3", "fib"}) {
    const Eigen::MatrixXd M = rq_operator(spec, 48, 1);
    std::vector<std::uint32_t> want;
    for (pos_t K = 1; K < 48; ++K) want.push_back(test::dense_cut_rank(M, K));
    for (const std::string method : {"both", "dense", "exact"}) {
      auto q = rq_query(spec, "48");
      q.method = method;
      const auto res = analysis::run_rank_query(q);
      const auto& r = res.profile;
      ASSERT_EQ(r.cuts.size(), 47u) << spec << " " << method;
      EXPECT_EQ(r.numeric, want) << spec << " " << method;
      if (method == "both") {
        EXPECT_EQ(r.flow, want) << spec;
      }
      EXPECT_EQ(r.max_cut_rank, *std::max_element(want.begin(), want.end())) << spec << " " << method;
      EXPECT_FALSE(res.finding.empty());
      EXPECT_FALSE(res.weights_note.empty());
    }
  }
}

TEST(AnalysisRankQuery, CutsFromTextCountOrListAndABuiltPattern) {
  const auto p = std::make_shared<const Pattern>(make_pattern(parse_pattern_spec("sq1", false), 40));
  const Eigen::MatrixXd M = rq_operator("sq1", 40, 3);
  analysis::RankQuery q;
  q.built = p;
  q.seed = 3;
  q.method = "dense";
  q.cut_list = std::vector<std::int64_t>{5, 20, 39};
  auto res = analysis::run_rank_query(q);
  ASSERT_EQ(res.profile.cuts, (std::vector<pos_t>{5, 20, 39}));
  for (std::size_t c = 0; c < 3; ++c) {
    const pos_t K = res.profile.cuts[c];
    EXPECT_EQ(res.profile.numeric[c], test::dense_cut_rank(M, K)) << K;
  }
  q.cut_list.reset();
  q.cut_count = 4;
  EXPECT_EQ(analysis::run_rank_query(q).profile.cuts, spaced_cuts(40, 4));
  q.cut_count.reset();
  q.cuts = "7,";  // a one-item list
  EXPECT_EQ(analysis::run_rank_query(q).profile.cuts, std::vector<pos_t>{7});
  q.cuts = "all";
  EXPECT_EQ(analysis::run_rank_query(q).profile.cuts.size(), 39u);
}

TEST(AnalysisRankQuery, ChecksNameTheOptionsTheFrontEndGives) {
  auto q = rq_query("pow2", "48");
  q.method = "bogus";
  EXPECT_EQ(usage_message(q), "--method must be both, exact, dense, sketch or flow (got 'bogus')");
  q.names = python_names();
  EXPECT_EQ(usage_message(q), "method must be both, exact, dense, sketch or flow (got 'bogus')");

  for (const bool cli : {true, false}) {
    const std::string dash = cli ? "--" : "";
    auto c = rq_query("pow2", "1");
    if (!cli) c.names = python_names();
    EXPECT_EQ(usage_message(c), dash + "n must be >= 2 (cut K needs positions on both sides)");
    c = rq_query("pow2", "48");
    if (!cli) c.names = python_names();
    c.tol = 2;
    EXPECT_EQ(usage_message(c),
              dash + "tol must be a finite number in [0, 1] (0 = the default rule; got 2.000000)");
    c.tol = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(usage_message(c).rfind(dash + "tol must be a finite number", 0), 0u) << usage_message(c);
    c.tol = 0;
    c.cut_list = std::vector<std::int64_t>{};
    EXPECT_EQ(usage_message(c), dash + "cuts selected no cut");
    c.cut_list = std::vector<std::int64_t>{3, 48};
    EXPECT_EQ(usage_message(c),
              dash + "cuts: cut 48 is outside 1..47 (cut K separates positions 1..K from K+1..n)");
    c.cut_list.reset();
    c.cut_count = 0;
    EXPECT_EQ(usage_message(c), dash + "cuts: a count must be >= 1");
    c.cut_count.reset();
    c = rq_query("pow2", "5000");
    c.dyadic = true;
    if (!cli) c.names = python_names();
    EXPECT_EQ(usage_message(c),
              (cli ? "--dyadic" : "dyadic=True") + std::string(" needs the dense operator: n <= 4096"));
  }
  EXPECT_EQ(usage_message(rq_query("pow2", "2^33")), "--n must fit in 32 bits");
  EXPECT_EQ(usage_message(rq_query("pow2", "")), "--n is required (the number of tokens)");
  auto c = rq_query("pow2", "48");
  c.cuts = "100,";
  EXPECT_EQ(usage_message(c),
            "--cuts: cut 100 is outside 1..47 (cut K separates positions 1..K from K+1..n)");
  analysis::RankQuery one;
  one.built = std::make_shared<const Pattern>(make_pattern(parse_pattern_spec("pow2", false), 1));
  one.names = python_names();
  EXPECT_EQ(usage_message(one), "n must be >= 2 (cut K needs positions on both sides)");

  // the user's weights: refused combinations before any file is read (the files do not exist)
  c = rq_query("pow2", "48");
  c.method = "exact";
  c.weights.b = "/nonexistent/b.npy";
  EXPECT_EQ(
      usage_message(c).rfind("--method exact draws generic weights over a prime field and cannot use", 0),
      0u);
  c.method = "both";
  c.attn.q = "/nonexistent/q.npy";
  EXPECT_EQ(usage_message(c),
            "--attn-q / --attn-k set A's weights: give them or --weights-a / --weights-b, not both");
  c.weights.b.clear();
  EXPECT_EQ(usage_message(c), "--attn-q and --attn-k go together (queries and keys)");
}

TEST(AnalysisRankQuery, MemoryIsRefusedBeforeTheWork) {
  auto q = rq_query("pow2", "2^20");
  q.mem_limit = 1 << 20;
  try {
    analysis::rank_prepare(q);
    ADD_FAILURE() << "no refusal";
  } catch (const MemoryRefused& e) {
    EXPECT_NE(std::string(e.what()).find("pattern pow2 with weights at n = 1048576"), std::string::npos)
        << e.what();
  }
  q = rq_query("pow2", "3000");  // the pattern fits; the dense operator of dyadic does not
  q.dyadic = true;
  q.mem_limit = 100ull << 20;
  q.names = python_names();
  try {
    analysis::rank_prepare(q);
    ADD_FAILURE() << "no refusal";
  } catch (const MemoryRefused& e) {
    EXPECT_NE(std::string(e.what()).find("dense operator for dyadic=True"), std::string::npos) << e.what();
  }
}

TEST(AnalysisRankQuery, StagesProgressAndAProfileComputedElsewhere) {
  auto q = rq_query("pow2", "32");
  q.dyadic = true;
  std::vector<std::string> stages;
  std::uint64_t steps = 0, last_total = 0;
  q.stage = [&](const std::string& s) { stages.push_back(s); };
  q.per_cut = [&](const std::string&, std::uint64_t, std::uint64_t total) {
    ++steps;
    last_total = total;
  };
  const auto plan = analysis::rank_prepare(q);
  const auto res = analysis::rank_compute(q, plan);
  EXPECT_EQ(stages, (std::vector<std::string>{"cut ranks", "dyadic blocks", "contrast"}));
  EXPECT_EQ(steps, 2u * 31u);  // both: the numeric loop and the flow loop, every cut
  EXPECT_EQ(last_total, 2u * 31u);

  // a profile from elsewhere (the CLI's shards) is taken as it is: no cut is computed again
  CutRankProfile given = res.profile;
  given.numeric.assign(given.numeric.size(), 1);
  steps = 0;
  const auto again = analysis::rank_compute(q, plan, given);
  EXPECT_EQ(steps, 0u);
  EXPECT_EQ(again.profile.numeric, given.numeric);

  // a stage hook that throws stops the work there
  q.stage = [](const std::string& s) {
    if (s == "dyadic blocks") throw std::runtime_error("stopped");
  };
  EXPECT_THROW(analysis::rank_compute(q, plan), std::runtime_error);
}

TEST(AnalysisRankQuery, DyadicBlocksMatchTheSvdOfTheDenseOperator) {
  const pos_t n = 64;
  auto q = rq_query("pow2", "64");
  q.dyadic = true;
  q.method = "flow";
  const auto res = analysis::run_rank_query(q);
  ASSERT_TRUE(res.dyadic);
  const auto& d = *res.dyadic;
  const Eigen::MatrixXd M = rq_operator("pow2", n, 1);
  ASSERT_FALSE(d.block_size.empty());
  for (std::size_t l = 0; l < d.block_size.size(); ++l) {
    const pos_t b = static_cast<pos_t>(d.block_size[l]);
    std::uint32_t most = 0;
    std::uint64_t blocks = 0;
    for (pos_t m = 0; b * (2 * m + 2) <= n; ++m, ++blocks)  // rows [b(2m+1), b(2m+2)) x cols [2bm, b(2m+1))
      most = std::max(most, rq_svd_rank(M.block(b * (2 * m + 1), b * 2 * m, b, b), 1e-9));
    EXPECT_EQ(d.blocks[l], blocks) << b;
    EXPECT_EQ(d.max_rank[l], most) << b;
  }
}

TEST(AnalysisRankQuery, HeadsSumsAreEachHeadAloneAndTheJsonAddsThem) {
  auto q = rq_query("heads:pow2;window:3", "40");
  q.method = "flow";
  const auto plan = analysis::rank_prepare(q);
  const auto res = analysis::rank_compute(q, plan);
  ASSERT_TRUE(res.heads);
  ASSERT_EQ(res.heads->specs.size(), 2u);
  for (std::size_t h = 0; h < 2; ++h) {
    CutRankParams fp;
    fp.method = CutRankMethod::Flow;
    fp.cuts = res.profile.cuts;
    const auto alone = cut_rank_profile(make_pattern(parse_pattern_spec(res.heads->specs[h], false), 40), fp);
    EXPECT_EQ(res.heads->flow[h], alone.flow) << res.heads->specs[h];
  }
  // the JSON: the profile's fields, then `heads` last, as the sums computed on their own give them
  const auto j = analysis::rank_json(plan, res);
  ASSERT_TRUE(j.contains("heads"));
  std::string last;
  for (auto it = j.begin(); it != j.end(); ++it) last = it.key();
  EXPECT_EQ(last, "heads");
  EXPECT_EQ(j.at("heads"), analysis::heads_sum_json(
                               analysis::heads_sum_ranks(*plan.pattern, res.profile.cuts, q.seed, q.tol, 0)));
}

TEST(AnalysisRankQuery, HeadsSumMemoryIsRefusedBeforeTheProfile) {
  // n = 1024: the dense sum needs 2 x 8 n^2 = 16 MiB; the pattern with its weights needs far less
  auto q = rq_query("heads:pow2;sq1", "1024");
  q.method = "flow";
  q.mem_limit = 8ull << 20;
  int stages = 0;
  q.stage = [&stages](const std::string&) { ++stages; };
  try {
    analysis::rank_prepare(q);
    ADD_FAILURE() << "the dense sum was not refused";
  } catch (const MemoryRefused& e) {
    EXPECT_NE(std::string(e.what()).find("dense sum of the heads at n = 1024"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(stages, 0);  // refused in rank_prepare: no stage of the work started
  q.mem_limit = 0;
  EXPECT_NO_THROW(analysis::rank_prepare(q));
}
