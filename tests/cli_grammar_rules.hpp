#pragma once
// The option grammar of docs/cli.md ("Conventions") as a checker over a CLI11 app: walks every subcommand's
// options and returns one line per violation. Used on the real CLI and on planted violations.
#include <CLI/CLI.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mixgraph::test {

/// (command path, old spelling), e.g. ("rank loglinear", "--T"): the rows of docs/cli.md's alias table.
using AliasTable = std::set<std::pair<std::string, std::string>>;

/// Reads the table under the heading "## Aliases" of a Markdown text: first cell the command path in
/// backticks, second cell the old spellings in backticks.
AliasTable parse_alias_table(const std::string& markdown);

/// Every violation of the naming rules in `root` and its subcommands (probes parse `root` with trial
/// values, so the bound variables change): "<command> <option>: <rule>".
std::vector<std::string> grammar_violations(CLI::App& root, const AliasTable& aliases);

/// The options every command shares (add_common_options): docs/cli.md's "Conventions" documents them once.
inline const std::set<std::string> kSharedOptions = {"--format", "--threads", "--mem-limit"};

/// Every long option name of `root`'s subcommands that docs/cli.md (`markdown`) does not document: not in
/// the command's own section (the heading "## `mixgraph <command path>`" or "### ...", up to the next
/// command heading or "## " heading), not an old spelling of that command in the alias table, and not a
/// shared option (kSharedOptions) that the "## Conventions" section names. "<command> <--name>: <why>".
std::vector<std::string> undocumented_options(const CLI::App& root, const std::string& markdown);

}  // namespace mixgraph::test
