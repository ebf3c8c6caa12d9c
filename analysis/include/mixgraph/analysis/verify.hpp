#pragma once
// `mixgraph verify` / mixgraph.verify: the papers' propositions checked numerically, one claim at a time
// (claims.hpp), and the verdict counts. A failed claim is a finding, not an error.
#include <string>
#include <vector>

#include "mixgraph/analysis/document.hpp"
#include "mixgraph/claims.hpp"

namespace mixgraph::analysis {

struct VerifyQuery {
  std::vector<std::string> claims;    ///< ids; empty: every registered claim, in the registry's order
  std::vector<std::string> patterns;  ///< restrict the claims to these specs (each must parse)
  std::string n_max;                  ///< the largest n, 2..2^24 ("": each claim's own range)
  int threads = 0;
  Progress progress;  ///< as each claim starts: (id, claims started, claims)
};

/// The claims to run, in order.
std::vector<std::string> verify_claim_ids(const VerifyQuery& q);
/// The claims' context after the checks: each pattern parses and builds (UsageError with the parser's
/// message), n_max in 2..2^24. Its `specs` keeps the parsed patterns (and, as the claims run, their own),
/// so a run of claims with this context parses each distinct spec once.
ClaimContext verify_context(const VerifyQuery& q);
/// The verdict word of a result: PASSED, FAILED, NOT APPLICABLE or ERROR.
std::string verify_status(const ClaimOutcome& o);
/// The document of the finished claims: `claims` (one record each) and `summary` (counts per verdict).
Document verify_document(const VerifyQuery& q, const ClaimContext& ctx,
                         const std::vector<ClaimResult>& results);

struct VerifyResult {
  std::vector<ClaimResult> results;
  Document document;
};
/// Every claim in this process, one at a time.
VerifyResult verify(const VerifyQuery& q);

}  // namespace mixgraph::analysis
