#include "mixgraph/claims.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
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

const PatternSpec& ClaimSpecs::tree(const std::string& spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = trees_.find(spec);
  if (it == trees_.end()) it = keep(spec, parse_pattern_spec(spec, false));
  return it->second;
}

void ClaimSpecs::add(const std::string& spec, PatternSpec tree) {
  std::lock_guard<std::mutex> lock(mutex_);
  keep(spec, std::move(tree));
}

std::map<std::string, PatternSpec>::iterator ClaimSpecs::keep(const std::string& spec, PatternSpec tree) {
  // the tree's text (the spec trimmed) parses to the same tree, text included: kept under it too
  if (tree.text != spec) trees_.emplace(tree.text, tree);
  return trees_.emplace(spec, std::move(tree)).first;
}

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

namespace {

const Claim& find_claim(const std::string& id) {
  auto it = registry().find(id);
  if (it == registry().end()) {
    std::string valid;
    for (const auto& [k, c] : registry()) valid += (valid.empty() ? "" : ", ") + k;
    throw UsageError("unknown claim '" + id + "'; registered claims: " + valid);
  }
  return it->second;
}

/// The claim's result with `body` as its check: clamping, the empty range, exceptions and the verdict.
ClaimResult assemble(const Claim& c, const ClaimContext& ctx,
                     const std::function<ClaimOutcome(const ClaimContext&)>& body) {
  ClaimResult r;
  r.claim = c;
  const auto t0 = std::chrono::steady_clock::now();
  const ClaimContext cctx = claim_context(c, ctx);
  try {
    if (ctx.n_max == 1)  // every claim's range starts at n = 2
      throw std::runtime_error("n-max 1 is an empty range: every claim checks lengths n >= 2");
    r.outcome = body(cctx);
  } catch (const std::exception& e) {
    r.outcome = {};
    r.outcome.error = e.what();
  }
  if (cctx.n_max != ctx.n_max) {
    std::string note = "(--n-max ";
    note += std::to_string(ctx.n_max);
    note += " clamped to ";
    note += std::to_string(c.n_limit);
    note += ", this check's limit: its work grows faster than n)";
    if (!r.outcome.checked.empty()) r.outcome.checked += ' ';
    r.outcome.checked += note;
  }
  settle(r.outcome);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

/// A claim given by instances, checked whole: every instance in order, merged. ctx.perturb corrupts the
/// first instance that checks something (the first measured value of the whole check).
ClaimOutcome check_by_instances(const ClaimInstances& in, const ClaimContext& cctx) {
  const auto names = in.list(cctx);
  std::vector<ClaimPart> parts;
  bool measured = false;
  for (std::size_t i = 0; i < names.size(); ++i) {
    ClaimContext one = cctx;
    one.perturb = cctx.perturb && !measured;
    parts.push_back(in.run(one, i));
    measured = measured || parts.back().checked > 0;
  }
  return in.finish(cctx, merge_claim_parts(parts));
}

}  // namespace

void ClaimPart::add_counterexample(const std::string& s, std::size_t keep) {
  if (counterexamples.size() < keep) counterexamples.push_back(s);
  ++counterexample_count;
}

ClaimPart merge_claim_parts(const std::vector<ClaimPart>& parts, std::size_t keep) {
  ClaimPart m;
  for (const auto& p : parts) {
    if (p.error && !m.error) m.error = p.error;
    m.checked += p.checked;
    for (const auto& s : p.counterexamples)
      if (m.counterexamples.size() < keep) m.counterexamples.push_back(s);
    m.counterexample_count += p.counterexample_count;
    if (p.worst > m.worst) {
      m.worst = p.worst;
      m.worst_at = p.worst_at;
    }
    m.sum += p.sum;
    for (const auto& k : p.not_applicable)  // a pattern skipped again by the next part: listed once
      if (m.not_applicable.empty() || m.not_applicable.back().pattern != k.pattern)
        m.not_applicable.push_back(k);
    if (m.note.empty()) m.note = p.note;
    m.seconds += p.seconds;
  }
  return m;
}

ClaimContext claim_context(const Claim& c, const ClaimContext& ctx) {
  ClaimContext cctx = ctx;
  if (c.n_limit != 0 && ctx.n_max > c.n_limit) cctx.n_max = c.n_limit;
  if (!cctx.specs) cctx.specs = std::make_shared<ClaimSpecs>();
  return cctx;
}

std::vector<ClaimResult> run_claims(const std::vector<std::string>& ids, const ClaimContext& ctx_in) {
  ClaimContext ctx = ctx_in;  // one set of parsed specs for every claim of the call
  if (!ctx.specs) ctx.specs = std::make_shared<ClaimSpecs>();
  std::vector<Claim> todo;
  if (ids.empty())
    todo = registered_claims();
  else
    for (const auto& id : ids) todo.push_back(find_claim(id));
  std::vector<ClaimResult> out;
  for (const auto& c : todo)
    out.push_back(assemble(c, ctx, [&](const ClaimContext& cctx) {
      if (c.check) return c.check(cctx);
      if (!c.instances) throw std::runtime_error("claim '" + c.id + "' has no check");
      return check_by_instances(*c.instances, cctx);
    }));
  return out;
}

std::vector<std::string> claim_instance_names(const std::string& id, const ClaimContext& ctx) {
  const Claim& c = find_claim(id);
  if (!c.instances || c.check || ctx.n_max == 1) return {};
  try {
    return c.instances->list(claim_context(c, ctx));
  } catch (const std::exception&) {
    return {};  // run whole: its ERROR says why
  }
}

std::vector<double> claim_instance_costs(const std::string& id, const ClaimContext& ctx) {
  const Claim& c = find_claim(id);
  const ClaimContext cctx = claim_context(c, ctx);  // one set of parsed specs for the list and the costs
  const auto names = claim_instance_names(id, cctx);
  std::vector<double> costs;
  for (std::size_t i = 0; i < names.size(); ++i)
    costs.push_back(c.instances->cost ? c.instances->cost(cctx, i) : 1.0);
  return costs;
}

ClaimPart run_claim_instance(const std::string& id, const ClaimContext& ctx, std::size_t i) {
  const Claim& c = find_claim(id);
  const auto t0 = std::chrono::steady_clock::now();
  ClaimPart p;
  try {
    if (!c.instances) throw std::runtime_error("claim '" + id + "' has no instances");
    p = c.instances->run(claim_context(c, ctx), i);
  } catch (const std::exception& e) {
    p = {};
    p.error = e.what();
  }
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

ClaimResult merge_claim_instances(const std::string& id, const ClaimContext& ctx,
                                  const std::vector<ClaimPart>& parts) {
  const Claim& c = find_claim(id);
  ClaimPart merged = merge_claim_parts(parts);
  auto r = assemble(c, ctx, [&](const ClaimContext& cctx) {
    if (!c.instances) throw std::runtime_error("claim '" + id + "' has no instances");
    if (merged.error) throw std::runtime_error(*merged.error);
    return c.instances->finish(cctx, merged);
  });
  r.seconds = merged.seconds;
  return r;
}

}  // namespace mixgraph
