#pragma once
// `mixgraph rank -p P` / mixgraph.rank: the cut ranks r(K) = rank M[K+1..n, 1..K] of M = (I - B)^{-1} A,
// numeric and Menger flow (docs/math.md §5), with what the front ends print beside them: the heads' sums of a
// heads:P1;P2;... pattern, a real attention head against the generic ranks, the dyadic block ranks and the
// contrast with the +cache variant (or back). Every check runs in rank_prepare, before the profile's
// allocations; the cost is cut_rank_profile's (mixgraph/rank.hpp). Stacks (stack:) are stack.hpp's.
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/analysis/attention_options.hpp"
#include "mixgraph/analysis/heads.hpp"
#include "mixgraph/analysis/rank_attention.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/rank_progress.hpp"
#include "mixgraph/weight_files.hpp"

namespace mixgraph::analysis {

/// How the messages name the options: the CLI's flags (the default) or the Python package's arguments.
struct RankOptionNames {
  std::string n = "--n", method = "--method", tol = "--tol", cuts = "--cuts", dyadic = "--dyadic";
};

struct RankQuery {
  std::string pattern;  ///< the spec as given (no stack:); also the parameter of the memory message
  std::string n;        ///< tokens as text ("" for an mtx: pattern); unused with `built`
  /// The pattern already built (the Python package's Pattern objects): `pattern` and `n` are then unused, and
  /// a caller that built it from a spec checks it first with check_rank_spec.
  std::shared_ptr<const Pattern> built;
  std::string method = "both";  ///< both, exact, dense, sketch or flow
  std::string cuts;  ///< text: "" (the default cuts), "all", a count, or a list ("1,128,255", "128,")
  std::optional<std::int64_t> cut_count;              ///< or a count of evenly spaced cuts
  std::optional<std::vector<std::int64_t>> cut_list;  ///< or the cuts themselves, each in 1..n-1
  std::uint64_t seed = 1;
  double tol = 0.0;             ///< relative rank tolerance of dense / sketch, 0..1 (0: the default rule)
  std::uint64_t mem_limit = 0;  ///< bytes; 0: the process default
  bool dyadic = false;          ///< also the dyadic block ranks (n <= 4096)
  WeightFiles weights;          ///< --weights-a / --weights-b (one head; a and b only): not generic
  AttentionOptions attn;        ///< --attn-q / --attn-k / --attn-kernel: a real attention head on A
  RankOptionNames names;
  /// Called as each stage starts: "cut ranks", "dyadic blocks" (with dyadic), "contrast". May throw to stop.
  std::function<void(const std::string& stage)> stage;
  /// After each cut of the profile's loops (mixgraph/rank_progress.hpp); empty: none. May throw to stop.
  CutProgressHook per_cut;
};

/// The query checked: the pattern, cut_rank_profile's parameters and the user's weights.
struct RankPlan {
  std::shared_ptr<const Pattern> pattern;
  CutRankParams params;                         ///< params.weights = user.get()
  std::shared_ptr<const WeightedPattern> user;  ///< weight files or the attention head; null: seeded
  bool attention = false;                       ///< user is an attention head (key_dim its r)
  std::uint64_t key_dim = 0;
};

struct RankResult {
  CutRankProfile profile;
  std::optional<HeadsSumRanks> heads;          ///< heads:P1;P2;... with seeded weights
  std::optional<AttentionRankInfo> attention;  ///< with attn
  std::optional<DyadicRanks> dyadic;           ///< with dyadic
  std::optional<json::RankContrast> contrast;  ///< the +cache variant (or back) on the same cuts, by flow
  std::string weights_note;                    ///< where the weights come from and what that means
  std::string finding;                         ///< the one-line finding
};

/// tol is a finite number in [0, 1] (UsageError naming q.names.tol).
void check_rank_tol(const RankQuery& q);
/// Before a pattern is built from `spec` at n tokens: n >= 2 (an mtx: spec takes its n from the files),
/// n in 32 bits (UsageError naming q.names.n), and the memory of the pattern with its weights
/// (MemoryLimitError).
void check_rank_spec(const RankQuery& q, const PatternSpec& spec, std::uint64_t n);
/// Every check of the query, in this order: tol; the pattern (built from q.pattern and q.n after
/// check_rank_spec, or q.built: n >= 2); the method; the user's weights (read here: InputError for a bad
/// file) and the attention head; the cuts; dyadic's n <= 4096 and the dense operator's memory. UsageError
/// names the options as q.names does.
RankPlan rank_prepare(const RankQuery& q);
/// The profile (or `profile`, computed elsewhere from plan.params, e.g. over shards of cuts), the heads'
/// sums, the attention head's ranks, the dyadic blocks and the contrast, calling q.stage and q.per_cut.
RankResult rank_compute(const RankQuery& q, const RankPlan& plan, std::optional<CutRankProfile> profile = {});
/// rank_prepare and rank_compute.
RankResult run_rank_query(const RankQuery& q);
/// The fields after the header (the CLI's --format json): json::cut_ranks, then weights_note (with the
/// user's weights), attention and heads when computed.
nlohmann::ordered_json rank_json(const RankPlan& plan, const RankResult& r);

}  // namespace mixgraph::analysis
