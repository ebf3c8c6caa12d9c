// The cut ranks of one pattern as both front ends ask for them (mixgraph/analysis/rank_query.hpp).
#include "mixgraph/analysis/rank_query.hpp"

#include <cmath>
#include <cstdint>
#include <utility>

#include "mixgraph/analysis/cuts.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {
namespace {

CutRankMethod rank_method(const RankQuery& q) {
  if (const auto m = cut_rank_method_from(q.method); m && *m != CutRankMethod::Auto) return *m;
  throw UsageError(q.names.method + " must be both, exact, dense, sketch or flow (got '" + q.method + "')");
}

/// heads:P1;P2;... with seeded weights: each head's flow ranks and the numeric ranks of their sum.
bool heads_sums(const RankPlan& plan) {
  return !plan.pattern->heads.empty() && !plan.user;
}

/// The cuts from the text, the count or the list; empty: the default cuts.
std::vector<pos_t> rank_cuts(const RankQuery& q, pos_t n) {
  const std::string& name = q.names.cuts;
  std::vector<pos_t> cuts;
  if (q.cut_count) {
    if (*q.cut_count < 1) throw UsageError(name + ": a count must be >= 1");
    cuts = spaced_cuts(n, static_cast<std::uint64_t>(*q.cut_count));
  } else if (q.cut_list) {
    for (const auto k : *q.cut_list) {
      if (k < 1 || static_cast<std::uint64_t>(k) >= n)
        throw UsageError(name + ": cut " + std::to_string(k) + " is outside 1.." + std::to_string(n - 1) +
                         " (cut K separates positions 1..K from K+1..n)");
      cuts.push_back(static_cast<pos_t>(k));
    }
  } else {
    cuts = parse_cuts(q.cuts, n, name);
  }
  if ((q.cut_count || q.cut_list || !q.cuts.empty()) && cuts.empty())
    throw UsageError(name + " selected no cut");
  return cuts;
}

/// The user's weights: the files (one head) or the attention head, after the checks of their combinations.
void load_user_weights(const RankQuery& q, RankPlan& plan) {
  const Pattern& p = *plan.pattern;
  const bool files = !q.weights.a.empty() || !q.weights.b.empty();
  const bool exact = plan.params.method == CutRankMethod::Exact;
  if (q.attn.given() && files)
    throw UsageError("--attn-q / --attn-k set A's weights: give them or --weights-a / --weights-b, not both");
  if (exact && files)
    throw UsageError(
        "--method exact draws generic weights over a prime field and cannot use the real weights of "
        "--weights-a / --weights-b: use --method both, dense or sketch for them (or leave the weight files "
        "out for the exact generic ranks)");
  if (files) {
    WeightFiles f;
    f.a = q.weights.a;
    f.b = q.weights.b;
    plan.user = std::make_shared<const WeightedPattern>(
        head_weights(weights_from_files<double>(p, 1, q.seed, f, plan.params.mem_limit), 0));
  }
  if (q.attn.given()) {
    if (exact)
      throw UsageError(
          "--method exact draws generic weights over a prime field; a real attention head needs --method "
          "both, dense or sketch (the exact generic ranks are reported beside it)");
    plan.user = std::make_shared<const WeightedPattern>(load_attention(p, q.attn, q.seed, plan.key_dim));
    plan.attention = true;
  }
  plan.params.weights = plan.user.get();
}

}  // namespace

void check_rank_tol(const RankQuery& q) {
  if (!std::isfinite(q.tol) || q.tol < 0 || q.tol > 1)  // NaN would keep every pivot, inf none
    throw UsageError(q.names.tol + " must be a finite number in [0, 1] (0 = the default rule; got " +
                     std::to_string(q.tol) + ")");
}

void check_rank_spec(const RankQuery& q, const PatternSpec& spec, std::uint64_t n) {
  if (!spec.has_matrix() && n < 2)
    throw UsageError(q.names.n + " must be >= 2 (cut K needs positions on both sides)");
  if (n > UINT32_MAX) throw UsageError(q.names.n + " must fit in 32 bits");
  check_pattern_memory(spec, n, q.mem_limit, "pattern " + q.pattern + " with weights",
                       {.per_position = true, .copies = 3});
}

RankPlan rank_prepare(const RankQuery& q) {
  check_rank_tol(q);
  RankPlan plan;
  if (q.built) {
    if (q.built->n < 2) throw UsageError(q.names.n + " must be >= 2 (cut K needs positions on both sides)");
    plan.pattern = q.built;
  } else {
    const PatternSpec spec = parse_pattern_spec(q.pattern, false);  // the one parse: estimate and build
    std::uint64_t n = 0;
    if (!q.n.empty())
      n = parse_count(q.n, q.names.n);
    else if (!spec.has_matrix())
      throw UsageError(q.names.n + " is required (the number of tokens)");
    check_rank_spec(q, spec, n);
    plan.pattern = std::make_shared<const Pattern>(make_pattern(spec, n));
  }
  const Pattern& p = *plan.pattern;
  plan.params.seed = q.seed;
  plan.params.tol = q.tol;
  plan.params.mem_limit = q.mem_limit;
  plan.params.method = rank_method(q);
  load_user_weights(q, plan);
  plan.params.cuts = rank_cuts(q, p.n);
  if (q.dyadic) {  // checked before the profile, which can take long at large n
    if (p.n > 4096) throw UsageError(q.names.dyadic + " needs the dense operator: n <= 4096");
    check_memory(8ull * p.n * p.n * 2, q.mem_limit, "dense operator for " + q.names.dyadic);
  }
  if (heads_sums(plan)) check_heads_sum_memory(p, q.mem_limit);  // heads_sum_ranks' dense sum, as early
  return plan;
}

RankResult rank_compute(const RankQuery& q, const RankPlan& plan, std::optional<CutRankProfile> profile) {
  const Pattern& p = *plan.pattern;
  const auto stage = [&q](const char* name) {
    if (q.stage) q.stage(name);
  };
  RankResult res;
  stage("cut ranks");
  if (profile) {
    res.profile = std::move(*profile);
  } else if (q.per_cut) {  // progress after each cut, and a stop at the next cut (the hook may throw)
    const CutProgressScope scope(&q.per_cut);
    res.profile = cut_rank_profile(p, plan.params);
  } else {  // the caller's own progress scope, if any, stays in force
    res.profile = cut_rank_profile(p, plan.params);
  }
  const CutRankProfile& r = res.profile;
  if (heads_sums(plan))  // heads:P1;P2;...: per head and the sum of the heads
    res.heads = heads_sum_ranks(p, r.cuts, q.seed, q.tol, q.mem_limit);
  if (plan.attention)
    res.attention = attention_rank_info(p, *plan.user, r, q.attn, plan.key_dim, q.seed, q.mem_limit,
                                        plan.params.method != CutRankMethod::Flow);
  if (q.dyadic) {
    stage("dyadic blocks");
    const auto dense = [&](const WeightedPattern& w) {
      return dyadic_block_ranks_transposed(dense_operator_transposed(w), r.tolerance);
    };
    res.dyadic = plan.user ? dense(*plan.user) : dense(induced_weights(p, q.seed).w);
  }
  // the contrast (a finding): a translation-invariant pattern against its cache-efficient variant (or back),
  // on the same cuts, by flow (cheap) and the cache profile
  stage("contrast");
  res.contrast = json::rank_contrast(p, r, q.seed, q.mem_limit);
  res.finding = json::rank_finding(r, p.n);
  res.weights_note =
      plan.attention ? std::string(
                           "attention weights from --attn-q / --attn-k (a real head, not generic): numeric "
                           "ranks may legitimately be below the flow ranks")
      : plan.user ? std::string(
                        "weights from --weights-a / --weights-b (not generic): numeric ranks may "
                        "legitimately be below the flow ranks")
                  : json::rank_weights_note(r);
  return res;
}

RankResult run_rank_query(const RankQuery& q) {
  const RankPlan plan = rank_prepare(q);
  return rank_compute(q, plan);
}

nlohmann::ordered_json rank_json(const RankPlan& plan, const RankResult& r) {
  auto j = json::cut_ranks(*plan.pattern, r.profile, r.contrast, r.dyadic ? &*r.dyadic : nullptr);
  if (plan.user) j["weights_note"] = r.weights_note;
  if (r.attention) j["attention"] = attention_json(*r.attention, r.profile);
  if (r.heads) j["heads"] = heads_sum_json(*r.heads);
  return j;
}

}  // namespace mixgraph::analysis
