// Timing within what a recording can tell (issue 29 item 6; docs/traces.md "Timing within the
// recorded resolution"). Kubernetes stamps its times in whole seconds, so each timing conform
// derives from two stamps (rayCluster.readyAfter, ray.pendingFor, ray.runsFor, the submitter's)
// is known to within a second either way; and when the RayJob controller polled the Ray job, every
// 3 s from a moment no object records, is not recorded at all. A fault-free run that differs from
// the recording only because of where in those intervals the true times lay is not a difference.
//
// search_timing tries, before conform calls a transition different, the derived timings moved
// within their resolution (one timing at a time, nearest first: ±250, ±500, ±750 ms), then the
// poll phase (the Ray job's start moved by up to ±1.5 s, half a poll period either way), then two
// timings together; the first variant under which the model makes every recorded transition is
// taken, and named. Each variant is one fault-free run of the derived scenario.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace/conform.h"

namespace rjsim::trace {

struct TimingChoice {
  struct Change {
    std::string key;            // "ray.runsFor"
    std::int64_t derived_ms = 0;
    std::int64_t taken_ms = 0;
  };
  std::vector<Change> changes;  // one or two
  bool poll_phase = false;      // the Ray job's start moved by more than the resolution
  int variants_tried = 0;
  // "ray.runsFor 1s taken as 0.75s", joined with " and ".
  std::string label() const;
};

// The first timing variant under which `derived`'s fault-free run agrees with every recorded
// transition, or nullopt (none of the variants does, or nothing was derived from timestamps).
std::optional<TimingChoice> search_timing(const ConformScenario& derived);

// `derived` with `choice` applied: its world, its scenario, and one line of assumptions.
void apply_timing(ConformScenario& derived, const TimingChoice& choice);

}  // namespace rjsim::trace
