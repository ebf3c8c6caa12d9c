// mixgraph gallery: one table comparing mixer designs at one n (decode cost, cache, diameter, copy
// congestion bounds, max cut rank); docs/gallery.md is its output.
#include <iostream>
#include <memory>

#include "congestion_text.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/stack_congestion.hpp"
#include "mixgraph/sweep.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"
#include "result_json.hpp"

namespace mixgraph::cli {
namespace {

/// The default designs: the papers' patterns, the sparse-attention families used in practice, per-head
/// patterns and a hybrid stack of SSM and window-attention layers.
const std::vector<std::string> kDesigns = {"ssm",
                                           "window:64",
                                           "dilated:16,4",
                                           "strided:32,64",
                                           "pow2",
                                           "pow2+cache",
                                           "sq1+cache",
                                           "window:60|sink:4",
                                           "block:64",
                                           "bigbird:32,4,28",
                                           "loglinear",
                                           "attention",
                                           "heads:window:64;pow2+cache",
                                           "stack:ssm,window:64,ssm,window:64"};

/// Stack distances that need every source refuse more relaxations than this (as `distances` does).
constexpr std::uint64_t kStackAllPairsWork = std::uint64_t{1} << 36;

struct GalleryOptions {
  CommonOptions common;
  std::vector<std::string> patterns;
  std::string n_text = "4096";
  std::uint64_t cuts = 16;
  bool markdown = false;
};

struct Row {
  std::string spec;
  ojson j;
  std::vector<std::string> cells;  ///< text and Markdown cells (`*`, `impossible`, `-`)
  std::vector<std::string> csv;    ///< CSV cells: numbers, `inf` when unreachable, empty when missing
};

/// The congestion, rank and summary cells shared by single layers and stacks.
void fill_row(Row& r, const CongestionResult& cong, std::uint32_t max_cut_rank, pos_t argmax_cut) {
  auto opt = [](const std::optional<std::uint32_t>& v) { return v ? ojson(*v) : ojson(nullptr); };
  r.j["copy_possible"] = cong.copy_possible;
  r.j["copy_distance"] = cong.copy_possible ? ojson(cong.copy_distance) : ojson(nullptr);
  r.j["copy_congestion_lower"] = cong.copy_possible ? ojson(cong.lower_bound) : ojson(nullptr);
  r.j["copy_congestion_lower_from"] = cong.copy_possible ? ojson(cong.lower_bound_name) : ojson(nullptr);
  r.j["copy_congestion_upper"] = opt(cong.upper_bound);
  r.j["copy_congestion_upper_from"] =
      cong.copy_possible && cong.upper_bound ? ojson(cong.best_routing) : ojson(nullptr);
  r.j["max_cut_rank"] = max_cut_rank;
  r.j["max_cut_rank_at"] = argmax_cut;
  r.cells.push_back(cong.copy_possible ? std::to_string(cong.copy_distance) : "-");
  r.cells.push_back(cong.copy_possible ? std::to_string(cong.lower_bound) : "impossible");
  r.cells.push_back(cong.copy_possible ? bound_or_dash(cong.upper_bound) : "-");
  r.cells.push_back(std::to_string(max_cut_rank));
  const std::string upper = cong.copy_possible && cong.upper_bound ? std::to_string(*cong.upper_bound) : "";
  r.csv.insert(r.csv.end(), {cong.copy_possible ? std::to_string(cong.copy_distance) : "inf",
                             cong.copy_possible ? std::to_string(cong.lower_bound) : "", upper,
                             std::to_string(max_cut_rank), r.j["unreachable_pairs"].dump(),
                             bool_cell(cong.copy_possible)});
}

/// The cells every row starts with: the spec, decode cost, cache and diameter (text: `*` marks unreachable
/// pairs; CSV: the number, the unreachable pairs in their own column).
template <class Profile>  // PatternProfile or StackProfile
void start_cells(Row& r, const Profile& prof, const DistanceSummary& dist) {
  r.cells = {r.spec, std::to_string(prof.total_decode_cost), std::to_string(prof.max_decode_cost),
             std::to_string(prof.max_cache),
             std::to_string(dist.diameter) + (dist.unreachable_pairs ? "*" : "")};
  r.csv = {r.spec, std::to_string(prof.total_decode_cost), std::to_string(prof.max_decode_cost),
           std::to_string(prof.max_cache), std::to_string(dist.diameter)};
}

Row analyse(const std::string& spec, std::uint64_t n, const GalleryOptions& o) {
  const std::uint64_t limit = o.common.mem_limit_bytes();
  const PatternSpec tree = parse_pattern_spec(spec, false);  // the one parse: the estimate and the build
  check_memory(estimate_pattern_bytes(tree, n, false), limit,
               "pattern " + spec + " at n = " + std::to_string(n));
  const Pattern p = make_pattern(tree, n);
  ProfileOptions po;
  po.threads = o.common.threads;
  po.per_position = false;
  const auto prof = cache_profile(p, po);

  AllPairsOptions ap;
  ap.threads = o.common.threads;
  ap.eccentricities = false;
  ap.mem_limit = limit;
  const DistanceSummary dist = distance_summary(p, ap);

  CongestionOptions co;
  co.mem_limit = limit;
  const auto cong = analyse_congestion(spec, n / 2, co);

  CutRankParams cp;
  cp.method = CutRankMethod::Flow;
  cp.cuts = spaced_cuts(p.n, o.cuts);
  cp.mem_limit = limit;
  const auto rank = cut_rank_profile(p, cp);

  Row r;
  r.spec = spec;
  r.j = {{"pattern", spec},
         {"family", to_string(p.family)},
         {"a_mode", to_string(p.a_mode)},
         {"total_decode_cost", prof.total_decode_cost},
         {"max_decode_cost", prof.max_decode_cost},
         {"max_cache", prof.max_cache},
         {"diameter", dist.diameter},
         {"unreachable_pairs", dist.unreachable_pairs}};
  if (json::is_loglinear(p)) {
    // the columns are the mask's (attention's): say so in the row, and give log-linear attention's own state
    r.j["figures_of"] = "the mask (attention's): decode cost and cache count positions";
    r.j["decode_state"] = json::decode_state(p.n);
  }
  start_cells(r, prof, dist);
  if (json::is_loglinear(p)) r.cells[0] += " (mask)";
  fill_row(r, cong, rank.max_cut_rank, rank.argmax_cut);
  return r;
}

/// Below the table: what a `loglinear` row's columns measure, and the decode state of log-linear attention.
std::string loglinear_footnote(const std::vector<Row>& rows, bool markdown) {
  for (const auto& r : rows) {
    if (!r.j.contains("decode_state")) continue;
    const auto& d = r.j["decode_state"];
    const std::string name = markdown ? "`loglinear` (mask)" : "loglinear (mask)";
    return name +
           ": the columns are those of its mask, attention's (decode cost and cache count positions). " +
           "Log-linear attention itself decodes from Fenwick-bucket states: at most " +
           d["max_states"].dump() + " states read per token (" + d["max_kept_states"].dump() +
           " kept between tokens), over " + d["levels"].dump() + " levels, each " +
           d["state_shape"].get<std::string>() + " (`decode_state` in --format json).\n";
  }
  return "";
}

/// A stack:P1,P2,... design, as `pattern`, `distances`, `congestion` and `rank --method flow` give it:
/// decode cost and cache summed over layers, the diameter from layer-0 inputs to the last layer's outputs,
/// the copy task across the layers on n/2 + n/2 tokens, the flow rank of the product operator.
Row analyse_stack(const std::string& spec, std::uint64_t n, const GalleryOptions& o) {
  const std::uint64_t limit = o.common.mem_limit_bytes();
  const PatternSpec tree = parse_pattern_spec(spec);  // the one parse: the estimate and the build
  check_memory(estimate_stack_bytes(tree, n), limit, "pattern " + spec + " at n = " + std::to_string(n));
  const Stack s = make_stack(tree, n);
  ProfileOptions po;
  po.threads = o.common.threads;
  po.per_position = false;
  const auto prof = stack_profile(s, po);
  StackDistanceOptions dop;
  dop.threads = o.common.threads;
  dop.mem_limit = limit;
  dop.max_work = kStackAllPairsWork;
  const DistanceSummary dist = stack_distance_summary(s, dop).by_depth.back();
  StackCongestionOptions co;
  co.mem_limit = limit;
  const auto cong = analyse_stack_congestion(spec, n / 2, co);
  StackRankOptions ro;
  ro.numeric = false;
  ro.cuts = spaced_cuts(s.n, o.cuts);
  ro.mem_limit = limit;
  const auto rank = stack_cut_ranks(s, ro);
  std::string a_mode = to_string(s.layers[0]->a_mode);
  for (const auto& l : s.layers)
    if (to_string(l->a_mode) != a_mode) a_mode = "mixed";
  Row r;
  r.spec = spec;
  r.j = {{"pattern", spec},
         {"family", "stack"},
         {"a_mode", a_mode},
         {"depth", s.depth()},
         {"total_decode_cost", prof.total_decode_cost},
         {"max_decode_cost", prof.max_decode_cost},
         {"max_cache", prof.max_cache},
         {"diameter", dist.diameter},
         {"unreachable_pairs", dist.unreachable_pairs}};
  start_cells(r, prof, dist);
  fill_row(r, cong.base, rank.max_cut_rank, rank.argmax_cut);
  return r;
}

int run_gallery(const GalleryOptions& o) {
  o.common.apply();
  const std::uint64_t n = parse_count(o.n_text, "--n");
  if (n < 4) throw UsageError("--n must be >= 4 (the copy task runs on n/2 + n/2 tokens)");
  validate_n(n);
  if (o.cuts < 1) throw UsageError("--cuts must be >= 1");
  const auto& specs = o.patterns.empty() ? kDesigns : o.patterns;
  for (const auto& s : specs)
    if (is_mtx_spec(s))
      throw UsageError("gallery runs every design at one --n: mtx: patterns have their own n");
  nlohmann::json params = {{"n", n}, {"cuts", o.cuts}, {"patterns", specs}, {"format", o.common.format}};
  std::vector<Row> rows;
  for (const auto& s : specs) {
    if (stderr_is_tty()) std::cerr << "\r[gallery] " << s << " ..." << std::string(20, ' ') << std::flush;
    rows.push_back(is_stack_spec(s) ? analyse_stack(s, n, o) : analyse(s, n, o));
  }
  if (stderr_is_tty()) std::cerr << "\r" << std::string(60, ' ') << "\r";
  const std::vector<std::string> header = {"pattern",       "total decode",  "max decode",
                                           "max cache",     "diameter",      "copy dist",
                                           "copy cong. >=", "copy cong. <=", "max cut rank"};
  if (o.markdown) {
    std::cout << "| " << header[0];
    for (std::size_t c = 1; c < header.size(); ++c) std::cout << " | " << header[c];
    std::cout << " |\n|";
    for (std::size_t c = 0; c < header.size(); ++c) std::cout << (c ? "---:|" : "---|");
    std::cout << "\n";
    for (const auto& r : rows) {
      std::string name;  // a | inside a cell must be escaped in Markdown
      for (char c : r.spec) name += c == '|' ? std::string("\\|") : std::string(1, c);
      std::cout << "| `" << name << "`" << r.cells[0].substr(r.spec.size());  // the spec, then its label
      for (std::size_t c = 1; c < r.cells.size(); ++c) std::cout << " | " << r.cells[c];
      std::cout << " |\n";
    }
    if (const auto note = loglinear_footnote(rows, true); !note.empty()) std::cout << "\n" << note;
    return 0;
  }
  switch (o.common.fmt()) {
    case Format::Json: {
      auto j = json_header("gallery", 1, params);
      j["n"] = n;
      j["designs"] = ojson::array();
      for (const auto& r : rows) j["designs"].push_back(r.j);
      print_json(std::cout, j);
      break;
    }
    case Format::Csv: {
      Table t({"pattern", "total_decode_cost", "max_decode_cost", "max_cache", "diameter", "copy_distance",
               "copy_congestion_lower", "copy_congestion_upper", "max_cut_rank", "unreachable_pairs",
               "copy_possible"});
      for (const auto& r : rows) t.add(r.csv);
      t.print_csv(std::cout);
      break;
    }
    case Format::Table: {
      Table t(header);
      for (const auto& r : rows) t.add(r.cells);
      std::cout << "designs at n = " << n << "\n\n";
      t.print_text(std::cout);
      if (const auto note = loglinear_footnote(rows, false); !note.empty()) std::cout << "\n" << note;
      break;
    }
  }
  return 0;
}

Registrar reg_cmd_gallery(
    "gallery",
    "One table comparing mixer designs at one n: decode cost, cache, diameter, copy congestion, max cut rank",
    95, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<GalleryOptions>();
      app.add_option("--n,-n", o->n_text, "Number of tokens (default 4096); the copy task uses n/2 + n/2")
          ->check(count_text())
          ->type_name(type::kCount);
      app.add_option(
             "--pattern,-p", o->patterns,
             "A design to compare (repeat; default: the built-in list of 14 designs, docs/gallery.md)")
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      app.add_option("--cuts", o->cuts, "Evenly spaced cuts for the max cut rank (Menger flow; default 16)");
      app.add_flag("--markdown", o->markdown, "Print a Markdown table (docs/gallery.md is this output)");
      add_common_options(app, o->common);
      app.footer(
          "\nColumns: total/max decode cost and max cache (docs/math.md §2), diameter over reachable pairs "
          "(* some pairs unreachable), copy distance and the copy congestion lower bound (best of Prop. 4.7 "
          "and the cut bound) and upper bound (best checked routing) on n/2 + n/2 tokens (§4), and the "
          "largest "
          "generic cut rank over --cuts spaced cuts (§5).\nExamples:\n"
          "  mixgraph gallery --n 4096\n"
          "  mixgraph gallery --n 1024 -p window:32 -p 'window:28|sink:4' --format json\n"
          "  mixgraph gallery --n 4096 --markdown > docs/gallery.md");
      return [o] { return run_gallery(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
