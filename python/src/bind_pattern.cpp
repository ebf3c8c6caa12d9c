// mixgraph.Pattern: a pattern spec on n positions, its reads and its decode cost / cache profile.
#include <pybind11/stl.h>

#include "common.hpp"
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
    prof = cache_profile(p, po);
  }
  return *prof;
}

std::uint64_t n_from(const pb::object& n, const std::string& spec) {
  const bool is_mtx = spec.rfind("mtx:", 0) == 0;
  if (n.is_none()) {
    if (!is_mtx) throw UsageError("n is required (the number of tokens) for pattern " + spec);
    return 0;
  }
  if (pb::isinstance<pb::str>(n)) return parse_count(n.cast<std::string>(), "n");
  if (pb::isinstance<pb::bool_>(n) || !pb::isinstance<pb::int_>(pb::reinterpret_borrow<pb::object>(n)))
    throw UsageError("n must be an int or text such as '2^20' (got " + pb::repr(n).cast<std::string>() + ")");
  const auto v = n.cast<long long>();
  if (v < (is_mtx ? 0 : 1)) throw UsageError("n must be >= 1 (got " + std::to_string(v) + ")");
  return static_cast<std::uint64_t>(v);
}

std::uint64_t mem_limit_from(const pb::object& m) {
  if (m.is_none()) return 0;
  if (pb::isinstance<pb::str>(m)) return parse_memory_size(m.cast<std::string>());
  const auto v = m.cast<long long>();
  if (v < 0) throw UsageError("mem_limit must be >= 0 bytes");
  return static_cast<std::uint64_t>(v);
}

namespace {

PatternPtr make_holder(const std::string& spec, const pb::object& n_obj, int threads, const pb::object& mem) {
  const std::uint64_t n = n_from(n_obj, spec);
  if (spec.rfind("mtx:", 0) != 0) validate_n(n);
  check_memory(estimate_pattern_bytes(spec, n, true), mem_limit_from(mem),
               "pattern " + spec + " at n = " + std::to_string(n));
  auto h = std::make_shared<PatternHolder>();
  {
    pb::gil_scoped_release release;
    h->p = make_pattern(spec, n);
  }
  h->threads = threads;
  return h;
}

/// `mixgraph pattern --profile --format json` without the header (the CLI's serialiser, json_py.hpp).
pb::object to_dict(PatternHolder& h, bool lists) {
  auto j = json::pattern_summary(h.p, h.profile(), lists);
  if (lists) json::add_pattern_profile(j, h.p, h.profile());
  return json_to_py(j);
}

pos_t position(const PatternHolder& h, long long i) {
  if (i < 1 || static_cast<std::uint64_t>(i) > h.p.n)
    throw UsageError("position " + std::to_string(i) + " is outside 1.." + std::to_string(h.p.n) +
                     " (positions are 1-indexed)");
  return static_cast<pos_t>(i - 1);
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
          [](const PatternHolder& h, long long i) {
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
          [](const PatternHolder& h, std::uint64_t seed) {
            WeightedPattern w;
            {
              pb::gil_scoped_release release;
              w = random_weights(h.p, seed);
            }
            pb::dict d;
            d["A"] = csr_dict(std::move(w.a));
            d["B"] = csr_dict(std::move(w.b));
            return d;
          },
          pb::arg("seed"), "A and B as CSR arrays with random_weights(seed) (file values for mtx:).")
      .def("__repr__", [](const PatternHolder& h) {
        return "mixgraph.Pattern('" + h.p.spec + "', " + std::to_string(h.p.n) + ")";
      });
}

}  // namespace mixgraph::py
