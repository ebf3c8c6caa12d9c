#include "cli_grammar_rules.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace mixgraph::test {
namespace {

const std::regex kKebab("^[a-z][a-z0-9]*(-[a-z0-9]+)*$");
/// Names that say "a file the command writes": only ever old aliases of -o/--output.
const std::set<std::string> kOutputWords = {"out", "matrix", "paths", "out-file", "output-file", "outfile"};

std::vector<std::string> backticked(const std::string& cell) {
  std::vector<std::string> v;
  std::size_t a = 0;
  while ((a = cell.find('`', a)) != std::string::npos) {
    const auto b = cell.find('`', a + 1);
    if (b == std::string::npos) break;
    v.push_back(cell.substr(a + 1, b - a - 1));
    a = b + 1;
  }
  return v;
}

/// Parses `path... name value` from a fresh state: false when CLI11 refuses the value itself (a validator
/// or the conversion), true otherwise (a missing required option is not the value's fault).
bool accepts(CLI::App& root, const std::vector<std::string>& path, const std::string& name,
             const std::string& value) {
  std::vector<std::string> args = path;
  args.push_back(name);
  args.push_back(value);
  std::reverse(args.begin(), args.end());
  root.clear();
  try {
    root.parse(args);
  } catch (const CLI::ValidationError&) {
    return false;
  } catch (const CLI::ConversionError&) {
    return false;
  } catch (const CLI::Error&) {
  }
  root.clear();
  return true;
}

struct Walker {
  CLI::App& root;
  const AliasTable& aliases;
  std::vector<std::string> out;

  void add(const std::string& where, const std::string& what) { out.push_back(where + ": " + what); }

  void option(CLI::App& app, const std::vector<std::string>& path, const CLI::Option& o) {
    std::string cmd;
    for (const auto& w : path) cmd += (cmd.empty() ? "" : " ") + w;
    const auto& l = o.get_lnames();
    const auto& s = o.get_snames();
    const std::string primary = l.empty() ? "" : l.front();
    const std::string where = (cmd.empty() ? "mixgraph" : cmd) + " " + o.get_name();
    if (o.get_description().empty()) add(where, "no help text");
    if (primary.empty()) add(where, "no long name");
    if (!primary.empty() && !std::regex_match(primary, kKebab)) add(where, "long name is not kebab-case");
    for (std::size_t k = 1; k < l.size(); ++k)
      if (!aliases.count({cmd, "--" + l[k]}))
        add(where, "alias --" + l[k] + " is not in docs/cli.md's alias table");
    if (kOutputWords.count(primary))
      add(where, "writes a file: name it -o/--output (keep --" + primary + " as alias)");
    for (const auto& sn : s) {
      if (sn == "p" && primary != "pattern") add(where, "-p is reserved for --pattern");
      if (sn == "o" && primary != "output") add(where, "-o is reserved for --output");
      if (sn == "n" && primary != "n") add(where, "-n is reserved for --n (tokens)");
    }
    if (primary == "pattern" && std::find(s.begin(), s.end(), "p") == s.end())
      add(where, "--pattern has no -p");
    if (primary == "output" && std::find(s.begin(), s.end(), "o") == s.end())
      add(where, "--output has no -o");
    if (o.get_description().rfind("Deprecated", 0) == 0 && !aliases.count({cmd, "--" + primary}))
      add(where, "deprecated, but not in docs/cli.md's alias table");
    for (const auto& name : l) {
      if (name != "n") continue;
      const auto& d = o.get_description();
      if (d.find("tokens") == std::string::npos && d.rfind("Deprecated", 0) != 0)
        add(where, "--n must mean the number of tokens (or say it is deprecated)");
    }
    if (o.get_type_size() == 0) return;  // a flag takes no value: nothing to probe
    const std::string name = o.get_name();
    if (primary == "seed") {
      if (o.get_type_name().rfind("UINT64", 0) != 0) add(where, "a seed shows type UINT64 in --help");
      if (o.get_description().find("2^64-1") == std::string::npos)
        add(where, "a seed's help gives its range");
      for (const char* good : {"0", "18446744073709551615"})
        if (!accepts(root, path, name, good)) add(where, std::string("a seed must accept ") + good);
      for (const char* bad : {"18446744073709551616", "-1", "abc"})
        if (accepts(root, path, name, bad))
          add(where, std::string("a seed must refuse ") + bad + " at parse time");
    }
    if (o.get_type_name().rfind("TEXT", 0) == 0 && accepts(root, path, name, "xml-no-such-choice"))
      add(where,
          "free text: give it a type name (SPEC, FILE, COUNT, ...) or, for a set of choices, a validator");
    if (o.get_type_name().rfind("FLOAT", 0) == 0)  // CLI::Range alone lets nan through
      for (const char* bad : {"nan", "inf", "1e999"})
        if (accepts(root, path, name, bad)) {
          add(where,
              std::string("a floating-point option must refuse ") + bad + " at parse time (finite_range)");
          break;
        }
    if (o.get_type_name().find("LIST") != std::string::npos && !accepts(root, path, name, "1..3"))
      add(where, "a list must accept a range LO..HI");
    (void)app;
  }

  void walk(CLI::App& app, std::vector<std::string> path) {
    for (const CLI::Option* o : app.get_options()) {
      if (o == app.get_help_ptr() || o == app.get_help_all_ptr()) continue;
      option(app, path, *o);
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      auto p = path;
      p.push_back(sub->get_name());
      walk(*sub, p);
    }
  }
};

}  // namespace

AliasTable parse_alias_table(const std::string& markdown) {
  AliasTable t;
  std::istringstream in(markdown);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) inside = line.rfind("## Aliases", 0) == 0;
    if (!inside || line.rfind("|", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string c;
    while (std::getline(ss, c, '|')) cells.push_back(c);
    if (cells.size() < 2) continue;
    const auto cmd = backticked(cells[0]);
    if (cmd.size() != 1) continue;
    for (const auto& old : backticked(cells[1])) t.insert({cmd[0], old});
  }
  return t;
}

std::vector<std::string> grammar_violations(CLI::App& root, const AliasTable& aliases) {
  Walker w{root, aliases, {}};
  w.walk(root, {});
  root.clear();
  return w.out;
}

namespace {

/// The text under the heading that names "`mixgraph <cmd>`" (levels 2 and 3), up to the next "## " heading
/// or the next heading of another command; empty when there is none.
std::string command_section(const std::string& markdown, const std::string& cmd) {
  std::istringstream in(markdown);
  std::string line, text;
  bool inside = false;
  const std::string want = "`mixgraph " + cmd + "`";
  while (std::getline(in, line)) {
    const bool h2 = line.rfind("## ", 0) == 0, h3 = line.rfind("### ", 0) == 0;
    if (h2 || (h3 && line.find("`mixgraph ") != std::string::npos)) {
      if (inside) break;
      inside = line.substr(line.find(' ') + 1) == want;
      continue;
    }
    if (inside) text += line + "\n";
  }
  return text;
}

/// `name` (e.g. --seed) occurs in `text` as a whole option name (not as the start of --seed-file).
bool names(const std::string& text, const std::string& name) {
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    const char next = end < text.size() ? text[end] : ' ';
    if (!(std::isalnum(static_cast<unsigned char>(next)) || next == '-' || next == '_')) return true;
  }
  return false;
}

void undocumented_in(const CLI::App& app, const std::string& cmd, const std::string& markdown,
                     const AliasTable& aliases, const std::string& conventions,
                     std::vector<std::string>& out) {
  const std::string section = command_section(markdown, cmd);
  if (section.empty()) out.push_back(cmd + ": no section headed `mixgraph " + cmd + "` in docs/cli.md");
  for (const CLI::Option* o : app.get_options()) {
    if (o == app.get_help_ptr() || o == app.get_help_all_ptr()) continue;
    for (const auto& l : o->get_lnames()) {
      const std::string name = "--" + l;
      if (names(section, name) || aliases.count({cmd, name})) continue;
      if (kSharedOptions.count(name) && names(conventions, name)) continue;
      out.push_back(cmd + " " + name + ": not in its section of docs/cli.md");
    }
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    undocumented_in(*sub, cmd + " " + sub->get_name(), markdown, aliases, conventions, out);
}

}  // namespace

std::vector<std::string> undocumented_options(const CLI::App& root, const std::string& markdown) {
  std::vector<std::string> out;
  const AliasTable aliases = parse_alias_table(markdown);
  std::string conventions;
  {
    std::istringstream in(markdown);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
      if (line.rfind("## ", 0) == 0) inside = line == "## Conventions";
      if (inside) conventions += line + "\n";
    }
  }
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; }))
    undocumented_in(*sub, sub->get_name(), markdown, aliases, conventions, out);
  return out;
}

}  // namespace mixgraph::test
