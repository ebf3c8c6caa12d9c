#pragma once
// One JSON serialiser per analysis result, shared by the CLI (`--format json`) and the Python package
// (`Result.to_dict()`): the field names, their order and the missing-value convention live here only.
// Objects keep insertion order (nlohmann::ordered_json); docs/formats.md and docs/schemas/ describe them.
// Conventions: positions 1-indexed; unreachable and "not computed" are null; booleans are JSON booleans.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mixgraph/congestion.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph {
struct StackProfile;  // mixgraph/stack.hpp
}

namespace mixgraph::json {

using ojson = nlohmann::ordered_json;

/// An optional value as a JSON cell: the value, or null when there is none. J: the JSON type to build.
template <class J = ojson, class T>
J value_or_null(const std::optional<T>& v) {
  return v ? J(*v) : J(nullptr);
}

/// {"schema": "mixgraph.<command>/<schema_version>", "mixgraph_version", "command", "parameters"}: the first
/// four fields of every JSON document (the CLI's json_header, and the Python results' `header`).
ojson header(const std::string& command, int schema_version, const ojson& params);

/// Pretty JSON where arrays of scalars stay on one line (per-position lists of length n stay readable): the
/// CLI's `--format json` output and report.json.
void print(std::ostream& os, const ojson& j);

/// A distance (UNREACHABLE -> null) and a list of them.
ojson distance(std::uint32_t d);
ojson distance_list(const std::vector<std::uint32_t>& d);

/// `mixgraph pattern`: the summary fields (pattern, n, family, a_mode, num_offsets, [offsets], nnz_A, ...);
/// `lists` adds the offsets.
ojson pattern_summary(const Pattern& p, const PatternProfile& s, bool lists);
/// The profile's totals, in this order: nnz_A, nnz_B, total_decode_cost, max_decode_cost, max_cache,
/// max_cache_position (1-indexed); of one pattern, or of a stack (summed or maximised over its layers).
void add_profile_totals(ojson& j, const PatternProfile& s);
void add_profile_totals(ojson& j, const StackProfile& s);
/// `loglinear` is attention's mask, so the fields above are attention's; decode_state(n) is the decode
/// state of log-linear attention itself (loglinear_decode_state in hierarchical.hpp): `model`, `levels`,
/// `max_states`, `max_states_position`, `max_kept_states`, `total_states`, `state_shape`, `note`.
/// pattern_summary adds it as `decode_state` for `loglinear` only; gallery and report rows too.
bool is_loglinear(const Pattern& p);
ojson decode_state(std::uint64_t n);
/// The per-position lists of `pattern --profile`: decode_cost, cache_size[, kept_set_size].
void add_pattern_profile(ojson& j, const Pattern& p, const PatternProfile& s);

/// `mixgraph distances` at one n: what was computed.
struct DistancesResult {
  const Pattern* pattern = nullptr;
  bool translation_invariant = false;
  bool summary_only = false;  ///< --summary: no per-position lists
  bool has_summary = false;   ///< diameter, mean, histogram computed
  std::string figures_from;   ///< "profile" or "all-pairs"
  DistanceSummary sum;
  bool has_profile = false;
  std::vector<std::uint32_t> profile;   ///< delta(m), m = 0..n-1
  std::optional<pos_t> source, target;  ///< 0-indexed
  std::vector<std::uint32_t> from, to;
  bool counts = false;
  PathCounts path_counts;
  std::string matrix_file;  ///< "" = none
};
/// `lists` = false leaves out the per-position lists (profile, eccentricity, dist, ...) whatever was
/// computed (the Python package's cheap view of the scalars).
ojson distances(const DistancesResult& d, bool lists = true);
/// A menu growth fit (fit_growth): class, scale, relative_residual, runner_up, runner_up_residual,
/// ambiguous, residuals.
ojson menu_fit(const GrowthFit& f);
/// The free-exponent fit (fit_power) behind a `--sweep` label: label, decided_class, exponent,
/// exponent_interval, confidence, log_power, log_decided, lower_order_exponent, relative_rms,
/// other_log_relative_rms, points, bound_exponent (`bound` < 0: none known, null).
ojson power_fit(const PowerFit& f, double bound);
/// `mixgraph distances --sweep`: {"sweep": [{pattern, rows, growth}]}; growth.<quantity> is menu_fit with
/// `free` = power_fit.
ojson path_lengths(const std::vector<PathLengthTable>& tables);

/// `mixgraph congestion` for one (pattern, N); `loads` adds each routing's per-position loads.
ojson congestion(const CongestionResult& r, bool loads);

/// The contrast of `mixgraph rank`: a translation-invariant pattern against its +cache variant (or back),
/// on the same cuts, by flow. nullopt when the pattern has no such partner or n > 2^16.
struct RankContrast {
  std::string pattern;
  std::uint32_t max_cut_rank = 0;
  pos_t max_cut_rank_at = 0;
  std::uint32_t max_cache = 0;
};
std::optional<RankContrast> rank_contrast(const Pattern& p, const CutRankProfile& r, std::uint64_t seed,
                                          std::uint64_t mem_limit);
/// Cuts with r(K) = min(K, n-K) (flow if computed, else numeric).
std::size_t full_rank_cuts(const CutRankProfile& r, pos_t n);
/// The one-line finding and the weights note of `mixgraph rank`.
std::string rank_finding(const CutRankProfile& r, pos_t n);
std::string rank_weights_note(const CutRankProfile& r);
ojson dyadic(const DyadicRanks& d);
/// `mixgraph rank --pattern P`: every field after the header.
ojson cut_ranks(const Pattern& p, const CutRankProfile& r, const std::optional<RankContrast>& contrast,
                const DyadicRanks* dyadic_blocks);

}  // namespace mixgraph::json
