#pragma once
// Shared helpers of the Python bindings: vectors handed to numpy without a copy, the Pattern holder, and
// the binders of each area (one file each).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/analysis/option_checks.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"

namespace mixgraph::py {

namespace pb = pybind11;

/// A numpy array that takes over `v` (moved to the heap, freed with the array): no copy of the data.
template <class T>
pb::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  pb::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return pb::array_t<T>({static_cast<pb::ssize_t>(heap->size())}, {static_cast<pb::ssize_t>(sizeof(T))},
                        heap->data(), owner);
}
template <class T>
pb::array_t<T> to_numpy(const std::vector<T>& v) {
  return to_numpy(std::vector<T>(v));
}

/// A read-only numpy view of `v`, kept alive by `base` (the Python object that owns v).
template <class T>
pb::array_t<T> view(const std::vector<T>& v, pb::handle base) {
  pb::array_t<T> a({static_cast<pb::ssize_t>(v.size())}, {static_cast<pb::ssize_t>(sizeof(T))}, v.data(),
                   base);
  a.attr("setflags")(pb::arg("write") = false);
  return a;
}

/// A pattern with its cache profile computed on first use (the Python `Pattern`). Touched only while
/// holding the GIL (the profile's first computation reads p on a worker thread meanwhile). Always owned by
/// a shared_ptr (PatternPtr). (The solver's plans are kept apart, in mixer_cache.hpp.)
struct PatternHolder : std::enable_shared_from_this<PatternHolder> {
  Pattern p;
  int threads = 0;
  std::optional<PatternProfile> prof;
  /// The cache profile, computed on first use on a worker thread that Ctrl-C stops (interrupt.hpp).
  const PatternProfile& profile();
};
using PatternPtr = std::shared_ptr<PatternHolder>;

/// An argument of the wrong type: mixgraph.ArgumentTypeError (a UsageError and a TypeError).
struct ArgumentTypeError : UsageError {
  using UsageError::UsageError;
};

/// The largest `threads` (the CLI's --threads limit, mixgraph/analysis/option_checks.hpp).
using analysis::kMaxThreads;
/// Refuses threads outside 0..kMaxThreads (UsageError naming `name`).
void check_threads(long long threads, const char* name = "threads");

/// n as the CLI's --n takes it: an int, or text such as "2^20" / "1e6"; None (0) for mtx: specs.
std::uint64_t n_from(const pb::object& n, const std::string& spec);
/// The same for a parsed spec (n may be None when a piece is an mtx: matrix).
std::uint64_t n_from(const pb::object& n, const PatternSpec& spec);
/// The memory limit in bytes from None / an int / text such as "8G" (0 = physical memory).
std::uint64_t mem_limit_from(const pb::object& m);
/// A Pattern argument: a Pattern object, or a spec string with n (built under mem_limit: None, bytes or
/// '8G').
PatternPtr pattern_from(const pb::object& p, const pb::object& n, const pb::object& mem_limit = pb::none());
/// A Pattern from a spec the caller has parsed (its one parse) at n, checked as n_from / validate_n leave it:
/// the memory estimate refused before the build, then built on a worker thread (Ctrl-C stops it).
PatternPtr pattern_from_tree(const std::string& spec, const PatternSpec& tree, std::uint64_t n,
                             std::uint64_t mem_limit, int threads = 0);

void bind_errors(pb::module_& m);
void bind_pattern(pb::module_& m);
void bind_distances(pb::module_& m);
void bind_congestion(pb::module_& m);
void bind_ranks(pb::module_& m);
void bind_solve(pb::module_& m);
void bind_interrupt(pb::module_& m);

}  // namespace mixgraph::py
