#pragma once
// `mixgraph rank --attn-q Q.npy --attn-k K.npy` (analysis::RankQuery's attn): the cut ranks of a real
// attention head beside the generic ones (docs/math.md §5, "Real attention heads").
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mixgraph/analysis/attention_options.hpp"
#include "mixgraph/attention_weights.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::analysis {

/// Reads Q and K and builds A's weights on p's A mask (B: the seeded generic weights). Usage errors for a
/// missing half; InputError (exit 3) for a shape mismatch.
WeightedPattern load_attention(const Pattern& p, const AttentionOptions& o, std::uint64_t seed,
                               std::uint64_t& key_dim);

struct AttentionRankInfo {
  std::string q, k, kernel;
  std::uint64_t key_dim = 0;
  bool b_empty = true;
  std::optional<CutRankProfile> generic;  ///< exact generic ranks on the same cuts (absent for --method flow)
  std::vector<bool> full_block;           ///< per cut: B = 0 and every row > K reads all of 1..K through A
  std::uint32_t max_numeric = 0;
  pos_t max_numeric_at = 0;
  std::vector<double> sv;  ///< singular values of the block at max_numeric_at (n <= 4096), descending
  std::string explanation;
};

/// The exact generic ranks on r's cuts, the singular values at the cut of largest numeric rank, and the
/// explanation of the gap in words.
AttentionRankInfo attention_rank_info(const Pattern& p, const WeightedPattern& w, const CutRankProfile& r,
                                      const AttentionOptions& o, std::uint64_t key_dim, std::uint64_t seed,
                                      std::uint64_t mem_limit, bool want_generic);

/// `rank`'s `attention` field.
nlohmann::ordered_json attention_json(const AttentionRankInfo& a, const CutRankProfile& r);
/// The lines of the text output (label, value).
std::vector<std::pair<std::string, std::string>> attention_text(const AttentionRankInfo& a);

}  // namespace mixgraph::analysis
