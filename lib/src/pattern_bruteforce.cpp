// Patterns from their definitions (pattern_bruteforce.hpp).
#include "pattern_bruteforce.hpp"

#include <cstdint>
#include <set>
#include <sstream>

namespace mixgraph {

namespace {
bool number(const std::string& s, std::uint64_t& v) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  v = std::stoull(s);
  return true;
}

/// f(0) < f(1) < ... < n from the spec, read here; nullopt when not covered.
std::optional<std::vector<std::uint64_t>> offsets(const std::string& spec, std::uint64_t n) {
  std::vector<std::uint64_t> f;
  auto grow = [&](auto next) {
    for (std::uint64_t k = 0;; ++k) {
      const std::uint64_t v = next(k);
      if (v >= n) break;
      f.push_back(v);
    }
  };
  std::uint64_t w = 0;
  if (spec == "pow2") {
    grow([](std::uint64_t k) { return k < 63 ? std::uint64_t{1} << k : ~std::uint64_t{0}; });
  } else if (spec.rfind("pow:", 0) == 0 && number(spec.substr(4), w) && w >= 2) {
    std::uint64_t v = 1;
    while (v < n) {
      f.push_back(v);
      if (v > n / w + 1) break;
      v *= w;
    }
  } else if (spec == "sq1") {
    grow([](std::uint64_t k) { return k * k + 1; });
  } else if (spec.rfind("window:", 0) == 0 && number(spec.substr(7), w) && w >= 1) {
    for (std::uint64_t v = 1; v <= w && v < n; ++v) f.push_back(v);
  } else if (spec == "ssm") {
    if (n > 1) f.push_back(1);
  } else if (spec == "dense") {
    for (std::uint64_t v = 1; v < n; ++v) f.push_back(v);
  } else if (spec.rfind("offsets:", 0) == 0) {
    std::set<std::uint64_t> s;
    std::stringstream in(spec.substr(8));
    std::string item;
    while (std::getline(in, item, ','))
      if (number(item, w) && w >= 1 && w < n)
        s.insert(w);
      else if (!number(item, w) || w == 0)
        return std::nullopt;
    f.assign(s.begin(), s.end());
  } else {
    return std::nullopt;
  }
  return f;
}
}  // namespace

std::optional<std::vector<std::vector<pos_t>>> bruteforce_b_rows(const std::string& spec_in, pos_t n) {
  std::string spec = spec_in;
  const bool cache = spec.size() > 6 && spec.compare(spec.size() - 6, 6, "+cache") == 0;
  if (cache) spec.resize(spec.size() - 6);
  const auto f = offsets(spec, n + 1);  // positions are 1..n: offsets f < i <= n
  if (!f) return std::nullopt;
  std::vector<std::vector<pos_t>> rows(n);
  std::set<std::uint64_t> kept;  // S_{i-1}, 1-indexed
  for (std::uint64_t i = 1; i <= n; ++i) {
    std::set<std::uint64_t> reads;
    if (!cache) {
      for (auto v : *f)
        if (v < i) reads.insert(i - v);
    } else {
      std::set<std::uint64_t> avail = kept;
      avail.insert(i);
      for (auto v : *f)
        if (v < i) reads.insert(*avail.lower_bound(i - v));  // pi: round up to the next kept position
      reads.erase(i);
      kept = reads;
      kept.insert(i);
    }
    for (auto j : reads) rows[i - 1].push_back(static_cast<pos_t>(j - 1));
  }
  return rows;
}

}  // namespace mixgraph
