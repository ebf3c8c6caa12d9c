#pragma once
// The claim registry behind `mixgraph verify`: the papers' propositions, each checked numerically with
// mixgraph's own analyses (never a re-implementation inside the check).
//
//   for (const auto& r : mixgraph::run_claims({"fagnou.prop4.12"}, ctx)) ...
//
// Adding a claim is one small file in lib/claims/: define a Claim and register it with a ClaimRegistrar.
// lib/claims/ is an object library linked straight into the CLI and the tests, so every registrar runs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mixgraph {

struct ClaimContext {
  std::vector<std::string> patterns;  ///< restrict to these patterns (empty: the claim's own defaults)
  std::uint64_t n_max = 0;  ///< largest n to check (0: the claim's default; 1: an empty range, ERROR)
  int threads = 0;
  /// Test hook: corrupt the first measured value the check compares (e.g. +1), so tests can see that every
  /// check is able to report FAILED. Never set by the CLI.
  bool perturb = false;
};

/// A pattern (or instance) outside a claim's scope, skipped with the reason.
struct ClaimSkip {
  std::string pattern;
  std::string reason;
};

/// What a check returns. The verdict is not the check's to choose: run_claims derives it from these fields
/// with one rule for every claim (claim_verdict):
///   FAILED          a counterexample was found (`counterexample` set; only genuine counterexamples);
///   PASSED          no counterexample and at least one instance checked (`instances` > 0);
///   NOT APPLICABLE  nothing checked, and every pattern asked for is out of scope (`not_applicable`);
///   ERROR           the check threw, or nothing was checked for another reason (empty range).
struct ClaimOutcome {
  std::optional<bool> passed;                 ///< set by run_claims: true PASSED, false FAILED, else nullopt
  std::string checked;                        ///< what range was checked, e.g. "pow2, sq1; n = 2..4096"
  std::string worst;                          ///< the measured extreme value, in words
  std::optional<std::string> counterexample;  ///< the first counterexample(s) when failed
  std::optional<std::string> error;           ///< why the check could not run (ERROR)
  std::string detail;                         ///< extra findings (fits, corrected bounds, ...)
  std::uint64_t instances = 0;                ///< instances (patterns x lengths, cuts, ...) actually checked
  std::vector<ClaimSkip> not_applicable;      ///< patterns skipped as out of scope, with the reason
  std::string verdict;                        ///< set by run_claims: PASSED, FAILED, NOT APPLICABLE, ERROR
};

/// The verdict of an outcome by the rules above (ignores `passed` and `verdict`).
std::string claim_verdict(const ClaimOutcome& o);

struct Claim {
  std::string id;          ///< e.g. "fagnou.prop4.7"
  std::string source;      ///< e.g. "Fagnou et al., arXiv 2605.31367"
  std::string number;      ///< e.g. "Prop. 4.7"
  std::string statement;   ///< in words
  std::string applies_to;  ///< patterns and n range
  std::function<ClaimOutcome(const ClaimContext&)> check;
  /// The largest n the check may be asked for (0: no limit of its own). For checks whose work grows faster
  /// than n (every pair, every cut): run_claims clamps a larger ctx.n_max to it, and `checked` says so.
  std::uint64_t n_limit = 0;
};

struct ClaimResult {
  Claim claim;  ///< without calling check again
  ClaimOutcome outcome;
  double seconds = 0;
};

/// Every registered claim, sorted by id.
std::vector<Claim> registered_claims();

/// Runs the claims with these ids (empty: all). An unknown id throws UsageError listing the valid ones.
/// A check that throws becomes an ERROR outcome with the exception's message. Every outcome gets its
/// verdict from claim_verdict, `passed` to match, and an `error` saying why when nothing was checked.
/// An n_max above a claim's n_limit is clamped to it, noted at the end of `checked`.
std::vector<ClaimResult> run_claims(const std::vector<std::string>& ids, const ClaimContext& ctx);

struct ClaimRegistrar {
  explicit ClaimRegistrar(Claim c);
};

}  // namespace mixgraph
