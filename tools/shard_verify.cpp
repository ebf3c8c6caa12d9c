// verify over MPI ranks: one shard per instance of a claim that splits into instances (ClaimInstances), one
// per other claim; rank 0 merges each claim's parts in order and puts the claims back in order.
#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

std::optional<std::string> opt_string(const nlohmann::json& j) {
  return j.is_null() ? std::nullopt : std::optional<std::string>(j.get<std::string>());
}

/// Throws unless `bytes` decode as shard s's result: a part of one instance, or the whole claim ids[s.claim]
/// (its verdict the one its findings give: a failure has its counterexample).
void check_claim_shard(const std::vector<std::string>& ids, const ClaimShard& s, const std::string& bytes);

}  // namespace

std::string encode_claim_result(const ClaimResult& r) {
  const auto& c = r.claim;
  const auto& o = r.outcome;
  nlohmann::json skips = nlohmann::json::array();
  for (const auto& k : o.not_applicable) skips.push_back({k.pattern, k.reason});
  const nlohmann::json j = {{"claim", {c.id, c.source, c.number, c.statement, c.applies_to}},
                            {"passed", json::value_or_null<nlohmann::json>(o.passed)},
                            {"checked", o.checked},
                            {"worst", o.worst},
                            {"counterexample", json::value_or_null<nlohmann::json>(o.counterexample)},
                            {"error", json::value_or_null<nlohmann::json>(o.error)},
                            {"detail", o.detail},
                            {"instances", o.instances},
                            {"not_applicable", skips},
                            {"verdict", o.verdict},
                            {"seconds", r.seconds}};
  return j.dump();
}

ClaimResult decode_claim_result(const std::string& bytes) {
  const auto j = nlohmann::json::parse(bytes);
  ClaimResult r;
  const auto& c = j.at("claim");
  r.claim.id = c.at(0).get<std::string>();
  r.claim.source = c.at(1).get<std::string>();
  r.claim.number = c.at(2).get<std::string>();
  r.claim.statement = c.at(3).get<std::string>();
  r.claim.applies_to = c.at(4).get<std::string>();
  auto& o = r.outcome;
  if (!j.at("passed").is_null()) o.passed = j.at("passed").get<bool>();
  o.checked = j.at("checked").get<std::string>();
  o.worst = j.at("worst").get<std::string>();
  o.counterexample = opt_string(j.at("counterexample"));
  o.error = opt_string(j.at("error"));
  o.detail = j.at("detail").get<std::string>();
  o.instances = j.at("instances").get<std::uint64_t>();
  for (const auto& k : j.at("not_applicable"))
    o.not_applicable.push_back({k.at(0).get<std::string>(), k.at(1).get<std::string>()});
  o.verdict = j.at("verdict").get<std::string>();
  r.seconds = j.at("seconds").get<double>();
  return r;
}

std::string encode_claim_part(const ClaimPart& p) {
  nlohmann::json skips = nlohmann::json::array();
  for (const auto& k : p.not_applicable) skips.push_back({k.pattern, k.reason});
  // doubles as their bits: `worst` may be infinite, and the merge must see the same values
  const nlohmann::json j = {{"checked", p.checked},
                            {"counterexamples", p.counterexamples},
                            {"counterexample_count", p.counterexample_count},
                            {"worst", std::bit_cast<std::uint64_t>(p.worst)},
                            {"worst_at", p.worst_at},
                            {"sum", std::bit_cast<std::uint64_t>(p.sum)},
                            {"not_applicable", skips},
                            {"note", p.note},
                            {"error", json::value_or_null<nlohmann::json>(p.error)},
                            {"seconds", p.seconds}};
  return j.dump();
}

ClaimPart decode_claim_part(const std::string& bytes) {
  const auto j = nlohmann::json::parse(bytes);
  ClaimPart p;
  p.checked = j.at("checked").get<std::uint64_t>();
  p.counterexamples = j.at("counterexamples").get<std::vector<std::string>>();
  p.counterexample_count = j.at("counterexample_count").get<std::uint64_t>();
  p.worst = std::bit_cast<double>(j.at("worst").get<std::uint64_t>());
  p.worst_at = j.at("worst_at").get<std::string>();
  p.sum = std::bit_cast<double>(j.at("sum").get<std::uint64_t>());
  for (const auto& k : j.at("not_applicable"))
    p.not_applicable.push_back({k.at(0).get<std::string>(), k.at(1).get<std::string>()});
  p.note = j.at("note").get<std::string>();
  p.error = opt_string(j.at("error"));
  p.seconds = j.at("seconds").get<double>();
  return p;
}

std::vector<ClaimShard> claim_shards(const std::vector<std::string>& ids, const ClaimContext& ctx) {
  std::vector<ClaimShard> shards;
  for (std::size_t c = 0; c < ids.size(); ++c) {
    const auto names = claim_instance_names(ids[c], ctx);
    if (names.empty()) {
      shards.push_back({c, ClaimShard::kWhole, ids[c], kWholeClaimSeconds});
      continue;
    }
    const auto costs = claim_instance_costs(ids[c], ctx);
    for (std::size_t i = 0; i < names.size(); ++i)
      shards.push_back({c, i, ids[c] + ": " + names[i], costs[i]});
  }
  return shards;
}

std::string run_claim_shard(const std::vector<std::string>& ids, const ClaimContext& ctx,
                            const ClaimShard& s) {
  if (s.instance != ClaimShard::kWhole)
    return encode_claim_part(run_claim_instance(ids[s.claim], ctx, s.instance));
  const auto r = run_claims({ids[s.claim]}, ctx);
  if (r.size() != 1) throw RuntimeFailure("claim '" + ids[s.claim] + "' gave no single result");
  return encode_claim_result(r[0]);
}

std::vector<ClaimResult> merge_claim_shards(const std::vector<std::string>& ids, const ClaimContext& ctx,
                                            const std::vector<ClaimShard>& shards,
                                            const std::vector<std::string>& results) {
  std::vector<ClaimResult> out;
  for (std::size_t k = 0; k < shards.size();) {
    const std::size_t c = shards[k].claim;
    if (shards[k].instance == ClaimShard::kWhole) {
      out.push_back(decode_claim_result(results[k++]));
      continue;
    }
    std::vector<ClaimPart> parts;
    for (; k < shards.size() && shards[k].claim == c; ++k) parts.push_back(decode_claim_part(results[k]));
    out.push_back(merge_claim_instances(ids[c], ctx, parts));
  }
  return out;
}

namespace {

void check_claim_shard(const std::vector<std::string>& ids, const ClaimShard& s, const std::string& bytes) {
  if (s.instance != ClaimShard::kWhole) {
    const ClaimPart p = decode_claim_part(bytes);
    if (p.counterexamples.size() > p.counterexample_count)
      throw RuntimeFailure("it lists more counterexamples than it counts");
    return;
  }
  const ClaimResult r = decode_claim_result(bytes);
  if (r.claim.id != ids[s.claim]) throw RuntimeFailure("it is the result of claim '" + r.claim.id + "'");
  const auto& o = r.outcome;
  const bool passed_ok = o.verdict == "PASSED"   ? o.passed.value_or(false)
                         : o.verdict == "FAILED" ? !o.passed.value_or(true)
                                                 : !o.passed.has_value();
  if (o.verdict != claim_verdict(o) || !passed_ok)
    throw RuntimeFailure("its verdict '" + o.verdict + "' does not follow from its findings");
}

}  // namespace

std::optional<std::vector<ClaimResult>> sharded_claims(const std::vector<std::string>& ids,
                                                       const ClaimContext& ctx,
                                                       const std::string& checkpoint_dir) {
  // an unknown id is a usage error on every rank alike, before any shard runs
  std::vector<std::string> known;
  for (const auto& c : registered_claims()) known.push_back(c.id);
  for (const auto& id : ids)
    if (std::find(known.begin(), known.end(), id) == known.end()) run_claims({id}, ctx);  // throws
  // one shard per instance of a claim that splits, one per other claim; LPT on the modelled seconds
  const auto shards = claim_shards(ids, ctx);
  std::vector<double> costs;
  std::string layout;
  for (const auto& s : shards) {
    costs.push_back(s.cost);
    layout += s.name + "\n";
  }
  const std::string fingerprint = "verify; mixgraph " + version() + "; n_max " + std::to_string(ctx.n_max) +
                                  "; patterns " + nlohmann::json(ctx.patterns).dump() + "; claims " +
                                  nlohmann::json(ids).dump() + "; shards " + fnv1a_hex(layout);
  const auto got = run_item_shards(
      "verify", fingerprint, costs, checkpoint_dir, ctx.patterns,
      [&](std::size_t k) { return run_claim_shard(ids, ctx, shards[k]); },
      [&](std::size_t k, const std::string& bytes) { check_claim_shard(ids, shards[k], bytes); });
  if (!got) return std::nullopt;
  return merge_claim_shards(ids, ctx, shards, *got);
}

}  // namespace mixgraph::cli
