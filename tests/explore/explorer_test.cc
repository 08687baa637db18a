// Exploration (explore/explorer.h, strategies.h, shrink.h): seeded choosers, a search whose result
// depends only on its seed, shrinking that keeps the violation, and the acceptance scenario of
// reference §1.16 race 1 found by each strategy.
#include <doctest/doctest.h>

#include <algorithm>

#include <filesystem>
#include <optional>

#include "engine/scenario_loader.h"
#include "explore/explorer.h"
#include "explore/strategies.h"
#include "explore/targeted.h"

namespace rjsim::explore {
namespace explorer_test {
namespace {

engine::Scenario acceptance(const char* name) {
  return engine::load_scenario((std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / "explore" / name).string());
}

Schedule walk(const engine::Scenario& scenario, engine::Chooser& strategy) {
  RecordingChooser recording(strategy);
  RunOptions options;
  options.faults = true;
  options.chooser = &recording;
  options.keep_events = false;
  run_scenario(scenario, options);
  return recording.take();
}

TEST_CASE("a random walk with the same seed takes the same decisions; another seed others") {
  const engine::Scenario scenario = acceptance("stale-reads-are-harmless.yaml");
  RandomWalk first(5), again(5), other(6);
  const Schedule a = walk(scenario, first);
  CHECK(a == walk(scenario, again));
  CHECK(a != walk(scenario, other));
}

TEST_CASE("a random walk never injects more faults than the scenario's budget") {
  const engine::Scenario scenario = acceptance("stale-reads-are-harmless.yaml");   // conflicts: {max: 2}
  FaultProbabilities always;
  always.write_fault = 1.0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomWalk random(seed, always);
    RecordingChooser recording(random);
    RunOptions options;
    options.faults = true;
    options.chooser = &recording;
    const RunReport report = run_scenario(scenario, options);
    std::int64_t conflicts = 0;
    for (const events::Event& event : report.event_log) {
      const events::Value* injected = event.find("injected");
      if (injected && std::holds_alternative<std::string>(*injected) && std::get<std::string>(*injected) == "conflict") {
        ++conflicts;
      }
    }
    CAPTURE(seed);
    CHECK(conflicts <= 2);
    CHECK(conflicts >= 1);   // with probability 1 the budget is used
  }
}

TEST_CASE("pct with the same seed takes the same decisions") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  Pct first(9, 3, 100), again(9, 3, 100);
  CHECK(walk(scenario, first) == walk(scenario, again));
}

TEST_CASE("random exploration finds race 1 of §1.16: Suspended persisted while the cluster lives") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  ExploreOptions options;
  options.strategy = Strategy::random;
  options.runs = 2000;
  const ExploreReport report = explore(scenario, options);
  REQUIRE_FALSE(report.findings.empty());
  CHECK(report.findings.front().invariant == "suspended-is-clean");
  CHECK(report.schedules == report.findings.front().schedule_index + 1);
}

TEST_CASE("a liveness violation found with --all shrinks to a run that still violates it") {
  // Liveness is judged at the end of a run: a shrink candidate that stopped at the first safety
  // violation never showed it, and the finding's shrunk form used to be an empty run.
  const engine::Scenario scenario = acceptance("cluster-recreated-after-success-1-0.yaml");
  ExploreOptions options;
  options.runs = 200;
  options.all = true;
  const ExploreReport report = explore(scenario, options);
  const auto leaked = std::find_if(report.findings.begin(), report.findings.end(),
                                   [](const Finding& f) { return f.invariant == "no-leaked-cluster"; });
  REQUIRE(leaked != report.findings.end());
  CHECK(leaked->shrunk.report.steps > 0);
  CHECK_FALSE(leaked->shrunk.schedule.empty());
  CHECK(std::any_of(leaked->shrunk.report.violations.begin(), leaked->shrunk.report.violations.end(),
                    [](const ViolationReport& v) { return v.invariant == "no-leaked-cluster"; }));
}

TEST_CASE("pct exploration finds race 1 of §1.16") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  ExploreOptions options;
  options.strategy = Strategy::pct;
  options.runs = 2000;
  const ExploreReport report = explore(scenario, options);
  REQUIRE_FALSE(report.findings.empty());
  CHECK(report.findings.front().invariant == "suspended-is-clean");
}

TEST_CASE("stale reads, squashes and conflicts outside Suspending break no invariant (§1.16 item 12)") {
  const engine::Scenario scenario = acceptance("stale-reads-are-harmless.yaml");
  for (Strategy strategy : {Strategy::random, Strategy::pct, Strategy::targeted}) {
    CAPTURE(to_string(strategy));
    ExploreOptions options;
    options.strategy = strategy;
    options.runs = 300;
    const ExploreReport report = explore(scenario, options);
    CHECK(report.findings.empty());
    CHECK(report.schedules == 300);   // targeted: its plans, then PCT up to the budget
  }
}

TEST_CASE("a violation of the fault-free run is the first finding of every strategy, without a search") {
  const engine::Scenario scenario = acceptance("nonatomic-suspend-1-0.yaml");
  for (Strategy strategy : {Strategy::random, Strategy::pct, Strategy::targeted, Strategy::exhaustive}) {
    CAPTURE(to_string(strategy));
    ExploreOptions options;
    options.strategy = strategy;
    options.runs = 50;
    options.shrink_runs = 20;
    const ExploreReport report = explore(scenario, options);
    REQUIRE_FALSE(report.findings.empty());
    CHECK(report.findings.front().schedule_index == kFaultFreeSchedule);
    CHECK(report.findings.front().invariant == "suspended-is-clean");
    CHECK(departures(report.findings.front().schedule) == 0);
    CHECK(report.schedules == 0);
  }
}

TEST_CASE("with --all, an invariant the fault-free run violates is one finding, not one per schedule") {
  engine::Scenario scenario = acceptance("nonatomic-suspend-1-0.yaml");
  // The fault-free run breaks suspended-is-clean (and suspended-means-released): judge only the one.
  scenario.invariants.all = false;
  scenario.invariants.names = {"suspended-is-clean"};
  ExploreOptions options;
  options.strategy = Strategy::pct;
  options.runs = 20;
  options.all = true;
  options.shrink_runs = 0;
  const ExploreReport report = explore(scenario, options);
  CHECK(report.schedules == 20);
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings.front().schedule_index == kFaultFreeSchedule);
}

TEST_CASE("targeted runs PCT schedules once the budget allows no plan (only conflicts and HTTP errors)") {
  engine::Scenario scenario = acceptance("stale-reads-are-harmless.yaml");
  scenario.faults.max_lag = 0;
  scenario.faults.squash = false;
  RunOptions run;
  run.faults = true;
  REQUIRE(targeted_plans(run_scenario(scenario, run).event_log, scenario.faults).empty());
  ExploreOptions options;
  options.strategy = Strategy::targeted;
  options.runs = 40;
  const ExploreReport report = explore(scenario, options);
  CHECK(report.schedules == 40);
  CHECK(report.distinct_executions > 1);
}

TEST_CASE("targeted exploration finds race 1 of §1.16 by holding the new RayCluster's delivery") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  ExploreOptions options;
  options.strategy = Strategy::targeted;
  const ExploreReport report = explore(scenario, options);
  REQUIRE_FALSE(report.findings.empty());
  CHECK(report.findings.front().invariant == "suspended-is-clean");
  CHECK(report.schedules < 20);   // one plan per write: found among the first
}

TEST_CASE("targeted plans follow the controller's writes and only use faults the budget allows") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");   // lag and squash, no restarts
  engine::DefaultChooser fault_free(scenario.seed);
  RunOptions run;
  run.faults = true;
  run.chooser = &fault_free;
  const std::vector<TargetedPlan> plans = targeted_plans(run_scenario(scenario, run).event_log, scenario.faults);
  REQUIRE_FALSE(plans.empty());
  bool holds_cluster = false;
  for (const TargetedPlan& plan : plans) {
    CHECK(plan.action != TargetedPlan::Action::crash_after);
    holds_cluster |= plan.action == TargetedPlan::Action::hold_after && plan.about.starts_with("api.create RayCluster/");
  }
  CHECK(holds_cluster);
  engine::FaultBudget restarts_only;
  restarts_only.restarts = 1;
  for (const TargetedPlan& plan : targeted_plans(run_scenario(scenario, run).event_log, restarts_only)) {
    CHECK(plan.action == TargetedPlan::Action::crash_after);
  }
}

TEST_CASE("with two restarts allowed, a targeted outage plan crashes each successor as soon as it is up: the "
          "submitter-finished timeout outlasts two restarts") {
  const engine::Scenario scenario = acceptance("v17-submitter-timeout-vs-restarts.yaml");   // restarts {max: 2}
  REQUIRE(scenario.faults.restarts == 2);
  const std::vector<TargetedPlan> plans = targeted_plans(fault_free_with_budget(scenario, "").event_log, scenario.faults);
  std::size_t outages = 0, found = 0;
  for (const TargetedPlan& plan : plans) {
    if (plan.action != TargetedPlan::Action::outage_after) continue;
    ++outages;
    Targeted outage(plan, scenario.seed);
    RunOptions run;
    run.faults = true;
    run.chooser = &outage;
    const RunReport report = run_scenario(scenario, run);
    const auto restarts = std::count_if(report.event_log.begin(), report.event_log.end(),
                                        [](const events::Event& event) { return event.type == "process.crash"; });
    CHECK(restarts <= 2);
    const bool violated = std::any_of(report.violations.begin(), report.violations.end(),
                                      [](const auto& violation) { return violation.invariant == "status-mirrors-ray"; });
    if (violated) {
      CHECK(restarts == 2);   // one crash keeps the operator away 15 s: not enough
      ++found;
    }
  }
  CHECK(outages > 0);
  CHECK(found > 0);
}

TEST_CASE("with faults.latency a targeted plan slows the environment's reactions after each write: the garbage "
          "collector takes its max") {
  engine::Scenario scenario = engine::load_scenario(
      (std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / "kuberay-1.7" / "k8sjobmode-success.yaml").string());
  scenario.faults = engine::FaultBudget{};
  scenario.faults.latency = true;
  const RunReport baseline = fault_free_with_budget(scenario, "");
  const std::vector<TargetedPlan> plans = targeted_plans(baseline.event_log, scenario.faults);
  const auto slow_delete = std::find_if(plans.begin(), plans.end(), [](const TargetedPlan& plan) {
    return plan.action == TargetedPlan::Action::slow_after && plan.about.starts_with("api.delete RayCluster/");
  });
  REQUIRE(slow_delete != plans.end());
  for (const TargetedPlan& plan : plans) CHECK(plan.action == TargetedPlan::Action::slow_after);

  // When the controller deleted the cluster, and when the garbage collector deleted its Service.
  const auto delete_times = [](const RunReport& run) {
    std::optional<std::int64_t> cluster, service;
    for (const events::Event& event : run.event_log) {
      if (event.type != "api.delete") continue;
      if (event.actor == "controller" && event.object.starts_with("RayCluster/")) cluster = event.at_ms;
      if (event.actor == "gc" && event.object.starts_with("Service/") && !service) service = event.at_ms;
    }
    REQUIRE(cluster);
    REQUIRE(service);
    return *service - *cluster;
  };
  CHECK(delete_times(baseline) == 0);
  Targeted slow(*slow_delete, scenario.seed);
  RunOptions run;
  run.faults = true;
  run.chooser = &slow;
  CHECK(delete_times(run_scenario(scenario, run)) == scenario.world.latency.garbage_collector.max_ms);
}

TEST_CASE("the result depends only on the seed: one thread or three find the same schedule") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  ExploreOptions one;
  one.strategy = Strategy::random;
  one.runs = 2000;
  one.shrink_runs = 0;
  ExploreOptions three = one;
  three.jobs = 3;
  const ExploreReport a = explore(scenario, one);
  const ExploreReport b = explore(scenario, three);
  REQUIRE_FALSE(a.findings.empty());
  REQUIRE_FALSE(b.findings.empty());
  CHECK(a.findings.front().schedule_index == b.findings.front().schedule_index);
  CHECK(a.findings.front().schedule == b.findings.front().schedule);
  CHECK(a.schedules == b.schedules);
  CHECK(a.steps == b.steps);
  // Schedules the other threads ran past the first failing one count nowhere, executions included.
  CHECK(a.distinct_executions == b.distinct_executions);
  CHECK(a.coverage == b.coverage);
}

TEST_CASE("shards take disjoint schedules: shard I of N runs the indices i with i % N == I") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  for (std::int64_t shard = 0; shard < 2; ++shard) {
    ExploreOptions options;
    options.strategy = Strategy::random;
    options.runs = 400;
    options.all = true;
    options.shrink_runs = 0;
    options.shard_index = shard;
    options.shard_count = 2;
    const ExploreReport report = explore(scenario, options);
    CHECK(report.schedules == 400);
    for (const Finding& finding : report.findings) CHECK(finding.schedule_index % 2 == shard);
  }
}

TEST_CASE("shrinking keeps the violation and never grows the schedule") {
  const engine::Scenario scenario = acceptance("suspend-before-cluster-cached.yaml");
  FaultProbabilities noisy;   // many departures the race does not need
  noisy.stale_read = 0.9;
  noisy.write_fault = 0.9;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    RandomWalk random(seed, noisy);
    RecordingChooser recording(random);
    RunOptions options;
    options.faults = true;
    options.chooser = &recording;
    options.keep_events = false;
    options.stop_at_violation = true;
    const RunReport report = run_scenario(scenario, options);
    if (report.violations.empty() || report.violations.front().invariant != "suspended-is-clean") continue;
    const Schedule failing = recording.take();
    RunOptions base;
    base.seed = seed;
    base.faults = true;
    const ShrinkResult shrunk = shrink(scenario, base, failing, "suspended-is-clean");
    CAPTURE(seed);
    REQUIRE_FALSE(shrunk.report.violations.empty());
    CHECK(shrunk.report.violations.front().invariant == "suspended-is-clean");
    CHECK(size_of(shrunk.schedule, shrunk.report.steps) <= size_of(failing, report.steps));
    CHECK(departures(shrunk.schedule) <= departures(failing));
    return;
  }
  FAIL("no noisy schedule violated suspended-is-clean within 400 seeds");
}

TEST_CASE("a tolerant replay skips a recorded decision the run no longer asks for") {
  const Schedule recorded = {{engine::ChoicePoint::write_outcome, 3, 2}, {engine::ChoicePoint::step, 4, 3}};
  engine::DefaultChooser fallback(1);
  TolerantReplay replay(recorded, fallback);
  CHECK(replay.choose(engine::ChoicePoint::step, 4) == 0);            // write_outcome is next: not this
  CHECK(replay.choose(engine::ChoicePoint::write_outcome, 2) == 1);   // clamped to the options offered
  CHECK(replay.choose(engine::ChoicePoint::step, 4) == 3);
  CHECK(replay.choose(engine::ChoicePoint::step, 4) == 0);            // past the end
}

TEST_CASE("exploration judges a scenario's expectations on what it found") {
  engine::Expectation wants_bug;
  wants_bug.violations = std::vector<std::string>{"suspended-is-clean", "no-leaked-cluster"};
  ExploreReport none;
  none.schedules = 10;
  CHECK(unmet_expectations(wants_bug, none).size() == 1);
  ExploreReport found = none;
  found.findings.push_back(Finding{"no-leaked-cluster", 3, 0, {}, {}, {}, 0.0});
  CHECK(unmet_expectations(wants_bug, found).empty());
  engine::Expectation wants_pass;
  wants_pass.outcome = "pass";
  CHECK(unmet_expectations(wants_pass, none).empty());
  CHECK(unmet_expectations(wants_pass, found).size() == 1);
}

// `count` RayJobs of one shape under KubeRay v1.7.0, each on a cluster of its own.
engine::Scenario many_rayjobs(int count) {
  std::string text = R"(apiVersion: rjsim/v1
kind: Scenario
name: many-rayjobs
controller: kuberay-1.7
rayjobs:
)";
  for (int i = 0; i < count; ++i) {
    text += "  - {apiVersion: ray.io/v1, kind: RayJob, metadata: {name: job-" + std::to_string(i) +
            "}, spec: {entrypoint: python main.py, shutdownAfterJobFinishes: true, rayClusterSpec: "
            "{rayVersion: \"2.9.0\", headGroupSpec: {rayStartParams: {}, template: {spec: {containers: "
            "[{name: ray-head, image: \"rayproject/ray:2.9.0\"}]}}}}}}\n";
  }
  text += "world: {rayCluster: {readyAfter: 10s}, ray: {pendingFor: 1s, runsFor: 10s}}\n"
          "faults: {staleReads: {maxLag: 1}, squash: true}\n";
  return engine::parse_scenario(text, "many-rayjobs.yaml", ".");
}

TEST_CASE("a scenario with more RayJobs than the simulated controllers keep answers for runs and explores to its end") {
  // The RayCluster controller keeps answers for 64 clusters; 70 at once once crashed it.
  const engine::Scenario scenario = many_rayjobs(70);
  ExploreOptions options;
  options.strategy = Strategy::random;
  options.runs = 3;
  const ExploreReport report = explore(scenario, options);
  CHECK(report.schedules == 3);
  CHECK(report.findings.empty());
}

}  // namespace
}  // namespace explorer_test
}  // namespace rjsim::explore

