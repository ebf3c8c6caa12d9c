// mixgraph._core._head_rows: the per-head fields of a heads:P1;P2;... result (analysis/heads.hpp), as the
// CLI's `distances --summary` and `rank --method flow` give them (python/mixgraph/_tidy.py's "heads" table).
#include <memory>

#include "analysis_call.hpp"
#include "mixgraph/analysis/heads.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern_spec.hpp"

namespace mixgraph::py {
namespace {

/// kind "distances": each head's distance summary; "rank": each head's flow ranks on `cuts` and the sum of
/// the heads (seed 1, the default tolerance). The pattern is built at n as the CLI builds it.
pb::object head_rows(const std::string& kind, const std::string& spec, std::uint64_t n,
                     const std::vector<pos_t>& cuts) {
  if (kind != "distances" && kind != "rank")
    throw UsageError("head rows of 'distances' or 'rank' (got '" + kind + "')");
  auto rows = std::make_shared<nlohmann::ordered_json>();
  run_analysis(0, 0, pb::none(), -1, [kind, spec, n, cuts, rows](Job&) {
    const PatternSpec tree = parse_pattern_spec(spec, false);
    const Pattern p = make_pattern_within(tree, n, 0, "pattern " + spec, {.per_position = true});
    DistanceRouteRequest request;  // `mixgraph distances --summary`'s request for the heads, in its words
    request.all_pairs_words = "add --all-pairs";
    request.one_row_words = "--source j / --target i";
    *rows = kind == "distances" ? analysis::head_distance_rows(p, 0, 0, request)
                                : analysis::heads_sum_json(analysis::heads_sum_ranks(p, cuts, 1, 0.0, 0));
  });
  return document_to_py(*rows);
}

}  // namespace

void bind_heads(pb::module_& m) {
  m.def("_head_rows", &head_rows, pb::arg("kind"), pb::arg("spec"), pb::arg("n"), pb::arg("cuts"),
        "The `heads` field of `mixgraph distances --summary` / `rank --method flow` for a heads: spec.");
}

}  // namespace mixgraph::py
