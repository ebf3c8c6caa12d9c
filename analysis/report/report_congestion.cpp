// Report section "Copy task and congestion" (lib/include/mixgraph/congestion.hpp): for copy lengths
// N up to n/2 (powers of two, 3 * 2^k and n/2 - 1) the copy distance, the certified lower bounds (Prop. 4.7,
// cut, LP up to --lp-cap), the checked routings (shift, random, congestion-minimising up to --routing-cap)
// and the verdict ("optimal" where the bounds meet); a plot of the best bounds over N and of the node load of
// the best routing at the hardest copy length. Fills Table 1's congestion column (the hardest copy length:
// the largest best upper bound over N).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/plot.hpp"

namespace mixgraph::analysis {
namespace {

/// The checked routing named `name`, or nullptr.
const RoutingStats* find_routing(const CongestionResult& r, const std::string& name) {
  for (const auto& s : r.routings)
    if (s.name == name) return &s;
  return nullptr;
}

Cell opt_cell(const std::optional<std::uint32_t>& v) {
  return v ? u64(*v) : Cell::empty();
}

/// Copy lengths for n tokens: powers of two and 3 * 2^k up to n/2, and n/2 - 1 (odd, not a power of two).
std::vector<std::uint64_t> copy_lengths(std::uint64_t n) {
  const std::uint64_t half = n / 2;
  std::vector<std::uint64_t> v;
  for (std::uint64_t p = 1; p <= half; p *= 2) {
    v.push_back(p);
    if (3 * p / 2 <= half && p >= 2) v.push_back(3 * p / 2);
  }
  if (half >= 5) v.push_back(half - 1);
  if (half >= 1) v.push_back(half);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

void section_congestion(ReportContext& ctx) {
  const auto& P = ctx.params;
  DataTable t{
      "congestion",
      "Copy task of length N (the pattern on 2N tokens): copy distance, certified lower bounds, checked "
      "routings and the best upper bound; optimal where they meet",
      {"pattern", "N", "copy_distance", "prop47", "cut", "lp", "ip", "lower", "prop48", "shift", "random",
       "minmax", "exact", "upper", "gap", "status", "best_routing", "seconds"},
      {}};
  struct LoadPlot {
    const PatternRun* run;
    pos_t N;
    std::string routing;
    std::uint32_t congestion, lower;
    std::vector<std::uint32_t> loads;
  };
  std::vector<LoadPlot> load_plots;
  std::vector<LineSeries> s_upper;
  std::size_t lp_skipped = 0, minmax_skipped = 0;
  std::string key;  // one line per pattern: its hardest copy length
  for (const auto& r : ctx.runs) {
    const bool is_mtx = r.spec.rfind("mtx:", 0) == 0;
    std::vector<std::uint64_t> Ns = is_mtx ? std::vector<std::uint64_t>{0} : copy_lengths(r.pattern.n);
    // Per pattern: the certified bounds as a band (lower .. best checked routing's congestion, where the
    // optimum lies) and the congestion the best checked routing achieves as points on top.
    LineSeries band{r.spec + " certified bounds", {}, {}};
    band.color = static_cast<int>(&r - ctx.runs.data());
    LineSeries up{r.spec + " best routing", {}, {}, true};
    up.color = band.color;
    // Table 1 reports the hardest copy length: the row with the largest best upper bound among the rows
    // with the congestion-minimising routing (N <= --routing-cap) (ties: larger N;
    // an impossible copy is hardest of all, the shortest such). At N = n/2 = 2^k pow2 needs one hop, so N =
    // n/2 alone would hide its log2 n.
    std::optional<CongestionResult> worst;
    bool worst_searched = false;
    auto harder = [](const CongestionResult& a, const CongestionResult& b) {  // a at least as hard as b
      if (!a.copy_possible && !b.copy_possible) return a.N < b.N;             // the first impossible length
      if (!a.copy_possible || !b.copy_possible) return !a.copy_possible;
      const auto ua = a.upper_bound.value_or(a.lower_bound), ub = b.upper_bound.value_or(b.lower_bound);
      return ua != ub ? ua > ub : a.lower_bound >= b.lower_bound;
    };
    for (auto N : Ns) {
      ctx.progress(r, "congestion, copy length " + (N ? nstr(N) : std::string("n/2")));
      CongestionOptions co;
      co.seed = P.seed;
      co.mem_limit = P.mem_limit;
      co.minmax = N <= P.routing_cap && (N > 0 || r.pattern.n / 2 <= P.routing_cap);
      co.lp = N <= P.lp_cap && (N > 0 || r.pattern.n / 2 <= P.lp_cap);
      // Report budget: short integer programs, a bounded rip-up-and-reroute.
      co.ip_time_limit_s = 2;
      co.lp_time_limit_s = 10;
      co.minmax_options.max_work = 2'000'000'000ULL;
      co.minmax_options.max_rounds = 30;
      co.work_budget = 1'000'000'000ULL;
      if (!co.minmax) ++minmax_skipped;
      lp_skipped += !co.lp;
      const auto t0 = std::chrono::steady_clock::now();
      CongestionResult c;
      try {
        c = analyse_congestion(r.tree, N, co);
      } catch (
          const std::exception& e) {  // RuntimeFailure (memory, work), UsageError (size): noted, not fatal
        ctx.out.note("skipped", "congestion of " + r.spec + " at N = " + nstr(N) + ": " + e.what());
        continue;
      }
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::vector<Cell> row = {Cell::text(r.spec), u64(c.N)};
      if (!c.copy_possible) {
        row.push_back(Cell::unreachable());
        for (int k = 0; k < 12; ++k) row.push_back(Cell::empty());  // prop47 .. gap
        row.push_back(Cell::text("impossible"));
        row.push_back(Cell::empty());
      } else {
        row.push_back(u64(c.copy_distance));
        for (const auto& b : c.lower_bounds) row.push_back(opt_cell(b.value));
        row.push_back(u64(c.lower_bound));
        row.push_back(opt_cell(c.prop48_bound));
        for (const char* name : {"shift", "random", "minmax", "exact"}) {
          const auto* s = find_routing(c, name);
          row.push_back(s ? u64(s->congestion) : Cell::empty());
        }
        row.push_back(opt_cell(c.upper_bound));
        row.push_back(c.upper_bound ? u64(*c.upper_bound - c.lower_bound) : Cell::empty());
        row.push_back(Cell::text(congestion_verdict(c)));
        row.push_back(c.best_routing.empty() ? Cell::empty() : Cell::text(c.best_routing));
        // Integer values at a few copy lengths: points only (a NaN between points breaks the line).
        if (c.upper_bound) {
          if (!up.x.empty()) up.x.push_back(NAN), up.y.push_back(NAN);
          up.x.push_back(c.N), up.y.push_back(*c.upper_bound);
        }
        band.x.push_back(c.N), band.y.push_back(c.lower_bound);
        band.y_upper.push_back(c.upper_bound ? double(*c.upper_bound) : NAN);
      }
      row.push_back(Cell::real(secs, 3));
      t.add(std::move(row));
      // Rows above --routing-cap have only shortest-path routings: their upper bound is weak, so they count
      // only when no row has the congestion-minimising routing.
      const bool searched = co.minmax;
      if (!worst || (searched && !worst_searched) || (searched == worst_searched && harder(c, *worst))) {
        worst = std::move(c);
        worst_searched = searched;
      }
    }
    // Table 1 and key numbers at the hardest copy length.
    if (worst) {
      const auto& c = *worst;
      Cell cell;
      nlohmann::json res = {{"copy_length", c.N}, {"copy_possible", c.copy_possible}};
      if (!c.copy_possible) {
        cell = Cell::text("inf (copy impossible at N = " + nstr(c.N) + ")");
      } else {
        res["copy_distance"] = c.copy_distance;
        res["lower_bound"] = c.lower_bound;
        res["lower_bound_name"] = c.lower_bound_name;
        res["upper_bound"] = c.upper_bound ? nlohmann::json(*c.upper_bound) : nlohmann::json(nullptr);
        res["best_routing"] = c.best_routing;
        res["optimal"] = c.upper_bound && *c.upper_bound == c.lower_bound;
        if (!c.upper_bound)
          cell = Cell::text(">= " + nstr(c.lower_bound));
        else if (*c.upper_bound == c.lower_bound)
          cell = Cell::text(nstr(c.lower_bound) + " (optimal)");
        else
          cell = Cell::text(nstr(c.lower_bound) + ".." + nstr(*c.upper_bound));
        cell.s += " at N = " + nstr(c.N);
        key += "- `" + r.spec + "`: hardest copy length N = " + nstr(c.N) + " (copy distance " +
               nstr(c.copy_distance) + "): congestion " +
               (c.upper_bound && *c.upper_bound == c.lower_bound
                    ? nstr(c.lower_bound) + ", optimal"
                    : "between " + nstr(c.lower_bound) + " (" + c.lower_bound_name + ") and " +
                          (c.upper_bound ? nstr(*c.upper_bound) : std::string("?")) + " (" + c.best_routing +
                          ")") +
               "\n";
        // Node load of the best checked routing.
        if (const auto* st = find_routing(c, c.best_routing))
          load_plots.push_back({&r, c.N, st->name, st->congestion, c.lower_bound, st->loads});
      }
      ctx.table1[r.spec]["congestion"] = cell;
      ctx.results[r.spec] = res;
    }
    if (!band.x.empty()) s_upper.push_back(std::move(band));
    if (!up.x.empty()) s_upper.push_back(std::move(up));
  }
  ctx.out.markdown(
      "The copy task of length N (docs/math.md §4) takes the pattern on 2N tokens; input i must reach output "
      "i + N. "
      "Lower bounds are certified: `prop47` = ceil(sum_i (d_i + 1) / 2N) (Prop. 4.7 generalised), `cut` = "
      "ceil(N / kappa) from a max-flow, `lp` the LP relaxation's dual bound (N <= `--lp-cap " +
      nstr(P.lp_cap) +
      "`), `ip` the exact integer optimum when tiny. Upper bounds are routings checked hop by hop: `shift` "
      "(Prop. 4.8, translation-invariant), `random` shortest paths, `minmax` congestion-minimising "
      "rip-up-and-reroute (N <= `--routing-cap " +
      nstr(P.routing_cap) +
      "`), `exact` the integer program's routing. `status` is optimal where the best lower and upper bounds "
      "meet, open otherwise. Table 1's congestion is the hardest copy length (the largest best upper "
      "bound) among N <= min(n/2, --routing-cap), with its certified lower bound; above the routing cap only "
      "shortest-path routings run and their upper bounds are weak.");
  if (!key.empty()) ctx.out.markdown("**Key numbers** (Table 1's congestion):\n\n" + key);
  ctx.out.table(t, 200);
  if (minmax_skipped)
    ctx.out.note("capped", "congestion-minimising routing only for copy lengths N <= --routing-cap " +
                               nstr(P.routing_cap) + " (" + nstr(minmax_skipped) +
                               " rows without it); raise --routing-cap to route longer copies");
  if (lp_skipped)
    ctx.out.note("capped", "LP congestion lower bounds only for copy lengths N <= --lp-cap " +
                               nstr(P.lp_cap) + " (" + nstr(lp_skipped) +
                               " rows without them); raise --lp-cap to bound longer copies");
  if (!lp_built_in())
    ctx.out.note("not built in", "LP congestion lower bounds: GLPK was not found at build time");
  if (!s_upper.empty()) {
    ctx.out.line_plot(
        "congestion_over_n", s_upper,
        {"Copy-task congestion (best checked routing) over the copy length N",
         "copy length N (pattern on 2N tokens)",
         "congestion C",
         true,
         false,
         "points: best checked routing; band: certified lower bound .. that routing; data in congestion.csv",
         {}},
        "Congestion against the copy length (log x, linear y from 0): points are the congestion of the best "
        "checked routing at each N (an upper bound), the band runs from the certified lower bound up to it, "
        "so the optimum lies in the band (drawn across each N's neighbourhood, not interpolated); where no "
        "band shows the routing is optimal",
        true, P.pdf);
  }
  // Node load: one plot per pattern (the loads of cache-efficient routings jump between neighbouring
  // positions; overlaid they would hide each other), with the certified lower bound as a reference line.
  for (const auto& lp : load_plots) {
    // A histogram of the loads (how many positions carry each load), not one spike per position: the data
    // is written beside the figure as tables/congestion_load_<stem>.csv (load, positions).
    std::map<std::uint32_t, std::uint64_t> hist;
    for (auto v : lp.loads) ++hist[v];
    LineSeries h{lp.routing + " routing, congestion " + nstr(lp.congestion), {}, {}};
    h.bars = true;
    for (const auto& [load, count] : hist) h.x.push_back(load), h.y.push_back(static_cast<double>(count));
    const double top = static_cast<double>(
        hist.empty() ? 1 : std::max_element(hist.begin(), hist.end(), [](auto& x, auto& y) {
                             return x.second < y.second;
                           })->second);
    LineSeries lb{
        "certified lower bound " + nstr(lp.lower), {double(lp.lower), double(lp.lower)}, {0.0, top}, false};
    ctx.out.file("tables/congestion_load_" + lp.run->stem + ".csv", [&](std::ostream& os) {
      os << "load,positions\n";
      for (const auto& [load, count] : hist) os << load << "," << count << "\n";
    });
    ctx.out.line_plot(
        "congestion_load_" + lp.run->stem, {h, lb},
        {"Load histogram of the " + lp.routing + " routing of " + lp.run->spec + ", N = " + nstr(lp.N),
         "load (copy paths through a position)",
         "positions with that load",
         false,
         false,
         "N = " + nstr(lp.N) +
             ": this pattern's hardest copy length (Table 1's congestion); end points count",
         {}},
        "Load histogram of the best checked routing of " + lp.run->spec + " at N = " + nstr(lp.N) +
            ": how many of the 2N positions carry each load, against the certified lower bound "
            "(data: tables/congestion_load_" +
            lp.run->stem + ".csv)",
        true, P.pdf);
  }
  ctx.out.carry_on(
      "cong = pd.read_csv(\"tables/congestion.csv\")\n"
      "cong[[\"pattern\", \"N\", \"copy_distance\", \"lower\", \"upper\", \"status\"]]");
}

}  // namespace

ReportSection congestion_section() {
  return running_section("congestion", "Copy task and congestion", 60, {"congestion"}, section_congestion);
}

}  // namespace mixgraph::analysis
