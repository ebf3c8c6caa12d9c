#pragma once
// The commands' sharded routes (see shard_run.hpp): each builds its shards, runs them over the ranks and
// merges them on rank 0 into exactly the result of the single-process route.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/claims.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::cli {

/// The default number of all-pairs shards: one per block of 256 sources, at most 1024.
std::uint64_t default_all_pairs_shards(pos_t n);

/// distances --all-pairs over shards of source blocks (`shards` of near-equal modelled cost; 0: the
/// default). The summary all_pairs_summary gives, on rank 0; std::nullopt on the other ranks.
std::optional<DistanceSummary> sharded_all_pairs(const Pattern& p, const AllPairsOptions& opt,
                                                 const std::string& checkpoint_dir, std::uint64_t shards);

/// The cut-rank profile over shards of cuts: the numeric ranks (exact, dense or sketch: each cut's rank
/// depends on that cut alone) of contiguous runs of cuts are spread over the ranks; the flow side
/// (incremental from cut to cut, cheap) and the cache profile run whole. cut_rank_profile's result on rank
/// 0, std::nullopt on the other ranks.
std::optional<CutRankProfile> sharded_cut_rank_profile(const Pattern& p, const CutRankParams& params,
                                                       const std::string& checkpoint_dir);

/// verify over shards of one claim instance each (one claim each for the claims that do not split):
/// run_claims's results on rank 0 (in `ids` order; `seconds` the sum of the shards'), std::nullopt on the
/// other ranks.
std::optional<std::vector<ClaimResult>> sharded_claims(const std::vector<std::string>& ids,
                                                       const ClaimContext& ctx,
                                                       const std::string& checkpoint_dir);

/// One claim's whole result as bytes (JSON) and back, as the sharded routes send it to rank 0.
std::string encode_claim_result(const ClaimResult& r);
ClaimResult decode_claim_result(const std::string& bytes);
/// One claim instance's part as bytes (JSON; doubles as their bits) and back.
std::string encode_claim_part(const ClaimPart& p);
ClaimPart decode_claim_part(const std::string& bytes);

/// The modelled seconds of a claim that runs whole (no cost model of its own: the 17 claims that do not
/// split take about 0.1 s each at --n-max 512; docs/scaling.md, "per-shard costs").
constexpr double kWholeClaimSeconds = 0.1;

/// One shard of verify: instance `instance` of claim ids[claim], or the whole claim (kWhole).
struct ClaimShard {
  static constexpr std::size_t kWhole = static_cast<std::size_t>(-1);
  std::size_t claim = 0;
  std::size_t instance = kWhole;
  std::string name;  ///< "fagnou.menger: pow2 n=384", or the claim id
  double cost = 0;   ///< modelled seconds
};
/// The shards of the claims `ids`, claim by claim, each claim's instances in order.
std::vector<ClaimShard> claim_shards(const std::vector<std::string>& ids, const ClaimContext& ctx);
/// One shard's result as bytes: encode_claim_part for an instance, encode_claim_result for a whole claim.
std::string run_claim_shard(const std::vector<std::string>& ids, const ClaimContext& ctx,
                            const ClaimShard& s);
/// Every claim's result from its shards' results (by shard index): run_claims(ids, ctx)'s results.
std::vector<ClaimResult> merge_claim_shards(const std::vector<std::string>& ids, const ClaimContext& ctx,
                                            const std::vector<ClaimShard>& shards,
                                            const std::vector<std::string>& results);

}  // namespace mixgraph::cli
