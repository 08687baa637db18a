// Exhaustive exploration (explore/exhaustive.h): a bounded space is searched to the end, equal
// states are explored once, a budget makes it incomplete, and the result does not vary.
#include <doctest/doctest.h>

#include <filesystem>

#include "engine/scenario_loader.h"
#include "explore/exhaustive.h"
#include "explore/explorer.h"

namespace rjsim::explore {
namespace {

engine::Scenario bounded() {
  return engine::load_scenario(
      (std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / "explore" / "suspend-resume-bounded.yaml").string());
}

TEST_CASE("exhaustive search completes the bounded suspend/resume space with no violation") {
  const ExhaustiveReport report = explore_exhaustively(bounded(), ExhaustiveOptions{});
  CHECK(report.complete);
  CHECK(report.failures.empty());
  CHECK(report.runs > 1);
  CHECK(report.distinct_states > 0);
  // Runs that reach a state an earlier run reached stop there: some states were seen twice.
  CHECK(report.distinct_states < report.states_generated);
}

TEST_CASE("exhaustive search gives the same counts every time") {
  const ExhaustiveReport a = explore_exhaustively(bounded(), ExhaustiveOptions{});
  const ExhaustiveReport b = explore_exhaustively(bounded(), ExhaustiveOptions{});
  CHECK(a.runs == b.runs);
  CHECK(a.distinct_states == b.distinct_states);
  CHECK(a.steps == b.steps);
  CHECK(a.max_depth == b.max_depth);
}

TEST_CASE("an exhaustive search cut short by its budget is not complete") {
  ExhaustiveOptions options;
  options.max_runs = 2;
  const ExhaustiveReport report = explore_exhaustively(bounded(), options);
  CHECK(report.runs == 2);
  CHECK_FALSE(report.complete);
}

TEST_CASE("exhaustive shards split the root's children: together they run what one search runs") {
  const ExhaustiveReport whole = explore_exhaustively(bounded(), ExhaustiveOptions{});
  std::int64_t runs = 0;
  for (std::int64_t shard = 0; shard < 2; ++shard) {
    ExhaustiveOptions options;
    options.shard_index = shard;
    options.shard_count = 2;
    const ExhaustiveReport part = explore_exhaustively(bounded(), options);
    CHECK(part.complete);
    runs += part.runs;
  }
  // Each shard runs the root itself, and the visited sets are per shard, so they may overlap.
  CHECK(runs >= whole.runs + 1);
}

TEST_CASE("exhaustive exploration reports the bounded space as complete through explore()") {
  ExploreOptions options;
  options.strategy = Strategy::exhaustive;
  const ExploreReport report = explore(bounded(), options);
  CHECK(report.complete);
  CHECK(report.findings.empty());
  CHECK(report.distinct_states > 0);
  CHECK(report.coverage == 1.0);
}

}  // namespace
}  // namespace rjsim::explore
