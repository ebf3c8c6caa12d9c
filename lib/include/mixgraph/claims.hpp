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
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/pattern_spec.hpp"

namespace mixgraph {

/// The parsed pattern specs of one run of claims: each distinct spec parsed once, however many claims,
/// instances and lengths build it (a spec with blanks around it shares the parse of the spec trimmed); the
/// claims build every n from these trees. Thread-safe.
class ClaimSpecs {
 public:
  /// The tree of `spec`: parse_pattern_spec(spec, false) on its first use, kept after (a spec that does not
  /// parse throws that UsageError and is not kept). The reference lives as long as this object.
  const PatternSpec& tree(const std::string& spec);
  /// Keep a tree the caller has parsed from `spec` (a spec kept already keeps its tree).
  void add(const std::string& spec, PatternSpec tree);

 private:
  /// Keeps `tree` under `spec` and under its text (unless kept already); the entry of `spec`.
  std::map<std::string, PatternSpec>::iterator keep(const std::string& spec, PatternSpec tree);

  std::mutex mutex_;
  std::map<std::string, PatternSpec> trees_;  // node-based: references stay valid as trees are added
};

struct ClaimContext {
  std::vector<std::string> patterns;  ///< restrict to these patterns (empty: the claim's own defaults)
  /// The parsed specs (the asked patterns and the claims' own), shared by the copies of this context: the
  /// caller may fill it with the trees it parsed; unset, run_claims (and each single-claim entry point
  /// below) makes one for its call.
  std::shared_ptr<ClaimSpecs> specs;
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

/// One instance's findings (a claim split into instances, see ClaimInstances). Parts merge in instance
/// order into the findings of the whole check, with one rule for every claim (merge_claim_parts):
/// counts and `sum` add up, the first `keep` counterexamples are kept and all are counted, the first part
/// with the strictly largest `worst` gives `worst` and `worst_at`, skips are appended (a pattern skipped
/// again by the next part is listed once), the first nonempty `note` is kept, and the first `error` wins.
struct ClaimPart {
  std::uint64_t checked = 0;                 ///< what this part checked (cuts, pairs, ...)
  std::vector<std::string> counterexamples;  ///< the first ones found, in order
  std::uint64_t counterexample_count = 0;    ///< all found
  double worst = 0;                          ///< the measured extreme (largest wins)
  std::string worst_at;                      ///< where, in words ("" until something was measured)
  double sum = 0;                            ///< a total added in instance order (e.g. failure bounds)
  std::vector<ClaimSkip> not_applicable;     ///< patterns this part skipped as out of scope
  std::string note;                          ///< free text for the outcome (e.g. a contrast figure)
  std::optional<std::string> error;          ///< the part threw: the whole claim is an ERROR
  double seconds = 0;                        ///< wall time of the part
  void add_counterexample(const std::string& s, std::size_t keep = 5);
};

/// The parts of a claim merged in order (the rules above).
ClaimPart merge_claim_parts(const std::vector<ClaimPart>& parts, std::size_t keep = 5);

/// Optional: a claim whose check is made of independent instances ((pattern, n) pairs, ...), each run
/// alone (under MPI each is a shard of its own) and merged into exactly the outcome of the whole check.
struct ClaimInstances {
  /// The instances' names in order, e.g. "pow2 n=384" (ctx.n_max already clamped to the claim's n_limit).
  std::function<std::vector<std::string>(const ClaimContext&)> list;
  /// Instance i alone; ctx.perturb corrupts the first value this instance measures.
  std::function<ClaimPart(const ClaimContext&, std::size_t)> run;
  /// The outcome from every part merged (merge_claim_parts); `checked`, `worst`, `detail` in words.
  std::function<ClaimOutcome(const ClaimContext&, const ClaimPart&)> finish;
  /// The modelled seconds of instance i on one thread (a fit to measured times, for the shard planner).
  std::function<double(const ClaimContext&, std::size_t)> cost;
};

struct Claim {
  std::string id;          ///< e.g. "fagnou.prop4.7"
  std::string source;      ///< e.g. "Fagnou et al., arXiv 2605.31367"
  std::string number;      ///< e.g. "Prop. 4.7"
  std::string statement;   ///< in words
  std::string applies_to;  ///< patterns and n range
  /// The whole check (unset for a claim given by `instances`: then the instances run in order and merge;
  /// ctx.perturb reaches the first instance that checks something).
  std::function<ClaimOutcome(const ClaimContext&)> check;
  /// The largest n the check may be asked for (0: no limit of its own). For checks whose work grows faster
  /// than n (every pair, every cut): run_claims clamps a larger ctx.n_max to it, and `checked` says so.
  std::uint64_t n_limit = 0;
  std::optional<ClaimInstances> instances =
      std::nullopt;  ///< set when the check splits into independent instances
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

/// The context a claim's check sees: ctx with n_max clamped to the claim's n_limit, and `specs` (a new one
/// when ctx has none).
ClaimContext claim_context(const Claim& c, const ClaimContext& ctx);

/// The instances of the claim `id` ({} when it does not split, or its instances cannot be listed: then it
/// runs whole). Unknown id: UsageError as run_claims.
std::vector<std::string> claim_instance_names(const std::string& id, const ClaimContext& ctx);
/// The modelled seconds of each instance of `id` (same length as claim_instance_names).
std::vector<double> claim_instance_costs(const std::string& id, const ClaimContext& ctx);
/// Instance i of the claim `id` alone; an exception becomes the part's `error`.
ClaimPart run_claim_instance(const std::string& id, const ClaimContext& ctx, std::size_t i);
/// The claim `id`'s result from its parts in instance order: exactly run_claims({id}, ctx)'s result (with
/// ctx.perturb: when the parts were perturbed as run_claims perturbs them), but `seconds`, the sum of the
/// parts'.
ClaimResult merge_claim_instances(const std::string& id, const ClaimContext& ctx,
                                  const std::vector<ClaimPart>& parts);

struct ClaimRegistrar {
  explicit ClaimRegistrar(Claim c);
};

}  // namespace mixgraph
