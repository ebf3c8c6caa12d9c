// guo.loglinear.semiseparable-product — a 1-semiseparable mask times (elementwise) the log-linear mask M^H is
// still hierarchical: every dyadic off-diagonal block has rank <= 1. Exact, over GF(2^61 - 1).
#include <algorithm>
#include <cstdint>

#include "claim_util.hpp"
#include "mixgraph/hierarchical.hpp"

namespace mixgraph::claims {
namespace {

__extension__ typedef unsigned __int128 u128;
constexpr std::uint64_t kP = (std::uint64_t{1} << 61) - 1;
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  const u128 z = static_cast<u128>(a) * b;
  const std::uint64_t r = (static_cast<std::uint64_t>(z) & kP) + static_cast<std::uint64_t>(z >> 61);
  return r >= kP ? r - kP : r;
}
std::uint64_t sub(std::uint64_t a, std::uint64_t b) {
  return a >= b ? a - b : a + kP - b;
}
std::uint64_t inv(std::uint64_t a) {
  std::uint64_t r = 1, e = kP - 2;
  for (; e; e >>= 1, a = mul(a, a))
    if (e & 1) r = mul(r, a);
  return r;
}
std::uint64_t draw(std::uint64_t stream, std::uint64_t i, std::uint64_t j) {  // nonzero, uniform enough
  std::uint64_t x =
      (stream * 0x9e3779b97f4a7c15ull) ^ (i * 0xbf58476d1ce4e5b9ull) ^ (j + 0x94d049bb133111ebull);
  x ^= x >> 31;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 29;
  return 1 + x % (kP - 1);
}

/// Rank over GF(p) by Gaussian elimination (rows x cols, row-major, destroyed).
std::uint32_t rank_mod_p(std::vector<std::uint64_t>& m, std::size_t rows, std::size_t cols) {
  std::uint32_t r = 0;
  for (std::size_t c = 0; c < cols && r < rows; ++c) {
    std::size_t piv = r;
    while (piv < rows && m[piv * cols + c] == 0) ++piv;
    if (piv == rows) continue;
    for (std::size_t k = 0; k < cols; ++k) std::swap(m[piv * cols + k], m[r * cols + k]);
    const std::uint64_t iv = inv(m[r * cols + c]);
    for (std::size_t i = r + 1; i < rows; ++i) {
      const std::uint64_t f = mul(m[i * cols + c], iv);
      if (f)
        for (std::size_t k = c; k < cols; ++k)
          m[i * cols + k] = sub(m[i * cols + k], mul(f, m[r * cols + k]));
    }
    ++r;
  }
  return r;
}

ClaimOutcome check(const ClaimContext& ctx) {
  if (auto na =
          patterns_not_applicable(ctx, "the statement is about the masks' product, not a mixer pattern"))
    return *na;  // no pattern is in scope
  const std::uint64_t Tmax = std::min<std::uint64_t>(n_max_or(ctx, 256), 512);
  const auto Ts = lengths_up_to({2, 7, 64, 100}, Tmax);
  Counterexamples cex;
  std::uint64_t blocks = 0;
  std::uint32_t worst = 0;
  bool first = true;
  for (auto T : Ts) {
    // S_ts = a_{s+1} ... a_t = A_t / A_s (A the prefix products): 1-semiseparable; H_ts = lambda_t^(level)
    std::vector<std::uint64_t> A(T), Ainv(T);
    std::uint64_t acc = 1;
    for (std::uint64_t t = 0; t < T; ++t) {
      acc = mul(acc, draw(1, t, 0));
      A[t] = acc;
      Ainv[t] = inv(acc);
    }
    auto entry = [&](std::uint64_t t, std::uint64_t s) {  // (S o M^H)_ts for s <= t
      return mul(mul(A[t], Ainv[s]), draw(2, t, loglinear_level(t, s)));
    };
    for (std::uint64_t bs = 1; bs < T; bs *= 2)
      for (std::uint64_t c0 = 0; c0 + bs < T; c0 += 2 * bs) {
        const std::uint64_t r0 = c0 + bs, rows = std::min(bs, T - r0);
        std::vector<std::uint64_t> m(rows * bs);
        for (std::uint64_t i = 0; i < rows; ++i)
          for (std::uint64_t j = 0; j < bs; ++j) m[i * bs + j] = entry(r0 + i, c0 + j);
        std::uint32_t r = rank_mod_p(m, rows, bs);
        if (ctx.perturb && first) r = 2;
        first = false;
        ++blocks;
        worst = std::max(worst, r);
        if (r > 1)
          cex.add("T=" + std::to_string(T) + ": block rows " + std::to_string(r0 + 1) + ".." +
                  std::to_string(r0 + rows) + " x columns " + std::to_string(c0 + 1) + ".." +
                  std::to_string(c0 + bs) + " has rank " + std::to_string(r));
      }
  }
  const std::string ts = join_numbers(Ts);
  return outcome_of(
      cex, {.checked = "every dyadic off-diagonal block at T = " + ts + " (" + std::to_string(blocks) +
                       " blocks), exact ranks over GF(2^61-1) with random a_t and lambda_t^(l)",
            .worst = "largest block rank " + std::to_string(worst),
            .detail =
                "a block of S is (A_t) (1/A_s): rank 1; of M^H one level: rank 1; the elementwise product of "
                "rank-1 blocks has rank <= 1",
            .instances = blocks});
}

ClaimRegistrar reg({"guo.loglinear.semiseparable-product", "Guo et al., Log-Linear Attention",
                    "Sec. 3 (semiseparable times hierarchical)",
                    "The elementwise product of a 1-semiseparable mask (S_ts = a_{s+1} ... a_t) and the "
                    "log-linear mask M^H is hierarchical: every dyadic off-diagonal block has rank <= 1",
                    "the masks at T up to n-max (default 256, at most 512); exact over GF(2^61-1)", check});

}  // namespace
}  // namespace mixgraph::claims
