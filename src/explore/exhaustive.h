// Exhaustive exploration (issue 5): depth-first over every decision a run asks for within the
// scenario's fault budget: a node is a prefix of decisions; its run answers the prefix, then
// alternative 0 everywhere, and every alternative it did not take after the prefix becomes a
// child. A child does not re-execute its prefix: it continues its parent's run from a copy taken
// before the step of its last decision (a RunSnapshot: the world, whose object versions are
// shared, the checks' memory and the chooser), which gives the same run (`fork = false`
// re-executes, as stateless model checking does, and a test compares the two). A visited set of world
// fingerprints (engine/fingerprint.h) cuts a run as soon as it reaches, past its prefix, a state
// some earlier run reached: equal states are explored once. Name suffixes are not branched on
// (they change names, not behaviour): they come from the scenario's seed as in the fault-free run.
// What the visited set identifies is the World, not the checks' history of it: two runs that
// reach one World by different histories are explored once, from the first.
// ExhaustiveOrder::by_departures runs the search in rounds of growing departure bounds instead.
// Complete means every child was run: no violation exists within these bounds.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/scenario.h"
#include "explore/scenario_run.h"
#include "explore/schedule.h"

namespace rjsim::explore {

// The order of the search (docs/explore.md). by_departures: rounds, each depth-first over the
// schedules that depart from the fault-free run (take an alternative other than 0) at most a
// bound of times, the bound growing from 0 round by round (iterative bounding, as CHESS bounds
// preemptions): a race needing few departures is found before the search goes deep into
// schedules needing many, at the cost of searching the first rounds' states again. The search is
// complete when a round's bound left no child out. depth_first: one round without a bound.
enum class ExhaustiveOrder { by_departures, depth_first };
inline constexpr std::int64_t kNoDepartureBound = INT64_MAX;

struct ExhaustiveOptions {
  std::string controller;
  ExhaustiveOrder order = ExhaustiveOrder::depth_first;
  bool fork = true;                           // continue from snapshots (false: re-execute)
  bool remember_answers = true;               // runs reuse the actors' answers of earlier runs
  bool check_reused_answers = false;          // tests: RunOptions::check_reused_answers
  std::optional<std::int64_t> max_runs;       // stop (incomplete) after this many runs
  std::function<bool()> out_of_time;          // stop (incomplete) when it says so
  bool all = false;                           // keep going after a violation
  std::int64_t shard_index = 0;               // which of the root's children this shard takes:
  std::int64_t shard_count = 1;               //   those with index % shard_count == shard_index
  std::function<void(const struct ExhaustiveReport& so_far)> on_run;   // after each run: progress
};

struct ExhaustiveFailure {
  Schedule schedule;
  RunReport report;
  std::int64_t run_index = 0;
};

struct ExhaustiveReport {
  std::int64_t runs = 0;
  std::int64_t steps = 0;
  std::int64_t states_generated = 0;   // worlds fingerprinted (every step run, prefixes re-executed included)
  std::int64_t distinct_states = 0;    // the largest round's visited set's size
  std::int64_t max_depth = 0;          // the most decisions one run took
  std::int64_t rounds = 0;             // rounds begun (ExhaustiveOrder)
  std::int64_t departure_bound = 0;    // the last round's bound (kNoDepartureBound: none)
  bool complete = false;
  std::vector<ExhaustiveFailure> failures;
};

ExhaustiveReport explore_exhaustively(const engine::Scenario& scenario, const ExhaustiveOptions& options);

}  // namespace rjsim::explore
