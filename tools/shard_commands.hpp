#pragma once
// The commands' sharded routes (see shard_run.hpp): each builds its shards, runs them over the ranks and
// merges them on rank 0 into exactly the result of the single-process route.
#include <cstdint>
#include <optional>
#include <string>

#include "mixgraph/distances.hpp"

namespace mixgraph::cli {

/// The default number of all-pairs shards: one per block of 256 sources, at most 1024.
std::uint64_t default_all_pairs_shards(pos_t n);

/// distances --all-pairs over shards of source blocks (`shards` of near-equal modelled cost; 0: the
/// default). The summary all_pairs_summary gives, on rank 0; std::nullopt on the other ranks.
std::optional<DistanceSummary> sharded_all_pairs(const Pattern& p, const AllPairsOptions& opt,
                                                 const std::string& checkpoint_dir, std::uint64_t shards);

}  // namespace mixgraph::cli
