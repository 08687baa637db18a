// Wall and process CPU time of one measured phase of a benchmark, printed beside its target.
// Both are shown because a busy machine (CI, a laptop building in the background) slows wall
// time only; a figure that meets its target on CPU time alone says so.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <ctime>

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

  // A rate: `count` `unit` in this phase, against "at least `target` a second".
  void report_rate(const char* what, std::int64_t count, const char* unit, double target) const {
    const double wall_s = wall_seconds();
    const double cpu_s = cpu_seconds();
    const double per_wall_s = static_cast<double>(count) / wall_s;
    const double per_cpu_s = static_cast<double>(count) / cpu_s;
    fmt::print("{:<32} {:>9} {:<9} wall {:6.3f} s = {:>9.0f}/s  cpu {:6.3f} s = {:>9.0f}/s  "
               "target >= {:>9.0f}/s  {}\n",
               what, count, unit, wall_s, per_wall_s, cpu_s, per_cpu_s, target,
               per_wall_s >= target ? "ok" : per_cpu_s >= target ? "ok on cpu time" : "BELOW");
  }

  // A duration: this phase against "at most `target_s` seconds".
  void report_duration(const char* what, double target_s) const {
    const double wall_s = wall_seconds();
    const double cpu_s = cpu_seconds();
    fmt::print("{:<32} wall {:6.3f} s  cpu {:6.3f} s  target <= {:.1f} s  {}\n", what, wall_s, cpu_s, target_s,
               wall_s <= target_s ? "ok" : cpu_s <= target_s ? "ok on cpu time" : "ABOVE");
  }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_;
};

}  // namespace rjsim::bench
