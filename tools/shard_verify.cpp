// verify over MPI ranks: one shard per claim, each claim's result serialised whole and put back in order.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "result_json.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

std::optional<std::string> opt_string(const nlohmann::json& j) {
  return j.is_null() ? std::nullopt : std::optional<std::string>(j.get<std::string>());
}

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

std::optional<std::vector<ClaimResult>> sharded_claims(const std::vector<std::string>& ids,
                                                       const ClaimContext& ctx,
                                                       const std::string& checkpoint_dir) {
  // an unknown id is a usage error on every rank alike, before any shard runs
  std::vector<std::string> known;
  for (const auto& c : registered_claims()) known.push_back(c.id);
  for (const auto& id : ids)
    if (std::find(known.begin(), known.end(), id) == known.end()) run_claims({id}, ctx);  // throws
  std::string fingerprint = "verify; mixgraph " + version() + "; n_max " + std::to_string(ctx.n_max) +
                            "; patterns " + nlohmann::json(ctx.patterns).dump() + "; claims " +
                            nlohmann::json(ids).dump();
  // no cost model per claim is known in advance: equal costs, so LPT deals them out in order
  const auto got = run_item_shards("verify", fingerprint, std::vector<double>(ids.size(), 1.0),
                                   checkpoint_dir, ctx.patterns, [&](std::size_t i) {
                                     const auto r = run_claims({ids[i]}, ctx);
                                     if (r.size() != 1)
                                       throw RuntimeFailure("claim '" + ids[i] + "' gave no single result");
                                     return encode_claim_result(r[0]);
                                   });
  if (!got) return std::nullopt;
  std::vector<ClaimResult> out;
  for (const auto& bytes : *got) out.push_back(decode_claim_result(bytes));
  return out;
}

}  // namespace mixgraph::cli
