#pragma once
// The JSON serialisers both front ends share (mixgraph/analysis/result_json.hpp) seen from Python:
// Result.to_dict() calls them, so the package and `--format json` give the same fields by construction.
// Also numpy views of a result's vectors that keep the result alive (the attributes and to_dict() read the
// same memory, no copy).
#include <memory>
#include <utility>

#include "common.hpp"
#include "mixgraph/analysis/result_json.hpp"

namespace mixgraph::py {

/// A JSON document as Python objects (dict, list, int, float, str, bool, None).
inline pb::object json_to_py(const nlohmann::ordered_json& j) {
  return pb::module_::import("json").attr("loads")(
      j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

/// The `to_json(lists: bool)` callable of a Result: `make(lists)` returns the serialiser's JSON (lists =
/// false: every field but the per-position lists, for the attributes).
template <class Make>
pb::cpp_function json_fn(Make make) {
  return pb::cpp_function([make](bool lists) { return json_to_py(make(lists)); }, pb::arg("lists") = true);
}

/// A numpy array over `v` (no copy) that keeps `owner` (which holds v) alive.
template <class T, class Owner>
pb::array_t<T> shared_view(const std::vector<T>& v, const std::shared_ptr<Owner>& owner) {
  auto* keep = new std::shared_ptr<Owner>(owner);
  pb::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<Owner>*>(p); });
  return pb::array_t<T>({static_cast<pb::ssize_t>(v.size())}, {static_cast<pb::ssize_t>(sizeof(T))}, v.data(),
                        base);
}

}  // namespace mixgraph::py
