#pragma once
// The gallery: mixer designs side by side at one n (decode cost, cache, diameter, copy congestion bounds, max
// cut rank), one JSON row per design. `mixgraph gallery` prints it (table, CSV, Markdown or JSON) and
// mixgraph.gallery() returns it as a DataFrame; both call run_gallery.
//
//   mixgraph::analysis::GalleryQuery q;
//   q.specs = {"pow2", "window:64"};
//   q.n = 1024;
//   auto r = mixgraph::analysis::run_gallery(q);  // r.designs[0]["max_decode_cost"] == 10 ...
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mixgraph::analysis {

/// The default designs (docs/gallery.md): the papers' patterns, the sparse-attention families used in
/// practice, per-head patterns and a hybrid stack of SSM and window-attention layers.
const std::vector<std::string>& gallery_default_designs();

struct GalleryQuery {
  std::vector<std::string>
      specs;                    ///< the designs (single layers, unions, heads:, stack:); empty: the defaults
  std::uint64_t n = 4096;       ///< tokens, >= 4 (the copy task runs on n/2 + n/2)
  std::uint64_t cuts = 16;      ///< evenly spaced cuts for the max cut rank, >= 1
  int threads = 0;              ///< 0: all cores
  std::uint64_t mem_limit = 0;  ///< bytes; 0: the process default (mixgraph/memory.hpp)
  /// Called as each design starts (its spec); may throw to stop the gallery there.
  std::function<void(const std::string& spec)> on_design;
};

struct GalleryResult {
  std::uint64_t n = 0;
  std::vector<std::string> specs;  ///< the designs run, in order (the defaults when none were given)
  std::vector<nlohmann::ordered_json> designs;  ///< one row per design: the `designs` entries of the JSON
};

/// Checks the query (UsageError, before any work: n < 4 or out of range, cuts < 1, an mtx: design) and runs
/// every design: its profile, distance summary (all-pairs when not translation-invariant; a stack's from
/// layer-0 inputs to the last layer), copy task on n/2 + n/2 tokens and flow cut ranks at `cuts` cuts.
GalleryResult run_gallery(const GalleryQuery& q);

/// The fields of `mixgraph gallery --format json` after its header: `n` and `designs`.
nlohmann::ordered_json gallery_json(const GalleryResult& r);

}  // namespace mixgraph::analysis
