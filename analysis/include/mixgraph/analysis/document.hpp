#pragma once
// What the analyses of mixgraph::analysis return: a JSON document (docs/formats.md) that the CLI prints with
// --format json and the Python package hands back as Result.header and Result.to_dict(), and the progress
// callback their queries take.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace mixgraph::analysis {

using ojson = nlohmann::ordered_json;

/// Called after each point of a sweep, row of a table or claim: (what, done, total). Called on the caller's
/// thread between points, never inside a parallel region; it may throw to stop the work (the Python package
/// throws on Ctrl-C), which then unwinds like any error.
using Progress = std::function<void(const std::string& what, std::uint64_t done, std::uint64_t total)>;

/// A result as its JSON document: the header {schema, mixgraph_version, command, parameters} and the body.
struct Document {
  std::string schema;         ///< "rank.ssm": the document's schema is mixgraph.<schema>/1
  std::string command;        ///< "rank ssm": the command that prints it
  nlohmann::json parameters;  ///< the query's parameters (without the output format); keys sorted
  ojson body;                 ///< the fields after the header, in order

  /// The whole document; `format` is the output format the parameters name ("json" from Python).
  ojson json(const std::string& format) const;
};

}  // namespace mixgraph::analysis
