// mixgraph pattern: a pattern's reads, decode cost and cache profile (docs/math.md §2), at one n or a sweep.
#include <iostream>
#include <map>

#include "cmd_stack.hpp"
#include "mixgraph/analysis/pattern_sweep.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/sweep.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "pattern_heads.hpp"
#include "registry.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

struct PatternOptions {
  CommonOptions common;
  std::string pattern;
  std::string n_text;
  std::string rows_text;
  std::string sweep_text;
  bool profile = false;
  bool summary = false;
  std::string checkpoint_dir;
};

std::string a_mode_text(const Pattern& p) {
  switch (p.a_mode) {
    case AMode::Shared:
      return "shared: A reads B's positions plus i itself";
    case AMode::Diagonal:
      return "diagonal: A reads i only (gated linear recurrence)";
    case AMode::Explicit:
      return p.b_empty() ? "explicit: A-only pattern, B = 0" : "explicit: A has its own reads";
  }
  return "";
}

struct Run {
  Pattern pattern;
  PatternProfile prof;
};

/// The spec parsed once: the estimate and the build take the tree.
Run analyse(const PatternOptions& o, const PatternSpec& spec, std::uint64_t n, bool per_position) {
  Run r{make_pattern_within(spec, n, o.common.mem_limit_bytes(), "pattern " + o.pattern,
                            {.per_position = per_position}),
        {}};
  ProfileOptions po;
  po.threads = o.common.threads;
  po.per_position = per_position;
  r.prof = cache_profile(r.pattern, po);
  return r;
}

/// --profile's table: each position's decode cost and cache size, and its kept set |S_i| with `kept_set`.
Table per_position_table(const Run& r, bool kept_set) {
  std::vector<std::string> h = {"position", "decode_cost", "cache_size"};
  if (kept_set) h.push_back("kept_set_size");
  Table t(h);
  for (pos_t i = 0; i < r.pattern.n; ++i) {
    std::vector<std::string> row = {std::to_string(i + 1), std::to_string(r.prof.decode_cost[i]),
                                    std::to_string(r.prof.cache_size[i])};
    if (kept_set) row.push_back(std::to_string(r.prof.kept_set[i]));
    t.add(row);
  }
  return t;
}

ojson summary_json(const Run& r, bool lists) {
  return json::pattern_summary(r.pattern, r.prof, lists);
}

/// A sweep point's table row: n, nnz_A, nnz_B, total and max decode cost, max cache [, max kept set].
std::vector<std::string> point_row(const analysis::PatternSweepPoint& pt) {
  std::vector<std::string> row = {std::to_string(pt.n),
                                  std::to_string(pt.nnz_a),
                                  std::to_string(pt.nnz_b),
                                  std::to_string(pt.total_decode_cost),
                                  std::to_string(pt.max_decode_cost),
                                  std::to_string(pt.max_cache)};
  if (pt.cache_efficient) row.push_back(std::to_string(pt.max_kept_set));
  return row;
}

/// A point from its shard record (checked by the shard's check).
analysis::PatternSweepPoint point_of_record(const ojson& rec) {
  const auto row = rec.at("row").get<std::vector<std::string>>();
  analysis::PatternSweepPoint pt;
  pt.n = std::stoull(row[0]);
  pt.nnz_a = std::stoull(row[1]);
  pt.nnz_b = std::stoull(row[2]);
  pt.total_decode_cost = rec.at("work").get<std::uint64_t>();
  pt.max_decode_cost = std::stoull(row[4]);
  pt.max_cache = rec.at("cache").get<std::uint64_t>();
  pt.cache_efficient = rec.at("ce").get<bool>();
  if (pt.cache_efficient) pt.max_kept_set = std::stoull(row[6]);
  pt.json = rec.at("json");
  return pt;
}

std::string fit_text(const GrowthFit& f) {
  std::string s = f.best + " (relative residual " + fmt_double(f.residual, 3) + ")";
  if (f.ambiguous)
    s += ", ambiguous: runner-up " + f.runner_up + " at " + fmt_double(f.runner_up_residual, 3);
  else if (!f.runner_up.empty())
    s += "; runner-up " + f.runner_up + " at " + fmt_double(f.runner_up_residual, 3);
  return s;
}

int run_sweep(const PatternOptions& o, const PatternSpec& spec) {
  if (o.profile || !o.rows_text.empty())
    throw UsageError("--profile and --rows need one n; leave out --sweep (or run once per n)");
  analysis::PatternSweepQuery q{o.pattern, o.sweep_text, o.common.threads, o.common.mem_limit_bytes(), {}};
  const auto ns = analysis::pattern_sweep_ns(q, spec);
  std::vector<analysis::PatternSweepPoint> points;
  if (sharded(o.checkpoint_dir)) {
    // one record per n (the shards of a sharded run, docs/scaling.md): its JSON object and table row
    auto record = [&](std::size_t i) {
      const auto pt = analysis::pattern_sweep_point(q, spec, ns[i]);
      return ojson{{"json", pt.json},
                   {"row", point_row(pt)},
                   {"work", pt.total_decode_cost},
                   {"cache", pt.max_cache},
                   {"ce", pt.cache_efficient}};
    };
    std::vector<double> costs;  // a profile is O(n log n) for the cache-efficient patterns
    for (auto n : ns) costs.push_back(static_cast<double>(n) + 1024.0);
    const auto got = run_item_shards(
        "pattern --sweep",
        "pattern --sweep; mixgraph " + version() + "; pattern " + o.pattern + "; sweep " + o.sweep_text,
        costs, o.checkpoint_dir, {o.pattern}, [&](std::size_t i) { return record(i).dump(); },
        [&](std::size_t i, const std::string& bytes) {  // a record of n = ns[i], of the types read below
          const auto rec = ojson::parse(bytes);
          const auto row = rec.at("row").get<std::vector<std::string>>();
          const bool ce = rec.at("ce").get<bool>();
          if (!rec.at("json").is_object() || row.size() != (ce ? 7u : 6u) || row[0] != std::to_string(ns[i]))
            throw RuntimeFailure("it is not the record of n = " + std::to_string(ns[i]));
          if (rec.at("cache").get<std::uint64_t>() > ns[i]) throw RuntimeFailure("its max cache is above n");
          rec.at("work").get<std::uint64_t>();
        });
    if (!got) return 0;  // ranks other than 0 print nothing
    for (std::size_t i = 0; i < got->size(); ++i) points.push_back(point_of_record(ojson::parse((*got)[i])));
  } else {
    for (std::size_t i = 0; i < ns.size(); ++i) {
      if (stderr_is_tty()) std::cerr << "\r[pattern] n = " << ns[i] << " ..." << std::flush;
      points.push_back(analysis::pattern_sweep_point(q, spec, ns[i]));
    }
    if (stderr_is_tty()) std::cerr << "\r" << std::string(40, ' ') << "\r";
  }
  const bool ce = !points.empty() && points[0].cache_efficient;
  switch (o.common.fmt()) {
    case Format::Json:
      print_json(std::cout, analysis::pattern_sweep_document(q, points).json(o.common.format));
      break;
    case Format::Csv:
    case Format::Table: {
      std::vector<std::string> h = {"n",        "nnz_A", "nnz_B", "total_decode_cost", "max_decode_cost",
                                    "max_cache"};
      if (ce) h.push_back("max_kept_set");
      Table t(h);
      for (const auto& pt : points) t.add(point_row(pt));
      if (o.common.fmt() == Format::Csv) {
        t.print_csv(std::cout);
      } else {
        const auto f = analysis::pattern_sweep_fits(points);
        std::cout << "pattern " << o.pattern << "\n\n";
        t.print_text(std::cout);
        std::cout << "\ngrowth of total decode cost: " << f.work_free.label << "; menu fit "
                  << fit_text(f.work) << "\n";
        std::cout << "growth of max cache:         " << f.cache_free.label << "; menu fit "
                  << fit_text(f.cache) << "\n";
        std::cout
            << "(free fit c n^a (log n)^b + lower-order term, 95% interval for a; a class is printed only "
               "when the data decide it; --format json has the statistics)\n";
      }
      break;
    }
  }
  return 0;
}

int run_pattern(const PatternOptions& o) {
  o.common.apply();
  const Format fmt = o.common.fmt();
  nlohmann::json params = {{"pattern", o.pattern}, {"format", o.common.format}};
  if (is_stack_spec(o.pattern)) {  // layers: cmd_stack.cpp
    StackRequest sr{o.pattern, o.n_text, o.common};
    sr.profile = o.profile;
    sr.summary = o.summary;
    for (const auto& [given, name] : {std::pair{!o.sweep_text.empty(), "--sweep"},
                                      {!o.rows_text.empty(), "--rows"},
                                      {!o.checkpoint_dir.empty(), "--checkpoint"}})
      if (given) sr.unsupported.push_back(name);
    return run_stack_pattern(sr);
  }
  const PatternSpec spec = parse_pattern_spec(o.pattern, false);  // the one parse of --pattern
  if (!o.sweep_text.empty()) return run_sweep(o, spec);
  if (!o.checkpoint_dir.empty()) throw UsageError("--checkpoint keeps the points of a --sweep: give --sweep");
  std::uint64_t n = 0;
  const bool is_mtx = spec.has_matrix();  // n from the files
  if (!o.n_text.empty())
    n = parse_count(o.n_text, "--n");
  else if (!is_mtx)
    throw UsageError("--n is required (the number of tokens), or give --sweep LO..HI");
  if (!is_mtx && n < 1) throw UsageError("--n must be >= 1");
  const bool per_position = o.profile;
  Run r = analyse(o, spec, n, true);
  const auto& p = r.pattern;
  params["n"] = p.n;
  std::vector<std::uint64_t> rows;
  if (!o.rows_text.empty()) {
    rows = parse_position_list(o.rows_text, "--rows");
    for (auto i : rows)
      if (i > p.n)
        throw UsageError("--rows: position " + std::to_string(i) + " is outside 1.." + std::to_string(p.n));
    params["rows"] = rows;
  }
  auto reads_of = [&](std::uint64_t i) {
    std::vector<std::uint64_t> v;
    for_each_b_read(p, static_cast<pos_t>(i - 1), [&](pos_t j) { v.push_back(j + 1); });
    return v;
  };
  const bool ce = p.family == PatternFamily::CacheEfficient;
  if (fmt == Format::Json) {
    auto j = json_header("pattern", 1, params);
    j.update(summary_json(r, !o.summary));
    if (per_position && !o.summary) json::add_pattern_profile(j, p, r.prof);
    if (!rows.empty()) {
      j["rows"] = ojson::object();
      for (auto i : rows) j["rows"][std::to_string(i)] = reads_of(i);
    }
    if (!p.heads.empty()) j["heads"] = head_pattern_rows(p, o.common.threads);
    print_json(std::cout, j);
    return 0;
  }
  if (fmt == Format::Csv) {
    if (per_position) {
      per_position_table(r, ce).print_csv(std::cout);
    } else if (!rows.empty()) {
      Table t({"position", "reads_through_B"});
      for (auto i : rows) {
        std::string s;
        for (auto v : reads_of(i)) s += (s.empty() ? "" : " ") + std::to_string(v);
        t.add({std::to_string(i), s});
      }
      t.print_csv(std::cout);
    } else {
      auto s = summary_json(r, false);
      s.erase("decode_state");  // an object, not a cell: JSON and the table give it
      std::vector<std::string> h, row;
      for (auto it = s.begin(); it != s.end(); ++it) {
        h.push_back(it.key());
        row.push_back(it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
      }
      Table t(h);
      t.add(row);
      t.print_csv(std::cout);
    }
    return 0;
  }
  // table
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", p.spec},
      {"family", to_string(p.family)},
      {"A", a_mode_text(p)},
      {"n", std::to_string(p.n)},
  };
  if (p.family != PatternFamily::Matrix) kv.push_back({"offsets f(k) < n", fmt_list(p.f_values)});
  kv.push_back({"nnz(A)", std::to_string(r.prof.nnz_a)});
  kv.push_back({"nnz(B)", std::to_string(r.prof.nnz_b)});
  kv.push_back({"total decode cost",
                std::to_string(r.prof.total_decode_cost) + " (sum over tokens of positions read)"});
  kv.push_back({"max decode cost", std::to_string(r.prof.max_decode_cost)});
  kv.push_back({"max cache", std::to_string(r.prof.max_cache) + " (first at position " +
                                 std::to_string(r.prof.argmax_cache + 1) + ")"});
  if (ce) kv.push_back({"max kept set |S_i|", std::to_string(r.prof.max_kept_set)});
  if (json::is_loglinear(p)) {  // the figures above are the mask's (attention's); the decoder's state differs
    const auto d = json::decode_state(p.n);
    kv.push_back({"decode state (log-linear attention)",
                  "at most " + d["max_states"].dump() + " states read per token (first at position " +
                      d["max_states_position"].dump() + "), " + d["max_kept_states"].dump() +
                      " kept between tokens, over " + d["levels"].dump() + " Fenwick levels; each " +
                      d["state_shape"].get<std::string>()});
    kv.push_back({"note", "decode cost and cache above are the mask's, i.e. attention's"});
  }
  print_kv(std::cout, kv);
  print_head_rows(std::cout, head_pattern_rows(p, o.common.threads));
  if (!rows.empty()) {
    std::cout << "\n";
    Table t({"position", "reads through B"});
    for (auto i : rows) {
      std::string s;
      for (auto v : reads_of(i)) s += (s.empty() ? "" : ", ") + std::to_string(v);
      t.add({std::to_string(i), s.empty() ? "(none)" : s});
    }
    t.print_text(std::cout);
  }
  if (per_position) {
    std::cout << "\n";
    per_position_table(r, ce).print_text(std::cout);
  }
  return 0;
}

Registrar reg_cmd_pattern(
    "pattern", "A pattern's reads, nnz, decode cost and cache profile (docs/math.md §2), at one n or a sweep",
    10, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<PatternOptions>();
      app.add_option("--pattern,-p", o->pattern,
                     "Pattern spec: " + pattern_name_help() +
                         ". Examples: pow2, sq1+cache, expr:3^k, "
                         "offsets:1,5,6, mtx:B.mtx. Layers: stack:P1,P2,... (stack:P1;P2;... when a layer "
                         "has a comma; (P1,P2)*k repeats), decode cost and cache summed over layers")
          ->required()
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(app, "--n,-n", o->n_text,
                       "Number of tokens (positions 1..n); accepts 4096, 2^20, 1e6. Not needed for mtx:");
      app.add_option("--rows", o->rows_text,
                     "Positions whose B reads to list, e.g. 20,64 or 1..5,64 (JSON: field 'rows')")
          ->check(position_list())
          ->type_name(type::kList);
      app.add_option("--sweep", o->sweep_text,
                     "Run a range of n and fit growth classes: LO..HI (every power of two between) or "
                     "a list 1000,3000,10000")
          ->type_name(type::kSweep);
      app.add_flag("--profile", o->profile,
                   "Per-position decode cost and cache size (JSON: 'decode_cost', 'cache_size')");
      app.add_flag("--summary", o->summary, "JSON: leave out every list (offsets, per-position lists)");
      app.add_option("--checkpoint", o->checkpoint_dir,
                     "With --sweep: keep each finished n in this folder; a re-run with the same parameters "
                     "computes only the missing ones (docs/scaling.md)")
          ->check(nonempty_path())
          ->type_name(type::kDir);
      add_common_options(app, o->common);
      app.footer(
          "\nDecode cost: distinct j < i a token reads (A or B). Cache |C_i|: positions j <= i a later token "
          "still "
          "reads.\nExamples:\n"
          "  mixgraph pattern -p pow2 -n 4096\n"
          "  mixgraph pattern -p pow2+cache -n 64 --rows 20,64\n"
          "  mixgraph pattern -p 'expr:k^3+1' --sweep 1024..1048576\n"
          "  mixgraph pattern -p sq1+cache -n 65536 --profile --format csv > profile.csv");
      return [o] { return run_pattern(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
