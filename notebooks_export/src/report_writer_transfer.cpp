// ReportWriter::export_section / import_section: a section computed by another process (an MPI rank) is
// appended to the report's writer exactly as if it had run there (report_writer.hpp).
#include <bit>
#include <cstdint>

#include "mixgraph/error.hpp"
#include "mixgraph/report_writer.hpp"

namespace mixgraph {

namespace {

using json = nlohmann::json;

/// Doubles travel as their bit pattern (std::bit_cast): NaN and every digit survive.
json cell_state(const Cell& c) {
  return json::array({static_cast<int>(c.kind), c.i, std::bit_cast<std::uint64_t>(c.d), c.s, c.digits});
}
Cell cell_from(const json& j) {
  Cell c;
  c.kind = static_cast<Cell::Kind>(j.at(0).get<int>());
  c.i = j.at(1).get<std::int64_t>();
  c.d = std::bit_cast<double>(j.at(2).get<std::uint64_t>());
  c.s = j.at(3).get<std::string>();
  c.digits = j.at(4).get<int>();
  return c;
}

json block_state(const ReportBlock& b) {
  json rows = json::array();
  for (const auto& row : b.table.rows) {
    json r = json::array();
    for (const auto& c : row) r.push_back(cell_state(c));
    rows.push_back(std::move(r));
  }
  return {{"kind", static_cast<int>(b.kind)},
          {"level", b.level},
          {"text", b.text},
          {"table", {{"name", b.table.name}, {"caption", b.table.caption}, {"columns", b.table.columns}}},
          {"rows", std::move(rows)},
          {"show_rows", b.show_rows},
          {"path", b.path},
          {"other_files", b.other_files},
          {"data", b.data},
          {"code", b.code}};
}
ReportBlock block_from(const json& j) {
  ReportBlock b;
  b.kind = static_cast<ReportBlock::Kind>(j.at("kind").get<int>());
  b.level = j.at("level").get<int>();
  b.text = j.at("text").get<std::string>();
  b.table.name = j.at("table").at("name").get<std::string>();
  b.table.caption = j.at("table").at("caption").get<std::string>();
  b.table.columns = j.at("table").at("columns").get<std::vector<std::string>>();
  for (const auto& r : j.at("rows")) {
    std::vector<Cell> row;
    for (const auto& c : r) row.push_back(cell_from(c));
    b.table.rows.push_back(std::move(row));
  }
  b.show_rows = j.at("show_rows").get<std::size_t>();
  b.path = j.at("path").get<std::string>();
  b.other_files = j.at("other_files").get<std::vector<std::string>>();
  b.data = j.at("data").get<std::string>();
  b.code = j.at("code").get<std::string>();
  return b;
}

}  // namespace

json ReportWriter::export_section(const std::string& id) const {
  json blocks = json::array();
  std::string title;
  int order = 0;
  for (const auto& s : sections_)
    if (s.id == id) {
      title = s.title;
      order = s.order;
      for (const auto& b : s.blocks) blocks.push_back(block_state(b));
    }
  json notes = json::array();
  for (const auto& n : notes_) notes.push_back(json::array({n.kind, n.text}));
  json figures = json::array();
  for (const auto& f : figures_)
    figures.push_back(json::array({f.path, f.width_px, f.height_px, std::bit_cast<std::uint64_t>(f.font_px),
                                   std::bit_cast<std::uint64_t>(f.min_font_px)}));
  return {{"id", id},        {"title", title},     {"order", order}, {"blocks", std::move(blocks)},
          {"files", files_}, {"figures", figures}, {"notes", notes}, {"carry_on", carry_on_}};
}

void ReportWriter::import_section(const json& state) {
  try {
    section(state.at("id").get<std::string>(), state.at("title").get<std::string>(),
            state.at("order").get<int>());
    auto& blocks = current().blocks;
    for (const auto& b : state.at("blocks")) blocks.push_back(block_from(b));
    for (const auto& f : state.at("files")) record(f.get<std::string>());
    for (const auto& f : state.at("figures"))
      figures_.push_back({f.at(0).get<std::string>(), f.at(1).get<int>(), f.at(2).get<int>(),
                          std::bit_cast<double>(f.at(3).get<std::uint64_t>()),
                          std::bit_cast<double>(f.at(4).get<std::uint64_t>())});
    for (const auto& n : state.at("notes")) note(n.at(0).get<std::string>(), n.at(1).get<std::string>());
    for (const auto& c : state.at("carry_on")) carry_on_.push_back(c.get<std::string>());
  } catch (const json::exception& e) {
    throw RuntimeFailure(std::string("a report section's state arrived malformed: ") + e.what());
  }
}

}  // namespace mixgraph
