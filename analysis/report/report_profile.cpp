// Report sections that exist now: pattern summary, decode cost and cache (profile + sweep), the A and B
// masks, and |M| of the induced operator. See report_section.hpp for how a section plugs in.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/induced.hpp"
#include "mixgraph/plot.hpp"

namespace mixgraph::analysis {
namespace {

// ---- summary ----------------------------------------------------------------------------------------
void run_summary(ReportContext& ctx) {
  DataTable t{"summary",
              "Pattern summary at n (nnz, decode cost = positions j < i a token reads, cache = max_i |C_i|)",
              {"pattern", "stem", "n", "family", "a_mode", "num_offsets", "nnz_A", "nnz_B",
               "total_decode_cost", "max_decode_cost", "max_cache", "max_cache_position", "max_kept_set"},
              {}};
  for (const auto& r : ctx.runs) {
    const auto& p = r.pattern;
    const auto& s = r.profile;
    const bool ce = p.family == PatternFamily::CacheEfficient;
    t.add({Cell::text(r.spec), Cell::text(r.stem), u64(p.n), Cell::text(to_string(p.family)),
           Cell::text(to_string(p.a_mode)),
           p.family == PatternFamily::Matrix ? Cell::empty() : u64(p.f_values.size()), u64(s.nnz_a),
           u64(s.nnz_b), u64(s.total_decode_cost), u64(s.max_decode_cost), u64(s.max_cache),
           u64(s.argmax_cache + 1), ce ? u64(s.max_kept_set) : Cell::empty()});
    ctx.table1[r.spec]["time_per_token"] = u64(s.max_decode_cost);
    ctx.table1[r.spec]["cache"] = u64(s.max_cache);
    ctx.results[r.spec] = {{"nnz_A", s.nnz_a},
                           {"nnz_B", s.nnz_b},
                           {"total_decode_cost", s.total_decode_cost},
                           {"max_decode_cost", s.max_decode_cost},
                           {"max_cache", s.max_cache}};
    if (json::is_loglinear(p)) ctx.results[r.spec]["decode_state"] = nlohmann::json(json::decode_state(p.n));
  }
  ctx.out.table(t);
  ctx.out.markdown(
      "`max_decode_cost` is the time per token (the most positions one token reads); `max_cache` the most "
      "positions a decoder must keep after any step (docs/math.md §2). `max_kept_set` (cache-efficient "
      "patterns only) is max |S_i| of Def. 4.10, a different set.");
  for (const auto& r : ctx.runs)
    if (json::is_loglinear(r.pattern)) {
      const auto d = json::decode_state(r.pattern.n);
      ctx.out.markdown("`" + r.spec +
                       "`: the row above is its mask, attention's (decode cost and cache count "
                       "positions). Log-linear attention itself decodes from Fenwick-bucket states (Guo et "
                       "al., Log-Linear Attention, Sec. 3): at most " +
                       d["max_states"].dump() + " states read per token, " + d["max_kept_states"].dump() +
                       " kept between tokens, over " + d["levels"].dump() + " levels, each " +
                       d["state_shape"].get<std::string>() +
                       " (report.json: `decode_state` in this section's results; docs/math.md §2).");
    }
}

// ---- profile: per position and over n -------------------------------------------------------------------
std::vector<std::uint64_t> sweep_ns(std::uint64_t lo, std::uint64_t n) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t m = 1; m <= n; m *= 2)
    if (m >= lo) v.push_back(m);
  if (v.empty() || v.back() != n) v.push_back(n);
  return v;
}

void run_profile(ReportContext& ctx) {
  DataTable sweep{"sweep",
                  "Decode cost and cache over n (powers of two up to n, and n)",
                  {"pattern", "n", "nnz_B", "total_decode_cost", "max_decode_cost", "max_cache"},
                  {}};
  DataTable growth{
      "growth",
      "Growth over the sweep: the free fit c n^a (log n)^b + lower-order term as `mixgraph pattern "
      "--sweep` prints it (`label`: a class only when the data decide it, else the exponent "
      "with its 95% interval), then the menu fit (relative least squares; ambiguous = "
      "runner-up within 10%)",
      {"pattern", "quantity", "label", "exponent", "exponent_lo", "exponent_hi", "decided_class", "class",
       "relative_residual", "runner_up", "runner_up_residual", "ambiguous"},
      {}};
  std::vector<LineSeries> s_time, s_cache, s_over_time;
  const std::vector<std::string> up_to_n = {"O(1)", "O(log n)", "O(sqrt n)", "O(n)"};
  for (const auto& r : ctx.runs) {
    ctx.progress(r, "decode cost and cache over n");
    LineSeries lt{r.spec, {}, {}, true}, lc{r.spec, {}, {}, true};
    if (r.pattern.family == PatternFamily::Matrix) {
      ctx.out.note("skipped", "sweep over n for " + r.spec + ": a matrix pattern has one n");
    } else {
      for (auto m : sweep_ns(ctx.params.sweep_min, r.pattern.n)) {
        PatternProfile pr;
        if (m == r.pattern.n) {
          pr = r.profile;  // the run's own n: already computed (building it again would double the memory)
        } else {
          const Pattern pm = make_pattern_within(r.tree, m, ctx.params.mem_limit, r.spec);
          pr = cache_profile(pm, ProfileOptions{ctx.params.threads, false});  // totals only
        }
        sweep.add({Cell::text(r.spec), u64(m), u64(pr.nnz_b), u64(pr.total_decode_cost),
                   u64(pr.max_decode_cost), u64(pr.max_cache)});
        lt.x.push_back(static_cast<double>(m));
        lt.y.push_back(pr.max_decode_cost);
        lc.x.push_back(static_cast<double>(m));
        lc.y.push_back(pr.max_cache);
      }
      for (auto [q, col, s] : {std::tuple{"max_decode_cost", "time_per_token_fit", &lt},
                               std::tuple{"max_cache", "cache_fit", &lc}}) {
        // both quantities are at most n (a token reads, and a decoder keeps, fewer than n positions)
        const auto f = fit_growth(s->x, s->y, up_to_n);
        const auto pf = fit_power(s->x, s->y, 1.0);
        auto num = [&](double v) { return pf.ok ? Cell::real(v) : Cell::empty(); };
        growth.add({Cell::text(r.spec), Cell::text(q), Cell::text(pf.label), num(pf.exponent), num(pf.lo),
                    num(pf.hi), pf.decided.empty() ? Cell::empty() : Cell::text(pf.decided),
                    Cell::text(f.best), Cell::real(f.residual, 3), Cell::text(f.runner_up),
                    Cell::real(f.runner_up_residual, 3), Cell::boolean(f.ambiguous)});
        // Table 1: the free fit's label; with fewer than 4 points (a small n) the menu fit's class; with one
        // n (nothing to fit) the free fit's "too few points" label; a series with no positive value (no
        // runner-up) is the constant the menu fit names
        const bool one_n = s->x.size() < 2;
        const bool two_classes = f.ambiguous && !f.runner_up.empty();
        ctx.table1[r.spec][col] = Cell::text(pf.ok || one_n ? pf.label
                                             : two_classes  ? f.best + " or " + f.runner_up
                                                            : f.best);
      }
      s_time.push_back(lt);
      s_cache.push_back(lc);
    }
    // Per-position profile: a CSV for the notebook (streamed: n rows), a line for the picture.
    const bool ce = r.pattern.family == PatternFamily::CacheEfficient;
    ctx.out.file("tables/profile_" + r.stem + ".csv", [&](std::ostream& os) {
      os << "position,decode_cost,cache_size" << (ce ? ",kept_set_size" : "") << "\n";
      for (pos_t i = 0; i < r.pattern.n; ++i) {
        os << i + 1 << ',' << r.profile.decode_cost[i] << ',' << r.profile.cache_size[i];
        if (ce) os << ',' << r.profile.kept_set[i];
        os << '\n';
      }
    });
    LineSeries lo{r.spec, {}, {}, false};
    lo.x.resize(r.pattern.n);
    lo.y.resize(r.pattern.n);
    for (pos_t i = 0; i < r.pattern.n; ++i) lo.x[i] = i + 1, lo.y[i] = r.profile.cache_size[i];
    s_over_time.push_back(std::move(lo));
  }
  // sweep.csv is long (one row per pattern and n) for programs; the report shows it pivoted.
  ctx.out.table_file(sweep);
  for (auto [col, what, series] : {std::tuple{"max_decode_cost", "Time per token (max decode cost)", &s_time},
                                   std::tuple{"max_cache", "Max cache", &s_cache}}) {
    if (series->empty()) continue;
    DataTable piv{std::string("sweep_") + col,
                  std::string(what) + " over n, one column per pattern (from sweep.csv)",
                  {"n"},
                  {}};
    std::vector<double> ns;
    for (const auto& s : *series)
      for (double x : s.x)
        if (std::find(ns.begin(), ns.end(), x) == ns.end()) ns.push_back(x);
    std::sort(ns.begin(), ns.end());
    for (const auto& s : *series) piv.columns.push_back(s.label);
    for (double x : ns) {
      std::vector<Cell> row = {u64(static_cast<std::uint64_t>(x))};
      for (const auto& s : *series) {
        auto it = std::find(s.x.begin(), s.x.end(), x);
        row.push_back(it == s.x.end() ? Cell::empty()
                                      : u64(static_cast<std::uint64_t>(s.y[it - s.x.begin()])));
      }
      piv.add(std::move(row));
    }
    ctx.out.table(piv, 200);
  }
  ctx.out.table(growth, 200);
  const std::string n_text = ctx.runs.empty() ? "" : nstr(ctx.runs.front().pattern.n);
  ctx.out.line_plot(
      "cache_over_time", s_over_time,
      {"Cache size |C_i| after each step, n = " + n_text,
       "position i",
       "cache size |C_i|",
       false,
       true,
       "C_i = positions j \u2264 i that a later token still reads (|C_n| = 0 is off the log axis)",
       {}},
      "Cache size over time: how many past positions a decoder must keep after step i", true, ctx.params.pdf);
  if (!s_time.empty()) {
    std::vector<double> ticks;
    for (auto m : sweep_ns(ctx.params.sweep_min, ctx.runs.front().pattern.n))
      ticks.push_back(static_cast<double>(m));
    ctx.out.line_plot(
        "sweep_time_per_token", s_time,
        {"Time per token (max decode cost) over n", "n (tokens)", "max decode cost", true, true, "", ticks},
        "Time per token over n (log-log): the slope is the growth class", true, ctx.params.pdf);
    ctx.out.line_plot("sweep_max_cache", s_cache,
                      {"Max cache over n", "n (tokens)", "max cache", true, true, "", ticks},
                      "Max cache over n (log-log)", true, ctx.params.pdf);
  }
  ctx.out.carry_on(
      "import matplotlib.pyplot as plt\n"
      "summary = pd.read_csv(\"tables/summary.csv\")\n"
      "sweep = pd.read_csv(\"tables/sweep.csv\")\n"
      "w, h = plt.rcParams[\"figure.figsize\"]\n"
      "fig, axes = plt.subplots(1, 2, figsize=(2 * w, h))  # two panels of the default size\n"
      "for name, g in sweep.groupby(\"pattern\", sort=False):\n"
      "    axes[0].loglog(g[\"n\"], g[\"max_decode_cost\"], marker=\"o\", label=name)\n"
      "    axes[1].loglog(g[\"n\"], g[\"max_cache\"], marker=\"o\", label=name)\n"
      "axes[0].set(xlabel=\"n\", ylabel=\"max decode cost\", title=\"time per token\")\n"
      "axes[1].set(xlabel=\"n\", ylabel=\"max cache\", title=\"cache\")\n"
      "axes[1].legend()\n"
      "plt.show()");
  ctx.out.carry_on(
      "profiles = {row.pattern: pd.read_csv(f\"tables/profile_{row.stem}.csv\") for row in "
      "summary.itertuples()}\n"
      "fig, ax = plt.subplots()\n"
      "for name, df in profiles.items():\n"
      "    ax.semilogy(df[\"position\"], df[\"cache_size\"].where(df[\"cache_size\"] > 0), label=name)\n"
      "ax.set(xlabel=\"position i\", ylabel=\"cache size |C_i|\")\n"
      "ax.legend()\n"
      "plt.show()");
}

// ---- masks ----------------------------------------------------------------------------------------------
/// A row-at-a-time view of a pattern's mask: 1 where row i reads column j, NaN elsewhere. The writer
/// asks for cells row by row, so one dense row is rebuilt per row (O(n) memory, O(n^2) time in all).
MatrixView mask_view(const Pattern& p, bool a) {
  struct State {
    std::size_t row = static_cast<std::size_t>(-1);
    std::vector<double> v;
  };
  auto st = std::make_shared<State>();
  st->v.assign(p.n, std::numeric_limits<double>::quiet_NaN());
  const Pattern* pp = &p;
  return {p.n, p.n, [st, pp, a](std::size_t i, std::size_t j) {
            if (st->row != i) {
              std::fill(st->v.begin(), st->v.end(), std::numeric_limits<double>::quiet_NaN());
              auto set = [&](pos_t k) { st->v[k] = 1.0; };
              if (a)
                for_each_a_read(*pp, static_cast<pos_t>(i), set);
              else
                for_each_b_read(*pp, static_cast<pos_t>(i), set);
              st->row = i;
            }
            return st->v[j];
          }};
}

void run_masks(ReportContext& ctx) {
  for (const auto& r : ctx.runs) {
    const auto n = r.pattern.n;
    if (skipped_over_cap(ctx, n, ctx.params.heatmap_cap, "--heatmap-cap",
                         "A and B mask heatmaps for " + r.spec, "", "them"))
      continue;
    ctx.progress(r, "A and B masks");
    ctx.out.heading(r.spec, 3);
    for (bool a : {true, false}) {
      HeatmapOptions o;
      const char* m = a ? "A" : "B";
      o.title = std::string(m) + " mask of " + r.spec + ", n = " + nstr(n);
      o.mask_label = "nonzero";
      o.masked_label = "zero";
      o.pooling = Pooling::Max;
      const auto nnz = a ? r.profile.nnz_a : r.profile.nnz_b;
      o.note = "nnz = " + nstr(nnz) + (a ? " (diagonal included)" : "") + (!a && nnz == 0 ? ": B = 0" : "");
      if (n > o.max_side) {
        o.mask_label = "block has a nonzero";
        o.masked_label = "block is all zero";
      }
      const bool svg = n <= ctx.params.svg_cap;
      ctx.out.heatmap(std::string(m) + "_" + r.stem, mask_view(r.pattern, a), o,
                      std::string(m) + " mask of " + r.spec + ": row i (target) reads column j (source)", svg,
                      ctx.params.pdf);
    }
  }
}

// ---- induced operator -------------------------------------------------------------------------------
void run_operator(ReportContext& ctx) {
  DataTable t{"operator",
              "|M| of the induced operator M = (I - B)^{-1} A with random weights (seed " +
                  nstr(ctx.params.seed) + "): nonzeros and range",
              {"pattern", "n", "nnz_M", "lower_triangle_fraction", "max_abs", "min_abs_nonzero",
               "median_abs_nonzero"},
              {}};
  for (const auto& r : ctx.runs) {
    const auto n = r.pattern.n;
    if (skipped_over_cap(ctx, n, ctx.params.dense_cap, "--dense-cap",
                         "|M| heatmap and operator table for " + r.spec, " (dense n x n operator)", "it"))
      continue;
    ctx.progress(r, "induced operator |M|");
    const Eigen::MatrixXd m = induced_operator_dense(r.pattern, ctx.params.seed, ctx.params.mem_limit);
    std::vector<double> absm(static_cast<std::size_t>(n) * n, std::numeric_limits<double>::quiet_NaN());
    std::vector<double> nz;
    for (pos_t i = 0; i < n; ++i)
      for (pos_t j = 0; j <= i; ++j) {
        const double v = std::abs(m(i, j));
        if (v > 0) {
          absm[static_cast<std::size_t>(i) * n + j] = v;
          nz.push_back(v);
        }
      }
    double mx = 0, mn = 0, med = 0;
    if (!nz.empty()) {
      std::sort(nz.begin(), nz.end());
      mn = nz.front(), mx = nz.back(), med = nz[nz.size() / 2];
    }
    const double lower = static_cast<double>(n) * (n + 1) / 2;
    t.add({Cell::text(r.spec), u64(n), u64(nz.size()), Cell::real(static_cast<double>(nz.size()) / lower),
           nz.empty() ? Cell::empty() : Cell::real(mx), nz.empty() ? Cell::empty() : Cell::real(mn),
           nz.empty() ? Cell::empty() : Cell::real(med)});
    ctx.results[r.spec] = {{"nnz_M", nz.size()}, {"max_abs", mx}, {"min_abs_nonzero", mn}};
    HeatmapOptions o;
    o.title = "|M| = |(I \u2212 B)\u207b\u00b9A| of " + r.spec + ", n = " + nstr(n);
    o.note = "random weights (seed " + nstr(ctx.params.seed) + "), log colour scale";
    o.scale = ColorScale::Log;
    o.pooling = Pooling::Max;
    o.colorbar_label = "|M(i, j)|";
    o.masked_label = "exactly 0";
    // Colour range: at most 16 decades (double precision relative to the largest entry) and at least the
    // 1st percentile of the nonzero |M|, so a few tiny entries (long products, cancellation) do not
    // squeeze every other value into a few colours. Smaller values take the lowest colour; the note says so.
    if (!nz.empty()) {
      const double p1 = nz[nz.size() / 100], eps_floor = mx * 1e-16;
      if (eps_floor > mn && eps_floor >= p1) {
        o.vmin = eps_floor;
        o.note += "; values below 1e-16 \u00d7 max (" + fmt_double(eps_floor, 2) + ") shown at the low end";
      } else if (p1 > mn) {
        o.vmin = p1;
        o.note +=
            "; values below the 1st percentile of nonzero |M| (" + fmt_double(p1, 2) + ") at the low end";
      }
    }
    ctx.out.heatmap("M_" + r.stem, MatrixView::dense(absm, n, n), o,
                    "|M| of " + r.spec + " on a log scale: how strongly output i depends on input j",
                    n <= ctx.params.svg_cap, ctx.params.pdf);
  }
  if (!t.rows.empty()) ctx.out.table(t);
}

}  // namespace

ReportSection summary_section() {
  return running_section("summary", "Pattern summary", 10, {"time_per_token", "cache"}, run_summary);
}

ReportSection profile_section() {
  return running_section("profile", "Decode cost and cache", 20, {"time_per_token_fit", "cache_fit"},
                         run_profile);
}

ReportSection masks_section() {
  return running_section("masks", "The A and B masks", 30, {}, run_masks);
}

ReportSection operator_section() {
  return running_section("operator", "The induced operator |M|", 40, {}, run_operator);
}

}  // namespace mixgraph::analysis
