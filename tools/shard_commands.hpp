#pragma once
// The commands' sharded routes (see shard_run.hpp): each builds its shards, runs them over the ranks and
// merges them on rank 0 into exactly the result of the single-process route.
#include <cstdint>
#include <optional>
#include <string>

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

/// verify over shards of one claim each: run_claims's results on rank 0 (in `ids` order), std::nullopt on
/// the other ranks.
std::optional<std::vector<ClaimResult>> sharded_claims(const std::vector<std::string>& ids,
                                                       const ClaimContext& ctx,
                                                       const std::string& checkpoint_dir);

/// One claim's whole result as bytes (JSON) and back, as the sharded routes send it to rank 0.
std::string encode_claim_result(const ClaimResult& r);
ClaimResult decode_claim_result(const std::string& bytes);

}  // namespace mixgraph::cli
