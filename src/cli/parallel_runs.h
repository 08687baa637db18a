// The fault-free run of each scenario, on up to `jobs` threads at once, for `rjsim check --jobs`.
// Each run is independent (the engine has no mutable globals), so the reports are the same as
// one after another would give; they come back in the order of `scenarios` whatever order the
// threads finish in. An exception from any run is rethrown here, the first in input order, once
// every thread has stopped. Only wall_ms reads the wall clock.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/scenario.h"
#include "explore/scenario_run.h"

namespace rjsim::cli {

struct TimedRun {
  explore::RunReport report;   // without its events (RunOptions::keep_events off)
  std::int64_t wall_ms = 0;
};

// jobs >= 1.
std::vector<TimedRun> run_in_parallel(const std::vector<engine::Scenario>& scenarios, int jobs);

}  // namespace rjsim::cli
