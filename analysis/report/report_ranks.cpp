// Report section "Interaction rank" (lib/include/mixgraph/rank.hpp): the cut-rank profile
// r(K) = rank M[K+1..n, 1..K] of the induced operator: up to --rank-cap the Menger (max-flow) rank at every
// cut, with the numeric rank (dense QR or sketch) at --rank-cuts evenly spaced cuts as the cross-check; above
// it both at the spaced cuts. Checked against the cache bound r(K) <= 2|C_K| (|C_K| when A is diagonal),
// with plots of r(K) over K and of r(K) against the cache.
#include <algorithm>
#include <cmath>
#include <map>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/plot.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::analysis {
namespace {

/// Equal sequences, NaN (a break between points) equal to NaN.
bool same_points(const std::vector<double>& a, const std::vector<double>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); });
}

void run_ranks(ReportContext& ctx) {
  const auto& P = ctx.params;
  DataTable sum{"cut_rank_summary",
                "Cut-rank profile r(K) = rank M[K+1..n, 1..K] of M = (I - B)^{-1}A (random weights, seed " +
                    nstr(P.seed) + "): numeric and Menger (max-flow) ranks, and the check r(K) <= 2|C_K|",
                {"pattern", "n", "cuts", "numeric_cuts", "numeric_method", "max_cut_rank", "argmax_cut",
                 "max_cache", "max_rank_over_cache", "numeric_equals_flow", "numeric_flow_disagreements",
                 "bound", "bound_holds", "violations"},
                {}};
  DataTable all{"cut_ranks",
                "r(K) for every computed cut K (numeric and flow), the cache |C_K| and the bound",
                {"pattern", "K", "numeric_rank", "flow_rank", "cache", "bound", "holds"},
                {}};
  std::vector<LineSeries> s_rank, s_vs_cache;
  std::uint32_t cache_hi = 1, diag_cache_hi = 2;  // the bound lines span the caches they apply to
  bool any_diag = false, any_general = false;
  std::size_t capped = 0;
  for (const auto& r : ctx.runs) {
    const pos_t n = r.pattern.n;
    if (n < 2) continue;
    ctx.progress(r, "cut ranks");
    // Up to --rank-cap: the Menger (max-flow) rank at every cut (incremental flow, cheap) and the numeric
    // rank at --rank-cuts evenly spaced cuts as the cross-check (a dense QR at every cut costs O(n^3 r) and
    // took 12 s for pow2 at n = 1024). Above it: both at the spaced cuts.
    CutRankParams cp;
    cp.seed = P.seed;
    cp.mem_limit = P.mem_limit;
    cp.cuts = spaced_cuts(n, P.rank_cuts);
    CutRankProfile prof, num;
    std::map<pos_t, std::uint32_t> numeric_at;  // cut -> numeric rank (the cuts where it was computed)
    try {
      num = cut_rank_profile(r.pattern, cp);
      if (n <= P.rank_cap) {
        cp.cuts = all_cuts(n);
        cp.method = CutRankMethod::Flow;
        prof = cut_rank_profile(r.pattern, cp);
      } else {
        prof = num;
        ++capped;
      }
    } catch (const std::exception& e) {  // RuntimeFailure (memory, work), UsageError (size): noted, not fatal
      ctx.out.note("skipped", "cut ranks of " + r.spec + ": " + e.what());
      continue;
    }
    if (num.numeric_done)
      for (std::size_t c = 0; c < num.cuts.size(); ++c) numeric_at[num.cuts[c]] = num.numeric[c];
    // numeric == flow on the spaced cuts, and the flow of both runs agrees there.
    std::vector<pos_t> disagree = num.disagreements;
    if (prof.flow_done && num.flow_done)
      for (std::size_t c = 0, d = 0; c < prof.cuts.size() && d < num.cuts.size(); ++c)
        if (prof.cuts[c] == num.cuts[d]) {
          if (prof.flow[c] != num.flow[d]) disagree.push_back(prof.cuts[c]);
          ++d;
        }
    const bool both = num.numeric_done && num.flow_done;
    const bool diag = prof.a_diagonal;
    const std::string bound_text = diag ? "r(K) <= |C_K| (A diagonal)" : "r(K) <= 2|C_K|";
    double max_ratio = 0;
    LineSeries lr{r.spec, {}, {}, prof.cuts.size() <= 64};
    std::map<std::uint32_t, std::uint32_t> by_cache;  // |C_K| -> max r(K) over the cuts with that cache
    for (std::size_t c = 0; c < prof.cuts.size(); ++c) {
      const auto K = prof.cuts[c];
      const std::uint32_t rk = prof.flow_done ? prof.flow[c] : prof.numeric[c];
      const std::uint32_t cache = prof.cache_at_cut[c];
      const std::uint64_t bound = diag ? cache : 2ull * cache;
      const auto nit = numeric_at.find(K);
      all.add({Cell::text(r.spec), u64(K), nit != numeric_at.end() ? u64(nit->second) : Cell::empty(),
               prof.flow_done ? u64(prof.flow[c]) : Cell::empty(), u64(cache), u64(bound),
               Cell::boolean(rk <= bound)});
      lr.x.push_back(K), lr.y.push_back(rk);
      if (cache > 0) {
        max_ratio = std::max(max_ratio, static_cast<double>(rk) / cache);
        auto& m = by_cache[cache];
        m = std::max(m, rk);
      }
    }
    s_rank.push_back(std::move(lr));
    // The numeric cross-check beside the flow rank: points at the cuts where it was computed.
    if (!numeric_at.empty() && prof.flow_done) {
      LineSeries ln{r.spec + " numeric", {}, {}, true};
      for (const auto& [K, rk] : numeric_at) {  // points only: a NaN between points breaks the line
        if (!ln.x.empty()) ln.x.push_back(NAN), ln.y.push_back(NAN);
        ln.x.push_back(K), ln.y.push_back(rk);
      }
      s_rank.push_back(std::move(ln));
    }
    std::string viol;
    for (std::size_t k = 0; k < prof.bound_violations.size() && k < 8; ++k)
      viol += (k ? ", " : "") + nstr(prof.bound_violations[k]);
    if (prof.bound_violations.size() > 8) viol += ", ...";
    sum.add({Cell::text(r.spec), u64(n), u64(prof.cuts.size()), u64(numeric_at.size()),
             num.numeric_done ? Cell::text(num.numeric_method) : Cell::empty(), u64(prof.max_cut_rank),
             u64(prof.argmax_cut), u64(prof.max_cache), Cell::real(max_ratio, 3),
             both ? Cell::boolean(disagree.empty()) : Cell::empty(),
             both ? u64(disagree.size()) : Cell::empty(), Cell::text(bound_text),
             Cell::boolean(prof.bound_violations.empty()), viol.empty() ? Cell::empty() : Cell::text(viol)});
    ctx.results[r.spec] = {{"cuts", prof.cuts.size()},
                           {"max_cut_rank", prof.max_cut_rank},
                           {"argmax_cut", prof.argmax_cut},
                           {"max_cache", prof.max_cache},
                           {"numeric_cuts", numeric_at.size()},
                           {"numeric_equals_flow", disagree.empty()},
                           {"bound", bound_text},
                           {"bound_violations", prof.bound_violations.size()},
                           {"generic_weights", prof.generic_weights}};
    // Points only (a NaN between points breaks the line): cache sizes are not an ordered axis of the
    // pattern, and lines between a few spaced cuts would suggest a curve that is not there.
    LineSeries lc{r.spec + (diag ? " (A diagonal)" : ""), {}, {}, true};
    for (auto [c, rk] : by_cache) {
      if (!lc.x.empty()) lc.x.push_back(std::nan("")), lc.y.push_back(std::nan(""));
      lc.x.push_back(c), lc.y.push_back(rk);
      (diag ? diag_cache_hi : cache_hi) = std::max(diag ? diag_cache_hi : cache_hi, c);
    }
    (diag ? any_diag : any_general) = true;
    if (!lc.x.empty()) s_vs_cache.push_back(std::move(lc));
  }
  if (capped)
    ctx.out.note("capped",
                 "cut ranks: every cut only for n <= --rank-cap " + nstr(P.rank_cap) + "; " +
                     nstr(P.rank_cuts) +
                     " evenly spaced cuts (--rank-cuts) above it; raise --rank-cap to compute every cut");
  ctx.out.markdown(
      "r(K) is the rank of the block of M = (I - B)^{-1}A that maps tokens 1..K to tokens K+1..n "
      "(docs/math.md §5). "
      "`flow` ranks come from a max-flow (Menger: vertex-disjoint paths), which equals the rank for generic "
      "weights, at every cut up to `--rank-cap " +
      nstr(P.rank_cap) + "` (else at `--rank-cuts " + nstr(P.rank_cuts) +
      "` evenly spaced cuts); `numeric` ranks (exact, over GF(2^61-1) with random weights: never above the "
      "flow rank, below it only with a reported probability of order 1e-13; floating-point QR or sketch for "
      "file weights) at the `--rank-cuts` spaced cuts cross-check them (`numeric_equals_flow`). "
      "Cache bound (docs/math.md §5): every path crossing "
      "the cut leaves through x_l or y_l for some l in the cache C_K, so r(K) <= 2|C_K| for any weights "
      "(|C_K| when A is diagonal).");
  ctx.out.table(sum);
  ctx.out.table_file(all);
  // Patterns with the same profile (pow2 and sq1: full rank min(K, n - K)) would hide each other: one line,
  // both names.
  for (std::size_t a = 0; a < s_rank.size(); ++a)
    for (std::size_t b = a + 1; b < s_rank.size();)
      if (same_points(s_rank[b].x, s_rank[a].x) && same_points(s_rank[b].y, s_rank[a].y)) {
        s_rank[a].label += " = " + s_rank[b].label;
        s_rank.erase(s_rank.begin() + static_cast<std::ptrdiff_t>(b));
      } else {
        ++b;
      }
  if (!s_rank.empty()) {
    const std::string n_text = nstr(ctx.runs.front().pattern.n);
    ctx.out.line_plot("cut_rank", s_rank,
                      {"Cut-rank profile r(K), n = " + n_text,
                       "cut K (tokens 1..K | K+1..n)",
                       "r(K)",
                       false,
                       false,
                       "rank of M[K+1..n, 1..K] (Menger max-flow = generic numeric rank)",
                       {}},
                      "Cut rank r(K) over the cut position K (linear y from 0, so small ranks show; points: "
                      "the numeric rank at the spaced cuts, beside the flow rank)",
                      true, P.pdf);
    if (any_general)
      s_vs_cache.push_back({"bound r = 2|C|", {1.0, double(cache_hi)}, {2.0, 2.0 * cache_hi}, false});
    if (any_diag)
      s_vs_cache.push_back(
          {"bound r = |C| (A diagonal)", {1.0, double(diag_cache_hi)}, {1.0, double(diag_cache_hi)}, false});
    ctx.out.line_plot(
        "cut_rank_vs_cache", s_vs_cache,
        {"Cut rank against cache size, n = " + n_text,
         "cache size |C_K| at the cut",
         "max r(K) over cuts with that cache",
         true,
         true,
         "each point: the largest cut rank among the cuts K whose cache |C_K| has that size",
         {}},
        "Cut rank against cache: for each cache size, the largest r(K) among the cuts with that "
        "|C_K|, beside the bound r(K) <= 2|C_K| (|C_K| when A is diagonal); points on or under "
        "the bound line hold (log-log)",
        true, P.pdf);
  }
  ctx.out.carry_on(
      "import matplotlib.pyplot as plt\n"
      "cr = pd.read_csv(\"tables/cut_ranks.csv\")\n"
      "fig, ax = plt.subplots()\n"
      "for name, g in cr.groupby(\"pattern\", sort=False):\n"
      "    ax.plot(g[\"cache\"], g[\"flow_rank\"], \".\", label=name)\n"
      "lim = cr[\"cache\"].max()\n"
      "ax.plot([0, lim], [0, 2 * lim], \"k--\", label=\"r = 2|C|\")\n"
      "ax.set(xlabel=\"cache |C_K|\", ylabel=\"cut rank r(K)\")\n"
      "ax.legend()\n"
      "plt.show()");
}

}  // namespace

ReportSection ranks_section() {
  return running_section("ranks", "Interaction rank", 70, {}, run_ranks);
}

}  // namespace mixgraph::analysis
