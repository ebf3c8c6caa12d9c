// rank (the cut-rank profile) over MPI ranks: the numeric ranks of shards of cuts, merged on rank 0.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/shards.hpp"
#include "mpi_world.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

/// At most this many shards of cuts (fewer when there are fewer cuts); independent of the ranks, so a
/// checkpoint can be finished by any number of them.
constexpr std::size_t kMaxRankShards = 64;

/// One shard's numeric ranks as the merge reads them.
struct RankShard {
  std::vector<std::uint32_t> rank, columns;
  double tolerance = 0, kept = -1, dropped = -1;
  std::string rule;
};

/// Decodes one shard's JSON; throws unless it holds exactly the cuts `want` (in order), one rank per cut,
/// no rank above min(K, n - K) (no cut of a causal n x n mixer has a higher rank), one column count per cut
/// for the sketch, and numbers where numbers belong.
RankShard decode_rank_shard(const std::string& bytes, const pos_t* want, std::size_t count, pos_t n,
                            bool sketch) {
  const auto j = nlohmann::json::parse(bytes);
  const auto part = j.at("cuts").get<std::vector<pos_t>>();
  if (part.size() != count || !std::equal(part.begin(), part.end(), want))
    throw RuntimeFailure("it covers other cuts than planned");
  RankShard r;
  r.rank = j.at("rank").get<std::vector<std::uint32_t>>();
  if (r.rank.size() != count)
    throw RuntimeFailure("it holds " + std::to_string(r.rank.size()) + " ranks for " + std::to_string(count) +
                         " cuts");
  for (std::size_t c = 0; c < count; ++c)
    if (r.rank[c] > std::min<pos_t>(want[c], n - std::min(want[c], n)))
      throw RuntimeFailure("the rank of cut " + std::to_string(want[c]) + " is above min(K, n - K)");
  r.columns = j.at("columns").get<std::vector<std::uint32_t>>();
  if (sketch && r.columns.size() != count) throw RuntimeFailure("it lacks the sketch's column counts");
  r.tolerance = j.at("tolerance").get<double>();
  r.rule = j.at("rule").get<std::string>();
  r.kept = j.at("kept").get<double>();
  r.dropped = j.at("dropped").get<double>();
  return r;
}

}  // namespace

std::optional<CutRankProfile> sharded_cut_rank_profile(const Pattern& p, const CutRankParams& params,
                                                       const std::string& checkpoint_dir) {
  const auto method = params.method;
  if (method == CutRankMethod::Flow) {  // nothing to split: every rank computes it, rank 0 prints it
    if (!checkpoint_dir.empty())
      throw UsageError(
          "--method flow is computed incrementally from cut to cut and is not split into shards: leave out "
          "--checkpoint");
    auto whole = cut_rank_profile(p, params);
    if (!mpi::root()) return std::nullopt;
    return whole;
  }
  // the whole flow side, the cuts and the cache profile, on every rank (it also checks the parameters,
  // so every rank meets a usage error alike)
  CutRankParams fp = params;
  fp.method = CutRankMethod::Flow;
  CutRankProfile out = cut_rank_profile(p, fp);
  const pos_t n = p.n;
  const bool automatic = method == CutRankMethod::Auto || method == CutRankMethod::Both;
  // the numeric method cut_rank_profile would choose
  const bool exact = method == CutRankMethod::Exact || (automatic && out.generic_weights);
  if (method == CutRankMethod::Exact && !out.generic_weights)
    throw UsageError(
        "--method exact draws generic weights over a prime field, but this pattern's weights come from its "
        ".mtx files: use --method both, dense or sketch for the files' real weights");
  const bool dense = !exact && (method == CutRankMethod::Dense || (automatic && n <= 1024));
  const CutRankMethod numeric = exact   ? CutRankMethod::Exact
                                : dense ? CutRankMethod::Dense
                                        : CutRankMethod::Sketch;

  // shards: contiguous runs of cuts of equal length. Measured (docs/scaling.md): an exact cut's time
  // hardly depends on K (one solve over all n rows per random column, and the ranks stay small), so
  // every cut costs the same in the model.
  const auto& cuts = out.cuts;
  const std::vector<double> cut_cost(cuts.size(), 1.0);
  const auto groups = split_by_cost(cut_cost, std::min(kMaxRankShards, cuts.size()));
  std::vector<double> costs;
  for (const auto& [c0, c1] : groups) {
    double c = 0;
    for (std::size_t i = c0; i < c1; ++i) c += cut_cost[i];
    costs.push_back(c);
  }
  std::string cut_list;
  for (pos_t k : cuts) cut_list += std::to_string(k) + ",";
  const std::string fingerprint = "rank; mixgraph " + version() + "; pattern " + p.spec + "; n " +
                                  std::to_string(n) + "; method " + to_string(numeric) + "; seed " +
                                  std::to_string(params.seed) + "; tol " + nlohmann::json(params.tol).dump() +
                                  "; cuts " + std::to_string(cuts.size()) + " fnv1a " + fnv1a_hex(cut_list) +
                                  "; shards " + std::to_string(groups.size());
  std::optional<InducedWeights> iw;
  const auto item = [&](std::size_t s) {
    const std::vector<pos_t> sub(cuts.begin() + static_cast<std::ptrdiff_t>(groups[s].first),
                                 cuts.begin() + static_cast<std::ptrdiff_t>(groups[s].second));
    NumericCutRanks r;
    if (dense) {  // through cut_rank_profile, which checks the dense operator's memory first
      CutRankParams sp = params;
      sp.method = numeric;
      sp.cuts = sub;
      auto pr = cut_rank_profile(p, sp);
      r.cuts = pr.cuts;
      r.rank = pr.numeric;
      r.tolerance = pr.tolerance;
      r.rule = pr.tolerance_rule;
      r.smallest_kept = pr.smallest_kept;
      r.largest_dropped = pr.largest_dropped;
    } else {  // the weights once per rank, as cut_rank_profile draws them
      if (!iw) iw = induced_weights(p, params.seed);
      NumericRankOptions no;
      no.tol = params.tol;
      no.seed = params.seed;
      no.mem_limit = params.mem_limit;
      r = exact ? cut_ranks_exact(iw->w, sub, no) : cut_ranks_sketch(iw->w, sub, no);
    }
    const nlohmann::json j = {{"cuts", r.cuts},
                              {"rank", r.rank},
                              {"columns", r.columns},
                              {"tolerance", r.tolerance},
                              {"rule", r.rule},
                              {"kept", r.smallest_kept},
                              {"dropped", r.largest_dropped}};
    return j.dump();
  };
  // a shard read back must hold the planned cuts, one rank each (decoded as the merge below decodes it)
  const auto check = [&](std::size_t s, const std::string& bytes) {
    decode_rank_shard(bytes, cuts.data() + groups[s].first, groups[s].second - groups[s].first, n, !dense);
  };
  const auto got = run_item_shards("rank", fingerprint, costs, checkpoint_dir, {p.spec}, item, check);
  if (!got) return std::nullopt;

  // merge: the numeric side in cut order, then every figure derived from both sides as cut_rank_profile does
  if (method != CutRankMethod::Both && method != CutRankMethod::Auto) {  // numeric only
    out.flow_done = false;
    out.flow.clear();
    out.flow_stats = FlowCutRanks{};
  }
  out.numeric_done = true;
  out.numeric_method = to_string(numeric);
  out.numeric.clear();
  out.sketch_columns.clear();
  for (std::size_t s = 0; s < got->size(); ++s) {  // each shard checked by the same decoder as it arrived
    const RankShard r = decode_rank_shard((*got)[s], cuts.data() + groups[s].first,
                                          groups[s].second - groups[s].first, n, !dense);
    out.numeric.insert(out.numeric.end(), r.rank.begin(), r.rank.end());
    if (!dense) out.sketch_columns.insert(out.sketch_columns.end(), r.columns.begin(), r.columns.end());
    if (s == 0) {
      out.tolerance = r.tolerance;
      out.tolerance_rule = r.rule;
      out.smallest_kept = out.largest_dropped = -1.0;
    }
    if (r.kept >= 0 && (out.smallest_kept < 0 || r.kept < out.smallest_kept)) out.smallest_kept = r.kept;
    if (r.dropped >= 0 && r.dropped > out.largest_dropped) out.largest_dropped = r.dropped;
  }
  // the Schwartz-Zippel bound of cut_ranks_exact, summed over every cut in order (a sum of per-shard sums
  // could round differently)
  out.failure_bound = 0.0;
  if (exact)
    for (pos_t k : cuts)
      out.failure_bound += (static_cast<double>(n) + static_cast<double>(std::min<pos_t>(k, n - k))) /
                           static_cast<double>(exact_rank_prime());
  out.max_cut_rank = 0;
  out.argmax_cut = 0;
  out.agree = true;
  out.disagreements.clear();
  out.numeric_above_flow.clear();
  out.bound_violations.clear();
  const auto& ranks = out.flow_done ? out.flow : out.numeric;
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    if (c == 0 || ranks[c] > out.max_cut_rank) {  // the first K reaching the max (the first cut if all 0)
      out.max_cut_rank = ranks[c];
      out.argmax_cut = cuts[c];
    }
    if (out.flow_done && out.numeric[c] != out.flow[c]) {
      out.agree = false;
      out.disagreements.push_back(cuts[c]);
      if (out.numeric[c] > out.flow[c]) out.numeric_above_flow.push_back(cuts[c]);
    }
    const std::uint64_t bound = (out.a_diagonal ? 1ull : 2ull) * out.cache_at_cut[c];
    std::uint32_t hi = out.numeric[c];
    if (out.flow_done) hi = std::max(hi, out.flow[c]);
    if (hi > bound) out.bound_violations.push_back(cuts[c]);
  }
  return out;
}

}  // namespace mixgraph::cli
