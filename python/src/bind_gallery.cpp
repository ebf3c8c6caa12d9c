// mixgraph._core._gallery: the gallery's query (analysis/gallery.hpp) called directly, its result the
// document of `mixgraph gallery --format json` (python/mixgraph/_gallery.py makes the DataFrame).
#include <memory>

#include "analysis_call.hpp"
#include "mixgraph/analysis/gallery.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::py {
namespace {

/// The arguments are the CLI's option values as text (n: "4096" or "2^12"; threads and mem_limit: "" when
/// not given), checked as the CLI checks them.
pb::object gallery(const std::vector<std::string>& specs, const std::string& n, const std::string& cuts,
                   const std::string& threads, const std::string& mem_limit) {
  cli_count_text(n, "--n");
  for (const auto& s : specs) cli_pattern_spec(s, "--pattern");
  analysis::GalleryQuery q;
  q.specs = specs;
  q.cuts = cli_u64(cuts, "--cuts");
  q.threads = cli_threads(threads.empty() ? "0" : threads);
  q.mem_limit = cli_mem_limit(mem_limit);
  q.n = parse_count(n, "--n");
  auto res = std::make_shared<analysis::GalleryResult>();
  run_analysis(q.threads, q.mem_limit, pb::none(), -1, [q, res](Job& job) {
    analysis::GalleryQuery qj = q;
    qj.on_design = [&job](const std::string& s) { job.stage(s); };  // Ctrl-C: stops before the next design
    *res = analysis::run_gallery(qj);
  });
  const nlohmann::json params = {
      {"n", res->n}, {"cuts", q.cuts}, {"patterns", res->specs}, {"format", "json"}};
  auto doc = json::header("gallery", 1, params);
  doc.update(analysis::gallery_json(*res));
  return document_to_py(doc);
}

}  // namespace

void bind_gallery(pb::module_& m) {
  m.def("_gallery", &gallery, pb::arg("specs"), pb::arg("n"), pb::arg("cuts"), pb::arg("threads"),
        pb::arg("mem_limit"),
        "The gallery's rows (`mixgraph gallery --format json`) for specs (empty: the default designs) at n.");
}

}  // namespace mixgraph::py
