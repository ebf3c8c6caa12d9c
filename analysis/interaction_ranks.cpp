// mixgraph::analysis::loglinear, ssm_rank, heads_rank (interaction_ranks.hpp).
#include "mixgraph/analysis/interaction_ranks.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {

LogLinearResult loglinear(const LogLinearQuery& q) {
  if (q.T.empty()) throw UsageError("--n is required (the number of queries)");
  const auto T = parse_count(q.T, "--n");
  if (T < 1) throw UsageError("--n must be >= 1 (the number of queries)");
  if (T > kMaxLogLinearT) throw UsageError("--n must be <= 2^28 (the summary walks every query)");
  if (q.numeric_limit > 4096) throw UsageError("--numeric-limit must be <= 4096 (a dense T x T matrix)");
  if (T <= q.numeric_limit)
    check_memory(8ull * T * T * 2, q.mem_limit, "dense M^H at T = " + std::to_string(T));
  LogLinearResult res;
  const auto& s = res.summary = loglinear_summary(T, q.seed, q.numeric_limit);
  const bool with_pattern = !q.pattern.empty();
  if (with_pattern) {
    if (T > 4096 || T < 2)
      throw UsageError("--pattern with loglinear needs the dense operator: 2 <= T <= 4096");
    check_memory(8ull * T * T * 2, q.mem_limit, "dense operator for --pattern");
    const auto p = make_pattern(q.pattern, T);
    const auto iw = induced_weights(p, q.seed);
    res.pattern_dyadic =
        dyadic_block_ranks_transposed(dense_operator_transposed(iw.w), default_rank_tolerance(p.n));
  }
  auto& d = res.document;
  d.schema = "rank.loglinear";
  d.command = "rank loglinear";
  d.parameters = {{"T", T}, {"seed", q.seed}, {"numeric_limit", q.numeric_limit}};
  if (with_pattern) d.parameters["pattern"] = q.pattern;
  auto& j = d.body;
  j["indexing"] = "queries t and keys s are 0-indexed (t = 0..T-1), as in the log-linear attention paper";
  j["T"] = T;
  j["max_levels"] = s.max_levels;
  j["max_levels_query"] = s.argmax_query;
  j["level_indices_used"] = s.level_indices;
  j["queries_with_buckets"] = s.queries_with_buckets;
  if (T <= 4096) {
    std::vector<std::uint32_t> b;
    for (std::uint64_t t = 0; t < T; ++t) b.push_back(loglinear_buckets(t));
    j["buckets_per_query"] = b;
  }
  j["dyadic_blocks_rank_le_1"] = s.dyadic_blocks_rank_le_1;
  j["dyadic_blocks_checked"] = s.dyadic_blocks;
  j["dyadic_numeric"] = s.numeric_done ? json::dyadic(s.numeric) : ojson(nullptr);
  j["tolerance"] = s.tolerance;
  if (with_pattern)
    j["pattern_dyadic"] = {{"pattern", q.pattern}, {"blocks", json::dyadic(res.pattern_dyadic)}};
  return res;
}

ojson interaction_json(const InteractionRank& r) {
  ojson j;
  j["interaction_rank"] = r.rank;
  j["singular_values"] = r.singular_values;
  j["residual_by_heads"] = r.residual_by_heads;
  j["residual_at_rank_minus_1"] = r.rank >= 1 ? ojson(r.residual_by_heads[r.rank - 1]) : ojson(nullptr);
  j["residual_at_rank"] = r.residual_by_heads[r.rank];
  j["tolerance"] = r.tolerance;
  j["tolerance_rule"] = "k = #{l : sigma_l > tolerance * sigma_1}";
  return j;
}

namespace {
/// UsageError "<name> must be >= 1" for the first (value, name) whose value is 0.
void require_positive(std::initializer_list<std::pair<std::uint64_t, const char*>> counts) {
  for (const auto& [v, name] : counts)
    if (v < 1) throw UsageError(std::string(name) + " must be >= 1");
}
}  // namespace

SsmResult ssm_rank(const SsmQuery& q) {
  if (q.n.empty()) throw UsageError("--n is required (the sequence length)");
  const auto n = parse_count(q.n, "--n");
  if (n < 1) throw UsageError("--n must be >= 1 (the sequence length)");
  if (q.tol < 0) throw UsageError("--tol must be >= 0 (0 = the default 1e-8)");
  SsmMatrices m;
  SsmResult res;
  if (!q.example.empty()) {
    if (q.example != "rotation") throw UsageError("--example must be 'rotation'");
    if (!q.matrices.empty()) throw UsageError("give either --example or --matrices, not both");
    m = rotation_ssm();
    res.source = "rotation example: Abar = [[0,-1],[1,0]], Bbar = C = I";
  } else if (!q.matrices.empty()) {
    const auto a = q.matrices.find(','), b = q.matrices.find(',', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos || q.matrices.find(',', b + 1) != std::string::npos)
      throw UsageError("--matrices needs three files: A.mtx,B.mtx,C.mtx");
    m = read_ssm_matrices(q.matrices.substr(0, a), q.matrices.substr(a + 1, b - a - 1),
                          q.matrices.substr(b + 1));
    res.source = "files " + q.matrices;
  } else {
    if (q.state.empty() || q.p.empty() || q.d.empty())
      throw UsageError(
          "--state, --out-channels (--p) and --in-channels (--d) are required for a random SSM (or give "
          "--matrices or --example rotation)");
    const auto N = parse_count(q.state, "--state"), P = parse_count(q.p, "--out-channels"),
               D = parse_count(q.d, "--in-channels");
    require_positive({{N, "--state"}, {P, "--out-channels (--p)"}, {D, "--in-channels (--d)"}});
    if (N > 4096 || P > 65536 || D > 65536 || P * D > 65536)
      throw UsageError("--state must be <= 4096 and p*d <= 65536");
    m = random_stable_ssm(static_cast<std::uint32_t>(N), static_cast<std::uint32_t>(P),
                          static_cast<std::uint32_t>(D), q.seed);
    res.source =
        "random stable: Abar = 0.95 G / ||G||_2, G uniform in [-1,1); Bbar, C uniform in [-1,1)/sqrt(N)";
  }
  auto check_dim = [](const std::string& text, Eigen::Index v, const char* what) {
    if (!text.empty() && parse_count(text, what) != static_cast<std::uint64_t>(v))
      throw UsageError(std::string(what) + " = " + text + " does not match the matrices (" +
                       std::to_string(v) + ")");
  };
  if (!q.example.empty() || !q.matrices.empty()) {
    check_dim(q.state, m.A.rows(), "--state");
    check_dim(q.p, m.C.rows(), "--out-channels");
    check_dim(q.d, m.B.cols(), "--in-channels");
  }
  const auto pdim = static_cast<std::uint64_t>(m.C.rows() * m.B.cols());
  check_memory(sat_mul(sat_mul(n, pdim), 24), q.mem_limit, "lag stack n x pd");
  res.rank = ssm_interaction_rank(m, n, q.tol);
  const auto& r = res.rank;
  res.n = n;
  res.state = static_cast<std::uint64_t>(m.A.rows());
  res.p = static_cast<std::uint64_t>(m.C.rows());
  res.d = static_cast<std::uint64_t>(m.B.cols());
  res.bound = std::min<std::uint64_t>({res.state, pdim, n});
  auto& doc = res.document;
  doc.schema = "rank.ssm";
  doc.command = "rank ssm";
  doc.parameters = {{"n", n}, {"state", m.A.rows()}, {"p", m.C.rows()}, {"d", m.B.cols()}, {"seed", q.seed}};
  if (!q.matrices.empty()) doc.parameters["matrices"] = q.matrices;
  if (!q.example.empty()) doc.parameters["example"] = q.example;
  if (q.tol > 0) doc.parameters["tol"] = q.tol;
  auto& j = doc.body;
  j["source"] = res.source;
  j["stack"] =
      "rows tau = 0..n-1: sqrt(n - tau) vec(C Abar^tau Bbar) (each lag weighted by its n - tau pairs)";
  const ojson ij = interaction_json(r);
  for (auto it = ij.begin(); it != ij.end(); ++it) j[it.key()] = it.value();
  j["rank_bound"] = res.bound;
  if (q.example == "rotation")
    j["single_head_error"] = r.residual_by_heads.size() > 1 ? r.residual_by_heads[1] : 0.0;
  return res;
}

HeadsResult heads_rank(const HeadsQuery& q) {
  if (q.patterns.empty()) throw UsageError("give one --pattern per head");
  if (q.n.empty() || q.p.empty() || q.d.empty())
    throw UsageError("--n, --out-channels and --in-channels are required");
  const auto n = parse_count(q.n, "--n"), P = parse_count(q.p, "--out-channels"),
             D = parse_count(q.d, "--in-channels");
  require_positive({{n, "--n"}, {P, "--out-channels (--p)"}, {D, "--in-channels (--d)"}});
  if (n > 1024) throw UsageError("rank heads builds every pair: --n must be <= 1024");
  if (P > 4096 || D > 4096 || P * D > 4096) throw UsageError("p*d must be <= 4096");
  const std::uint64_t H = q.patterns.size();
  if (H > 1024)
    throw UsageError("rank heads: at most 1024 heads (--pattern given " + std::to_string(H) + " times)");
  // the pair stack, and each head's A and B (up to n(n+1)/2 reads each, 12 bytes a read) and V_h
  check_memory(
      8ull * (n * (n + 1) / 2) * P * D * 2 + 8ull * n * n * 2 + H * (12ull * n * (n + 1) + 8 * P * D),
      q.mem_limit, "pair stack and the heads' weights");
  std::vector<WeightedPattern> heads;
  std::vector<Eigen::MatrixXd> vals;
  for (std::size_t h = 0; h < q.patterns.size(); ++h) {
    heads.push_back(induced_weights(make_pattern(q.patterns[h], n), q.seed + h).w);
    if (heads.back().a.n != heads[0].a.n) throw UsageError("every head's pattern must have the same n");
    vals.push_back(random_value_matrix(static_cast<std::uint32_t>(P), static_cast<std::uint32_t>(D), q.seed,
                                       static_cast<std::uint32_t>(h)));
  }
  HeadsResult res;
  res.rank = heads_interaction_rank(heads, vals, q.tol);
  auto& doc = res.document;
  doc.schema = "rank.heads";
  doc.command = "rank heads";
  doc.parameters = {{"patterns", q.patterns}, {"n", n}, {"p", P}, {"d", D}, {"seed", q.seed}};
  auto& j = doc.body;
  j["heads"] = q.patterns.size();
  j["stack"] = "rows: vec(W_ij) for every pair j <= i, W_ij = sum_h [(I-B_h)^{-1}A_h]_ij V_h";
  const ojson ij = interaction_json(res.rank);
  for (auto it = ij.begin(); it != ij.end(); ++it) j[it.key()] = it.value();
  return res;
}

}  // namespace mixgraph::analysis
