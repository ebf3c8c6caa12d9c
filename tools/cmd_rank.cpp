// mixgraph rank: cut ranks of the induced operator (numeric and Menger), log-linear attention's hierarchical
// mask, and the Ghodsi interaction rank of SSMs and multi-head mixers (docs/math.md §5).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cmd_stack.hpp"
#include "mixgraph/analysis/interaction_ranks.hpp"
#include "mixgraph/analysis/rank_query.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/hierarchical.hpp"
#include "mixgraph/interaction.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "rank_heads_sum.hpp"
#include "registry.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

struct RankOptions {
  CommonOptions common;
  std::string pattern, n_text, method = "both", cuts_text;
  std::uint64_t seed = 1;
  double tol = 0.0;
  bool dyadic = false;
  std::string checkpoint_dir;
  std::string weights_a, weights_b;  // the user's weights (one head), else seeded
  analysis::AttentionOptions attn;   // --attn-q / --attn-k: a real attention head on A
};

struct LogLinearOptions {
  CommonOptions common;
  std::string t_text, pattern;
  std::uint64_t seed = 1;
  std::uint64_t numeric_limit = 1024;
};
struct SsmOptions {
  CommonOptions common;
  std::string n_text, state_text, p_text, d_text, matrices, example;
  std::uint64_t seed = 1;
  double tol = 0.0;
};
struct HeadsOptions {
  CommonOptions common;
  std::vector<std::string> patterns;
  std::string n_text, p_text, d_text;
  std::uint64_t seed = 1;
  double tol = 0.0;
};

/// The value, or `none` when that method was not run ("-" in tables, empty in CSV).
std::string opt_u(const std::vector<std::uint32_t>& v, std::size_t i, const char* none = "-") {
  return i < v.size() ? std::to_string(v[i]) : none;
}

void print_dyadic_table(const DyadicRanks& d, std::ostream& os) {
  Table t({"block size 2^l", "blocks", "max numeric rank"});
  for (std::size_t l = 0; l < d.block_size.size(); ++l)
    t.add({std::to_string(d.block_size[l]), std::to_string(d.blocks[l]), std::to_string(d.max_rank[l])});
  t.print_text(os);
}

using analysis::RankResult;

/// Numeric and flow ranks agree at cut c (true when one of them was not computed).
bool rank_agrees(const CutRankProfile& r, std::size_t c) {
  return !(r.numeric_done && r.flow_done) || r.numeric[c] == r.flow[c];
}

void print_rank_csv(const RankResult& res, std::ostream& os) {
  const auto& r = res.profile;
  const auto& ai = res.attention;
  std::vector<std::string> cols = {"cut", "rank_numeric", "rank_flow", "cache_at_cut", "bound", "agree"};
  if (ai) cols.push_back("rank_generic_exact");  // only with --attn-q / --attn-k
  Table t(cols);
  for (std::size_t c = 0; c < r.cuts.size(); ++c) {
    std::vector<std::string> row = {std::to_string(r.cuts[c]),
                                    opt_u(r.numeric, c, ""),
                                    opt_u(r.flow, c, ""),
                                    std::to_string(r.cache_at_cut[c]),
                                    std::to_string((r.a_diagonal ? 1 : 2) * r.cache_at_cut[c]),
                                    rank_agrees(r, c) ? "true" : "false"};
    if (ai) row.push_back(ai->generic ? opt_u(ai->generic->numeric, c, "") : "");
    t.add(row);
  }
  t.print_csv(os);
}

/// The summary lines above the table.
std::vector<std::pair<std::string, std::string>> rank_summary(const Pattern& p, const RankResult& res,
                                                              std::uint64_t seed) {
  const auto& r = res.profile;
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", p.spec},
      {"n", std::to_string(p.n)},
      {"operator", "M = (I - B)^{-1} A; r(K) = rank M[K+1..n, 1..K]"},
      {"weights", res.weights_note + " (seed " + std::to_string(seed) + ")"},
      {"numeric", r.numeric_done ? r.numeric_method : "not computed"},
      {r.numeric_method == "exact" ? "rule" : "tolerance", r.numeric_done ? r.tolerance_rule : "-"},
      {"flow", r.flow_done ? "Menger: max vertex-disjoint x_{<=K} -> y_{>K} paths (incremental Dinic)"
                           : "not computed"},
      {"cuts", std::to_string(r.cuts.size()) + (r.cuts.size() + 1 == p.n ? " (all)" : "")},
  };
  if (r.numeric_done && r.numeric_method == "exact") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", r.failure_bound);
    kv.emplace_back("P(any numeric rank low)",
                    std::string("<= ") + buf + " (Schwartz-Zippel, over all cuts)");
  }
  // the floating-point methods: the gap the tolerance fell into (relative pivots |R_ll| / |R_11|)
  if (r.numeric_done && r.numeric_method != "exact")
    kv.emplace_back("pivot gap", "smallest counted pivot " +
                                     (r.smallest_kept >= 0 ? fmt_double(r.smallest_kept, 3) : "-") +
                                     ", largest uncounted " +
                                     (r.largest_dropped >= 0 ? fmt_double(r.largest_dropped, 3) : "-") +
                                     " (relative to |R_11|; a small ratio means the rank is not clear-cut)");
  if (res.attention)
    for (auto& e : analysis::attention_text(*res.attention)) kv.push_back(std::move(e));
  return kv;
}

/// Up to 40 cuts, evenly spread, and the cut of the maximum.
std::vector<std::size_t> shown_cuts(const CutRankProfile& r) {
  std::vector<std::size_t> show;
  const std::size_t limit = 40;
  if (r.cuts.size() <= limit) {
    for (std::size_t c = 0; c < r.cuts.size(); ++c) show.push_back(c);
    return show;
  }
  for (std::size_t q = 0; q < limit; ++q) show.push_back(q * (r.cuts.size() - 1) / (limit - 1));
  for (std::size_t c = 0; c < r.cuts.size(); ++c)
    if (r.cuts[c] == r.argmax_cut) show.push_back(c);
  std::sort(show.begin(), show.end());
  show.erase(std::unique(show.begin(), show.end()), show.end());
  return show;
}

void print_rank_text(const Pattern& p, const RankResult& res, std::uint64_t seed, std::ostream& os) {
  const auto& r = res.profile;
  const auto& ai = res.attention;
  const std::uint32_t bound_factor = r.a_diagonal ? 1 : 2;
  print_kv(os, rank_summary(p, res, seed));
  os << "\n";
  std::vector<std::string> cols = {
      "K", "r numeric", "r flow", "|C_K|", std::to_string(bound_factor) + "|C_K|", "min(K,n-K)", "agree"};
  if (ai && ai->generic) cols.push_back("r generic exact");
  Table t(cols);
  const auto show = shown_cuts(r);
  for (std::size_t c : show) {
    std::vector<std::string> row = {std::to_string(r.cuts[c]),
                                    opt_u(r.numeric, c),
                                    opt_u(r.flow, c),
                                    std::to_string(r.cache_at_cut[c]),
                                    std::to_string(bound_factor * r.cache_at_cut[c]),
                                    std::to_string(std::min<pos_t>(r.cuts[c], p.n - r.cuts[c])),
                                    rank_agrees(r, c) ? "yes" : "NO"};
    if (ai && ai->generic) row.push_back(opt_u(ai->generic->numeric, c));
    t.add(row);
  }
  t.print_text(os);
  if (show.size() < r.cuts.size())
    os << "(showing " << show.size() << " of " << r.cuts.size() << " cuts; --format csv|json lists all)\n";
  os << "\nmax cut rank (semiseparable rank): " << r.max_cut_rank << " at K = " << r.argmax_cut
     << "; max cache max_i |C_i| = " << r.max_cache << "\n";
  os << "cache bound r(K) <= " << bound_factor << " |C_K|: "
     << (r.bound_violations.empty() ? "holds on every cut computed"
                                    : "VIOLATED at " + std::to_string(r.bound_violations.size()) + " cuts")
     << "\n";
  if (r.numeric_done && r.flow_done) {
    if (r.agree) {
      os << "numeric and flow ranks agree on every cut\n";
    } else {
      os << "numeric and flow ranks DISAGREE on " << r.disagreements.size() << " cuts"
         << (r.generic_weights ? "" : " (file weights are not generic: this may be legitimate)") << ":\n";
      std::size_t shown = 0;
      for (std::size_t c = 0; c < r.cuts.size() && shown < 20; ++c)
        if (r.numeric[c] != r.flow[c]) {
          os << "  K = " << r.cuts[c] << ": numeric " << r.numeric[c] << ", flow " << r.flow[c] << "\n";
          ++shown;
        }
    }
  }
  os << "finding: " << res.finding << "\n";
  if (const auto& ct = res.contrast)  // the contrast: on the same cuts, by flow, and the cache profile
    os << "contrast: " << ct->pattern << " on the same cuts: max r(K) = " << ct->max_cut_rank
       << " (at K = " << ct->max_cut_rank_at << "), max cache " << ct->max_cache << "; " << p.spec
       << ": max r(K) = " << r.max_cut_rank << ", max cache " << r.max_cache << "\n";
  if (res.heads) print_heads_sum(os, *res.heads, r.cuts, r.flow);
  if (res.dyadic) {
    os << "\nrank of the dyadic off-diagonal blocks of M (0-indexed rows [2^l(2m+1), 2^l(2m+2)) x columns "
          "[2^l 2m, 2^l(2m+1))):\n";
    print_dyadic_table(*res.dyadic, os);
  }
}

int run_rank(const RankOptions& o) {
  o.common.apply();
  if (o.pattern.empty())
    throw UsageError("--pattern is required (or use a subcommand: mixgraph rank loglinear|ssm|heads)");
  if (is_stack_spec(o.pattern)) {  // layers: cmd_stack.cpp
    StackRequest sr{o.pattern, o.n_text, o.common};
    sr.method = o.method;
    sr.seed = o.seed;
    sr.tol = o.tol;
    sr.cuts_text = o.cuts_text;
    for (const auto& [given, name] : {std::pair{o.dyadic, "--dyadic"},
                                      {!o.checkpoint_dir.empty(), "--checkpoint"},
                                      {!o.weights_a.empty(), "--weights-a"},
                                      {!o.weights_b.empty(), "--weights-b"}})
      if (given) sr.unsupported.push_back(name);
    return run_stack_rank(sr);
  }
  analysis::RankQuery q;  // the checks, the profile and what goes beside it: mixgraph/analysis/rank_query.hpp
  q.pattern = o.pattern;
  q.n = o.n_text;
  q.method = o.method;
  q.cuts = o.cuts_text;
  q.seed = o.seed;
  q.tol = o.tol;
  q.mem_limit = o.common.mem_limit_bytes();
  q.dyadic = o.dyadic;
  q.weights.a = o.weights_a;
  q.weights.b = o.weights_b;
  q.attn = o.attn;
  const auto plan = analysis::rank_prepare(q);
  // several MPI ranks or a checkpoint folder: the numeric ranks over shards of cuts (docs/scaling.md)
  std::optional<CutRankProfile> merged;
  if (sharded(o.checkpoint_dir)) {
    if (plan.user)  // the shard fingerprint does not cover the weight files
      throw UsageError(
          "--weights-a / --weights-b / --attn-q do not combine with --checkpoint or several MPI ranks");
    merged = sharded_cut_rank_profile(*plan.pattern, plan.params, o.checkpoint_dir);
    if (!merged) return 0;  // ranks other than 0 print nothing
  }
  const auto res = analysis::rank_compute(q, plan, std::move(merged));
  const Pattern& p = *plan.pattern;

  const Format fmt = o.common.fmt();
  if (fmt == Format::Json) {
    nlohmann::json pj = {{"pattern", o.pattern},
                         {"n", p.n},
                         {"seed", o.seed},
                         {"method", o.method},
                         {"format", o.common.format}};
    if (!o.weights_a.empty()) pj["weights_a"] = o.weights_a;
    if (!o.weights_b.empty()) pj["weights_b"] = o.weights_b;
    if (o.attn.given()) {
      pj["attn_q"] = o.attn.q;
      pj["attn_k"] = o.attn.k;
      pj["attn_kernel"] = o.attn.kernel;
    }
    if (!o.cuts_text.empty()) pj["cuts"] = o.cuts_text;
    if (o.tol > 0) pj["tol"] = o.tol;
    auto j = json_header("rank", 1, pj);
    j.update(analysis::rank_json(plan, res));
    print_json(std::cout, j);
  } else if (fmt == Format::Csv) {
    print_rank_csv(res, std::cout);
  } else {
    print_rank_text(p, res, o.seed, std::cout);
  }
  if (!res.profile.agree && res.profile.generic_weights)
    std::cerr << "mixgraph: warning: numeric and flow ranks disagree (see output)\n";
  return 0;
}

int run_loglinear(const LogLinearOptions& o) {
  o.common.apply();
  const auto res =
      analysis::loglinear({o.t_text, o.seed, o.numeric_limit, o.pattern, o.common.mem_limit_bytes()});
  const auto& s = res.summary;
  const auto T = s.T;
  const bool with_pattern = !o.pattern.empty();
  if (o.common.fmt() == Format::Json) {
    print_json(std::cout, res.document.json(o.common.format));
    return 0;
  }
  if (o.common.fmt() == Format::Csv) {
    Table t({"buckets", "queries"});
    for (std::size_t b = 0; b < s.queries_with_buckets.size(); ++b)
      if (s.queries_with_buckets[b]) t.add({std::to_string(b), std::to_string(s.queries_with_buckets[b])});
    t.print_csv(std::cout);
    return 0;
  }
  print_kv(
      std::cout,
      {{"operator",
        "log-linear attention mask M^H_{t,s} = lambda_t^(level(t,s)), level = bit_length(t XOR s)"},
       {"indexing", res.document.body.at("indexing").get<std::string>()},
       {"T", std::to_string(T)},
       {"buckets of query t", "1 + popcount(t) (non-empty levels)"},
       {"max_levels", std::to_string(s.max_levels) + " (first at query t = " +
                          std::to_string(s.argmax_query) + "; computed over every t < T)"},
       {"level indices used", std::to_string(s.level_indices) + " (levels 0..bit_length(T-1))"},
       {"dyadic blocks rank <= 1",
        std::string(s.dyadic_blocks_rank_le_1 ? "yes" : "NO") + " (" + std::to_string(s.dyadic_blocks) +
            " blocks, structural: one level per block" + (s.numeric_done ? ", and numerically" : "") + ")"}});
  std::cout << "\n";
  Table h({"buckets", "queries"});
  for (std::size_t b = 0; b < s.queries_with_buckets.size(); ++b)
    if (s.queries_with_buckets[b]) h.add({std::to_string(b), std::to_string(s.queries_with_buckets[b])});
  h.print_text(std::cout);
  if (s.numeric_done) {
    std::cout << "\nnumeric rank of M^H's dyadic off-diagonal blocks (random lambda in [0.5, 1)):\n";
    print_dyadic_table(s.numeric, std::cout);
  }
  if (with_pattern) {
    std::cout << "\nthe same for pattern " << o.pattern << " (M = (I - B)^{-1} A at n = T):\n";
    print_dyadic_table(res.pattern_dyadic, std::cout);
  }
  return 0;
}

void print_interaction(const InteractionRank& r, std::ostream& os) {
  Table t({"H (heads)", "residual sqrt(sum_{l>H} sigma_l^2)", "sigma_H"});
  const std::size_t L = r.singular_values.size();
  for (std::size_t h = 0; h <= std::min<std::size_t>(L, r.rank + 2); ++h)
    t.add({std::to_string(h), fmt_double(r.residual_by_heads[h], 4),
           h >= 1 ? fmt_double(r.singular_values[h - 1], 4) : "-"});
  t.print_text(os);
}

/// H = 0..pd: the best H-head residual and sigma_H (empty for H = 0).
void print_interaction_csv(const InteractionRank& r, std::ostream& os) {
  Table t({"H", "residual", "sigma_H"});
  for (std::size_t h = 0; h < r.residual_by_heads.size(); ++h)
    t.add({std::to_string(h), fmt_double(r.residual_by_heads[h], 10),
           h >= 1 ? fmt_double(r.singular_values[h - 1], 10) : ""});
  t.print_csv(os);
}

/// ssm's and heads' json (the result's document) and csv (the residual table); false for the table format.
template <class Result>
bool printed_interaction_json_or_csv(const CommonOptions& common, const Result& res) {
  if (common.fmt() == Format::Json) {
    print_json(std::cout, res.document.json(common.format));
    return true;
  }
  if (common.fmt() == Format::Csv) {
    print_interaction_csv(res.rank, std::cout);
    return true;
  }
  return false;
}

int run_ssm(const SsmOptions& o) {
  o.common.apply();
  const auto res = analysis::ssm_rank({.n = o.n_text,
                                       .state = o.state_text,
                                       .p = o.p_text,
                                       .d = o.d_text,
                                       .matrices = o.matrices,
                                       .example = o.example,
                                       .seed = o.seed,
                                       .tol = o.tol,
                                       .mem_limit = o.common.mem_limit_bytes()});
  const auto& r = res.rank;
  const auto n = res.n;
  if (printed_interaction_json_or_csv(o.common, res)) return 0;
  print_kv(std::cout,
           {{"SSM", res.source},
            {"n, N, p, d", std::to_string(n) + ", " + std::to_string(res.state) + ", " +
                               std::to_string(res.p) + ", " + std::to_string(res.d)},
            {"stack", "sqrt(n - tau) vec(C Abar^tau Bbar), tau < n"},
            {"interaction rank k", std::to_string(r.rank) + " (sigma_l > " + fmt_double(r.tolerance, 3) +
                                       " sigma_1; bound min(N, pd, n) = " + std::to_string(res.bound) + ")"},
            {"best (k-1)-head residual", r.rank >= 1 ? fmt_double(r.residual_by_heads[r.rank - 1], 6) : "-"},
            {"best k-head residual", fmt_double(r.residual_by_heads[r.rank], 6) + " (rounding level)"}});
  std::cout << "\n";
  print_interaction(r, std::cout);
  if (o.example == "rotation")
    std::cout << "\nrank-gap example: k = " << r.rank << "; best single-head Frobenius error "
              << fmt_double(r.residual_by_heads.size() > 1 ? r.residual_by_heads[1] : 0.0, 6)
              << " (>= 1 for n >= 2)\n";
  return 0;
}

int run_heads(const HeadsOptions& o) {
  o.common.apply();
  const auto res = analysis::heads_rank(
      {o.patterns, o.n_text, o.p_text, o.d_text, o.seed, o.tol, o.common.mem_limit_bytes()});
  const auto& r = res.rank;
  if (printed_interaction_json_or_csv(o.common, res)) return 0;
  print_kv(std::cout, {{"heads", std::to_string(o.patterns.size())},
                       {"mixer", "W_ij = sum_h [(I-B_h)^{-1}A_h]_ij V_h, V_h random p x d"},
                       {"interaction rank",
                        std::to_string(r.rank) + " (<= H = " + std::to_string(o.patterns.size()) + ")"}});
  std::cout << "\n";
  print_interaction(r, std::cout);
  return 0;
}

/// ssm's and heads' --tol: the interaction rank's relative tolerance on the singular values.
void add_sigma_tol_option(CLI::App& sub, double& tol) {
  sub.add_option("--tol", tol, "Relative tolerance on sigma_l / sigma_1, 0..1 (0 = 1e-8)")
      ->check(finite_range(0.0, 1.0))
      ->default_val(0.0);
}

Registrar reg_cmd_rank(
    "rank",
    "Cut ranks of M = (I-B)^{-1} A (numeric and Menger flow), log-linear attention, SSM interaction rank", 40,
    [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<RankOptions>();
      app.add_option("--pattern,-p", o->pattern,
                     "Pattern spec: " + pattern_name_help() +
                         ". Layers: stack:P1,P2,... (cut ranks of the product M_L ... M_1)")
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(app, "--n,-n", o->n_text,
                       "Number of tokens; accepts 4096, 2^16, 1e6. Not needed for mtx:");
      add_seed_option(app, o->seed, "Seed of the random weights and sketches");
      app.add_option(
             "--weights-a", o->weights_a,
             "A's weights from a .npy, (1, offsets) per offset or (1, nnz_A) per position (as solve's; "
             "not generic)")
          ->type_name(type::kFile);
      app.add_option("--weights-b", o->weights_b, "B's weights from a .npy, laid out as --weights-a's")
          ->type_name(type::kFile);
      app.add_option(
             "--attn-q", o->attn.q,
             "Queries of a real attention head on A's mask: a .npy of n x r (row t = position t + 1); "
             "with --attn-k. B keeps seeded weights")
          ->type_name(type::kFile);
      app.add_option("--attn-k", o->attn.k, "Keys of the attention head: a .npy of n x r (as --attn-q)")
          ->type_name(type::kFile);
      app.add_option("--attn-kernel", o->attn.kernel,
                     "softmax (exp(q.k/sqrt r), renormalised over the mask) or linear (elu(x)+1 feature map, "
                     "renormalised)")
          ->check(CLI::IsMember({"softmax", "linear"}))
          ->default_val("softmax");
      app.add_option(
             "--method", o->method,
             "both (numeric and flow; numeric = exact for seeded weights, for .mtx file weights dense "
             "up to n = 1024, sketch above), exact (ranks over GF(2^61-1)), dense, sketch (floating "
             "point, with a tolerance) or flow")
          ->check(CLI::IsMember({"both", "exact", "dense", "sketch", "flow"}))
          ->default_val("both");
      app.add_option(
             "--cuts", o->cuts_text,
             "COUNT evenly spaced cuts, a LIST 1,128,255 or 1..8 (a single cut: '128,'), or 'all'. Default: "
             "all up to n = 1024, 64 above")
          ->check(position_list({"all"}))
          ->type_name("COUNT|LIST|all");
      app.add_option("--tol", o->tol, "Relative rank tolerance of dense/sketch, 0..1 (0 = default 1e-13)")
          ->check(finite_range(0.0, 1.0))
          ->default_val(0.0);
      app.add_flag("--dyadic", o->dyadic,
                   "Also the rank of every dyadic off-diagonal block of M (n <= 4096)");
      app.add_option(
             "--checkpoint", o->checkpoint_dir,
             "Keep each finished shard of cuts (their numeric ranks) in this folder; a re-run with the "
             "same parameters computes only the missing shards (docs/scaling.md)")
          ->check(nonempty_path())
          ->type_name(type::kDir);
      add_common_options(app, o->common);
      app.require_subcommand(0, 1);

      auto ll = std::make_shared<LogLinearOptions>();
      auto* sl =
          app.add_subcommand("loglinear", "Log-linear attention mask: buckets, max_levels, HODLR check");
      add_count_option(*sl, "--n,-n,--T", ll->t_text,
                       "Number of tokens (queries t = 0..n-1, 0-indexed), at most 2^28. Old name: --T")
          ->required();
      add_seed_option(*sl, ll->seed, "Seed of the lambda weights");
      sl->add_option("--numeric-limit", ll->numeric_limit,
                     "Numeric dyadic ranks of M^H up to this n (at most 4096)")
          ->default_val(1024);
      sl->add_option("--pattern,-p", ll->pattern,
                     "Also the dyadic block ranks of this pattern's M at the same n")
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_common_options(*sl, ll->common);

      auto ss = std::make_shared<SsmOptions>();
      auto* sv = app.add_subcommand("ssm", "Ghodsi interaction rank of an LTI SSM and best H-head residuals");
      add_count_option(*sv, "--n,-n", ss->n_text, "Number of tokens (the sequence length)")->required();
      add_count_option(*sv, "--state", ss->state_text, "State size N (random SSM)");
      add_count_option(*sv, "--out-channels,--p", ss->p_text, "Output channels p (rows of C). Old name: --p");
      add_count_option(*sv, "--in-channels,--d", ss->d_text,
                       "Input channels d (columns of Bbar). Old name: --d");
      add_sigma_tol_option(*sv, ss->tol);
      add_seed_option(*sv, ss->seed, "Seed of the random SSM");
      sv->add_option("--matrices", ss->matrices, "Abar, Bbar, C as Matrix Market files: A.mtx,B.mtx,C.mtx")
          ->type_name("FILE,FILE,FILE");
      sv->add_option("--example", ss->example, "rotation: the rank-gap example (k = 2)")
          ->check(CLI::IsMember({"rotation"}));
      add_common_options(*sv, ss->common);

      auto hd = std::make_shared<HeadsOptions>();
      auto* sh = app.add_subcommand("heads", "Interaction rank of sum_h [(I-B_h)^{-1}A_h]_ij V_h");
      sh->add_option("--pattern,-p", hd->patterns, "One pattern per head (repeat the option)")
          ->required()
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(*sh, "--n,-n", hd->n_text, "Number of tokens (the sequence length, <= 1024)")
          ->required();
      // the old name --p of --out-channels cannot be an option name beside -p (CLI11 2.4 refuses the
      // pair): main() rewrites it before parsing (arg_rewrites() in registry.cpp)
      add_count_option(*sh, "--out-channels", hd->p_text, "Output channels p of each V_h. Old name: --p")
          ->required();
      add_count_option(*sh, "--in-channels,--d", hd->d_text, "Input channels d of each V_h. Old name: --d")
          ->required();
      add_sigma_tol_option(*sh, hd->tol);
      add_seed_option(*sh, hd->seed, "Seed of the weights (head h: seed + h)");
      add_common_options(*sh, hd->common);

      return [o, ll, ss, hd, sl, sv, sh] {
        if (sl->parsed()) return run_loglinear(*ll);
        if (sv->parsed()) return run_ssm(*ss);
        if (sh->parsed()) return run_heads(*hd);
        return run_rank(*o);
      };
    });

}  // namespace
}  // namespace mixgraph::cli
