#include "mixgraph/sweep.hpp"

#include <algorithm>
#include <charconv>

#include "mixgraph/error.hpp"

namespace mixgraph {

namespace {
std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
}  // namespace

std::uint64_t parse_count(const std::string& text_in, const std::string& what) {
  const std::string t = trim(text_in);
  auto bad = [&]() {
    return UsageError(what + ": '" + text_in +
                      "' is not a positive integer (examples: 4096, 2^20, 1e6, 10^8)");
  };
  if (t.empty()) throw bad();
  auto plain = [&](const std::string& s) -> std::uint64_t {
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) throw bad();
    return v;
  };
  // base^ex and m*10^ex by repeated squaring in checked 64-bit arithmetic: no loop runs over the exponent.
  auto too_large = [&]() {
    return UsageError(what + ": '" + text_in + "' is too large (more than 2^64 - 1)");
  };
  auto power = [&](std::uint64_t base, std::uint64_t ex) {
    std::uint64_t r = 1;
    while (ex > 0) {
      if ((ex & 1) && __builtin_mul_overflow(r, base, &r)) throw too_large();
      ex >>= 1;
      if (ex > 0 && __builtin_mul_overflow(base, base, &base)) throw too_large();
    }
    return r;
  };
  std::uint64_t v = 0;
  auto caret = t.find('^');
  auto e = t.find_first_of("eE");
  if (caret != std::string::npos) {
    const std::uint64_t base = plain(t.substr(0, caret)), ex = plain(t.substr(caret + 1));
    if (base <= 1) return ex == 0 ? 1 : base;  // 0^ex, 1^ex (0^0 = 1)
    v = power(base, ex);
  } else if (e != std::string::npos) {
    const std::uint64_t m = plain(t.substr(0, e)), ex = plain(t.substr(e + 1));
    if (m == 0) return 0;
    if (ex > 19) throw too_large();
    if (__builtin_mul_overflow(m, power(10, ex), &v)) throw too_large();
  } else {
    if (t[0] == '-') throw UsageError(what + " must be >= 1 (got " + t + ")");
    v = plain(t);
  }
  return v;
}

std::vector<std::uint64_t> parse_uint_list(const std::string& text, const std::string& what) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  if (trim(text).empty()) throw UsageError(what + ": empty list (write e.g. 1,5,6)");
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    const std::string item =
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw UsageError(what + ": empty item in list '" + text + "'");
    const std::uint64_t v = parse_count(item, what);
    if (v < 1) throw UsageError(what + ": '" + item + "' must be >= 1");
    out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::uint64_t> parse_sweep(const std::string& text) {
  std::vector<std::uint64_t> out;
  const auto dots = text.find("..");
  if (dots != std::string::npos) {
    const std::uint64_t lo = parse_count(text.substr(0, dots), "--sweep LO");
    const std::uint64_t hi = parse_count(text.substr(dots + 2), "--sweep HI");
    if (lo < 1) throw UsageError("--sweep: LO must be >= 1");
    if (hi < lo) throw UsageError("--sweep '" + text + "': HI must be >= LO");
    out.push_back(lo);
    for (std::uint64_t p = 1; p <= hi && p != 0; p <<= 1)
      if (p > lo) out.push_back(p);
    out.push_back(hi);
  } else {
    out = parse_uint_list(text, "--sweep");
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace mixgraph
