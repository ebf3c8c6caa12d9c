// mixgraph.cut_ranks: cut-rank profiles of M = (I - B)^{-1} A, numeric and Menger flow (`mixgraph rank`).
#include <pybind11/stl.h>

#include "common.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::py {
namespace {

std::vector<pos_t> cuts_from(const pb::object& c, pos_t n) {
  if (c.is_none()) return {};
  if (pb::isinstance<pb::str>(c)) {
    if (c.cast<std::string>() == "all") return all_cuts(n);
    throw UsageError("cuts must be None, 'all', a count or a list of cuts");
  }
  if (pb::isinstance<pb::int_>(c)) {
    const auto k = c.cast<long long>();
    if (k < 1) throw UsageError("cuts: a count must be >= 1");
    return spaced_cuts(n, static_cast<std::uint64_t>(k));
  }
  std::vector<pos_t> out;
  for (auto item : c) {
    const auto k = item.cast<long long>();
    if (k < 1 || static_cast<std::uint64_t>(k) >= n)
      throw UsageError("cuts: cut " + std::to_string(k) + " is outside 1.." + std::to_string(n - 1) +
                       " (cut K separates positions 1..K from K+1..n)");
    out.push_back(static_cast<pos_t>(k));
  }
  if (out.empty()) throw UsageError("cuts selected no cut");
  return out;
}

CutRankMethod method_from(const std::string& m) {
  if (m == "both") return CutRankMethod::Both;
  if (m == "dense") return CutRankMethod::Dense;
  if (m == "sketch") return CutRankMethod::Sketch;
  if (m == "flow") return CutRankMethod::Flow;
  throw UsageError("method must be dense, sketch, flow or both (got '" + m + "')");
}

pb::list dyadic_list(const DyadicRanks& d) {
  pb::list a;
  for (std::size_t l = 0; l < d.block_size.size(); ++l) {
    pb::dict e;
    e["block_size"] = d.block_size[l];
    e["blocks"] = d.blocks[l];
    e["max_rank"] = d.max_rank[l];
    a.append(e);
  }
  return a;
}

pb::tuple cut_ranks(const pb::object& pat, const pb::object& n_obj, const std::string& method,
                    const pb::object& cuts, std::uint64_t seed, double tol, bool dyadic,
                    const pb::object& mem) {
  if (tol < 0) throw UsageError("tol must be >= 0 (0 = the default rule)");
  if (pb::isinstance<pb::str>(pat)) {
    const auto spec = pat.cast<std::string>();
    const auto n = n_from(n_obj, spec);
    if (spec.rfind("mtx:", 0) != 0 && n < 2)
      throw UsageError("n must be >= 2 (cut K needs positions on both sides)");
    check_memory(estimate_pattern_bytes(spec, n, true) * 3, mem_limit_from(mem),
                 "pattern " + spec + " with weights at n = " + std::to_string(n));
  }
  const PatternPtr h = pattern_from(pat, n_obj);
  const Pattern& p = h->p;
  if (p.n < 2) throw UsageError("n must be >= 2 (cut K needs positions on both sides)");
  CutRankParams params;
  params.seed = seed;
  params.tol = tol;
  params.mem_limit = mem_limit_from(mem);
  params.method = method_from(method);
  params.cuts = cuts_from(cuts, p.n);
  if (dyadic && p.n > 4096) throw UsageError("dyadic=True needs the dense operator: n <= 4096");
  CutRankProfile r;
  DyadicRanks dy;
  pb::object contrast = pb::none();
  {
    pb::gil_scoped_release release;
    r = cut_rank_profile(p, params);
    if (dyadic) {
      check_memory(8ull * p.n * p.n * 2, params.mem_limit, "dense operator for dyadic=True");
      const auto iw = induced_weights(p, seed);
      dy = dyadic_block_ranks_transposed(dense_operator_transposed(iw.w), r.tolerance);
    }
  }
  std::size_t full = 0;
  const auto& ranks = r.flow_done ? r.flow : r.numeric;
  for (std::size_t c = 0; c < r.cuts.size(); ++c)
    if (ranks[c] == std::min<pos_t>(r.cuts[c], p.n - r.cuts[c])) ++full;
  const std::uint32_t bound_factor = r.a_diagonal ? 1 : 2;
  std::string finding;
  if (full == r.cuts.size())
    finding = "full rank on every cut computed: r(K) = min(K, n-K) (information crosses every cut unimpeded)";
  else
    finding = "max r(K) = " + std::to_string(r.max_cut_rank) + " (at K = " + std::to_string(r.argmax_cut) +
              ") with max cache " + std::to_string(r.max_cache) + "; bounded by " +
              std::to_string(bound_factor) + " |C_K|; full rank on " + std::to_string(full) + " of " +
              std::to_string(r.cuts.size()) + " cuts";
  if (p.n <= (1u << 16) &&
      (p.family == PatternFamily::CacheEfficient || p.family == PatternFamily::TranslationInvariant)) {
    const std::string other = p.family == PatternFamily::CacheEfficient ? p.base : p.spec + "+cache";
    try {
      CutRankProfile rq;
      {
        pb::gil_scoped_release release;
        const Pattern q = make_pattern(other, p.n);
        CutRankParams cp;
        cp.seed = seed;
        cp.method = CutRankMethod::Flow;
        cp.cuts = r.cuts;
        cp.mem_limit = params.mem_limit;
        rq = cut_rank_profile(q, cp);
      }
      pb::dict c;
      c["pattern"] = other;
      c["max_cut_rank"] = rq.max_cut_rank;
      c["max_cut_rank_at"] = rq.argmax_cut;
      c["max_cache"] = rq.max_cache;
      c["method"] = "flow";
      contrast = c;
    } catch (const UsageError&) {
      // no cache-efficient variant of this spec: no contrast (as the CLI)
    }
  }
  // the same notes and fields as `mixgraph rank --format json` (tools/cmd_rank.cpp); the pytest suite
  // compares the two field by field
  const std::string weights_note =
      r.generic_weights
          ? (r.numeric_method == "exact" ? "seeded random weights over GF(2^61-1): generic, so numeric rank "
                                           "= Menger flow except with "
                                           "the probability bound below, and never above it"
                                         : "seeded random weights (weights.hpp random_weights): generic, so "
                                           "numeric rank = Menger flow")
          : "weights from the .mtx files (not generic): numeric ranks may legitimately be below the flow "
            "ranks";
  pb::dict j, extra;
  j["pattern"] = p.spec;
  j["n"] = p.n;
  j["cut_indexing"] = "cut K separates positions 1..K from K+1..n; lists are parallel to 'cuts'";
  pb::list dis;
  for (std::size_t c = 0; c < r.cuts.size(); ++c)
    if (r.numeric_done && r.flow_done && r.numeric[c] != r.flow[c]) {
      pb::dict d;
      d["cut"] = r.cuts[c];
      d["numeric"] = r.numeric[c];
      d["flow"] = r.flow[c];
      dis.append(d);
    }
  j["cuts"] = to_numpy(std::move(r.cuts));
  j["numeric_method"] = r.numeric_done ? pb::cast(r.numeric_method) : pb::none();
  j["cut_rank_numeric"] = r.numeric_done ? pb::object(to_numpy(std::move(r.numeric))) : pb::none();
  j["cut_rank_flow"] = r.flow_done ? pb::object(to_numpy(std::move(r.flow))) : pb::none();
  j["cache_at_cut"] = to_numpy(std::move(r.cache_at_cut));
  j["max_cut_rank"] = r.max_cut_rank;
  j["max_cut_rank_at"] = r.argmax_cut;
  j["max_cache"] = r.max_cache;
  j["full_rank_cuts"] = full;
  j["agree"] = r.agree;
  j["disagreements"] = dis;
  j["tolerance"] = r.tolerance;
  j["tolerance_rule"] = r.tolerance_rule;
  if (r.numeric_done && r.numeric_method == "exact") {
    j["numeric_field"] = "GF(2^61-1)";
    j["failure_probability_bound"] = r.failure_bound;
  }
  if (r.numeric_done && r.numeric_method != "exact") {
    auto val = [](double v) { return v >= 0 ? pb::object(pb::float_(v)) : pb::object(pb::none()); };
    pb::dict gap;
    gap["smallest_kept"] = val(r.smallest_kept);
    gap["largest_dropped"] = val(r.largest_dropped);
    gap["ratio"] = r.smallest_kept > 0 && r.largest_dropped > 0
                       ? pb::object(pb::float_(r.smallest_kept / r.largest_dropped))
                       : pb::object(pb::none());
    j["pivot_gap"] = gap;
  }
  j["numeric_above_flow"] = to_numpy(r.numeric_above_flow);
  j["weights"] = r.generic_weights ? "random" : "file";
  j["weights_note"] = weights_note;
  pb::dict cb;
  cb["factor"] = bound_factor;
  cb["holds"] = r.bound_violations.empty();
  cb["violations"] = to_numpy(std::move(r.bound_violations));
  j["cache_bound"] = cb;
  if (!r.sketch_columns.empty()) j["sketch_columns"] = to_numpy(std::move(r.sketch_columns));
  if (r.flow_done) {
    pb::dict fs;
    fs["augmentations"] = r.flow_stats.augmentations;
    fs["phases"] = r.flow_stats.phases;
    fs["cancelled"] = r.flow_stats.cancelled;
    j["flow_stats"] = fs;
  }
  j["finding"] = finding;
  j["contrast"] = contrast;
  if (dyadic) j["dyadic_blocks"] = dyadic_list(dy);
  return pb::make_tuple(j, extra);
}

}  // namespace

void bind_ranks(pb::module_& m) {
  m.def("_cut_ranks", &cut_ranks, pb::arg("pattern"), pb::arg("n") = pb::none(), pb::arg("method") = "both",
        pb::arg("cuts") = pb::none(), pb::arg("seed") = 1, pb::arg("tol") = 0.0, pb::arg("dyadic") = false,
        pb::arg("mem_limit") = pb::none());
}

}  // namespace mixgraph::py
