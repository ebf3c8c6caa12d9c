#pragma once
// The Mixers of recent solves (mixer.hpp), so that mixgraph.solve, mixgraph.torch's mix and a repeated call
// with the same structure plan once: a least-recently-used list of kMixerCacheSize entries keyed by
// (pattern spec, n, heads, precision, device). Patterns read from files (mtx:, topk-blocks:) are keyed by
// their Pattern object too (a file may change between two Patterns of one spec). Each entry keeps the
// device plans (device_plans.hpp) of its structure too, for solves on CUDA tensors. Touched only while
// holding the GIL.
#include <cstddef>
#include <memory>

#include "common.hpp"
#include "device_plans.hpp"
#include "mixgraph/mixer.hpp"

namespace mixgraph::py {

/// Entries kept (each holds its Mixer's plan: O(n + nnz) for explicit patterns, O(#offsets) for implicit).
inline constexpr std::size_t kMixerCacheSize = 8;

/// The cached Mixer for this pattern and settings, or null (the caller builds one and offers it with
/// mixer_cache_put). A hit moves the entry to the front.
std::shared_ptr<const Mixer> mixer_cache_get(const PatternPtr& h, int heads, Precision precision);
/// Keeps m (made for h, heads, precision) at the front, dropping the least recently used beyond the size.
void mixer_cache_put(const PatternPtr& h, int heads, Precision precision, std::shared_ptr<const Mixer> m);
/// A Mixer for h from the cache, or made now (the GIL released meanwhile) and kept; *hit says which.
std::shared_ptr<const Mixer> mixer_for(const PatternPtr& h, int heads, Precision precision,
                                       bool* hit = nullptr);

/// The device plans of the entry of (h, heads, precision), made empty with the entry (call mixer_for
/// first); null when no entry is cached.
std::shared_ptr<DevicePlans> mixer_device_plans(const PatternPtr& h, int heads, Precision precision);

/// Drops every entry and frees its device plans (running calls keep the Mixers and plans they hold).
void mixer_cache_clear();
/// Entries held now.
std::size_t mixer_cache_entries();

}  // namespace mixgraph::py
