// ghodsi.heads — H heads represent an SSM exactly iff H >= k (its interaction rank), and a token mixer with
// H heads has interaction rank <= H.
#include <algorithm>
#include <array>
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/interaction.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph::claims {
namespace {

// One threshold from the SVD's error bound: a backward-stable SVD of the rows x cols stack S returns
// singular values within u * max(rows, cols) * sigma_1 of the exact ones (a generous form of the standard
// p(m, n) u ||S||_2 bound, u = 2^-53), the rounding floor f. A singular value is "clearly nonzero" above
// 100 f (a 100x margin), "zero" below f; k counts the clearly nonzero ones. An instance with a singular value
// in between is undecidable in fp64 at that n and is skipped (reported), never judged.
constexpr double kUnit = 1.1102230246251565e-16;
constexpr double kMargin = 100.0;

ClaimOutcome check(const ClaimContext& ctx) {
  const std::uint64_t n = n_max_or(ctx, 4096);
  const auto pats = patterns_or(ctx, {"pow2", "sq1", "window:3", "ssm", "pow2+cache"});
  const std::uint64_t n_mixer = std::min<std::uint64_t>(n, 128);  // n(n+1)/2 stack rows
  Counterexamples cex;
  double worst_exact = 0, worst_gap = INFINITY;
  std::string gap_at;
  bool first = true;
  std::string ks;
  std::uint64_t instances = 0;
  std::vector<std::string> undecided;
  // SSMs: (N, p, d).
  const std::vector<std::array<std::uint32_t, 3>> shapes = {
      {2, 2, 2}, {4, 3, 3}, {8, 4, 4}, {12, 2, 8}, {16, 5, 5}};
  for (const auto& [N, p, d] : shapes)
    for (std::uint64_t seed : {1u, 2u}) {
      const auto m = random_stable_ssm(N, p, d, seed);
      auto r = ssm_interaction_rank(m, n, 0);
      const std::string where = "N=" + std::to_string(N) + " p=" + std::to_string(p) +
                                " d=" + std::to_string(d) + " seed=" + std::to_string(seed) +
                                " n=" + std::to_string(n);
      const auto& sv = r.singular_values;
      const double floor =
          sv.empty() ? 0.0 : kUnit * static_cast<double>(std::max<std::uint64_t>(n, sv.size())) * sv[0];
      std::uint32_t k = 0;
      bool ambiguous = false;
      for (double s : sv) {
        if (s > kMargin * floor) ++k;
        if (s > floor && s <= kMargin * floor) ambiguous = true;
      }
      if (ambiguous) {
        undecided.push_back(where);
        continue;
      }
      ++instances;
      if (ctx.perturb && first && k < r.residual_by_heads.size()) r.residual_by_heads[k] = 1.0;
      first = false;
      const double total = r.residual_by_heads.at(0);
      if (seed == 1)
        ks += (ks.empty() ? "" : ", ") + std::string("N=") + std::to_string(N) + ": k=" + std::to_string(k);
      if (k == 0 || total <= 0) {
        cex.add(where + ": interaction rank 0");
        continue;
      }
      if (k > std::min<std::uint64_t>(N, std::uint64_t(p) * d))
        cex.add(where + ": k = " + std::to_string(k) + " > min(N, pd)");
      const double exact = r.residual_by_heads.at(k) / total, gap = r.residual_by_heads.at(k - 1) / total;
      worst_exact = std::max(worst_exact, exact);
      if (gap < worst_gap) worst_gap = gap, gap_at = where + ", k=" + std::to_string(k);
      // H = k: the residual sqrt(sum_{l>k} sigma_l^2) is at most sqrt(#rest) f; H = k-1: at least sigma_k
      const double rest = std::sqrt(static_cast<double>(sv.size() - k));
      if (r.residual_by_heads.at(k) > rest * floor)
        cex.add(where + ": H = k = " + std::to_string(k) + " heads leave error " +
                fmt_g(r.residual_by_heads.at(k)) + " above the rounding bound " + fmt_g(rest * floor));
      if (r.residual_by_heads.at(k - 1) <= kMargin * floor)
        cex.add(where + ": H = k-1 = " + std::to_string(k - 1) + " heads leave only error " +
                fmt_g(r.residual_by_heads.at(k - 1)));
    }
  // Token mixers with H heads: W_ij = sum_h M_h(i, j) V_h has rank <= H.
  std::string mixer_ranks;
  for (const auto& spec : pats) {
    const auto p = pattern_at(ctx, spec, n_mixer);
    for (std::uint32_t H : {1u, 2u, 3u, 5u}) {
      std::vector<WeightedPattern> heads;
      std::vector<Eigen::MatrixXd> values;
      for (std::uint32_t h = 0; h < H; ++h) {
        heads.push_back(random_weights(p, 10 + h));
        values.push_back(random_value_matrix(3, 3, 1, h));
      }
      auto r = heads_interaction_rank(heads, values, 0);
      ++instances;
      // rank above the rounding floor f of the SVD (as above): a (H+1)-th singular value above f is a
      // genuine counterexample
      const auto& sv = r.singular_values;
      const double floor =
          sv.empty()
              ? 0.0
              : kUnit * static_cast<double>(std::max<std::uint64_t>(n_mixer * (n_mixer + 1) / 2, sv.size())) *
                    sv[0];
      std::uint32_t rank = 0;
      for (double v : sv) rank += v > floor;
      if (ctx.perturb && first) rank = H + 1;
      first = false;
      if (rank > H)
        cex.add(spec + " n=" + std::to_string(n_mixer) + ": " + std::to_string(H) +
                " heads, interaction rank " + std::to_string(rank));
      if (H == 5) mixer_ranks += (mixer_ranks.empty() ? "" : ", ") + spec + ": " + std::to_string(rank);
    }
  }
  return outcome_of(
      cex,
      {.checked =
           "random stable SSMs (N, p, d) = (2,2,2), (4,3,3), (8,4,4), (12,2,8), (16,5,5), seeds 1-2, n = " +
           std::to_string(n) + "; token mixers " + join(pats) +
           " with H = 1, 2, 3, 5 heads, n = " + std::to_string(n_mixer) + ", p = d = 3",
       .worst = "H = k: largest relative residual " + fmt_g(worst_exact) +
                "; H = k-1: smallest relative residual " + fmt_g(worst_gap) + " (" + gap_at + ")",
       .detail = "interaction ranks (seed 1): " + ks + "; rank of 5-head mixers (pd = 9): " + mixer_ranks +
                 "; k counts singular values above 100 f, f = u max(rows, cols) sigma_1 (the SVD's error "
                 "bound); H = k must leave <= sqrt(#rest) f, H = k-1 more than 100 f" +
                 (undecided.empty() ? std::string()
                                    : "; undecidable in fp64 (a singular value within 100x of f), skipped: " +
                                          join(undecided)),
       .instances = instances});
}

ClaimRegistrar reg(
    {"ghodsi.heads", "Ghodsi, How Many Heads Make an SSM?", "heads theorem",
     "H heads represent an SSM of interaction rank k exactly iff H >= k: the best H = k head "
     "approximation is exact to rounding, H = k-1 leaves a clearly nonzero error; a token mixer "
     "with H heads has interaction rank <= H",
     "random stable SSMs of state size 2..16 at n = n-max (default 4096); token mixers at n <= 128", check,
     1 << 16});

}  // namespace
}  // namespace mixgraph::claims
