// Exploration (DESIGN §1, §6 `explore`; issue 5): runs a scenario under many schedules within its
// `faults` budget, checking every invariant at every step, and reports what failed with the
// schedule that made it fail, shrunk. Strategies:
//   random      a seeded RandomWalk per schedule (strategies.h)
//   pct         a seeded Pct per schedule, with `pct_depth`
//   targeted    one schedule per plan of targeted.h (Sieve's patterns around each controller
//               write of the fault-free run); the budget is at most the number of plans
//   exhaustive  depth-first over every decision within the bounds, equal world states explored
//               once (exhaustive.h); `complete` when the bounded space was searched to the end
// Schedule i is seeded schedule_seed(seed, i), so results depend only on the seed and the budget:
// `jobs` threads split the schedules among them and the findings are reported in schedule order;
// shard I of N takes the schedules with i % N == I, so N machines cover disjoint schedules.
// Without `all` the search stops at the first violation (the lowest schedule index that fails,
// whatever thread found it first). Nothing is stored here: the caller keeps what it wants.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/scenario.h"
#include "explore/exhaustive.h"
#include "explore/scenario_run.h"
#include "explore/schedule.h"
#include "explore/shrink.h"
#include "explore/targeted.h"

namespace rjsim::explore {

enum class Strategy { random, pct, exhaustive, targeted };
std::string_view to_string(Strategy strategy);
std::optional<Strategy> parse_strategy(std::string_view text);

struct ExploreOptions {
  Strategy strategy = Strategy::targeted;  // found the acceptance bugs in the fewest schedules
  std::uint64_t seed = 1;
  std::string controller;                  // default: the scenario's
  std::optional<std::int64_t> runs;        // schedules to try (default: 1000 unless time is given)
  std::optional<std::int64_t> time_ms;     // wall-clock budget
  bool all = false;                        // keep going after the first violation
  int jobs = 1;
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  int pct_depth = 3;
  ExhaustiveOrder exhaustive_order = ExhaustiveOrder::depth_first;   // exhaustive: rounds by departures or not
  std::int64_t shrink_runs = 400;          // candidate runs a shrink may spend (0: no shrinking)
  // Called now and then from the calling thread while the search runs (progress lines).
  std::function<void(const struct ExploreProgress&)> on_progress;
};

struct ExploreProgress {
  std::int64_t schedules = 0;
  std::int64_t steps = 0;
  std::int64_t distinct_states = 0;   // exhaustive only
  std::int64_t violations = 0;
  double elapsed_s = 0;
  // An estimate of how much of the search space the schedules so far cover, in [0, 1]. Random
  // and pct: Good-Turing over executions (1 - the share of schedules whose execution, by its
  // decisions, was seen exactly once: the chance that the next one repeats a known execution).
  double coverage = 0;
};

// One invariant found violated: the first schedule (lowest index) that violated it.
inline constexpr std::int64_t kFaultFreeSchedule = -1;   // schedule_index of the fault-free run
struct Finding {
  std::string invariant;
  std::int64_t schedule_index = 0;   // kFaultFreeSchedule: the fault-free run already violates it
  std::uint64_t schedule_seed = 0;
  Schedule schedule;
  RunReport report;          // the failing run (no events kept)
  ShrinkResult shrunk;
  double found_after_s = 0;  // wall time from the start of the search
};

struct ExploreReport {
  Strategy strategy = Strategy::random;
  std::int64_t schedules = 0;
  std::int64_t steps = 0;
  std::int64_t distinct_states = 0;   // exhaustive: the visited set's size (else 0)
  std::int64_t states_generated = 0;  // exhaustive: worlds fingerprinted
  std::int64_t max_depth = 0;         // exhaustive: the most decisions one run took
  std::int64_t rounds = 0;            // exhaustive: rounds begun (ExhaustiveOrder)
  std::int64_t departure_bound = 0;   // exhaustive: the last round's bound (kNoDepartureBound: none)
  std::int64_t distinct_executions = 0;   // random, pct, targeted: distinct decision sequences
  double coverage = 0;                // as ExploreProgress::coverage; exhaustive: 1 when complete
  double elapsed_s = 0;
  bool complete = false;              // the whole bounded space was searched (exhaustive)
  RunReport baseline;                 // the fault-free run
  std::vector<TargetedPlan> plans;    // targeted: schedule i < plans.size() ran plans[i], the rest pct
  std::vector<Finding> findings;      // by schedule index
};

ExploreReport explore(const engine::Scenario& scenario, const ExploreOptions& options);

// The expectations of a scenario with `faults` that an exploration of it did not meet (DESIGN §4:
// outcome and violations are judged on an exploration within the budget): one of the listed
// invariants must have been found; `outcome: pass` means none was; with neither, none may be.
std::vector<std::string> unmet_expectations(const engine::Expectation& expect, const ExploreReport& report);

// How `rjsim check` explores a scenario that has faults: `budget_runs` schedules, or
// `budget_ms` of wall time, seeded with the scenario's seed, one thread, no shrinking, and all
// invariants when the scenario expects more than one.
ExploreOptions check_exploration(const engine::Scenario& scenario, std::optional<std::int64_t> budget_runs,
                                 std::optional<std::int64_t> budget_ms);

}  // namespace rjsim::explore
