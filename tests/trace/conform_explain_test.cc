// `rjsim conform --explain` (trace/conform_explain.h): a recording made while the controller read
// a stale cache differs from the fault-free model; the search finds the schedule under which the
// model makes every recorded transition, and conform stores it for `rjsim replay`.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../cli/cli_test_support.h"
#include "../store/store_test_support.h"
#include "engine/scenario_loader.h"
#include "explore/targeted.h"
#include "recorded_watches.h"
#include "store/database.h"
#include "trace/conform_explain.h"

namespace rjsim::trace {
namespace conform_explain_test {
namespace {

using namespace testing;
using cli::testing::contains;
using cli::testing::invoke;

// A KubeRay v1.0.0 RayJob run to success (bundled kuberay-1.0/k8sjobmode-success), recorded while
// the controller's cache read one event stale after a write: the first of explore's targeted
// plans "stale reads after <write>" (within --explain's default budget) whose recording the
// fault-free model does not make. (Since the RayCluster controller writes its whole status, a
// stale read after the RayJob's own update heals before it shows: more events reach the RayJob.)
RecordedScenario recorded_with_stale_reads() {
  engine::Scenario scenario = engine::load_scenario(cli::testing::bundled_scenario("kuberay-1.0/k8sjobmode-success"));
  scenario.faults = engine::FaultBudget{};
  scenario.faults.max_lag = 1;
  scenario.faults.squash = true;
  scenario.faults.restarts = 1;
  engine::DefaultChooser fault_free(scenario.seed);
  explore::RunOptions baseline;
  baseline.faults = true;
  baseline.chooser = &fault_free;
  const explore::RunReport fault_free_run = explore::run_scenario(scenario, baseline);
  // The first such plan whose recording the fault-free model does not make.
  for (const explore::TargetedPlan& plan : explore::targeted_plans(fault_free_run.event_log, scenario.faults)) {
    if (plan.action != explore::TargetedPlan::Action::stale_read_after) continue;
    explore::Targeted stale_reads(plan, scenario.seed);
    RecordedScenario recorded;
    explore::RunOptions options = explore::exploration_run(stale_reads);
    options.observers.push_back(&recorded.watches);
    recorded.run = explore::run_scenario(scenario, options);
    if (conform_trace(trace_of(recorded, Watched::rayjobs_clusters_and_jobs), "").alignment.differs > 0) {
      return recorded;
    }
  }
  FAIL("no stale read makes a recording the fault-free model differs from");
  return {};
}

}  // namespace

TEST_CASE("conform --explain: a recording made under stale reads differs fault-free and agrees under the schedule found") {
  const std::vector<events::Event> trace = trace_of(recorded_with_stale_reads(), Watched::rayjobs_clusters_and_jobs);
  const ConformReport fault_free = conform_trace(trace, "");
  CHECK(fault_free.model.controller == "kuberay-1.0");
  REQUIRE(fault_free.alignment.differs > 0);

  const TraceExploration exploration = trace_exploration(trace, 1, fault_free.model.controller);
  const Explanation explanation = explain_difference(exploration);
  REQUIRE(explanation.found);
  REQUIRE(explanation.plan.has_value());
  CHECK(explanation.plan->action == explore::TargetedPlan::Action::stale_read_after);
  CHECK(explanation.how.starts_with("stale reads after api."));
  CHECK(explanation.alignment.differs == 0);
  CHECK(explanation.alignment.agreed == fault_free.alignment.agreed + fault_free.alignment.differs);
  CHECK(explanation.schedules <= explanation.targeted_plans);

  SUBCASE("the same search gives the same answer") {
    const Explanation again = explain_difference(exploration);
    CHECK(again.how == explanation.how);
    CHECK(again.schedules == explanation.schedules);
  }
}

TEST_CASE("rjsim conform --explain: exit 0 when every difference is explained; the schedule is stored and replays") {
  store::testing::ScratchDirectory dir;
  const RecordedScenario recorded = recorded_with_stale_reads();
  std::vector<std::string> import = {"import"};
  for (engine::Kind kind : {engine::Kind::RayJob, engine::Kind::RayCluster, engine::Kind::Job}) {
    const std::string file = dir.file(std::string(engine::to_string(kind)) + ".json");
    store::testing::write_bytes(file, recorded.watches.kubectl_watch(kind));
    import.push_back(file);
  }
  const std::string db = dir.file("trace.db");
  for (const std::string argument : {"--format", "kubectl-watch", "--db"}) import.push_back(argument);
  import.push_back(db);
  REQUIRE(invoke(import).code == 0);

  CHECK(invoke({"conform", db}).code == 1);   // fault-free, it differs
  const cli::testing::Result explained = invoke({"conform", db, "--explain"});
  CHECK_MESSAGE(explained.code == 0, explained.out, explained.err);
  CHECK(contains(explained.out, "explained: all "));
  CHECK(contains(explained.out, "under stale reads after api."));
  CHECK(contains(explained.out, "stored as run 2: rjsim replay " + db + " --run 2"));

  const store::Database database = store::Database::open_existing(db);
  const std::optional<store::RunInfo> stored = database.run(2);
  REQUIRE(stored.has_value());
  CHECK(stored->kind == "explore");
  CHECK(stored->parent_run == std::optional<std::int64_t>(1));
  const cli::testing::Result replay = invoke({"replay", db, "--run", "2"});
  CHECK_MESSAGE(replay.code == 0, replay.out, replay.err);

  SUBCASE("--json carries the explanation") {
    const cli::testing::Result json_out = invoke({"conform", db, "--run", "1", "--explain", "--json"});
    CHECK(json_out.code == 0);
    const nlohmann::json report = nlohmann::json::parse(json_out.out);
    CHECK(report["explanation"]["found"] == true);
    CHECK(report["explanation"]["stored_run"] == 3);
    CHECK(report["explanation"]["faults"] ==
          "{staleReads: {maxLag: 1}, squash: true, restarts: {max: 1, midReconcile: true}, latency: true}");
  }
}

TEST_CASE("rjsim conform --explain: a recording no schedule makes is not explained, exit 1, nothing stored") {
  store::testing::ScratchDirectory dir;
  const RecordedScenario recorded = record_bundled("k8sjobmode-success");
  std::string rayjobs = recorded.watches.kubectl_watch(engine::Kind::RayJob);
  // The RayJob ends Failed with a Ray job that SUCCEEDED: no KubeRay v1.1 controller writes that.
  const std::size_t complete = rayjobs.rfind("\"jobDeploymentStatus\":\"Complete\"");
  REQUIRE(complete != std::string::npos);
  rayjobs.replace(complete, std::string("\"jobDeploymentStatus\":\"Complete\"").size(),
                  "\"jobDeploymentStatus\":\"Failed\"");
  store::testing::write_bytes(dir.file("rayjobs.json"), rayjobs);
  const std::string db = dir.file("trace.db");
  REQUIRE(invoke({"import", dir.file("rayjobs.json"), "--format", "kubectl-watch", "--db", db}).code == 0);
  const cli::testing::Result result = invoke({"conform", db, "--explain"});
  CHECK(result.code == 1);
  CHECK(contains(result.out, "not explained: under none of "));
  CHECK(contains(result.out, "targeted plans, then PCT) does kuberay-1.1 make the recorded transitions"));
  const store::Database database = store::Database::open_existing(db);
  CHECK_FALSE(database.run(2).has_value());
}


TEST_CASE("conform --explain tries slow reactions first, then stale reads and held deliveries, then crashes") {
  using Action = explore::TargetedPlan::Action;
  std::vector<explore::TargetedPlan> plans;
  for (Action action : {Action::crash_after, Action::stale_read_after, Action::slow_after, Action::hold_after,
                        Action::outage_after, Action::slow_after}) {
    explore::TargetedPlan plan;
    plan.action = action;
    plan.step_decision = static_cast<std::int64_t>(plans.size());
    plans.push_back(plan);
  }
  std::vector<std::pair<Action, std::int64_t>> order;
  for (const explore::TargetedPlan& plan : in_explanation_order(plans)) order.emplace_back(plan.action, plan.step_decision);
  CHECK(order == std::vector<std::pair<Action, std::int64_t>>{{Action::slow_after, 2}, {Action::slow_after, 5},
                                                              {Action::stale_read_after, 1}, {Action::hold_after, 3},
                                                              {Action::crash_after, 0}, {Action::outage_after, 4}});
}

}  // namespace conform_explain_test
}  // namespace rjsim::trace
