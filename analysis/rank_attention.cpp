// The cut ranks of a real attention head beside the generic ones (mixgraph/analysis/rank_attention.hpp).
#include "mixgraph/analysis/rank_attention.hpp"

#include <algorithm>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/npy.hpp"

namespace mixgraph::analysis {

using ojson = nlohmann::ordered_json;

WeightedPattern load_attention(const Pattern& p, const AttentionOptions& o, std::uint64_t seed,
                               std::uint64_t& key_dim) {
  if (o.q.empty() || o.k.empty()) throw UsageError("--attn-q and --attn-k go together (queries and keys)");
  const AttentionKernel kernel = attention_kernel(o);
  const NpyArray q = read_npy(o.q);
  const NpyArray k = read_npy(o.k);
  auto w = attention_weights(p, q, k, kernel, seed);
  key_dim = q.cols;
  return w;
}

namespace {

/// B empty and every row i > K (1-indexed) reads all of 1..K through A.
bool full_block(const WeightedPattern& w, pos_t K) {
  if (w.b.nnz() != 0) return false;
  for (pos_t i = K; i < w.a.n; ++i) {
    const auto row = w.a.row(i);
    if (row.size() < K || row[K - 1] != K - 1) return false;
  }
  return true;
}

}  // namespace

AttentionRankInfo attention_rank_info(const Pattern& p, const WeightedPattern& w, const CutRankProfile& r,
                                      const AttentionOptions& o, std::uint64_t key_dim, std::uint64_t seed,
                                      std::uint64_t mem_limit, bool want_generic) {
  AttentionRankInfo a;
  a.q = o.q;
  a.k = o.k;
  a.kernel = o.kernel;
  a.key_dim = key_dim;
  a.b_empty = w.b.nnz() == 0;
  if (want_generic) {
    CutRankParams gp;
    gp.seed = seed;
    gp.method = CutRankMethod::Exact;
    gp.cuts = r.cuts;
    gp.mem_limit = mem_limit;
    a.generic = cut_rank_profile(p, gp);
  }
  std::uint32_t full = 0;
  for (pos_t K : r.cuts) {
    a.full_block.push_back(full_block(w, K));
    full += a.full_block.back() ? 1 : 0;
  }
  if (r.numeric_done)
    for (std::size_t c = 0; c < r.cuts.size(); ++c)
      if (r.numeric[c] > a.max_numeric || a.max_numeric_at == 0) {
        a.max_numeric = r.numeric[c];
        a.max_numeric_at = r.cuts[c];
      }
  if (r.numeric_done && p.n <= 4096 && a.max_numeric_at > 0)
    a.sv = cut_block_singular_values(w, a.max_numeric_at);
  const std::string rs = std::to_string(a.key_dim);
  const std::string flow = r.flow_done ? std::to_string(r.max_cut_rank) : std::string("-");
  if (a.kernel == "linear") {
    std::uint32_t above = 0;
    for (std::size_t c = 0; c < r.cuts.size() && r.numeric_done; ++c)
      if (a.full_block[c] && r.numeric[c] > a.key_dim) ++above;
    a.explanation =
        "linear kernel: alpha = diag(1/z) phi(Q) phi(K)^T on the mask, so a cut whose block M[K+1..n, 1..K] "
        "is unmasked (B = 0, every later row reads all of 1..K) has rank <= r = " +
        rs + " (the key dimension); " + std::to_string(full) + " of " + std::to_string(r.cuts.size()) +
        " cuts are such" +
        (r.numeric_done
             ? std::string(above ? ", and " + std::to_string(above) + " of them exceed r numerically"
                                 : ", and none exceeds r numerically")
             : std::string()) +
        "; elsewhere the mask's shape adds rank. The flow rank (max " + flow +
        ") counts vertex-disjoint paths and holds for generic weights";
  } else {
    a.explanation =
        "softmax: alpha = diag(1/z) exp(Q K^T / sqrt r) on the mask, r = " + rs +
        ". exp of a rank-r matrix is not rank r: the real head's rank is only numerically low, bounded by "
        "the C(r+d, d) monomials of a degree-d Taylor truncation of exp that reaches the tolerance, so it is "
        "far below the flow rank (max " +
        flow +
        ") only when the scores q.k/sqrt(r) are small or the cut "
        "block is; with unit-variance scores it stays near the flow rank";
  }
  return a;
}

ojson attention_json(const AttentionRankInfo& a, const CutRankProfile& r) {
  ojson j;
  j["q"] = a.q;
  j["k"] = a.k;
  j["kernel"] = a.kernel;
  j["key_dim"] = a.key_dim;
  j["mask"] = "the pattern's A reads, renormalised over each row";
  j["b_weights"] = a.b_empty ? "none (B is empty)" : "seeded generic (random_weights)";
  j["cut_rank_generic_exact"] = a.generic ? ojson(a.generic->numeric) : ojson(nullptr);
  j["unmasked_cut"] = a.full_block;
  j["max_numeric_rank"] = r.numeric_done ? ojson(a.max_numeric) : ojson(nullptr);
  j["max_numeric_rank_at"] = r.numeric_done ? ojson(a.max_numeric_at) : ojson(nullptr);
  if (!a.sv.empty() && a.sv[0] > 0) {
    const std::size_t k = a.max_numeric;
    auto rel = [&](std::size_t l) {
      return l >= 1 && l <= a.sv.size() ? ojson(a.sv[l - 1] / a.sv[0]) : ojson(nullptr);
    };
    j["singular_value_gap"] = {{"cut", a.max_numeric_at},
                               {"rank", k},
                               {"sigma_rank_over_sigma_1", rel(k)},
                               {"sigma_next_over_sigma_1", rel(k + 1)},
                               {"sigma_over_sigma_1", [&] {
                                  std::vector<double> v;
                                  for (std::size_t l = 0; l < a.sv.size() && l < 64; ++l)
                                    v.push_back(a.sv[l] / a.sv[0]);
                                  return v;
                                }()}};
  } else {
    j["singular_value_gap"] = nullptr;
  }
  j["explanation"] = a.explanation;
  return j;
}

std::vector<std::pair<std::string, std::string>> attention_text(const AttentionRankInfo& a) {
  std::vector<std::pair<std::string, std::string>> kv;
  kv.emplace_back("attention head", a.kernel + " from " + a.q + ", " + a.k + " (key dimension r = " +
                                        std::to_string(a.key_dim) + "), on the pattern's A mask");
  if (!a.sv.empty() && a.sv[0] > 0) {
    const std::size_t k = a.max_numeric;
    const std::string kept = k >= 1 && k <= a.sv.size() ? fmt_double(a.sv[k - 1] / a.sv[0], 3) : "-";
    const std::string next = k < a.sv.size() ? fmt_double(a.sv[k] / a.sv[0], 3) : "-";
    kv.emplace_back("singular-value gap", "at K = " + std::to_string(a.max_numeric_at) + " (rank " +
                                              std::to_string(k) + "): sigma_k / sigma_1 = " + kept +
                                              ", sigma_{k+1} / sigma_1 = " + next);
  }
  kv.emplace_back("real vs generic", a.explanation);
  return kv;
}

}  // namespace mixgraph::analysis
