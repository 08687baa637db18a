#include "cli/parallel_runs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

namespace rjsim::cli {
namespace {

TimedRun timed_run(const engine::Scenario& scenario) {
  const auto started = std::chrono::steady_clock::now();
  explore::RunOptions options;
  options.keep_events = false;
  TimedRun run{explore::run_scenario(scenario, options), 0};
  const auto elapsed = std::chrono::steady_clock::now() - started;
  run.wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
  return run;
}

}  // namespace

std::vector<TimedRun> run_in_parallel(const std::vector<engine::Scenario>& scenarios, int jobs) {
  std::vector<TimedRun> runs(scenarios.size());
  std::vector<std::exception_ptr> errors(scenarios.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {  // each thread takes the next scenario nobody has taken
    for (std::size_t i = next++; i < scenarios.size(); i = next++) {
      try {
        runs[i] = timed_run(scenarios[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(static_cast<std::size_t>(jobs), 1, std::max<std::size_t>(scenarios.size(), 1));
  {
    std::vector<std::jthread> helpers;   // joined when the block ends
    for (std::size_t k = 1; k < threads; ++k) helpers.emplace_back(work);
    work();
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return runs;
}

}  // namespace rjsim::cli
