#pragma once
// Wall-clock timing shared by the plain benchmark mains (bench_*.cpp).
#include <chrono>

using Clock = std::chrono::steady_clock;

/// Seconds from a to b.
inline double secs(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
