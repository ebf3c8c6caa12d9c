#include "mixgraph/claims.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

#include "mixgraph/error.hpp"

namespace mixgraph {

namespace {
std::map<std::string, Claim>& registry() {
  static std::map<std::string, Claim> r;
  return r;
}
}  // namespace

ClaimRegistrar::ClaimRegistrar(Claim c) {
  auto id = c.id;
  registry().emplace(std::move(id), std::move(c));
}

std::vector<Claim> registered_claims() {
  std::vector<Claim> v;
  for (const auto& [id, c] : registry()) v.push_back(c);
  return v;
}

std::string claim_verdict(const ClaimOutcome& o) {
  if (o.error) return "ERROR";
  if (o.counterexample) return "FAILED";
  if (o.instances > 0) return "PASSED";
  return o.not_applicable.empty() ? "ERROR" : "NOT APPLICABLE";
}

namespace {
void settle(ClaimOutcome& o) {
  o.verdict = claim_verdict(o);
  if (o.verdict == "PASSED")
    o.passed = true;
  else if (o.verdict == "FAILED")
    o.passed = false;
  else
    o.passed.reset();
  if (o.verdict == "ERROR" && !o.error)
    o.error =
        "nothing could be checked" + (o.checked.empty() ? std::string() : " (range: " + o.checked + ")");
}
}  // namespace

std::vector<ClaimResult> run_claims(const std::vector<std::string>& ids, const ClaimContext& ctx) {
  std::vector<Claim> todo;
  if (ids.empty()) {
    todo = registered_claims();
  } else {
    for (const auto& id : ids) {
      auto it = registry().find(id);
      if (it == registry().end()) {
        std::string valid;
        for (const auto& [k, c] : registry()) valid += (valid.empty() ? "" : ", ") + k;
        throw UsageError("unknown claim '" + id + "'; registered claims: " + valid);
      }
      todo.push_back(it->second);
    }
  }
  std::vector<ClaimResult> out;
  for (const auto& c : todo) {
    ClaimResult r;
    r.claim = c;
    const auto t0 = std::chrono::steady_clock::now();
    ClaimContext cctx = ctx;
    const bool clamped = c.n_limit != 0 && ctx.n_max > c.n_limit;
    if (clamped) cctx.n_max = c.n_limit;
    try {
      if (ctx.n_max == 1)  // every claim's range starts at n = 2
        throw std::runtime_error("n-max 1 is an empty range: every claim checks lengths n >= 2");
      r.outcome = c.check(cctx);
    } catch (const std::exception& e) {
      r.outcome = {};
      r.outcome.error = e.what();
    }
    if (clamped)
      r.outcome.checked += (r.outcome.checked.empty() ? "" : " ") + std::string("(--n-max ") +
                           std::to_string(ctx.n_max) + " clamped to " + std::to_string(c.n_limit) +
                           ", this check's limit: its work grows faster than n)";
    settle(r.outcome);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mixgraph
