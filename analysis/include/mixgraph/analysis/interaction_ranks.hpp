#pragma once
// `mixgraph rank loglinear|ssm|heads` / mixgraph.loglinear, ssm_rank, heads_rank: log-linear attention's
// hierarchical mask, and the Ghodsi interaction rank of an LTI SSM and of a multi-head mixer (docs/math.md
// §5). Sizes are text as the CLI takes them ("4096", "2^12", "1e4"); errors name the CLI's options.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/analysis/document.hpp"
#include "mixgraph/hierarchical.hpp"
#include "mixgraph/interaction.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::analysis {

/// The largest T of loglinear(): its summary is O(T) (a few seconds at 2^28).
inline constexpr std::uint64_t kMaxLogLinearT = 1ull << 28;

struct LogLinearQuery {
  std::string T;                       ///< queries t = 0..T-1 (1..2^28)
  std::uint64_t seed = 1;              ///< the lambda weights
  std::uint64_t numeric_limit = 1024;  ///< numeric dyadic ranks of M^H up to this T (<= 4096): O(T^3) time
  std::string pattern;                 ///< "": none; else also this pattern's dyadic block ranks at n = T
  std::uint64_t mem_limit = 0;         ///< bytes; 0: the process default
};
struct LogLinearResult {
  LogLinearSummary summary;
  DyadicRanks pattern_dyadic;  ///< with a pattern
  Document document;
};
/// O(T) for the summary, O(T^3) for the numeric ranks (T <= numeric_limit) and the pattern's.
LogLinearResult loglinear(const LogLinearQuery& q);

struct SsmQuery {
  std::string n;            ///< the sequence length
  std::string state, p, d;  ///< a random SSM's N, p, d (or, given, checked against the matrices)
  std::string matrices;     ///< "A.mtx,B.mtx,C.mtx"
  std::string example;      ///< "rotation": the rank-gap example
  std::uint64_t seed = 1;
  double tol = 0.0;  ///< relative tolerance on sigma_l / sigma_1 (0: 1e-8)
  std::uint64_t mem_limit = 0;
};
struct SsmResult {
  InteractionRank rank;
  std::uint64_t n = 0, state = 0, p = 0, d = 0;
  std::uint64_t bound = 0;  ///< min(N, pd, n)
  std::string source;       ///< where the matrices came from, in words
  Document document;
};
/// The interaction rank of the n x n block interaction map: an SVD of the n x pd lag stack.
SsmResult ssm_rank(const SsmQuery& q);

struct HeadsQuery {
  std::vector<std::string> patterns;  ///< one per head
  std::string n, p, d;                ///< tokens (<= 1024), output and input channels (p d <= 4096)
  std::uint64_t seed = 1;             ///< head h: seed + h
  double tol = 0.0;
  std::uint64_t mem_limit = 0;
};
struct HeadsResult {
  InteractionRank rank;
  Document document;
};
/// The interaction rank of sum_h [(I - B_h)^{-1} A_h]_ij V_h: an SVD of the n(n+1)/2 x pd pair stack.
HeadsResult heads_rank(const HeadsQuery& q);

/// The interaction-rank fields of the ssm and heads documents.
ojson interaction_json(const InteractionRank& r);

}  // namespace mixgraph::analysis
