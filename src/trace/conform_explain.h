// Explaining a difference (`rjsim conform --explain`; docs/traces.md "When the model differs"):
// the fault-free model did not make the recorded transitions, but a real controller meets stale
// caches, held deliveries and crashes. explain_difference searches schedules of the scenario
// conform derived, within the fault budget trace_exploration gives it (by default Sieve's
// patterns and slow reactions), for one under which every recorded transition agrees: first
// explore's targeted plans (a crash, stale reads, held deliveries or slow reactions after each
// write, an outage after the environment's of the fault-free run), likeliest kind first
// (in_explanation_order), then kExplainPctSchedules PCT schedules (depth 3) seeded from the
// scenario's seed. (Conform itself has already tried the timings within the recording's
// resolution, conform_timing.h: the likeliest explanation of all.) The same trace and budget always give the same answer. Pure: nothing is
// stored; explanation_run gives what to run again to store it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/chooser.h"
#include "explore/scenario_run.h"
#include "explore/targeted.h"
#include "trace/conform.h"
#include "trace/explore_trace.h"

namespace rjsim::trace {

inline constexpr std::int64_t kExplainPctSchedules = 200;
inline constexpr int kExplainPctDepth = 3;

struct Explanation {
  bool found = false;
  std::int64_t schedules = 0;          // tried, the one found included
  std::int64_t targeted_plans = 0;     // of which targeted plans (the rest PCT)
  // Found: the targeted plan, or else the PCT schedule's index and seed.
  std::optional<explore::TargetedPlan> plan;
  std::int64_t pct_index = 0;
  std::uint64_t pct_seed = 0;
  std::int64_t pct_expected_steps = 0;   // the fault-free run's steps, over which PCT spreads its change points
  std::string how;                     // "held deliveries after api.create RayCluster/default/x", "PCT schedule 17"
  Alignment alignment;                 // found: its run aligned with the recording
};

Explanation explain_difference(const TraceExploration& exploration);

// The plans in the order an explanation is preferred: slow reactions, then stale reads and held
// deliveries, then crashes and outages; within a kind, in the order of the writes they follow.
std::vector<explore::TargetedPlan> in_explanation_order(std::vector<explore::TargetedPlan> plans);

// The chooser and run options that run the explanation's schedule again (to store it). Only
// for a found explanation.
struct ExplanationRun {
  std::unique_ptr<engine::Chooser> chooser;
  explore::RunOptions options;
};
ExplanationRun explanation_run(const TraceExploration& exploration, const Explanation& explanation);

}  // namespace rjsim::trace
