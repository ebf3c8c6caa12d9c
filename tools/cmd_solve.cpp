// mixgraph solve: Y = (I - B)^{-1} A X on a pattern, X from a file or seeded random, Y to a file (solve.hpp).
#include <omp.h>

#include <chrono>
#include <iostream>

#include "mixgraph/analysis/gpu_options_env.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/sweep.hpp"
#include "mixgraph/weight_files.hpp"
#include "mixgraph/weight_gen.hpp"
#include "mixgraph/weights.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"
#include "solve_attention.hpp"
#include "weight_options.hpp"

namespace mixgraph::cli {
namespace {

/// The largest --reps accepted (the median of 1000 solves is as good a timing as more would give).
constexpr int kMaxReps = 1000;

struct SolveCliOptions {
  CommonOptions common;
  std::string pattern;
  std::string n_text;
  std::string input, output;
  std::string random_text;
  int heads = 1;
  std::uint64_t seed = 1;
  std::string precision;  // "" = from the input (fp32 for --random)
  std::string backend = "auto";
  int reps = 1;
  WeightFiles weights;    // --weights-a, --weights-b, --gates, --input-gates
  AttentionOptions attn;  // --attn-q, --attn-k, --attn-kernel: A from real attention heads
  std::string save_weights;
  bool allow_nonfinite = false;  // read NaN / inf in X as they are (else refused, exit 3)
};

template <class T>
std::vector<T> take(NpyArray& a) {
  if constexpr (sizeof(T) == 8) {
    if (a.fp64) return std::move(a.f64);
    return std::vector<T>(a.f32.begin(), a.f32.end());
  } else {
    if (!a.fp64) return std::move(a.f32);
    return std::vector<T>(a.f64.begin(), a.f64.end());
  }
}

template <class T>
std::string weights_kind(const MixerWeights<T>& w, const SolveCliOptions& o) {
  auto one = [](CoefSource c) {
    return c == CoefSource::Seeded ? "seeded" : c == CoefSource::PerOffset ? "per offset" : "per position";
  };
  // attention: stored per position; B the seeded one (drawn, then stored) unless --weights-b gave it
  if (o.attn.given())
    return "A attention " + o.attn.kernel + " per position, B " +
           (o.weights.b.empty() ? std::string("seeded") : one(w.b_source));
  return std::string("A ") + one(w.a_source) + ", B " + one(w.b_source);
}

template <class T>
int run_typed(const SolveCliOptions& o, const Pattern& p, const BackendChoice& be, NpyArray* in,
              std::size_t d, int heads, nlohmann::json params) {
  const auto t0 = std::chrono::steady_clock::now();
  // seeded weights are made where the solver uses them (no per-nonzero array); files replace them
  const MixerWeights<T> w =
      o.attn.given()
          ? solve_attention_weights<T>(p, heads, o.seed, o.attn, o.weights, o.common.mem_limit_bytes())
      : o.weights.any() ? weights_from_files<T>(p, heads, o.seed, o.weights, o.common.mem_limit_bytes())
                        : seeded_mixer_weights<T>(p, heads, o.seed);
  if (!o.save_weights.empty()) {
    const auto paths = save_weights(o.save_weights, w, o.common.mem_limit_bytes());
    params["saved_weights"] = {paths.first, paths.second};
  }
  // --random on the GPU: X is made on the device (the same bits as below) and Y comes back only for -o
  const bool device_x = be.gpu && !in;
  std::vector<T> x;
  if (in) {
    x = take<T>(*in);
  } else if (!device_x) {
    x.resize(std::size_t(p.n) * d);
    const std::int64_t count = static_cast<std::int64_t>(x.size());
#pragma omp parallel for schedule(static) \
    num_threads(o.common.threads > 0 ? o.common.threads : omp_get_max_threads())
    for (std::int64_t k = 0; k < count; ++k)
      x[std::size_t(k)] = static_cast<T>(wgen::input_value(o.seed, std::size_t(k) / d, std::size_t(k) % d));
  }
  std::vector<T> y(device_x && o.output.empty() ? 0 : std::size_t(p.n) * d);
  SolveInfo info;
  std::vector<double> times, call_times;
  const gpu::SolveOptions gpu_options = gpu_options_from_env();
  double checksum = 0;
  for (int r = 0; r < std::max(1, o.reps); ++r) {
    info = device_x
               ? solve_seeded_x_on_gpu(w, o.seed, y.empty() ? nullptr : y.data(), d, gpu_options, &checksum)
               : solve_on(be, w, x.data(), y.data(), d, o.common.threads, gpu_options);
    times.push_back(info.seconds);
    call_times.push_back(info.total_seconds);
  }
  std::sort(times.begin(), times.end());
  std::sort(call_times.begin(), call_times.end());
  const double secs = times[times.size() / 2], call_secs = call_times[call_times.size() / 2];
  if (!device_x) {
    checksum = 0;
    for (T v : y) checksum += static_cast<double>(v);
  }
  if (!o.output.empty()) {
    NpyArray out;
    out.rows = p.n;
    out.cols = d;
    out.fp64 = sizeof(T) == 8;
    if constexpr (sizeof(T) == 8)
      out.f64 = std::move(y);
    else
      out.f32 = std::move(y);
    write_dense(o.output, out);
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const SolveStructure& s = w.s;
  if (o.common.fmt() != Format::Table) {
    auto j = json_header("solve", 1, params);
    j["pattern"] = p.spec;
    j["n"] = p.n;
    j["d"] = d;
    j["heads"] = heads;
    j["d_h"] = d / std::size_t(heads);
    j["precision"] = sizeof(T) == 8 ? "fp64" : "fp32";
    j["family"] = to_string(p.family);
    j["structure"] = s.implicit ? "implicit offsets" : "csr";
    j["nnz_A"] = s.nnz_a;
    j["nnz_B"] = s.nnz_b;
    j["backend"] = be.name;
    j["backend_reason"] = be.reason;
    j["kernel"] = info.kernel;
    j["threads"] = info.threads;
    j["reps"] = std::max(1, o.reps);
    j["seconds"] = secs;
    j["kernel_seconds"] = secs;
    j["solve_seconds"] = call_secs;
    j["total_seconds"] = total;
    j["weights"] = weights_kind(w, o);
    j["input"] = o.input.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.input);
    j["output"] = o.output.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.output);
    j["checksum"] = checksum;
    if (o.common.fmt() == Format::Csv) {  // one row: the same fields, header fields left out
      std::vector<std::string> h, row;
      for (auto it = std::next(j.begin(), 4); it != j.end(); ++it) {
        h.push_back(it.key());
        row.push_back(it.value().is_string() ? it.value().get<std::string>()
                      : it.value().is_null() ? ""
                                             : it.value().dump());
      }
      Table t(h);
      t.add(row);
      t.print_csv(std::cout);
    } else {
      print_json(std::cout, j);
    }
  } else {
    print_kv(
        std::cout,
        {{"pattern",
          p.spec + " (" + to_string(p.family) + ", " + (s.implicit ? "implicit offsets" : "CSR") + ")"},
         {"n x d", std::to_string(p.n) + " x " + std::to_string(d) + " (" + std::to_string(heads) +
                       " heads of " + std::to_string(d / std::size_t(heads)) + ")"},
         {"weights", weights_kind(w, o)},
         {"precision", sizeof(T) == 8 ? "fp64" : "fp32"},
         {"nnz(A), nnz(B)", std::to_string(s.nnz_a) + ", " + std::to_string(s.nnz_b)},
         {"backend", be.name + " (" + be.reason + ")"},
         {"kernel", info.kernel},
         {"kernel time", fmt_double(secs * 1e3, 4) + " ms" +
                             (o.reps > 1 ? " (median of " + std::to_string(o.reps) + ")" : "")},
         {"solve call time",
          fmt_double(call_secs * 1e3, 4) +
              (device_x ? std::string(" ms (X made on the device, device weights, kernel, sum of Y") +
                              (o.output.empty() ? ")" : ", download of Y)")
                        : " ms (X in host memory to Y in host memory" +
                              std::string(be.gpu ? ": uploads, device weights, kernel, download)" : ")"))},
         {"total time", fmt_double(total, 4) + " s (weights, input, all solves, output)"},
         {"output", o.output.empty() ? "(none; give --output to write Y)" : o.output},
         {"checksum (sum of Y)", fmt_double(checksum, 10)}});
  }
  return 0;
}

int run_solve(const SolveCliOptions& o) {
  o.common.apply();
  if (o.input.empty() == o.random_text.empty())
    throw UsageError(
        "give exactly one of --input FILE (X as .npy, .mtx or .csv) and --random D (seeded X with D "
        "columns)");
  if (o.heads < 1) throw UsageError("--heads must be >= 1");
  check_solve_attention(o.attn, o.weights);
  if (!o.precision.empty() && o.precision != "fp32" && o.precision != "fp64")
    throw UsageError("--precision must be fp32 or fp64");
  if (o.reps < 1 || o.reps > kMaxReps)
    throw UsageError("--reps must be between 1 and " + std::to_string(kMaxReps) + " (got " +
                     std::to_string(o.reps) + ")");
  if (!o.output.empty()) check_dense_extension(o.output);  // before any work, not after the solve
  const BackendChoice be = choose_backend(parse_backend(o.backend));
  NpyArray in;
  std::uint64_t n = 0;
  const PatternSpec spec = parse_pattern_spec(o.pattern, false);  // the one parse: estimate and build
  const bool is_mtx = spec.has_matrix();
  if (!o.n_text.empty()) n = parse_count(o.n_text, "--n");
  std::size_t d = 0;
  if (!o.input.empty()) {
    in = read_dense(o.input);
    if (!o.allow_nonfinite)
      require_finite(in, o.input, " (give --allow-nonfinite to read NaN and inf as they are)");
    if (n != 0 && in.rows != n)
      throw InputError(o.input + ": X has " + std::to_string(in.rows) + " rows but --n is " +
                       std::to_string(n));
    n = in.rows;
    d = static_cast<std::size_t>(in.cols);
  } else {
    d = static_cast<std::size_t>(parse_count(o.random_text, "--random"));
    if (n == 0 && !is_mtx) throw UsageError("--n is required with --random");
  }
  if (d == 0) throw UsageError("X needs at least one column");
  const int heads = heads_for_weights(o.weights, o.heads, d);
  if (n > 0xffffffffULL) throw UsageError("--n must fit in 32 bits");
  const bool fp64 = o.precision.empty() ? (!o.input.empty() && in.fp64) : o.precision == "fp64";
  const std::size_t es = fp64 ? 8 : 4;
  // X, Y and a working copy (n x d each), in checked arithmetic: n * d may not fit in 64 bits.
  const std::uint64_t xy_bytes = sat_mul(sat_mul(n, d), es * 3);
  const Pattern p = make_pattern_within(spec, n, o.common.mem_limit_bytes(), "solve " + o.pattern,
                                        {.extra_bytes = xy_bytes});
  if (!o.input.empty() && in.rows != p.n)
    throw InputError(o.input + ": X has " + std::to_string(in.rows) +
                     " rows but the pattern has n = " + std::to_string(p.n));
  // seeded weights cost their structure only; weight files are checked as they are read
  check_memory(
      sat_add(mixer_weights_bytes(p, heads, es, CoefSource::Seeded), sat_mul(sat_mul(p.n, d), es * 3)),
      o.common.mem_limit_bytes(), "solve weights for " + o.pattern + " at n = " + std::to_string(p.n));
  nlohmann::json params = {{"pattern", o.pattern}, {"n", p.n},
                           {"heads", heads},       {"seed", o.seed},
                           {"backend", o.backend}, {"format", o.common.format},
                           {"reps", o.reps}};
  if (!o.input.empty()) params["input"] = o.input;
  if (!o.random_text.empty()) params["random"] = d;
  if (!o.output.empty()) params["output"] = o.output;
  if (!o.precision.empty()) params["precision"] = o.precision;
  if (!o.weights.a.empty()) params["weights_a"] = o.weights.a;
  if (!o.weights.b.empty()) params["weights_b"] = o.weights.b;
  if (!o.weights.gates.empty()) params["gates"] = o.weights.gates;
  if (!o.weights.input_gates.empty()) params["input_gates"] = o.weights.input_gates;
  if (!o.save_weights.empty()) params["save_weights"] = o.save_weights;
  if (o.attn.given()) {
    params["attn_q"] = o.attn.q;
    params["attn_k"] = o.attn.k;
    params["attn_kernel"] = o.attn.kernel;
  }
  return fp64 ? run_typed<double>(o, p, be, o.input.empty() ? nullptr : &in, d, heads, params)
              : run_typed<float>(o, p, be, o.input.empty() ? nullptr : &in, d, heads, params);
}

Registrar reg_cmd_solve(
    "solve",
    "Y = (I - B)^{-1} A X on a pattern (seeded weights, head h seed + h, weights from .npy files, or A from "
    "attention heads' Q and K): X from .npy/.mtx/.csv or --random, Y to a file; says which kernel ran, its "
    "time and the total time",
    61, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<SolveCliOptions>();
      app.add_option("--pattern,-p", o->pattern, "Pattern spec: " + pattern_name_help())
          ->required()
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(app, "--n,-n", o->n_text, "Number of tokens (default: the rows of --input)");
      app.add_option("--input,-i", o->input,
                     "X, n rows x d columns: .npy (float32/float64, C order), "
                     ".mtx (array or coordinate) or .csv")
          ->type_name(type::kFile);
      app.add_flag("--allow-nonfinite", o->allow_nonfinite,
                   "Read NaN and inf in --input as they are (Y then holds NaN or inf); without it a "
                   "non-finite value of X is bad data (exit 3)");
      add_count_option(app, "--random", o->random_text,
                       "Seeded random X with this many columns (for timing; with the GPU made on the device, "
                       "docs/formats.md)");
      add_output_option(app, o->output, "Write Y here (.npy, .mtx or .csv; atomic)");
      app.add_option("--heads", o->heads, "Heads H (d a multiple of H); head h has its own A, B (seed + h)");
      add_seed_option(app, o->seed, "Seed of the weights (and of --random X)");
      app.add_option("--precision", o->precision, "fp32 or fp64 (default: the input's; fp32 for --random)")
          ->check(CLI::IsMember({"fp32", "fp64"}));
      app.add_option("--backend", o->backend, "auto (the GPU when present), cpu, or gpu (exit 4 without one)")
          ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
      app.add_option("--reps", o->reps, "Run the solve this many times and report the median time (1..1000)");
      add_weight_options(app, o->weights);
      add_solve_attention_options(app, o->attn);
      app.add_option("--save-weights", o->save_weights,
                     "Write the weights this run used to STEM.A.npy and STEM.B.npy (the --weights-a layout)")
          ->type_name(type::kFile);
      add_common_options(app, o->common);
      return [o] { return run_solve(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
