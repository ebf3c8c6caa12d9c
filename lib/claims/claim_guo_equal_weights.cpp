// guo.loglinear.equal-weights — log-linear attention with equal level weights is linear attention (scaled).
#include <algorithm>
#include <cstdint>

#include "claim_util.hpp"
#include "mixgraph/hierarchical.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  if (auto na =
          patterns_not_applicable(ctx, "the statement is about log-linear attention, not a mixer pattern"))
    return *na;  // no pattern is in scope
  const std::uint64_t Tmax = std::min<std::uint64_t>(n_max_or(ctx, 2048), 4096);
  const auto Ts = lengths_up_to({1, 2, 3, 7, 64, 100, 333}, Tmax);
  // Integer data (q, k, v in -3..3, lambda in 1..4, d = 2): every sum is exact in int64, so the comparison
  // is exact (no tolerance).
  constexpr int d = 2;
  auto small = [](std::uint64_t stream, std::uint64_t t, std::uint64_t c, int lo, int hi) {
    return lo + static_cast<std::int64_t>(hash_uniform(17, stream, t, c) * (hi - lo + 1));
  };
  Counterexamples cex;
  std::uint64_t instances = 0;
  bool first = true;
  for (auto T : Ts) {
    std::vector<std::int64_t> q(T * d), k(T * d), v(T * d), lam(T);
    for (std::uint64_t t = 0; t < T; ++t) {
      lam[t] = small(4, t, 0, 1, 4);
      for (int c = 0; c < d; ++c) {
        q[t * d + c] = small(1, t, c, -3, 3);
        k[t * d + c] = small(2, t, c, -3, 3);
        v[t * d + c] = small(3, t, c, -3, 3);
      }
    }
    // linear attention: running state S_t = S_{t-1} + k_t v_t^T, o_t = lambda_t q_t^T S_t
    std::vector<std::int64_t> S(d * d, 0);
    for (std::uint64_t t = 0; t < T; ++t) {
      for (int a = 0; a < d; ++a)
        for (int b = 0; b < d; ++b) S[a * d + b] += k[t * d + a] * v[t * d + b];
      // log-linear attention: one state per bucket level(t, s), each weighted lambda_t^(l) = lambda_t
      const std::uint32_t levels = loglinear_level(t, 0) + 2;
      std::vector<std::int64_t> H(static_cast<std::size_t>(levels) * d * d, 0);
      for (std::uint64_t s = 0; s <= t; ++s) {
        const auto l = loglinear_level(t, s);
        if (l >= levels) {
          cex.add("t=" + std::to_string(t) + ": level " + std::to_string(l) + " out of range");
          continue;
        }
        for (int a = 0; a < d; ++a)
          for (int b = 0; b < d; ++b) H[(l * d + a) * d + b] += k[s * d + a] * v[s * d + b];
      }
      for (int b = 0; b < d; ++b) {
        std::int64_t lin = 0, loglin = 0;
        for (int a = 0; a < d; ++a) lin += q[t * d + a] * S[a * d + b];
        lin *= lam[t];
        for (std::uint32_t l = 0; l < levels; ++l)
          for (int a = 0; a < d; ++a) loglin += lam[t] * q[t * d + a] * H[(l * d + a) * d + b];
        if (ctx.perturb && first) loglin += 1;
        first = false;
        if (lin != loglin)
          cex.add("T=" + std::to_string(T) + " t=" + std::to_string(t) + " channel " + std::to_string(b) +
                  ": log-linear " + std::to_string(loglin) + ", linear " + std::to_string(lin));
      }
      ++instances;
    }
  }
  const std::string ts = join_numbers(Ts);
  return outcome_of(
      cex,
      {.checked = "every query t < T, T = " + ts + "; integer q, k, v (d = 2) and weights, exact arithmetic",
       .worst = cex.any() ? std::to_string(cex.count) + " outputs differ" : "every output identical",
       .detail = "the buckets {s : level(t, s) = l} partition 0..t, so sum_l lambda_t q_t^T H_t^(l) = "
                 "lambda_t q_t^T "
                 "sum_{s <= t} k_s v_s^T: linear attention with a per-query scale",
       .instances = instances});
}

ClaimRegistrar reg({"guo.loglinear.equal-weights", "Guo et al., Log-Linear Attention",
                    "Sec. 3 (special case)",
                    "With equal weights on every level (lambda_t^(l) = lambda_t), log-linear attention "
                    "collapses to linear attention: o_t = lambda_t q_t^T sum_{s <= t} k_s v_s^T",
                    "log-linear attention; every query t < T (T = n-max, default 2048, at most 4096)",
                    check});

}  // namespace
}  // namespace mixgraph::claims
