// mixgraph.solve's user weights on the host (solve_weights.hpp).
#include "solve_weights.hpp"

#include <optional>
#include <vector>

#include "dlpack_array.hpp"
#include "mixgraph/analysis/attention_options.hpp"
#include "mixgraph/analysis/weight_options.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"
#include "mixgraph/weight_files.hpp"

namespace mixgraph::py {
namespace {

/// Presence only: the CLI's option checks look at which options are given, not at their values.
WeightFiles presence(const UserWeights& u) {
  WeightFiles f;
  if (!u.a.is_none()) f.a = "weights_a";
  if (!u.b.is_none()) f.b = "weights_b";
  if (!u.gates.is_none()) f.gates = "gates";
  if (!u.input_gates.is_none()) f.input_gates = "input_gates";
  return f;
}

analysis::AttentionOptions attention(const UserWeights& u) {
  analysis::AttentionOptions o;
  if (!u.q.is_none()) o.q = "attn_q";
  if (!u.k.is_none()) o.k = "attn_k";
  o.kernel = u.kernel;
  return o;
}

/// One keyword's matrix: a path is read (into `file`), an array is viewed in place (kept alive by `keep`).
std::optional<WeightArray> matrix(const pb::object& v, const char* name, std::uint64_t mem_limit,
                                  NpyArray& file, ArrayView& keep) {
  if (v.is_none()) return std::nullopt;
  if (pb::isinstance<pb::str>(v)) {
    const std::string path = v.cast<std::string>();
    file = read_weight_file(path, name, mem_limit);
    return weight_array(file, std::string(name) + " " + path);
  }
  keep = array_view(v, false, name);
  if (keep.cuda)
    throw UsageError(std::string(name) + " is a CUDA array but X is on the host: give host weights (numpy)");
  if (keep.ndim != 2)
    throw UsageError(std::string(name) + " must be a 2-D array (the layouts of the CLI's .npy weight files)");
  WeightArray w;
  w.rows = std::uint64_t(keep.rows);
  w.cols = std::uint64_t(keep.cols);
  w.fp64 = keep.itemsize == 8;
  w.data = keep.data;
  w.name = name;
  return w;
}

/// attn_q / attn_k: a path read as the CLI reads it, or an array copied into an NpyArray.
NpyArray dense(const pb::object& v, const char* name) {
  if (pb::isinstance<pb::str>(v)) return read_npy(v.cast<std::string>());
  const ArrayView a = array_view(v, false, name);
  if (a.cuda)
    throw UsageError(std::string(name) + " is a CUDA array but X is on the host: give a host array");
  if (a.ndim != 2) throw UsageError(std::string(name) + " must be a 2-D array n x (heads r)");
  NpyArray r;
  r.rows = std::uint64_t(a.rows);
  r.cols = std::uint64_t(a.cols);
  r.fp64 = a.itemsize == 8;
  if (r.fp64)
    r.f64.assign(static_cast<const double*>(a.data), static_cast<const double*>(a.data) + r.size());
  else
    r.f32.assign(static_cast<const float*>(a.data), static_cast<const float*>(a.data) + r.size());
  return r;
}

}  // namespace

bool UserWeights::any() const {
  return !a.is_none() || !b.is_none() || !gates.is_none() || !input_gates.is_none() || !q.is_none() ||
         !k.is_none();
}

std::string UserWeights::given_names() const {
  std::string s;
  const std::pair<const pb::object*, const char*> all[] = {{&a, "weights_a"}, {&b, "weights_b"},
                                                           {&gates, "gates"}, {&input_gates, "input_gates"},
                                                           {&q, "attn_q"},    {&k, "attn_k"}};
  for (const auto& [o, name] : all)
    if (!o->is_none()) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

int user_weight_heads(const UserWeights& u, int heads, std::size_t d) {
  const WeightFiles f = presence(u);
  const analysis::WeightOptionNames names = analysis::python_weight_option_names();
  analysis::check_solve_attention(attention(u), f, names);
  return analysis::heads_for_weights(f, heads, d, names);
}

template <class T>
std::shared_ptr<const MixerWeights<T>> user_weights(const Pattern& p, int heads, std::uint64_t seed,
                                                    const UserWeights& u, std::uint64_t mem_limit) {
  const analysis::AttentionOptions ao = attention(u);
  const analysis::WeightOptionNames names = analysis::python_weight_option_names();
  analysis::check_solve_attention(ao, presence(u), names);
  NpyArray files[4];
  ArrayView views[4];
  if (ao.given()) {
    const NpyArray q = dense(u.q, "attn_q"), k = dense(u.k, "attn_k");
    const auto b = matrix(u.b, "weights_b", mem_limit, files[0], views[0]);
    return std::make_shared<const MixerWeights<T>>(analysis::attention_weights_from_arrays<T>(
        p, heads, seed, q, k, analysis::attention_kernel(ao, names), b, mem_limit));
  }
  check_memory(mixer_weights_bytes(p, heads, sizeof(T)), mem_limit,
               "solve weights for " + p.spec + " at n = " + std::to_string(p.n));
  WeightArrays w;
  w.b = matrix(u.b, "weights_b", mem_limit, files[0], views[0]);
  w.a = matrix(u.a, "weights_a", mem_limit, files[1], views[1]);
  w.gates = matrix(u.gates, "gates", mem_limit, files[2], views[2]);
  w.input_gates = matrix(u.input_gates, "input_gates", mem_limit, files[3], views[3]);
  return std::make_shared<const MixerWeights<T>>(weights_from_arrays<T>(p, heads, seed, w));
}

template std::shared_ptr<const MixerWeights<float>> user_weights<float>(const Pattern&, int, std::uint64_t,
                                                                        const UserWeights&, std::uint64_t);
template std::shared_ptr<const MixerWeights<double>> user_weights<double>(const Pattern&, int, std::uint64_t,
                                                                          const UserWeights&, std::uint64_t);

}  // namespace mixgraph::py
