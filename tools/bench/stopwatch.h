// Wall and process CPU time of one measured phase of a benchmark, printed beside its target.
// Both are shown because a busy machine (CI, a laptop building in the background) slows wall
// time only; a figure that meets its target on CPU time alone says so.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>

namespace rjsim::bench {

inline double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

class Stopwatch {
 public:
  Stopwatch() : wall_start_(std::chrono::steady_clock::now()), cpu_start_(process_cpu_seconds()) {}

  double wall_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  }
  double cpu_seconds() const { return process_cpu_seconds() - cpu_start_; }

  // A rate: `count` `unit` in this phase, against "at least `target` a second" (0: no target).
  // Returns the wall-clock rate it printed.
  double report_rate(const char* what, std::int64_t count, const char* unit, double target) const {
    return report(what, fmt::format("{:>9} {:<9}", count, unit), static_cast<double>(count), "{:>9.0f}/s", target);
  }

  // A throughput: `bytes` in this phase in MB (10^6 bytes), against "at least `target_mb` MB a
  // second".
  void report_megabytes(const char* what, std::int64_t bytes, double target_mb) const {
    const double mb = static_cast<double>(bytes) * 1e-6;
    report(what, fmt::format("{:>9.1f} {:<9}", mb, "MB"), mb, "{:>6.1f} MB/s", target_mb);
  }

  // A duration: this phase against "at most `target_s` seconds".
  void report_duration(const char* what, double target_s) const {
    const double wall_s = wall_seconds();
    const double cpu_s = cpu_seconds();
    fmt::print("{:<32} wall {:6.3f} s  cpu {:6.3f} s  target <= {:.1f} s  {}\n", what, wall_s, cpu_s, target_s,
               wall_s <= target_s ? "ok" : cpu_s <= target_s ? "ok on cpu time" : "ABOVE");
  }

 private:
  // Prints the phase and returns its wall-clock rate.
  double report(const char* what, const std::string& amount, double count, const char* rate_format,
                double target) const {
    const double wall_s = wall_seconds();
    const double cpu_s = cpu_seconds();
    const auto rate = [&](double per_s) { return fmt::format(fmt::runtime(rate_format), per_s); };
    fmt::print("{:<32} {} wall {:6.3f} s = {}  cpu {:6.3f} s = {}", what, amount, wall_s, rate(count / wall_s), cpu_s,
               rate(count / cpu_s));
    if (target > 0) {
      fmt::print("  target >= {}  {}", rate(target),
                 count / wall_s >= target ? "ok" : count / cpu_s >= target ? "ok on cpu time" : "BELOW");
    }
    fmt::print("\n");
    return count / wall_s;
  }

  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_;
};

}  // namespace rjsim::bench
