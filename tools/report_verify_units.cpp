// `report` under several MPI ranks: the "verify" section (mixgraph/analysis/report_section.hpp) as units, one
// per claim instance (verify's shards, shard_commands.hpp), rendered on rank 0 from the claims merged in
// order.
#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/claims.hpp"
#include "report_shards.hpp"
#include "shard_commands.hpp"

namespace mixgraph::cli {
namespace {

using analysis::PatternRun;
using analysis::ReportContext;
using analysis::ReportParams;

std::vector<std::string> claim_ids() {
  std::vector<std::string> ids;
  for (const auto& c : registered_claims()) ids.push_back(c.id);
  return ids;
}
std::vector<std::string> verify_units(const ReportParams& params) {
  std::vector<std::string> names;
  for (const auto& s : claim_shards(claim_ids(), analysis::report_claim_context(params)))
    names.push_back(s.name);
  return names;
}
std::vector<double> verify_unit_costs(const ReportParams& params) {
  std::vector<double> costs;
  for (const auto& s : claim_shards(claim_ids(), analysis::report_claim_context(params)))
    costs.push_back(s.cost);
  return costs;
}
std::string verify_unit(const ReportParams& params, const std::vector<PatternRun>&, std::size_t i) {
  const auto ids = claim_ids();
  const auto cc = analysis::report_claim_context(params);
  return run_claim_shard(ids, cc, claim_shards(ids, cc).at(i));
}
void render_verify_units(ReportContext& ctx, const std::vector<std::string>& units) {
  const auto ids = claim_ids();
  const auto cc = analysis::report_claim_context(ctx.params);
  analysis::render_report_verify(ctx, merge_claim_shards(ids, cc, claim_shards(ids, cc), units));
}

}  // namespace

void add_report_units(std::vector<analysis::ReportSection>& sections) {
  for (auto& s : sections)
    if (s.id == "verify") {
      s.units = verify_units;
      s.unit_costs = verify_unit_costs;
      s.unit = verify_unit;
      s.render = render_verify_units;
    }
}

}  // namespace mixgraph::cli
