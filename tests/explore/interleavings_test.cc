// The acceptance scenarios of scenarios/interleavings/ that rest on a reconcile being a sequence of
// client calls (DESIGN §1.1): each reaches, with the key its description names, what the same
// scenario without that key cannot.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/scenario.h"
#include "engine/scenario_loader.h"
#include "explore/exhaustive.h"
#include "explore/explorer.h"
#include "explore/scenario_run.h"

namespace rjsim::explore {
namespace interleavings_test {
namespace {

engine::Scenario interleaving(const char* name) {
  return engine::load_scenario(
      (std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / "interleavings" / name).string());
}

// A controller UpdateStatus that the API server refused with 409 on its own: no injected fault.
bool has_natural_status_conflict(const RunReport& run) {
  return std::any_of(run.event_log.begin(), run.event_log.end(), [](const events::Event& event) {
    return event.type == "api.update_status" && event.actor == "controller" && event.text("outcome") == "Conflict" &&
           event.find("injected") == nullptr;
  });
}

// After each step: whether the RayJob is persisted Suspended while a head whose RayCluster is gone
// still has its table, its Pod Running, and a Ray job RUNNING on it.
class OldHeadWatcher final : public engine::StepObserver {
 public:
  events::EventTypes reads() const override { return events::EventTypes::none(); }
  void after_step(const engine::World& world, const engine::StepLog&) override {
    const engine::RayJob* rayjob = world.api.find<engine::RayJob>("default", "rayjob-sample");
    if (!rayjob || rayjob->status.job_deployment_status != "Suspended") return;
    for (const engine::CopyOnWrite<engine::RayHead>& shared_head : world.ray->heads) {
      const engine::RayHead& head = *shared_head;
      if (head.table_lost || world.api.find<engine::RayCluster>(head.cluster_namespace, head.cluster_name)) continue;
      const bool running = std::any_of(head.jobs.begin(), head.jobs.end(),
                                       [](const engine::RayJobRecord& job) { return job.status == "RUNNING"; });
      const engine::Pod* pod = world.api.find<engine::Pod>(head.cluster_namespace, head.cluster_name + "-head");
      if (running && pod && pod->status.phase == "Running" && pod->metadata.deletion_timestamp_ms) {
        seen = true;
      }
    }
  }
  bool seen = false;
};

// How many of the first `seeds` random schedules reach a Suspended RayJob whose old head still runs.
int schedules_with_old_head_running(const engine::Scenario& scenario, std::uint64_t seeds) {
  int reached = 0;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    OldHeadWatcher watcher;
    RunOptions options;
    options.seed = seed;
    options.faults = true;
    options.keep_events = false;
    options.observers.push_back(&watcher);
    run_scenario(scenario, options);
    reached += watcher.seen;
  }
  return reached;
}

}  // namespace

TEST_CASE("a suspended v1.1.0 RayJob's old head Pod, deleted gracefully, still runs its Ray job after Suspended; "
          "with no grace period it cannot") {
  engine::Scenario scenario = interleaving("v11-suspend-old-head-pod-still-runs.yaml");
  REQUIRE(scenario.faults.latency);
  CHECK(run_scenario(scenario).outcome == "pass");   // the fault-free run: the Pods stop at once
  CHECK(schedules_with_old_head_running(scenario, 20) > 0);
  scenario.world.pods.termination_grace_period_ms = 0;
  CHECK(schedules_with_old_head_running(scenario, 20) == 0);
}

TEST_CASE("one crash between two writes of a v1.0.0 pass (midReconcile) reaches single-cluster; crashes "
          "between passes cannot") {
  const engine::Scenario mid = interleaving("v10-crash-between-cluster-delete-and-suspended.yaml");
  REQUIRE(mid.faults.restarts == 1);
  REQUIRE(mid.faults.mid_reconcile);
  const ExhaustiveReport found = explore_exhaustively(mid, ExhaustiveOptions{});
  REQUIRE(!found.failures.empty());
  REQUIRE(!found.failures.front().report.violations.empty());
  CHECK(found.failures.front().report.violations.front().invariant == "single-cluster");

  engine::Scenario between = mid;
  between.faults.mid_reconcile = false;
  const ExhaustiveReport complete = explore_exhaustively(between, ExhaustiveOptions{});
  CHECK(complete.complete);
  CHECK(complete.failures.empty());
}

TEST_CASE("a user edit during a slow GetJobInfo makes the pass's UpdateStatus a natural 409 only when calls "
          "interleave") {
  const engine::Scenario interleaved = interleaving("v17-user-edit-during-slow-get-job-info.yaml");
  REQUIRE(interleaved.faults.interleave_calls);
  engine::Scenario atomic = interleaved;
  atomic.faults.interleave_calls = false;
  int conflicts_interleaved = 0;
  int conflicts_atomic = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    RunOptions options;
    options.seed = seed;
    options.faults = true;
    const RunReport with = run_scenario(interleaved, options);
    CHECK(with.violations.empty());
    conflicts_interleaved += has_natural_status_conflict(with) ? 1 : 0;
    conflicts_atomic += has_natural_status_conflict(run_scenario(atomic, options)) ? 1 : 0;
  }
  CHECK(conflicts_interleaved > 0);
  CHECK(conflicts_atomic == 0);
}

TEST_CASE("the v1.7.0 SidecarMode retry e2e test ends Failed/AppFailed after three attempts under faults.latency "
          "alone; the fault-free run ends SubmissionFailed") {
  const engine::Scenario scenario = interleaving("v17-sidecar-retry-ends-app-failed.yaml");
  REQUIRE(scenario.faults.latency);
  const auto final_of = [](const RunReport& run) { return run.final.at("rayjob-sidecar-fail"); };
  const FinalState fault_free = final_of(run_scenario(scenario));
  CHECK(fault_free.reason == "SubmissionFailed");
  CHECK(fault_free.job_status == "RUNNING");
  int app_failed = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RunOptions options;
    options.seed = seed;
    options.faults = true;
    const FinalState final = final_of(run_scenario(scenario, options));
    if (final.job_deployment_status == "Failed" && final.reason == "AppFailed" && final.failed == 3) ++app_failed;
  }
  CHECK(app_failed > 0);
}

TEST_CASE("time travel alone: a restarted v1.1.0 whose first lists are served stale re-creates a suspended "
          "RayJob's cluster, or suspends without deleting; without timeTravel neither happens") {
  const engine::Scenario scenario = interleaving("v11-suspend-after-rewound-relist.yaml");
  REQUIRE(scenario.faults.time_travel());
  REQUIRE(scenario.faults.max_lag == 0);   // no staleReads: the rewound relist alone
  const ExhaustiveReport found = explore_exhaustively(scenario, ExhaustiveOptions{});
  REQUIRE(!found.failures.empty());
  REQUIRE(!found.failures.front().report.violations.empty());
  CHECK(found.failures.front().report.violations.front().invariant == "single-cluster");

  ExploreOptions random;
  random.strategy = Strategy::random;
  random.runs = 2000;
  random.shrink_runs = 0;
  const ExploreReport suspended = explore(scenario, random);
  REQUIRE_FALSE(suspended.findings.empty());
  CHECK(suspended.findings.front().invariant == "suspended-is-clean");

  engine::Scenario without = scenario;
  without.faults.max_rewind = 0;
  const ExhaustiveReport complete = explore_exhaustively(without, ExhaustiveOptions{});
  CHECK(complete.complete);
  CHECK(complete.failures.empty());
}

}  // namespace interleavings_test
}  // namespace rjsim::explore
