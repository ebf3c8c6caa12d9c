// The Mixers of recent solves (mixer_cache.hpp).
#include "mixer_cache.hpp"

#include <algorithm>
#include <list>
#include <string>

namespace mixgraph::py {
namespace {

struct Entry {
  std::string key;
  std::weak_ptr<PatternHolder>
      holder;  // set for patterns read from files: the entry serves that Pattern only
  bool by_holder = false;
  std::shared_ptr<const Mixer> mixer;
  std::shared_ptr<DevicePlans> plans = std::make_shared<DevicePlans>();
};

std::list<Entry>& cache() {
  static auto* c = new std::list<Entry>();  // never destroyed: Python may tear down modules in any order
  return *c;
}

/// Some piece of the tree reads a file (mtx:, topk-blocks:'s scores): the entry then serves that Pattern
/// only.
bool reads_files(const PatternSpec& s) {
  if (s.kind == SpecKind::Matrix || (s.kind == SpecKind::Family && s.family == "topk-blocks")) return true;
  return std::any_of(s.parts.begin(), s.parts.end(), [](const PatternSpec& q) { return reads_files(q); });
}

/// Keyed by the parsed spec's canonical text (spellings of one tree share an entry; no parse).
std::string key_of(const Pattern& p, int heads, Precision precision) {
  return (p.tree.text.empty() ? p.spec : spec_text(p.tree)) + '\n' + std::to_string(p.n) + '\n' +
         std::to_string(heads) + '\n' + (precision == Precision::Fp64 ? "fp64" : "fp32") + "\ncpu";
}

bool matches(const Entry& e, const PatternPtr& h, const std::string& key) {
  if (e.key != key) return false;
  return !e.by_holder || e.holder.lock() == h;
}

}  // namespace

std::shared_ptr<const Mixer> mixer_cache_get(const PatternPtr& h, int heads, Precision precision) {
  auto& c = cache();
  std::erase_if(c, [](const Entry& e) { return e.by_holder && e.holder.expired(); });
  const std::string key = key_of(h->p, heads, precision);
  for (auto it = c.begin(); it != c.end(); ++it)
    if (matches(*it, h, key)) {
      c.splice(c.begin(), c, it);
      return c.front().mixer;
    }
  return nullptr;
}

void mixer_cache_put(const PatternPtr& h, int heads, Precision precision, std::shared_ptr<const Mixer> m) {
  auto& c = cache();
  const std::string key = key_of(h->p, heads, precision);
  std::erase_if(c, [&](const Entry& e) { return matches(e, h, key); });
  Entry e;
  e.key = key;
  e.by_holder = reads_files(h->p.tree);
  if (e.by_holder) e.holder = h;
  e.mixer = std::move(m);
  c.push_front(std::move(e));
  while (c.size() > kMixerCacheSize) c.pop_back();
}

std::shared_ptr<const Mixer> mixer_for(const PatternPtr& h, int heads, Precision precision, bool* hit) {
  std::shared_ptr<const Mixer> m = mixer_cache_get(h, heads, precision);
  if (hit) *hit = m != nullptr;
  if (m) return m;
  {
    pb::gil_scoped_release nogil;
    m = std::make_shared<const Mixer>(h->p, MixerOptions{heads, precision});
  }
  mixer_cache_put(h, heads, precision, m);
  return m;
}

std::shared_ptr<DevicePlans> mixer_device_plans(const PatternPtr& h, int heads, Precision precision) {
  const std::string key = key_of(h->p, heads, precision);
  for (const Entry& e : cache())
    if (matches(e, h, key)) return e.plans;
  return nullptr;
}

void mixer_cache_clear() {
  for (Entry& e : cache()) e.plans->clear();  // the device memory now, also where a call still holds one
  cache().clear();
}

std::size_t mixer_cache_entries() {
  return cache().size();
}

}  // namespace mixgraph::py
