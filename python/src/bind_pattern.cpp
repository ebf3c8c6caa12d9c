// mixgraph.Pattern: a pattern spec on n positions, its reads and its decode cost / cache profile.
#include <pybind11/stl.h>

#include "common.hpp"
#include "interrupt.hpp"
#include "json_py.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/sweep.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph::py {

const PatternProfile& PatternHolder::profile() {
  if (!prof) {
    ProfileOptions po;
    po.threads = threads;
    po.per_position = true;
    // O(n + nnz), seconds at large n: on a worker thread that Ctrl-C stops; it keeps this holder alive
    auto out = std::make_shared<PatternProfile>();
    ensure_threads(threads);  // a process limit: a clear error, not the OpenMP runtime's exit
    run_cancellable([self = shared_from_this(), out, po] { *out = cache_profile(self->p, po); });
    prof = std::move(*out);
  }
  return *prof;
}

void check_threads(long long threads, const char* name) {
  if (const std::string why = analysis::threads_problem(threads); !why.empty())
    throw UsageError(std::string(name) + " " + why);
}

namespace {

std::string show(const pb::handle& v) {
  std::string r = pb::repr(v).cast<std::string>();
  if (r.size() > 60) r = r.substr(0, 57) + "...";
  return r;
}

/// An int argument (bool refused) as an unsigned 64-bit value; ArgumentTypeError for another type,
/// UsageError for a negative value or one beyond 64 bits.
std::uint64_t u64_arg(const pb::handle& v, const std::string& name, const std::string& want) {
  if (pb::isinstance<pb::bool_>(v) || !pb::isinstance<pb::int_>(v))
    throw ArgumentTypeError(name + " must be " + want + " (got " + show(v) + ")");
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow < 0 || (overflow == 0 && s < 0))
    throw UsageError(name + " must be >= 0 (got " + show(v) + ")");
  if (overflow == 0) return static_cast<std::uint64_t>(s);
  const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw UsageError(name + " must be below 2**64 (got " + show(v) + ")");
  }
  return u;
}

}  // namespace

std::uint64_t n_from(const pb::object& n, const std::string& spec) {
  return n_from(n, parse_pattern_spec(spec));
}

std::uint64_t n_from(const pb::object& n, const PatternSpec& tree) {
  const std::string& spec = tree.text;
  const bool is_mtx = tree.has_matrix();  // n from the files
  if (n.is_none()) {
    if (!is_mtx) throw UsageError("n is required (the number of tokens) for pattern " + spec);
    return 0;
  }
  if (pb::isinstance<pb::str>(n)) return parse_count(n.cast<std::string>(), "n");
  const std::uint64_t v = u64_arg(n, "n", "an int or text such as '2^20'");
  if (v < (is_mtx ? 0u : 1u)) throw UsageError("n must be >= 1 (got " + std::to_string(v) + ")");
  return v;
}

std::uint64_t mem_limit_from(const pb::object& m) {
  if (m.is_none()) return 0;
  if (pb::isinstance<pb::str>(m)) return parse_memory_size(m.cast<std::string>());
  return u64_arg(m, "mem_limit", "an int (bytes) or text such as '8G'");
}

PatternPtr pattern_from_tree(const std::string& spec, const PatternSpec& tree, std::uint64_t n,
                             std::uint64_t mem_limit, int threads) {
  check_pattern_memory(tree, n, mem_limit, "pattern " + spec, {.per_position = true});
  auto h = std::make_shared<PatternHolder>();
  auto parsed = std::make_shared<const PatternSpec>(tree);  // the work may outlive this call (Ctrl-C)
  run_cancellable(
      [h, parsed, n] { h->p = make_pattern(*parsed, n); });  // Ctrl-C stops the build (interrupt.hpp)
  h->threads = threads;
  return h;
}

namespace {

PatternPtr make_holder(const pb::object& spec_obj, const pb::object& n_obj, const pb::object& threads_obj,
                       const pb::object& mem) {
  if (!pb::isinstance<pb::str>(spec_obj))
    throw ArgumentTypeError("spec must be a pattern spec str such as 'pow2' (got " + show(spec_obj) + ")");
  const std::string spec = spec_obj.cast<std::string>();
  const std::uint64_t t = u64_arg(threads_obj, "threads", "an int (0 = all cores)");
  check_threads(t > std::uint64_t(kMaxThreads) ? kMaxThreads + 1 : static_cast<long long>(t));
  const int threads = static_cast<int>(t);
  const PatternSpec tree = parse_pattern_spec(spec, false);  // the one parse: estimate and build take it
  const std::uint64_t n = n_from(n_obj, tree);
  if (!tree.has_matrix()) validate_n(n);
  return pattern_from_tree(spec, tree, n, mem_limit_from(mem), threads);
}

/// `mixgraph pattern --profile --format json` without the header (the CLI's serialiser, json_py.hpp).
pb::object to_dict(PatternHolder& h, bool lists) {
  auto j = json::pattern_summary(h.p, h.profile(), lists);
  if (lists) json::add_pattern_profile(j, h.p, h.profile());
  return json_to_py(j);
}

pos_t position(const PatternHolder& h, const pb::object& i_obj) {
  if (!pb::isinstance<pb::bool_>(i_obj) && pb::isinstance<pb::int_>(i_obj)) {
    int overflow = 0;
    const long long i = PyLong_AsLongLongAndOverflow(i_obj.ptr(), &overflow);
    if (overflow != 0 || i < 1 || static_cast<std::uint64_t>(i) > h.p.n)
      throw UsageError("position " + show(i_obj) + " is outside 1.." + std::to_string(h.p.n) +
                       " (positions are 1-indexed)");
    return static_cast<pos_t>(i - 1);
  }
  throw ArgumentTypeError("i must be an int, a 1-indexed position (got " + show(i_obj) + ")");
}

pb::dict csr_dict(Csr&& c) {
  pb::dict d;
  d["ptr"] = to_numpy(std::move(c.ptr));
  d["idx"] = to_numpy(std::move(c.idx));
  d["val"] = to_numpy(std::move(c.val));
  return d;
}

}  // namespace

void bind_pattern(pb::module_& m) {
  m.def("_spec_parse_count", &spec_parse_count,
        "For tests: how many times a pattern spec was parsed in this process (pattern_spec.hpp).");
  pb::class_<PatternHolder, PatternPtr>(m, "Pattern", R"doc(
A causal token mixer's sparsity pattern on n positions (1-indexed, as in every mixgraph output).

Pattern(spec, n=None, threads=0, mem_limit=None)

spec: every spec the CLI takes: pow2, pow:b, sq1, sq, fib, window:w, ssm, dense, local:w, attention,
expr:<f(k)>, offsets:o1,o2,..., mtx:B.mtx, mtx:A.mtx,B.mtx, and <translation-invariant spec>+cache.
n: the number of tokens (an int, or text such as '2^20' or '1e6'); None for mtx: specs (the files give
it). Building is O(#offsets) for translation-invariant patterns (no edge list) and O(n + nnz) otherwise.
The decode cost / cache profile is computed once, on first use, in O(n + nnz).
Raises UsageError (a ValueError) for a bad spec or n, InputError for a bad .mtx file, MemoryRefused
(a MemoryError) when the estimate is above mem_limit (bytes or '8G'; default: physical memory).
)doc")
      .def(pb::init(&make_holder), pb::arg("spec"), pb::arg("n") = pb::none(), pb::arg("threads") = 0,
           pb::arg("mem_limit") = pb::none())
      .def_property_readonly(
          "spec", [](const PatternHolder& h) { return h.p.spec; }, "The spec as given.")
      .def_property_readonly(
          "base", [](const PatternHolder& h) { return h.p.base; },
          "The translation-invariant base of a +cache spec (else the spec).")
      .def_property_readonly(
          "n", [](const PatternHolder& h) { return h.p.n; }, "Number of positions.")
      .def_property_readonly(
          "family", [](const PatternHolder& h) { return std::string(to_string(h.p.family)); },
          "'translation-invariant', 'cache-efficient' or 'matrix'.")
      .def_property_readonly(
          "a_mode", [](const PatternHolder& h) { return std::string(to_string(h.p.a_mode)); },
          "How A relates to B: 'shared', 'diagonal' or 'explicit'.")
      .def_property_readonly(
          "nnz_A", [](PatternHolder& h) { return h.profile().nnz_a; },
          "Nonzeros of A (the diagonal included where A has it).")
      .def_property_readonly(
          "nnz_B", [](PatternHolder& h) { return h.profile().nnz_b; }, "Nonzeros of B.")
      .def_property_readonly(
          "offsets",
          [](pb::object self) -> pb::object {
            auto& h = self.cast<PatternHolder&>();
            if (h.p.family == PatternFamily::Matrix) return pb::none();
            return view(h.p.f_values, self);
          },
          "The offsets f(k) < n (uint64, sorted; read-only view), None for mtx: patterns.")
      .def_property_readonly(
          "total_decode_cost", [](PatternHolder& h) { return h.profile().total_decode_cost; },
          "Sum over positions of the decode cost: whole-sequence work.")
      .def_property_readonly(
          "max_decode_cost", [](PatternHolder& h) { return h.profile().max_decode_cost; },
          "Largest decode cost of a position.")
      .def_property_readonly(
          "max_cache", [](PatternHolder& h) { return h.profile().max_cache; },
          "max_i |C_i| (positions a later token still reads).")
      .def_property_readonly(
          "max_cache_position", [](PatternHolder& h) { return h.profile().argmax_cache + 1; },
          "The first (1-indexed) position with the largest cache.")
      .def(
          "decode_cost",
          [](pb::object self) { return view(self.cast<PatternHolder&>().profile().decode_cost, self); },
          "Per position (entry 0 = position 1): distinct j < i read through A or B (uint32, read-only view, "
          "no copy). O(n + nnz) on the first profile call, O(1) after.")
      .def(
          "cache_sizes",
          [](pb::object self) { return view(self.cast<PatternHolder&>().profile().cache_size, self); },
          "Per position: |C_i|, the positions j <= i that some later token still reads (uint32, read-only "
          "view).")
      .def(
          "kept_set_sizes",
          [](pb::object self) -> pb::object {
            auto& h = self.cast<PatternHolder&>();
            if (h.p.family != PatternFamily::CacheEfficient) return pb::none();
            return view(h.profile().kept_set, self);
          },
          "Cache-efficient (+cache) patterns: per position |S_i| (uint32, read-only view); None otherwise.")
      .def(
          "reads",
          [](const PatternHolder& h, const pb::object& i) {
            const pos_t r = position(h, i);
            std::vector<pos_t> b, a;
            for_each_b_read(h.p, r, [&](pos_t j) { b.push_back(j + 1); });
            for_each_a_read(h.p, r, [&](pos_t j) { a.push_back(j + 1); });
            return pb::make_tuple(to_numpy(std::move(b)), to_numpy(std::move(a)));
          },
          pb::arg("i"),
          "(B reads, A reads) of 1-indexed position i: ascending 1-indexed positions (uint32 arrays); B "
          "excludes i, A includes i where A has the diagonal. O(reads).")
      .def("to_dict", &to_dict, pb::arg("lists") = true,
           "The fields of `mixgraph pattern --profile --format json` (without the header fields schema, "
           "mixgraph_version, command, parameters); lists=False leaves out offsets and the per-position "
           "lists, like --summary.")
      .def(
          "_weights",
          [](PatternHolder& h, const pb::object& seed_obj) {
            const std::uint64_t seed = u64_arg(seed_obj, "seed", "an int in 0..2**64-1");
            // O(n + nnz): on a worker thread that Ctrl-C stops (interrupt.hpp)
            auto w = std::make_shared<WeightedPattern>();
            run_cancellable([self = h.shared_from_this(), w, seed] { *w = random_weights(self->p, seed); });
            pb::dict d;
            d["A"] = csr_dict(std::move(w->a));
            d["B"] = csr_dict(std::move(w->b));
            return d;
          },
          pb::arg("seed"), "A and B as CSR arrays with random_weights(seed) (file values for mtx:).")
      .def("__repr__", [](const PatternHolder& h) {
        return "mixgraph.Pattern('" + h.p.spec + "', " + std::to_string(h.p.n) + ")";
      });
}

}  // namespace mixgraph::py
