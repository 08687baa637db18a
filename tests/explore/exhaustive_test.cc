// Exhaustive exploration (explore/exhaustive.h): a bounded space is searched to the end, equal
// states are explored once, a budget makes it incomplete, and the result does not vary.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "engine/scenario.h"
#include "engine/scenario_loader.h"
#include "explore/bounds.h"
#include "explore/exhaustive.h"
#include "explore/explorer.h"
#include "explore/scenario_run.h"

namespace rjsim::explore {
namespace exhaustive_test {
namespace {

engine::Scenario acceptance(const char* name) {
  return engine::load_scenario((std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / "explore" / name).string());
}

engine::Scenario bounded() { return acceptance("suspend-resume-bounded.yaml"); }

engine::Scenario interleaving(const char* name) {
  return engine::load_scenario(
      (std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / "interleavings" / name).string());
}

ExhaustiveReport search(const engine::Scenario& scenario, bool fork) {
  ExhaustiveOptions options;
  options.fork = fork;
  return explore_exhaustively(scenario, options);
}

// Two searches visited the same tree: the same runs, states, depth and failures.
void check_same_search(const ExhaustiveReport& forked, const ExhaustiveReport& re_executed) {
  CHECK(forked.runs == re_executed.runs);
  CHECK(forked.distinct_states == re_executed.distinct_states);
  CHECK(forked.max_depth == re_executed.max_depth);
  CHECK(forked.complete == re_executed.complete);
  REQUIRE(forked.failures.size() == re_executed.failures.size());
  for (std::size_t i = 0; i < forked.failures.size(); ++i) {
    const ExhaustiveFailure& a = forked.failures[i];
    const ExhaustiveFailure& b = re_executed.failures[i];
    CHECK(a.run_index == b.run_index);
    CHECK(a.schedule == b.schedule);
    CHECK(a.report.steps == b.report.steps);
    REQUIRE(a.report.violations.size() == b.report.violations.size());
    for (std::size_t v = 0; v < a.report.violations.size(); ++v) {
      CHECK(a.report.violations[v].invariant == b.report.violations[v].invariant);
      CHECK(a.report.violations[v].seq == b.report.violations[v].seq);
      CHECK(a.report.violations[v].message == b.report.violations[v].message);
    }
  }
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

TEST_CASE("runs that reuse the actors' answers of earlier runs search what runs that ask afresh search") {
  for (const char* name :
       {"suspend-resume-bounded.yaml", "suspend-before-cluster-cached.yaml", "v17-submitter-timeout-vs-restarts.yaml"}) {
    CAPTURE(name);
    ExhaustiveOptions remembering;
    remembering.check_reused_answers = true;   // every reused answer is also asked afresh
    remembering.max_runs = 3'000;
    ExhaustiveOptions afresh = remembering;
    afresh.remember_answers = false;
    ExhaustiveReport reused;
    CHECK_NOTHROW(reused = explore_exhaustively(acceptance(name), remembering));
    const ExhaustiveReport asked = explore_exhaustively(acceptance(name), afresh);
    check_same_search(reused, asked);
    CHECK(reused.steps == asked.steps);
  }
}

TEST_CASE("one crash whose restart may take up to 60 s reaches race 2 of §1.16; a restart of exactly 15 s "
          "cannot") {
  const engine::Scenario slow_restart = interleaving("v17-operator-outage-after-submitter-finished.yaml");
  REQUIRE(slow_restart.faults.latency);
  REQUIRE(slow_restart.faults.restarts == 1);
  const ExhaustiveReport found = explore_exhaustively(slow_restart, ExhaustiveOptions{});
  REQUIRE(!found.failures.empty());
  REQUIRE(!found.failures.front().report.violations.empty());
  CHECK(found.failures.front().report.violations.front().invariant == "status-mirrors-ray");

  engine::Scenario fixed_restart = slow_restart;
  fixed_restart.faults.latency = false;
  const ExhaustiveReport complete = explore_exhaustively(fixed_restart, ExhaustiveOptions{});
  CHECK(complete.complete);
  CHECK(complete.failures.empty());
}

TEST_CASE("forking a run while the operator is down and reactions wait explores what re-executing explores") {
  engine::Scenario scenario = interleaving("v17-operator-outage-after-submitter-finished.yaml");
  scenario.world.latency.garbage_collector = engine::Latency{0, 3'000};
  check_same_search(search(scenario, /*fork=*/true), search(scenario, /*fork=*/false));
}

TEST_CASE("exhaustive search gives the same counts every time") {
  const ExhaustiveReport a = explore_exhaustively(bounded(), ExhaustiveOptions{});
  const ExhaustiveReport b = explore_exhaustively(bounded(), ExhaustiveOptions{});
  CHECK(a.runs == b.runs);
  CHECK(a.distinct_states == b.distinct_states);
  CHECK(a.steps == b.steps);
  CHECK(a.max_depth == b.max_depth);
}

TEST_CASE("forking a run at a step boundary explores what re-executing its prefix explores") {
  const ExhaustiveReport forked = search(bounded(), true);
  const ExhaustiveReport re_executed = search(bounded(), false);
  check_same_search(forked, re_executed);
  CHECK(forked.complete);
  // The point of forking: a child's prefix is not run again.
  CHECK(forked.states_generated * 5 < re_executed.states_generated);
}

// Records, for each step the simulation chose (not the set-up the driver runs), whether it made a
// decision, keyed by world.steps before it: where a child of the search would continue from.
class DecisionSteps final : public engine::StepObserver {
 public:
  void before_step(const engine::World& world, std::span<const engine::Step> steps) override {
    chosen_at_ = steps.empty() ? -1 : world.steps;
    if (chosen_at_ >= 0) ++chosen;
  }
  events::EventTypes reads() const override { return events::EventTypes::only({"choice"}); }
  void after_step(const engine::World&, const engine::StepLog& step) override {
    const bool decided = std::any_of(step.events.begin(), step.events.end(),
                                     [](const events::Event& e) { return e.type == "choice"; });
    if (decided && chosen_at_ >= 0) before_decisions.insert(chosen_at_);
  }
  std::set<std::int64_t> before_decisions;
  int chosen = 0;

 private:
  std::int64_t chosen_at_ = -1;
};

TEST_CASE("a run leaves a snapshot before each step that decides, and none before steps that cannot") {
  DecisionSteps decisions;
  std::set<std::int64_t> snapshots;   // world.steps of each
  RunOptions run;
  run.faults = true;   // the seeded random walk within the scenario's fault budget
  run.seed = 11;
  run.observers = {&decisions};
  run.on_snapshot = [&](std::shared_ptr<const RunSnapshot> snapshot) { snapshots.insert(snapshot->world.steps); };
  run_scenario(bounded(), run);

  REQUIRE(decisions.before_decisions.size() > 3);
  for (const std::int64_t at : decisions.before_decisions) {
    CAPTURE(at);
    CHECK(snapshots.count(at) == 1);   // a child branching in that step continues from here
  }
  // Deliveries, timers and clock steps with nothing else enabled were skipped.
  CHECK(static_cast<int>(snapshots.size()) < decisions.chosen);
}

TEST_CASE("before_checks sees each step's world before stop_when does, the same world, and its end stops the run") {
  // The search fingerprints a step's world in before_checks and looks it up in stop_when: the two
  // must pair step by step, or a state would be judged by the fingerprint of another.
  std::vector<std::int64_t> told;      // world.steps, as before_checks saw it
  std::vector<std::int64_t> asked;     // world.steps, as stop_when saw it
  std::vector<const engine::World*> worlds_told;
  std::vector<const engine::World*> worlds_asked;
  RunOptions run;
  run.faults = true;
  run.seed = 5;
  run.before_checks = [&](const engine::World& world) {
    CHECK(told.size() == asked.size());   // every step's tell is followed by its ask before the next
    told.push_back(world.steps);
    worlds_told.push_back(&world);
  };
  run.stop_when = [&](const engine::World& world) {
    asked.push_back(world.steps);
    worlds_asked.push_back(&world);
    return asked.size() == 12;
  };
  const RunReport report = run_scenario(bounded(), run);
  REQUIRE(asked.size() == 12);
  CHECK(told == asked);
  CHECK(worlds_told == worlds_asked);
  CHECK(report.steps == asked.back());   // the run ended at the step whose stop_when said so
}

TEST_CASE("a snapshot from the pool holds the run as it is now, not the one it held before") {
  SnapshotPool pool;   // outlives the snapshots it hands out (declared before their holders)
  std::vector<std::shared_ptr<const RunSnapshot>> direct;   // made new, as without a pool
  std::vector<std::shared_ptr<const RunSnapshot>> pooled;
  RunOptions run;
  run.faults = true;
  run.seed = 11;
  run.snapshot_pool = &pool;
  run.on_snapshot = [&](std::shared_ptr<const RunSnapshot> snapshot) {
    // Each snapshot but the latest goes back to the pool at once, so the next is one taken again.
    if (!pooled.empty()) pooled.pop_back();
    pooled.push_back(std::move(snapshot));
  };
  run_scenario(bounded(), run);
  REQUIRE(pooled.size() == 1);
  RunOptions fresh;
  fresh.faults = true;
  fresh.seed = 11;
  fresh.on_snapshot = [&](std::shared_ptr<const RunSnapshot> snapshot) { direct.push_back(std::move(snapshot)); };
  run_scenario(bounded(), fresh);
  REQUIRE(direct.size() > 3);
  const RunSnapshot& last = *direct.back();
  CHECK(pooled.back()->world == last.world);
  CHECK(pooled.back()->events_emitted == last.events_emitted);
  CHECK(pooled.back()->checker.history() == last.checker.history());
  CHECK(pooled.back()->violations_recorded == last.violations_recorded);
}

TEST_CASE("a violation found from a fork is reported as its whole run, as re-execution finds it") {
  // single-cluster judges the clusters a RayJob has created over the run: the checks' memory
  // must travel with the fork.
  const engine::Scenario scenario = acceptance("cluster-recreated-after-success-1-0.yaml");
  const ExhaustiveReport forked = search(scenario, true);
  const ExhaustiveReport re_executed = search(scenario, false);
  REQUIRE(forked.failures.size() == 1);
  CHECK(forked.failures.front().run_index > 0);   // found by a forked run, not the first
  check_same_search(forked, re_executed);
  CHECK(forked.failures.front().report.transitions == re_executed.failures.front().report.transitions);
}

TEST_CASE("an exhaustive search cut short by its budget is not complete") {
  ExhaustiveOptions options;
  options.max_runs = 2;
  const ExhaustiveReport report = explore_exhaustively(bounded(), options);
  CHECK(report.runs == 2);
  CHECK_FALSE(report.complete);
}

TEST_CASE("a complete search names its bounds: the fault dimensions explored, those held, what is not modelled") {
  engine::FaultBudget faults;
  faults.restarts = 1;
  faults.latency = true;
  const SearchBounds bounds = search_bounds(faults);
  CHECK(bounds.explored == std::vector<std::string>{"restarts {max: 1}", "latency"});
  CHECK(bounds.held ==
        std::vector<std::string>{"staleReads", "squash", "conflicts", "writeFailures", "httpErrors", "timeTravel",
                                 "interleaveCalls"});
  CHECK(!bounds.not_modelled.empty());
  CHECK(describe_bounds(bounds).find("explored: restarts {max: 1}, latency; held at defaults: staleReads, squash") ==
        0);
  CHECK(describe_bounds(search_bounds(engine::FaultBudget{})).find("explored: none;") == 0);
  faults.mid_reconcile = true;
  faults.interleave_calls = true;
  CHECK(search_bounds(faults).explored ==
        std::vector<std::string>{"restarts {max: 1, midReconcile: true}", "latency", "interleaveCalls"});

  // Every key of `faults:` is named once, explored or held, in the scenario format's order.
  std::vector<std::string> named;
  for (const std::string& explored : bounds.explored) named.push_back(explored.substr(0, explored.find(' ')));
  named.insert(named.end(), bounds.held.begin(), bounds.held.end());
  std::sort(named.begin(), named.end());
  std::vector<std::string> keys(engine::kFaultKeys.begin(), engine::kFaultKeys.end());
  std::sort(keys.begin(), keys.end());
  CHECK(named == keys);
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

ExhaustiveOptions by_departures() {
  ExhaustiveOptions options;
  options.order = ExhaustiveOrder::by_departures;
  return options;
}

TEST_CASE("rounds by departures search the bounded space to its end: the last round is the depth-first search") {
  const ExhaustiveReport depth_first = explore_exhaustively(bounded(), ExhaustiveOptions{});
  const ExhaustiveReport rounds = explore_exhaustively(bounded(), by_departures());
  CHECK(depth_first.rounds == 1);
  CHECK(depth_first.departure_bound == kNoDepartureBound);
  CHECK(rounds.complete);
  CHECK(rounds.failures.empty());
  CHECK(rounds.rounds > 1);
  // Complete only when a round's bound left no child out: that round was the depth-first search.
  CHECK(rounds.distinct_states == depth_first.distinct_states);
  CHECK(rounds.max_depth == depth_first.max_depth);
  // The rounds before it searched their states again.
  CHECK(rounds.runs > depth_first.runs);
}

TEST_CASE("the first round by departures is the fault-free run alone; each round keeps to its bound") {
  ExhaustiveOptions first = by_departures();
  first.max_runs = 1;
  const ExhaustiveReport fault_free = explore_exhaustively(bounded(), first);
  CHECK(fault_free.rounds == 1);
  CHECK(fault_free.departure_bound == 0);
  CHECK_FALSE(fault_free.complete);

  ExhaustiveOptions all = by_departures();
  all.all = true;
  all.max_runs = 40'000;
  const ExhaustiveReport found = explore_exhaustively(acceptance("suspend-before-cluster-cached.yaml"), all);
  REQUIRE(!found.failures.empty());
  for (const ExhaustiveFailure& failure : found.failures) {
    CHECK(departures(failure.schedule) <= found.departure_bound);
  }
}

TEST_CASE("rounds by departures find the race that depth-first order spends its budget past") {
  // The race needs seven departures early in the run; depth-first order exhausts the held
  // deliveries and clock steps of its first branches first (docs/explore.md).
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  ExhaustiveOptions depth_first;
  depth_first.max_runs = 40'000;
  ExhaustiveOptions rounds = by_departures();
  rounds.max_runs = 40'000;
  CHECK(explore_exhaustively(scenario, depth_first).failures.empty());
  const ExhaustiveReport found = explore_exhaustively(scenario, rounds);
  REQUIRE(!found.failures.empty());
  CHECK(found.failures.front().report.violations.front().invariant == "suspended-is-clean");
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
}  // namespace exhaustive_test
}  // namespace rjsim::explore

