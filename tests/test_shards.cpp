// Tests for sharded runs: the shard planner (against brute force over every assignment) and the exact
// merge of all-pairs partials (against per-source BFS rows from single_source_distances, a separate code
// path, and bit for bit against the one-process all_pairs_summary).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>

#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/shards.hpp"

using namespace mixgraph;

namespace {

double makespan(const std::vector<std::vector<std::size_t>>& plan, const std::vector<double>& c) {
  double worst = 0;
  for (const auto& r : plan) {
    double t = 0;
    for (auto s : r) t += c[s];
    worst = std::max(worst, t);
  }
  return worst;
}

/// The optimal makespan by trying every assignment of shards to ranks (small instances only).
double optimal_makespan(const std::vector<double>& c, int ranks) {
  std::size_t total = 1;
  for (std::size_t i = 0; i < c.size(); ++i) total *= static_cast<std::size_t>(ranks);
  double best = 1e300;
  for (std::size_t code = 0; code < total; ++code) {
    std::vector<double> load(static_cast<std::size_t>(ranks), 0);
    std::size_t x = code;
    for (double ci : c) {
      load[x % static_cast<std::size_t>(ranks)] += ci;
      x /= static_cast<std::size_t>(ranks);
    }
    best = std::min(best, *std::max_element(load.begin(), load.end()));
  }
  return best;
}

}  // namespace

TEST(Shards, SplitByCostCoversInOrderWithBoundedCost) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 300; ++t) {
    const std::size_t m = 1 + rng() % 60, shards = 1 + rng() % 20;
    std::vector<double> c(m);
    for (auto& x : c) x = static_cast<double>(rng() % 100);
    const auto r = split_by_cost(c, shards);
    ASSERT_FALSE(r.empty());
    EXPECT_LE(r.size(), std::min(m, shards));
    std::size_t next = 0;
    const double total = std::accumulate(c.begin(), c.end(), 0.0);
    const double cmax = *std::max_element(c.begin(), c.end());
    for (auto [a, b] : r) {
      EXPECT_EQ(a, next);
      EXPECT_LT(a, b);
      double sum = 0;
      for (std::size_t i = a; i < b; ++i) sum += c[i];
      EXPECT_LE(sum, total / static_cast<double>(std::min(m, shards)) + cmax + 1e-9);
      next = b;
    }
    EXPECT_EQ(next, m);
  }
  // enough items: exactly the asked number of ranges
  EXPECT_EQ(split_by_cost(std::vector<double>(100, 1.0), 7).size(), 7u);
  EXPECT_EQ(split_by_cost(std::vector<double>(5, 1.0), 9).size(), 5u);
  EXPECT_THROW(split_by_cost({1.0}, 0), UsageError);
}

TEST(Shards, LptAssignsEveryShardOnceWithinFourThirdsOfOptimal) {
  std::mt19937_64 rng(11);
  for (int t = 0; t < 200; ++t) {
    const std::size_t s = 1 + rng() % 8;
    const int ranks = 1 + static_cast<int>(rng() % 4);
    std::vector<double> c(s);
    for (auto& x : c) x = static_cast<double>(1 + rng() % 50);
    const auto plan = assign_lpt(c, ranks);
    ASSERT_EQ(plan.size(), static_cast<std::size_t>(ranks));
    std::vector<int> seen(s, 0);
    for (const auto& r : plan)
      for (auto i : r) ++seen[i];
    for (std::size_t i = 0; i < s; ++i) EXPECT_EQ(seen[i], 1) << "shard " << i;
    const double opt = optimal_makespan(c, ranks);
    EXPECT_LE(makespan(plan, c), opt * (4.0 / 3.0) + 1e-9) << "case " << t;
    EXPECT_EQ(plan, assign_lpt(c, ranks));  // deterministic: every rank plans alike
  }
  EXPECT_THROW(assign_lpt({1.0}, 0), UsageError);
}

// The balance the commands rely on: with the costs of their cost models (all-pairs blocks n - s0 + 64,
// sweep points n^a, report sections of 1000x different size, heavy-tailed random costs), no rank's load
// exceeds mean + (1 - 1/ranks) * largest item (Graham's list-scheduling bound), and on small inputs the
// makespan lies between the optimum found by trying every assignment and the LPT bound (4/3 - 1/(3 ranks))
// of that optimum.
TEST(Shards, LptLoadWithinMeanPlusLargestItemForTheCostModels) {
  std::mt19937_64 rng(5);
  auto check = [](const std::vector<double>& c, int ranks, const std::string& what) {
    const auto plan = assign_lpt(c, ranks);
    const double total = std::accumulate(c.begin(), c.end(), 0.0);
    const double cmax = c.empty() ? 0.0 : *std::max_element(c.begin(), c.end());
    const double mean = total / ranks;
    const double ms = makespan(plan, c);
    EXPECT_LE(ms, mean + (1.0 - 1.0 / ranks) * cmax + 1e-9 * total) << what << " on " << ranks << " ranks";
    EXPECT_GE(ms, std::max(mean, cmax) - 1e-9 * total) << what;  // no plan beats this lower bound
    return ms / std::max(mean, cmax);
  };
  // all-pairs at n = 2^16: 256 blocks of 256 sources (the default shards), and 64 shards cut by cost
  const std::size_t n = 1 << 16;
  std::vector<double> blocks;
  for (std::size_t s0 = 0; s0 < n; s0 += 256) blocks.push_back(all_pairs_block_cost(n, s0, 256));
  std::vector<double> cut;
  for (auto [a, b] : split_by_cost(blocks, 64)) {
    double sum = 0;
    for (std::size_t i = a; i < b; ++i) sum += blocks[i];
    cut.push_back(sum);
  }
  for (int ranks : {1, 2, 3, 4, 7, 16, 64}) {
    // many items of decreasing size: LPT is within 2% of the lower bound max(mean, largest)
    EXPECT_LE(check(blocks, ranks, "all-pairs blocks"), 1.02) << ranks;
    check(cut, ranks, "all-pairs shards cut by cost");
  }
  // a congestion sweep's rows: N^2 for N = 64..4096 (one dominant row), and 4 patterns x 2 lengths
  std::vector<double> rows, similar;
  for (double N = 64; N <= 4096; N *= 2) rows.push_back(N * N);
  for (int p = 0; p < 4; ++p)
    for (double N : {1024.0, 2048.0}) similar.push_back(N * N * (1 + 0.1 * p));
  for (int ranks : {1, 2, 3, 4}) {
    EXPECT_NEAR(check(rows, ranks, "sweep rows"), 1.0, 1e-12);  // the largest row alone sets the time
    check(similar, ranks, "similar rows");
  }
  // heavy-tailed random costs, 1..300 items, 1..64 ranks
  for (int t = 0; t < 300; ++t) {
    std::vector<double> c(1 + rng() % 300);
    for (auto& x : c) x = std::exp(static_cast<double>(rng() % 1000) / 100.0);
    check(c, 1 + static_cast<int>(rng() % 64), "random case " + std::to_string(t));
  }
  // small inputs: optimum <= LPT <= (4/3 - 1/(3 ranks)) optimum
  for (int t = 0; t < 200; ++t) {
    std::vector<double> c(1 + rng() % 9);
    for (auto& x : c) x = static_cast<double>(1 + rng() % 1000);
    const int ranks = 2 + static_cast<int>(rng() % 3);
    const double opt = optimal_makespan(c, ranks), ms = makespan(assign_lpt(c, ranks), c);
    EXPECT_GE(ms, opt - 1e-9);
    EXPECT_LE(ms, opt * (4.0 / 3.0 - 1.0 / (3.0 * ranks)) + 1e-9) << "case " << t;
  }
}

TEST(Shards, AllPairsPartialsMatchPerSourceBfsAndMergeExactly) {
  std::mt19937_64 rng(3);
  for (const std::string spec : {"pow2+cache", "sq1", "window:3", "fib+cache", "attention"}) {
    const Pattern p = make_pattern(spec, 1000);
    const pos_t n = p.n;
    // cut [0, n) at random points into ranges, given in a shuffled order
    std::vector<pos_t> cuts = {0, n};
    for (int k = 0; k < 6; ++k) cuts.push_back(static_cast<pos_t>(1 + rng() % (n - 1)));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<std::pair<pos_t, pos_t>> ranges;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) ranges.emplace_back(cuts[k], cuts[k + 1]);
    std::shuffle(ranges.begin(), ranges.end(), rng);
    std::vector<AllPairsPartial> parts(ranges.size());
    std::vector<int> calls(ranges.size(), 0);
    AllPairsOptions opt;
    opt.threads = 2;
    all_pairs_partials(p, opt, ranges, [&](std::size_t k, AllPairsPartial&& part) {
      ++calls[k];
      parts[k] = std::move(part);
    });
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      ASSERT_EQ(calls[k], 1);
      const auto [b, e] = ranges[k];
      EXPECT_EQ(parts[k].begin, b);
      EXPECT_EQ(parts[k].end, e);
      // the reference: one BFS per source of the range
      std::vector<std::uint64_t> hist(1, 0);
      std::vector<std::uint32_t> ecc(e - b, 0);
      for (pos_t j = b; j < e; ++j) {
        const auto d = single_source_distances(p, j);
        for (pos_t i = j + 1; i < n; ++i) {
          if (d[i] == UNREACHABLE) continue;
          if (hist.size() <= d[i]) hist.resize(d[i] + 1, 0);
          ++hist[d[i]];
          ecc[j - b] = std::max(ecc[j - b], d[i]);
        }
      }
      EXPECT_EQ(parts[k].histogram, hist) << spec << " range " << b << ".." << e;
      EXPECT_EQ(parts[k].eccentricity, ecc) << spec << " range " << b << ".." << e;
    }
    const DistanceSummary whole = all_pairs_summary(p, opt);
    const DistanceSummary merged = merge_all_pairs(n, true, parts);
    EXPECT_EQ(merged.histogram, whole.histogram) << spec;
    EXPECT_EQ(merged.eccentricity, whole.eccentricity) << spec;
    EXPECT_EQ(merged.diameter, whole.diameter) << spec;
    EXPECT_EQ(merged.reachable_pairs, whole.reachable_pairs) << spec;
    EXPECT_EQ(merged.unreachable_pairs, whole.unreachable_pairs) << spec;
    EXPECT_EQ(std::memcmp(&merged.mean_distance, &whole.mean_distance, sizeof(double)), 0) << spec;
    // a gap or an overlap is refused
    auto gap = parts;
    gap.pop_back();
    EXPECT_THROW(merge_all_pairs(n, true, gap), RuntimeFailure) << spec;
    auto twice = parts;
    twice.push_back(parts.front());
    EXPECT_THROW(merge_all_pairs(n, true, twice), RuntimeFailure) << spec;
  }
}

TEST(Shards, AllPairsPartialsRefuseBadRanges) {
  const Pattern p = make_pattern("pow2", 64);
  auto ignore = [](std::size_t, AllPairsPartial&&) {};
  EXPECT_THROW(all_pairs_partials(p, {}, {{5, 5}}, ignore), UsageError);
  EXPECT_THROW(all_pairs_partials(p, {}, {{0, 65}}, ignore), UsageError);
}
