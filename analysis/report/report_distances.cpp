// Report section "Shortest paths" (lib/include/mixgraph/distances.hpp): per pattern the diameter,
// mean distance and unreachable pairs (translation-invariant patterns from the distance profile delta(m),
// others from all-pairs BFS up to --all-pairs-cap), the profile delta(m) for selected offsets, the
// histogram of distances, and the d(i, j) heatmap for n <= --all-pairs-cap. Fills Table 1's shortest_path.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/plot.hpp"

namespace mixgraph::analysis {
namespace {

Cell report_dist_cell(std::uint32_t d) {
  return d == UNREACHABLE ? Cell::unreachable() : u64(d);
}
const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A-only patterns (B = 0: local:w, attention, mtx with an empty B): paths are one A hop.
bool a_only(const Pattern& p) {
  return p.a_mode == AMode::Explicit && p.b_empty();
}

/// Offsets m shown in the report's delta(m) table: 1..16, then 2^k - 1, 2^k and 2^k + 1 below n, and n - 1.
std::vector<pos_t> shown_offsets(pos_t n) {
  std::vector<pos_t> v;
  for (pos_t m = 1; m <= 16 && m < n; ++m) v.push_back(m);
  for (std::uint64_t p = 32; p <= n; p *= 2)
    for (std::uint64_t m : {p - 1, p, p + 1})
      if (m < n) v.push_back(static_cast<pos_t>(m));
  if (n >= 2) v.push_back(n - 1);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

struct PatternDistances {
  const PatternRun* run = nullptr;
  std::string method;  ///< "profile", "all-pairs", "sampled"
  DistanceSummary summary;
  bool have_summary = false;
  DistanceProfile profile;  ///< TI only
  std::shared_ptr<std::vector<std::uint32_t>> matrix;
  std::uint32_t sampled_lower = 0;  ///< "sampled": max distance seen from the sampled sources
  std::size_t sampled_sources = 0;
};

void section_distances(ReportContext& ctx) {
  const auto& P = ctx.params;
  DataTable t{
      "distances",
      "Shortest paths d(i, j) over the pairs j < i (hops from x_j to y_i, docs/math.md §3): diameter, mean "
      "over reachable pairs, unreachable pairs",
      {"pattern", "n", "method", "diameter", "diameter_lower_bound", "mean_distance", "reachable_pairs",
       "unreachable_pairs", "copy_distance_n_half"},
      {}};
  DataTable hist{"distance_histogram",
                 "Number of pairs j < i at each distance d (unreachable pairs are in distances.csv)",
                 {"pattern", "distance", "pairs", "fraction"},
                 {}};
  std::vector<PatternDistances> all;
  for (const auto& r : ctx.runs) {
    const Pattern& p = r.pattern;
    const pos_t n = p.n;
    PatternDistances pd;
    pd.run = &r;
    ctx.progress(r, "distances");
    if (p.translation_invariant()) {
      pd.profile = distance_profile(p);
      pd.summary = summary_from_profile(pd.profile, n, false);
      pd.method = "profile";
      pd.have_summary = true;
    } else if (n <= P.all_pairs_cap) {
      AllPairsOptions ao;
      ao.threads = P.threads;
      ao.eccentricities = false;
      ao.mem_limit = P.mem_limit;
      const std::uint64_t mat_bytes = static_cast<std::uint64_t>(n) * n * sizeof(std::uint32_t);
      const std::uint64_t limit = P.mem_limit ? P.mem_limit : physical_memory_bytes() / 2;
      if (mat_bytes <= limit) {
        pd.matrix = std::make_shared<std::vector<std::uint32_t>>();
        ao.matrix = pd.matrix.get();
      } else {
        ctx.out.note("skipped", "d(i, j) heatmap for " + r.spec + ": the " + format_bytes(mat_bytes) +
                                    " distance matrix does not fit in memory");
      }
      pd.summary = all_pairs_summary(p, ao);
      pd.method = "all-pairs";
      pd.have_summary = true;
    } else {
      // Above the cap: a lower bound on the diameter from a few sources spread over the positions.
      pd.method = "sampled";
      const std::size_t S = std::min<std::size_t>(16, n);
      for (std::size_t s = 0; s < S; ++s) {
        const pos_t src = static_cast<pos_t>((static_cast<std::uint64_t>(s) * n) / (S + 1));
        for (auto d : single_source_distances(p, src))
          if (d != UNREACHABLE) pd.sampled_lower = std::max(pd.sampled_lower, d);
      }
      pd.sampled_sources = S;
      ctx.out.note("capped", "all-pairs distances of " + r.spec + ": n = " + nstr(n) + " > --all-pairs-cap " +
                                 nstr(P.all_pairs_cap) + "; the diameter is a lower bound from " +
                                 std::to_string(S) + " sources; raise --all-pairs-cap to compute it exactly");
    }
    // Copy distance at N = n/2 (the copy task on this n): delta(N) from the profile, else the library's
    // multi-source BFS over the first N sources (cheap next to all-pairs).
    Cell copy = Cell::empty();
    if (n >= 2) {
      const pos_t N = n / 2;
      if (p.translation_invariant())
        copy = report_dist_cell(pd.profile[N]);
      else if (pd.have_summary)
        copy = report_dist_cell(copy_distance(p, N, P.threads));
    }
    nlohmann::json res = {{"method", pd.method}};
    Cell t1;
    if (pd.have_summary) {
      const auto& s = pd.summary;
      t.add({Cell::text(r.spec), u64(n), Cell::text(pd.method), u64(s.diameter), Cell::empty(),
             Cell::real(s.mean_distance, 4), u64(s.reachable_pairs), u64(s.unreachable_pairs), copy});
      for (std::size_t d = 1; d < s.histogram.size(); ++d)
        if (s.histogram[d])
          hist.add({Cell::text(r.spec), u64(d), u64(s.histogram[d]),
                    Cell::real(static_cast<double>(s.histogram[d]) /
                                   std::max<double>(
                                       1.0, static_cast<double>(s.reachable_pairs + s.unreachable_pairs)),
                               4)});
      res["diameter"] = s.diameter;
      res["mean_distance"] = s.mean_distance;
      res["reachable_pairs"] = s.reachable_pairs;
      res["unreachable_pairs"] = s.unreachable_pairs;
      if (a_only(p))
        // docs/math.md §6: local attention has no multi-hop path; attention reaches every pair in one hop.
        t1 = s.unreachable_pairs > 0 ? Cell::text("inf (no multi-hop)") : u64(s.diameter);
      else if (s.unreachable_pairs > 0)
        t1 = Cell::text(nstr(s.diameter) + " (" + nstr(s.unreachable_pairs) + " pairs unreachable)");
      else
        t1 = u64(s.diameter);
    } else {
      t.add({Cell::text(r.spec), u64(n), Cell::text(pd.method), Cell::empty(), u64(pd.sampled_lower),
             Cell::empty(), Cell::empty(), Cell::empty(), copy});
      res["diameter_lower_bound"] = pd.sampled_lower;
      res["capped"] = true;
      t1 = Cell::text(">= " + nstr(pd.sampled_lower) + " (n > --all-pairs-cap)");
    }
    if (copy.kind == Cell::Kind::Integer) res["copy_distance_n_half"] = copy.i;
    ctx.table1[r.spec]["shortest_path"] = t1;
    ctx.results[r.spec] = res;
    all.push_back(std::move(pd));
  }
  ctx.out.table(t);
  ctx.out.markdown(
      "d(i, j) counts hops from input x_j to output y_i in the layered DAG (docs/math.md §3): an A edge only "
      "as the "
      "first hop, every other hop a B read. Translation-invariant patterns use the profile delta(m) (the "
      "fewest offsets summing to m, Prop. 4.4; the n - m pairs at offset m all have d = delta(m)); other "
      "patterns run all-pairs BFS up to `--all-pairs-cap " +
      nstr(P.all_pairs_cap) +
      "`. `copy_distance_n_half` is the copy task's max_j d(j + n/2, j) on these n tokens. A-only patterns "
      "(local:w, attention) have no multi-hop path: Table 1 shows 1 for full attention and \"inf (no "
      "multi-hop)\" for a window.");
  // The long form is for programs; the report shows it pivoted (one column per pattern), short distances
  // first.
  ctx.out.table_file(hist);
  {
    DataTable piv{"distance_histogram_by_pattern",
                  "Pairs j < i at each distance d, one column per pattern (from distance_histogram.csv)",
                  {"distance"},
                  {}};
    std::size_t dmax = 0;
    std::vector<const PatternDistances*> with;
    for (const auto& pd : all)
      if (pd.have_summary) {
        piv.columns.push_back(pd.run->spec);
        with.push_back(&pd);
        dmax = std::max(dmax, pd.summary.histogram.size());
      }
    for (std::size_t d = 1; d < dmax; ++d) {
      std::vector<Cell> row = {u64(d)};
      for (const auto* pd : with) {
        const auto& h = pd->summary.histogram;
        row.push_back(d < h.size() ? u64(h[d]) : u64(0));
      }
      piv.add(std::move(row));
    }
    if (!with.empty()) ctx.out.table(piv, 16);
  }

  // delta(m) for selected offsets, one column per translation-invariant pattern; full profiles as CSV.
  std::vector<const PatternDistances*> ti;
  for (const auto& pd : all)
    if (pd.run->pattern.translation_invariant()) ti.push_back(&pd);
  if (!ti.empty()) {
    DataTable prof{
        "distance_profile",
        "The distance profile delta(m) (fewest offsets summing to m) at selected offsets m, one column "
        "per translation-invariant pattern; tables/distance_profile_<pattern>.csv has every m",
        {"m"},
        {}};
    pos_t nmax = 0;
    for (const auto* pd : ti) {
      prof.columns.push_back(pd->run->spec);
      nmax = std::max(nmax, pd->run->pattern.n);
    }
    for (pos_t m : shown_offsets(nmax)) {
      std::vector<Cell> row = {u64(m)};
      for (const auto* pd : ti)
        row.push_back(m < pd->run->pattern.n ? report_dist_cell(pd->profile[m]) : Cell::empty());
      prof.add(std::move(row));
    }
    ctx.out.table(prof, 80);
    std::vector<LineSeries> series;
    for (const auto* pd : ti) {
      const pos_t n = pd->run->pattern.n;
      ctx.out.file("tables/distance_profile_" + pd->run->stem + ".csv", [&](std::ostream& os) {
        os << "m,delta\n";
        for (pos_t m = 0; m < n; ++m) {
          const auto d = pd->profile[m];
          os << m << ',';
          if (d == UNREACHABLE)
            os << "inf";
          else
            os << d;
          os << '\n';
        }
      });
      LineSeries s{pd->run->spec, {}, {}, false};
      // One point per m would draw a solid band; the running maximum max_{m' <= m} delta(m') is the
      // diameter of the first m + 1 tokens and reads as a staircase.
      std::uint32_t run_max = 0;
      for (pos_t m = 1; m < n; ++m) {
        const auto d = pd->profile[m];
        if (d != UNREACHABLE && d > run_max) {
          if (!s.x.empty()) s.x.push_back(m), s.y.push_back(run_max);
          run_max = d;
          s.x.push_back(m), s.y.push_back(d);
        }
      }
      if (!s.x.empty() && s.x.back() != n - 1) s.x.push_back(n - 1), s.y.push_back(run_max);
      if (!s.x.empty()) series.push_back(std::move(s));
    }
    if (!series.empty()) {
      const std::string n_text = nstr(ti.front()->run->pattern.n);
      ctx.out.line_plot(
          "distance_profile", series,
          {"Diameter of the first m + 1 tokens, n = " + n_text,
           "offset m",
           "max delta(m') over m' \u2264 m (hops)",
           true,
           true,
           "translation-invariant patterns; delta(m) = fewest offsets summing to m (Prop. 4.4)",
           {}},
          "Running maximum of the distance profile delta(m): how the longest shortest path grows "
          "with the distance between two tokens (log-log)",
          true, P.pdf);
    }
  }

  // d(i, j) heatmaps.
  for (const auto& pd : all) {
    const auto& r = *pd.run;
    const pos_t n = r.pattern.n;
    if (skipped_over_cap(ctx, n, P.all_pairs_cap, "--all-pairs-cap", "d(i, j) heatmap for " + r.spec, "",
                         "it"))
      continue;
    MatrixView v;
    if (r.pattern.translation_invariant()) {
      const DistanceProfile* prof = &pd.profile;
      v = {n, n, [prof](std::size_t i, std::size_t j) {
             if (j > i) return kNaN;
             const auto d = (*prof)[static_cast<pos_t>(i - j)];
             return d == UNREACHABLE ? kNaN : static_cast<double>(d);
           }};
    } else if (pd.matrix) {
      auto m = pd.matrix;
      v = {n, n, [m, n](std::size_t i, std::size_t j) {
             const auto d = (*m)[i * n + j];
             return d == UNREACHABLE ? kNaN : static_cast<double>(d);
           }};
    } else {
      continue;
    }
    ctx.progress(r, "d(i, j) heatmap");
    HeatmapOptions o;
    o.title = "Shortest path d(i, j) of " + r.spec + ", n = " + nstr(n);
    o.colorbar_label = "d(i, j) (hops)";
    o.integer_levels = true;
    o.pooling = Pooling::Max;
    o.masked_label = n > o.max_side ? "block unreachable" : "unreachable";
    o.note = pd.have_summary
                 ? "diameter " + nstr(pd.summary.diameter) + ", mean " +
                       fmt_double(pd.summary.mean_distance, 4) +
                       (pd.summary.unreachable_pairs
                            ? ", " + nstr(pd.summary.unreachable_pairs) + " pairs j < i unreachable"
                            : std::string(", every pair j \u2264 i reachable"))
                 : "";
    ctx.out.heatmap(
        "d_" + r.stem, v, o,
        "d(i, j) of " + r.spec + ": hops from source j (column) to target i (row); grey = no path",
        n <= P.svg_cap, P.pdf);
  }
  ctx.out.carry_on(
      "import matplotlib.pyplot as plt\n"
      "dist = pd.read_csv(\"tables/distances.csv\")\n"
      "hist = pd.read_csv(\"tables/distance_histogram.csv\")\n"
      "hist.pivot(index=\"distance\", columns=\"pattern\", values=\"pairs\").plot.bar(logy=True)\n"
      "plt.ylabel(\"pairs j < i\")\n"
      "plt.show()\n"
      "dist");
}

}  // namespace

ReportSection distances_section() {
  return running_section("distances", "Shortest paths", 50, {"shortest_path"}, section_distances);
}

}  // namespace mixgraph::analysis
