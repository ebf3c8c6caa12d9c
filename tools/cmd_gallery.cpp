// mixgraph gallery: one table comparing mixer designs at one n (decode cost, cache, diameter, copy
// congestion bounds, max cut rank); docs/gallery.md is its output.
#include <iostream>
#include <memory>
#include <optional>

#include "congestion_text.hpp"
#include "mixgraph/analysis/gallery.hpp"
#include "mixgraph/sweep.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"

namespace mixgraph::cli {
namespace {

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

/// A design's text and CSV cells from its JSON row: the spec, decode cost, cache and diameter (text: `*`
/// marks unreachable pairs; CSV: the number, the unreachable pairs in their own column), then the copy task
/// and the max cut rank.
Row cells_of(const std::string& spec, const ojson& j) {
  Row r;
  r.spec = spec;
  r.j = j;
  const bool unreachable = j["unreachable_pairs"].get<std::uint64_t>() != 0;
  r.cells = {spec + (j.contains("decode_state") ? " (mask)" : ""), j["total_decode_cost"].dump(),
             j["max_decode_cost"].dump(), j["max_cache"].dump(),
             j["diameter"].dump() + (unreachable ? "*" : "")};
  r.csv = {spec, j["total_decode_cost"].dump(), j["max_decode_cost"].dump(), j["max_cache"].dump(),
           j["diameter"].dump()};
  const bool possible = j["copy_possible"].get<bool>();
  const ojson& upper = j["copy_congestion_upper"];
  const std::optional<std::uint32_t> upper_bound =
      upper.is_null() ? std::nullopt : std::optional<std::uint32_t>(upper.get<std::uint32_t>());
  r.cells.push_back(possible ? j["copy_distance"].dump() : "-");
  r.cells.push_back(possible ? j["copy_congestion_lower"].dump() : "impossible");
  r.cells.push_back(possible ? bound_or_dash(upper_bound) : "-");
  r.cells.push_back(j["max_cut_rank"].dump());
  r.csv.insert(r.csv.end(), {possible ? j["copy_distance"].dump() : "inf",
                             possible ? j["copy_congestion_lower"].dump() : "",
                             possible && upper_bound ? std::to_string(*upper_bound) : "",
                             j["max_cut_rank"].dump(), j["unreachable_pairs"].dump(), bool_cell(possible)});
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

int run_gallery(const GalleryOptions& o) {
  o.common.apply();
  analysis::GalleryQuery q;
  q.n = parse_count(o.n_text, "--n");
  q.cuts = o.cuts;
  q.specs = o.patterns;
  q.threads = o.common.threads;
  q.mem_limit = o.common.mem_limit_bytes();
  q.on_design = [](const std::string& s) {
    if (stderr_is_tty()) std::cerr << "\r[gallery] " << s << " ..." << std::string(20, ' ') << std::flush;
  };
  const auto res = analysis::run_gallery(q);
  nlohmann::json params = {
      {"n", res.n}, {"cuts", o.cuts}, {"patterns", res.specs}, {"format", o.common.format}};
  std::vector<Row> rows;
  for (std::size_t d = 0; d < res.designs.size(); ++d) rows.push_back(cells_of(res.specs[d], res.designs[d]));
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
      j.update(analysis::gallery_json(res));
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
      std::cout << "designs at n = " << res.n << "\n\n";
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
      add_count_option(app, "--n,-n", o->n_text,
                       "Number of tokens (default 4096); the copy task uses n/2 + n/2");
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
