// `rjsim conform` (DESIGN §6; docs/traces.md "Conforming a trace"): a bundled scenario's run,
// written out as the kubectl watches a user would record, imported and conformed; the model picked
// from the recorded fields; a trace of RayJobs alone; an edited trace that differs; bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "../cli/cli_test_support.h"
#include "../cli/recorded_runs.h"
#include "../store/store_test_support.h"
#include "engine/object_json.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"
#include "trace/conform.h"
#include "trace/import.h"
#include "recorded_watches.h"
#include "trace_test_support.h"

namespace rjsim::trace {
namespace conform_test {
namespace {

using namespace testing;
using cli::testing::contains;
using cli::testing::invoke;
using cli::testing::Result;
using store::testing::ScratchDirectory;
using store::testing::write_bytes;

bool has_line(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& line : lines) {
    if (contains(line, part)) return true;
  }
  return false;
}

// Replaces the first occurrence of `from` after the `nth` line of `text` (0-based).
std::string edit_line(const std::string& text, int nth, const std::string& from, const std::string& to) {
  std::size_t start = 0;
  for (int i = 0; i < nth; ++i) start = text.find('\n', start) + 1;
  const std::size_t end = text.find('\n', start);
  std::string line = text.substr(start, end - start);
  const std::size_t at = line.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "line " << nth << " has no " << from);
  line.replace(at, from.size(), to);
  return text.substr(0, start) + line + text.substr(end);
}

// The bundled scenario's run, recorded as a RayJob watch alone, conformed under the model picked.
ConformReport conform_rayjob_watch(const std::string& scenario) {
  return conform_trace(trace_of(record_bundled(scenario), Watched::rayjobs), "");
}

int count_lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("conform: a kubectl watch of a kuberay-1.1 run agrees with kuberay-1.1, transition by transition") {
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  REQUIRE(recorded.run.transitions.size() == 5);
  const std::vector<events::Event> trace = trace_of(recorded, Watched::rayjobs_clusters_and_jobs);
  const ConformReport report = conform_trace(trace, "");
  CHECK(report.model.controller == "kuberay-1.1");
  CHECK(report.derived.rayjob == "rayjob-sample");
  CHECK(report.derived.recorded.size() == 5);
  CHECK(report.alignment.details.size() == 5);
  CHECK(report.alignment.agreed == 5);
  CHECK(report.alignment.differs == 0);
  for (const ConformDetail& d : report.alignment.details) {
    INFO("#", d.index, " ", transition_label(d.recorded), ": ", d.note);
    CHECK(d.agreed);
    REQUIRE(d.model.has_value());
    CHECK(d.model->to == d.recorded.to);
  }
  // The RayCluster's records time its readiness: 20s from creation to State ready.
  CHECK(report.derived.scenario.world.ray_cluster.ready_after_ms == 20'000);
  CHECK(report.derived.scenario.world.ray.results == std::vector<std::string>{"SUCCEEDED"});
}

TEST_CASE("conform: the world's timings come from the timestamps inside the recorded objects") {
  engine::Scenario scenario = engine::load_scenario(cli::testing::bundled_scenario("k8sjobmode-success"));
  scenario.world.ray_cluster.ready_after_ms = 45'000;
  RecordedScenario recorded = record(scenario);
  SUBCASE("with the RayCluster watch: creationTimestamp to status.lastUpdateTime of State ready") {
    const ConformScenario derived = derive_conform_scenario(
        trace_of(recorded, Watched::rayjobs_and_clusters),
        "kuberay-1.1");
    CHECK(derived.scenario.world.ray_cluster.ready_after_ms == 45'000);
    CHECK(has_line(derived.assumptions, "rayCluster.readyAfter 45s"));
  }
  SUBCASE("RayJobs alone: the cluster was ready when the RayJob reached Running") {
    const ConformScenario derived = derive_conform_scenario(
        trace_of(recorded, Watched::rayjobs), "kuberay-1.1");
    CHECK(derived.scenario.world.ray_cluster.ready_after_ms == 45'000);
    CHECK(has_line(derived.assumptions, "the trace has no RayCluster records"));
    // The Ray job ran 30s: from Running + 2s submitter + 2s pending to the RayJob's endTime,
    // which the model writes at its next poll and the server keeps in whole seconds.
    CHECK(derived.scenario.world.ray.runs_for_ms >= 30'000);
    CHECK(derived.scenario.world.ray.runs_for_ms <= 33'000);
    CHECK(has_line(derived.assumptions, "to the RayJob's status.endTime"));
  }
}

TEST_CASE("conform: with a clock (an audit log's stageTimestamps) the Ray job is timed from the jobStatus changes") {
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  std::vector<events::Event> trace = trace_of(recorded, Watched::rayjobs_and_clusters);
  // The times the run persisted each RayJob state at, as an audit log would have logged them.
  const std::map<std::pair<std::string, std::string>, std::int64_t> times = {
      {{"Running", ""}, 20'000}, {{"Running", "PENDING"}, 22'555}, {{"Running", "RUNNING"}, 25'555},
      {{"Complete", "SUCCEEDED"}, 54'000}};
  for (events::Event& event : trace) {
    const events::Value* object = event.find("object");
    if (event.actor != "watch/RayJob" || object == nullptr) continue;
    const json status = json::parse(std::get<events::RawJson>(*object).text).value("status", json::object());
    auto it = times.find({status.value("jobDeploymentStatus", ""), status.value("jobStatus", "")});
    if (it != times.end()) event.at_ms = it->second;
  }
  const ConformReport report = conform_trace(trace, "kuberay-1.1");
  CHECK(has_line(report.derived.assumptions, "times: the trace's own clock"));
  CHECK(report.derived.scenario.world.ray.pending_for_ms == 3'000);
  CHECK(report.derived.scenario.world.ray.runs_for_ms == 54'000 - 25'555);
  CHECK(has_line(report.derived.assumptions, "ray.pendingFor 3s: from jobStatus PENDING to RUNNING as recorded"));
  CHECK(report.alignment.differs == 0);
}

TEST_CASE("conform: an audit log of the RayJob's writes conforms, timed by its stageTimestamps") {
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  const std::vector<events::Event> trace =
      build_trace(Format::audit, {TraceInput{"audit.log", recorded.watches.audit_log()}}, false).events;
  const ConformReport report = conform_trace(trace, "");
  CHECK(report.model.controller == "kuberay-1.1");
  CHECK(has_line(report.derived.assumptions, "times: the trace's own clock"));
  // PENDING at 22.555s, RUNNING at 25.555s, SUCCEEDED seen at 54s (the model's poll).
  CHECK(report.derived.scenario.world.ray.pending_for_ms == 3'000);
  CHECK(report.derived.scenario.world.ray.runs_for_ms == 54'000 - 25'555);
  CHECK(report.alignment.agreed == 5);
  CHECK(report.alignment.differs == 0);
  REQUIRE(report.alignment.details.size() == 5);
  CHECK(report.alignment.details[4].recorded.at_ms == 54'000);
}

TEST_CASE("conform: a trace of RayJobs alone conforms and says what it assumed") {
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  const ConformReport report =
      conform_trace(trace_of(recorded, Watched::rayjobs), "");
  CHECK(report.alignment.agreed == 5);
  CHECK(report.alignment.differs == 0);
  CHECK(has_line(report.derived.assumptions, "the trace has no RayCluster records"));
  CHECK(has_line(report.derived.assumptions, "the trace has no Job records"));
  CHECK(has_line(report.derived.assumptions, "ray.results [\"SUCCEEDED\"]"));
}

TEST_CASE("conform: a deletion is a delete action at the RayJob's deletionTimestamp") {
  RecordedScenario recorded = record_bundled("delete-while-running");
  const ConformReport report =
      conform_trace(trace_of(recorded, Watched::rayjobs_and_clusters),
                    "kuberay-1.1");
  const engine::Scenario original = engine::load_scenario(cli::testing::bundled_scenario("delete-while-running"));
  REQUIRE(report.derived.scenario.actions.size() == 1);
  CHECK(report.derived.scenario.actions[0].type == engine::Action::Type::delete_);
  CHECK(report.derived.scenario.actions[0].at_ms == original.actions.back().at_ms);
  CHECK(has_line(report.derived.assumptions, "(its deletionTimestamp)"));
  CHECK(report.alignment.differs == 0);
  CHECK(report.alignment.agreed == static_cast<int>(recorded.run.transitions.size()));
}

TEST_CASE("conform: a spec change is a merge-patch action; a watch does not time it, so it is estimated") {
  RecordedScenario recorded = record_bundled("suspend-in-running-then-resume");
  const ConformReport report =
      conform_trace(trace_of(recorded, Watched::rayjobs_and_clusters),
                    "kuberay-1.1");
  REQUIRE(report.derived.scenario.actions.size() == 2);
  CHECK(report.derived.scenario.actions[0].patch == json{{"spec", {{"suspend", true}}}});
  // The API server omits suspend: false (omitempty), so the resume removes the field.
  CHECK(report.derived.scenario.actions[1].patch == json{{"spec", {{"suspend", nullptr}}}});
  // Anchored just after the model's transitions that match the last recorded ones before each change.
  CHECK(has_line(report.derived.assumptions, "1ms after the model's Running -> Running (RUNNING)"));
  CHECK(has_line(report.derived.assumptions, "1ms after the model's Suspending -> Suspended"));
  CHECK(has_line(report.derived.assumptions, "a watch does not say when a spec changed"));
  CHECK(report.alignment.differs == 0);
}

TEST_CASE("conform: a recorded transition the model does not make differs, with its index and a note") {
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  const std::string rayjobs = recorded.watches.kubectl_watch(engine::Kind::RayJob);
  // The last RayJob state: Complete as the real operator would not have written it.
  const std::string edited = edit_line(rayjobs, count_lines(rayjobs) - 1, "\"jobDeploymentStatus\":\"Complete\"",
                                       "\"jobDeploymentStatus\":\"Failed\"");
  REQUIRE(edited != rayjobs);
  const ConformReport report = conform_trace(trace_of({{"rayjobs.json", edited}}), "kuberay-1.1");
  REQUIRE(report.alignment.details.size() == 5);
  CHECK(report.alignment.agreed == 4);
  CHECK(report.alignment.differs == 1);
  const ConformDetail& last = report.alignment.details[4];
  CHECK(last.index == 4);
  CHECK_FALSE(last.agreed);
  CHECK(last.recorded.to == "Failed");
  REQUIRE(last.model.has_value());
  CHECK(last.model->to == "Complete");
  CHECK(contains(last.note, "first difference, after Running -> Running (RUNNING)"));
  CHECK(contains(last.note, "the model made Running -> Complete (SUCCEEDED)"));
}

TEST_CASE("conform: align_transitions names the model's extra transitions and those it lacks") {
  using explore::Transition;
  const Transition init{0, 0, "j", "", "Initializing", "", ""};
  const Transition running{0, 20'000, "j", "Initializing", "Running", "", ""};
  const Transition pending{0, 22'000, "j", "Running", "Running", "PENDING", ""};
  const Transition complete{0, 50'000, "j", "Running", "Complete", "SUCCEEDED", ""};
  SUBCASE("the model makes a transition the recording does not have") {
    const Alignment a = align_transitions({init, running, complete}, {init, running, pending, complete}, "", "");
    CHECK(a.agreed == 2);
    CHECK(a.differs == 1);
    CHECK(a.details[2].model == complete);
    CHECK(contains(a.details[2].note, "the model made Running -> Running (PENDING) first"));
  }
  SUBCASE("the recording has a transition the model never makes; matching goes on after it") {
    const Alignment a = align_transitions({init, pending, running}, {init, running}, "", "");
    CHECK(a.details[0].agreed);
    CHECK_FALSE(a.details[1].agreed);
    CHECK(a.details[2].agreed);
  }
  SUBCASE("a recording that starts later skips what the model did before its first state") {
    const Alignment a = align_transitions({pending, complete}, {init, running, pending, complete}, "Running", "");
    CHECK(a.agreed == 2);
    CHECK(a.model_after.empty());
  }
  SUBCASE("what the model did after the recording ended is kept apart") {
    const Alignment a = align_transitions({init}, {init, running}, "", "");
    CHECK(a.agreed == 1);
    CHECK(a.model_after == std::vector<Transition>{running});
  }
}

TEST_CASE("conform: the model is picked from the fields the recorded RayJob carries") {
  const json job = manifest("rayjob-sample.yaml");
  auto pick = [&](const json& status) {
    return pick_conform_model(trace_of({{"rayjobs.json", watch_line("ADDED", observed(job, "u-1", "10")) +
                                                             watch_line("MODIFIED", observed(job, "u-1", "11", status))}}));
  };
  CHECK(pick(rayjob_status("WaitForDashboard")).controller == "kuberay-1.0");
  CHECK(contains(pick(rayjob_status("WaitForDashboard")).why, "WaitForDashboard"));
  CHECK(pick(rayjob_status("ValidationFailed")).controller == "kuberay-1.7");
  CHECK(pick(json{{"jobDeploymentStatus", "Running"}, {"succeeded", 0}}).controller == "kuberay-1.7");
  CHECK(pick(json{{"jobDeploymentStatus", "Running"}, {"rayJobInfo", {{"startTime", "2026-01-01T00:00:05Z"}}}})
            .controller == "kuberay-1.7");
  const std::string name = job["metadata"]["name"];
  CHECK(pick(json{{"jobDeploymentStatus", "Initializing"}, {"rayClusterName", name + "-ab3cd"}}).controller ==
        "kuberay-1.7");
  const ModelChoice plain =
      pick(json{{"jobDeploymentStatus", "Initializing"}, {"rayClusterName", name + "-raycluster-ab3cd"}});
  CHECK(plain.controller == "kuberay-1.1");
  CHECK(contains(plain.why, "default"));
}

TEST_CASE("conform: a kuberay-1.7 run's trace picks kuberay-1.7 and agrees with it") {
  RecordedScenario recorded = record_bundled("kuberay-1.7/k8sjobmode-success");
  const ConformReport report =
      conform_trace(trace_of(recorded, Watched::rayjobs_and_clusters),
                    "");
  CHECK(report.model.controller == "kuberay-1.7");
  CHECK(report.alignment.differs == 0);
  CHECK(report.alignment.agreed == static_cast<int>(recorded.run.transitions.size()));
}

TEST_CASE("conform: bundled scenarios, recorded as RayJob, RayCluster and Job watches, agree with the model that ran them") {
  // The model is picked from the fields, except where a release writes nothing of its own.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"kuberay-1.0/k8sjobmode-success", "kuberay-1.0"}, {"kuberay-1.0/ray-job-failed", "kuberay-1.0"},
      {"ray-job-failed", "kuberay-1.1"},               {"httpmode-success", "kuberay-1.1"},
      {"kuberay-1.7/retry-then-succeed", "kuberay-1.7"},
      {"kuberay-1.7/validation-failed-sticky", "kuberay-1.7"}, {"kuberay-1.7/sidecar-success", "kuberay-1.7"}};
  for (const auto& entry : cases) {   // no structured binding: INFO captures it, which Clang 14 cannot
    const std::string& name = entry.first;
    const std::string& controller = entry.second;
    INFO("scenario ", name);
    RecordedScenario recorded = record_bundled(name);
    const ConformReport report = conform_trace(trace_of(recorded, Watched::rayjobs_clusters_and_jobs), "");
    CHECK(report.model.controller == controller);
    for (const ConformDetail& d : report.alignment.details) {
      INFO("#", d.index, " ", transition_label(d.recorded), ": ", d.note);
      CHECK(d.agreed);
    }
    CHECK(report.alignment.agreed == static_cast<int>(recorded.run.transitions.size()));
  }
}

TEST_CASE("conform: submitter attempts that failed while the Ray job never FAILED failed on their own") {
  RecordedScenario recorded = record_bundled("submitter-fails-then-succeeds");
  const ConformReport report = conform_trace(trace_of(recorded, Watched::rayjobs_clusters_and_jobs), "");
  CHECK(report.derived.scenario.world.submitter.fail_attempts == 2);
  CHECK(has_line(report.derived.assumptions, "showed 2 failed attempts (status.failed) before the RayJob showed any jobStatus"));
  CHECK(report.derived.scenario.world.dashboard.outages.empty());
  CHECK(report.alignment.differs == 0);

  SUBCASE("a failed Ray job fails its submitter too: then the attempts are not the submitter's own") {
    RecordedScenario failed = record_bundled("ray-job-failed");
    const ConformReport failed_report = conform_trace(trace_of(failed, Watched::rayjobs_clusters_and_jobs), "");
    CHECK(failed_report.derived.scenario.world.submitter.fail_attempts == 0);
    CHECK(failed_report.alignment.differs == 0);
  }
}

TEST_CASE("conform: kuberay-1.1 showing a terminal jobStatus without RUNNING did not read the Ray job: an outage is assumed") {
  for (const std::string name : {"dashboard-errors", "submitter-fails-then-succeeds"}) {
    INFO("scenario ", name);
    const ConformReport report = conform_rayjob_watch(name);
    REQUIRE(report.derived.scenario.world.dashboard.outages.size() == 1);
    CHECK(has_line(report.derived.assumptions, "without RUNNING before it"));
    CHECK(report.alignment.differs == 0);
  }
  SUBCASE("a RayJob that showed RUNNING gets no outage") {
    const ConformReport report = conform_rayjob_watch("k8sjobmode-success");
    CHECK(report.derived.scenario.world.dashboard.outages.empty());
  }
}

TEST_CASE("conform: kuberay-1.0's FailedToGetJobStatus is an outage anchored after the transition recorded before it") {
  const ConformReport report = conform_rayjob_watch("kuberay-1.0/dashboard-errors");
  CHECK(report.model.controller == "kuberay-1.0");
  REQUIRE(report.derived.scenario.world.dashboard.outages.size() == 1);
  CHECK(report.derived.scenario.world.dashboard.outages[0].for_ms == 4'000);
  CHECK(report.derived.scenario.actions.empty());   // an outage is a world setting, not an action
  CHECK(has_line(report.derived.assumptions, "a dashboard outage of 4s (a status poll and a second) began at"));
  CHECK(has_line(report.derived.assumptions, "1ms after the model's WaitForDashboardReady -> Running (RUNNING)"));
  CHECK(report.alignment.differs == 0);
}

TEST_CASE("conform: kuberay-1.7's jobStatus going from RUNNING back to PENDING is a head restart, anchored") {
  const ConformReport report = conform_rayjob_watch("kuberay-1.7/head-restart-while-running");
  REQUIRE(report.derived.scenario.actions.size() == 1);
  CHECK(report.derived.scenario.actions[0].type == engine::Action::Type::head_restart);
  CHECK(has_line(report.derived.assumptions, "the Ray head restarted at"));
  CHECK(has_line(report.derived.assumptions, "1ms after the model's Running -> Running (RUNNING)"));
  CHECK(report.alignment.differs == 0);
}

TEST_CASE("conform: kuberay-1.7's validation message naming a feature gate turns the gate off") {
  const ConformReport report = conform_rayjob_watch("kuberay-1.7/deletion-policy-gate-off");
  const std::map<std::string, bool> gates = {{"RayJobDeletionPolicy", false}};
  CHECK(report.derived.scenario.world.operator_settings.feature_gates == gates);
  CHECK(has_line(report.derived.assumptions, "operator.featureGates.RayJobDeletionPolicy false"));
  CHECK(report.alignment.differs == 0);
}

TEST_CASE("conform: kuberay-1.7's submitter-finished timeout: its FAILED is the controller's, the submitter finished 30s before") {
  // While the status checks failed, the outage lasted past it; without failed checks, no outage.
  for (const auto& entry : std::vector<std::pair<std::string, std::size_t>>{
           {"kuberay-1.7/submitter-timeout-after-outage", 1}, {"kuberay-1.7/submitter-finishes-before-ray", 0}}) {
    const std::string& name = entry.first;   // no structured binding: INFO captures it (Clang 14)
    const std::size_t outages = entry.second;
    INFO("scenario ", name);
    const ConformReport report = conform_rayjob_watch(name);
    REQUIRE(report.derived.scenario.world.dashboard.outages.size() == outages);
    if (outages > 0) CHECK(report.derived.scenario.world.dashboard.outages[0].from_ms == 26'000);
    CHECK(has_line(report.derived.assumptions, "is its controller's (reason JobDeploymentStatusTransitionGracePeriodExceeded)"));
    CHECK(report.derived.scenario.world.submitter.finishes_after_ms.has_value());
    CHECK(report.alignment.differs == 0);
  }
}

TEST_CASE("conform: a RayJob deleted and created again under its name is another object: its transitions are not compared") {
  const json job = manifest("rayjob-sample.yaml");
  const std::vector<events::Event> trace = trace_of(
      {{"rayjobs.json", watch_line("ADDED", observed(job, "u-1", "10")) +
                            watch_line("MODIFIED", observed(job, "u-1", "11", rayjob_status("Initializing"))) +
                            watch_line("DELETED", observed(job, "u-1", "12", rayjob_status("Initializing"))) +
                            watch_line("ADDED", observed(job, "u-2", "13")) +
                            watch_line("MODIFIED", observed(job, "u-2", "14", rayjob_status("Initializing"))) +
                            watch_line("MODIFIED", observed(job, "u-2", "15", rayjob_status("Running")))}});
  const ConformScenario derived = derive_conform_scenario(trace, "kuberay-1.1");
  REQUIRE(derived.recorded.size() == 1);
  CHECK(derived.recorded[0].to == "Initializing");
  REQUIRE(derived.scenario.actions.size() == 1);
  CHECK(derived.scenario.actions[0].type == engine::Action::Type::delete_);
}

TEST_CASE("conform: --rayjob follows the RayJob it names, by NAME or NAMESPACE/NAME; the first one seen by default") {
  json first = manifest("rayjob-sample.yaml");
  json second = first;
  second["metadata"]["name"] = "second";
  const std::vector<events::Event> trace = trace_of(
      {{"rayjobs.json", watch_line("ADDED", observed(first, "u-1", "10")) +
                            watch_line("ADDED", observed(second, "u-2", "11")) +
                            watch_line("MODIFIED", observed(first, "u-1", "12", rayjob_status("Initializing"))) +
                            watch_line("MODIFIED", observed(second, "u-2", "13", rayjob_status("Initializing"))) +
                            watch_line("MODIFIED", observed(second, "u-2", "14", rayjob_status("Running")))}});
  const ConformScenario by_default = derive_conform_scenario(trace, "kuberay-1.1");
  CHECK(by_default.rayjob == "rayjob-sample");
  CHECK(by_default.recorded.size() == 1);
  CHECK(has_line(by_default.assumptions,
                 "the trace holds 2 RayJobs: this scenario follows RayJob/default/rayjob-sample alone (the first one seen)"));
  for (const std::string name : {"second", "default/second"}) {
    CAPTURE(name);
    const ConformScenario named = derive_conform_scenario(trace, "kuberay-1.1", name);
    CHECK(named.rayjob == "second");
    CHECK(named.recorded.size() == 2);
    CHECK(has_line(named.assumptions, "the trace holds 2 RayJobs: this scenario follows RayJob/default/second alone"));
  }
  CHECK_THROWS_WITH_AS(derive_conform_scenario(trace, "kuberay-1.1", "third"),
                       "--rayjob: the trace holds no RayJob \"third\" (it holds default/rayjob-sample, default/second)",
                       ConformError);
}

TEST_CASE("conform: derive_conform_scenario rejects what is not a trace with a RayJob") {
  CHECK_THROWS_AS(derive_conform_scenario({}, "kuberay-1.1"), ConformError);
  const json cluster = manifest("raycluster-sample.yaml");
  CHECK_THROWS_WITH_AS(
      derive_conform_scenario(trace_of({{"rc.json", watch_line("ADDED", observed(cluster, "u-rc", "5"))}}),
                              "kuberay-1.1"),
      doctest::Contains("no RayJob"), ConformError);
}

TEST_CASE("conform: --controller names a model, and a name that is none is refused with every model listed") {
  CHECK_THROWS_WITH_AS(conform_trace({}, "kuberay-2.0"),
                       "--controller: \"kuberay-2.0\" is not a model (expected one of: kuberay-1.0, kuberay-1.1, "
                       "kuberay-1.7, kuberay-latest, kuberay-1.7+ray-before-submitter-timeout, "
                       "kuberay-1.7+api-reader-confirms-deletion, kuberay-1.7+wait-for-pods-deleted)",
                       ConformError);
}

TEST_CASE("rjsim conform: import then conform, exit 0 when all agree, 1 when one differs, --json") {
  ScratchDirectory dir;
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  const std::string rayjobs_text = recorded.watches.kubectl_watch(engine::Kind::RayJob);
  write_bytes(dir.file("rayjobs.json"), rayjobs_text);
  write_bytes(dir.file("rayclusters.json"), recorded.watches.kubectl_watch(engine::Kind::RayCluster));
  const std::string db = dir.file("t.db");
  REQUIRE(invoke({"import", dir.file("rayjobs.json"), dir.file("rayclusters.json"), "--format", "kubectl-watch",
                  "--db", db})
              .code == 0);

  Result agreed = invoke({"conform", db});
  INFO(agreed.out, agreed.err);
  CHECK(agreed.code == 0);
  CHECK(contains(agreed.out, "model: kuberay-1.1 (no recorded field is specific"));
  CHECK(contains(agreed.out, "  #4  agreed   Running -> Complete (SUCCEEDED)\n"));
  CHECK(contains(agreed.out, "all 5 recorded transitions agree with kuberay-1.1\n"));

  Result as_json = invoke({"conform", db, "--run", "1", "--json"});
  CHECK(as_json.code == 0);
  const json out = json::parse(as_json.out);
  CHECK(out["run_id"] == 1);
  CHECK(out["controller"] == "kuberay-1.1");
  CHECK(out["recorded_transitions"] == 5);
  CHECK(out["agreed"] == 5);
  CHECK(out["differs"] == 0);
  REQUIRE(out["details"].size() == 5);
  for (const char* key : {"index", "recorded", "model", "agreed", "note"}) CHECK(out["details"][0].contains(key));
  CHECK(out["details"][4]["recorded"]["to"] == "Complete");
  CHECK(out["details"][4]["model"]["job_status"] == "SUCCEEDED");

  // The same recording with its last RayJob state edited: run 2.
  write_bytes(dir.file("edited.json"), edit_line(rayjobs_text, count_lines(rayjobs_text) - 1,
                                                 "\"jobDeploymentStatus\":\"Complete\"",
                                                 "\"jobDeploymentStatus\":\"Failed\""));
  REQUIRE(invoke({"import", dir.file("edited.json"), "--format", "kubectl-watch", "--db", db}).code == 0);
  Result differs = invoke({"conform", db, "--controller", "kuberay-1.1"});
  CHECK(differs.code == 1);
  CHECK(contains(differs.out, "  #4  DIFFERS  Running -> Failed (SUCCEEDED)\n"));
  CHECK(contains(differs.out, "model: Running -> Complete (SUCCEEDED)"));
  CHECK(contains(differs.out, "1 of 5 recorded transitions differ from kuberay-1.1 (the first: #4)\n"));
  Result differs_json = invoke({"conform", db, "--json"});
  CHECK(differs_json.code == 1);
  const json d = json::parse(differs_json.out);
  CHECK(d["run_id"] == 2);
  CHECK(d["differs"] == 1);
  CHECK(d["details"][4]["agreed"] == false);
  CHECK(contains(d["details"][4]["note"].get<std::string>(), "first difference"));
}

TEST_CASE("rjsim conform: a trace of several RayJobs conforms each on its own, with a summary; --rayjob picks one") {
  ScratchDirectory dir;
  std::string second = record_bundled("cluster-selector-existing").watches.kubectl_watch(engine::Kind::RayJob);
  for (std::size_t at = second.find("\"uid-"); at != std::string::npos; at = second.find("\"uid-", at + 1)) {
    second.replace(at, 5, "\"uid-b");   // another object than the first run's uid-1
  }
  write_bytes(dir.file("rayjobs.json"),
              record_bundled("k8sjobmode-success").watches.kubectl_watch(engine::Kind::RayJob) + second);
  const std::string db = dir.file("t.db");
  REQUIRE(invoke({"import", dir.file("rayjobs.json"), "--format", "kubectl-watch", "--db", db}).code == 0);

  const Result text = invoke({"conform", db});
  INFO(text.out, text.err);
  CHECK(text.code == 0);
  CHECK(contains(text.out, "conform: trace run 1 (trace-kubectl-watch) in " + db + ", RayJob rayjob-sample\n"));
  CHECK(contains(text.out, "conform: trace run 1 (trace-kubectl-watch) in " + db + ", RayJob rayjob-selector\n"));
  CHECK(contains(text.out, "\n2 RayJobs: 2 agree with kuberay-1.1, 0 differ\n"));

  const json report = json::parse(invoke({"conform", db, "--json"}).out);
  REQUIRE(report["rayjobs"].size() == 2);
  CHECK(report["rayjobs"][1]["rayjob"] == "rayjob-selector");
  CHECK(report["recorded_transitions"] == report["rayjobs"][0]["recorded_transitions"].get<int>() +
                                              report["rayjobs"][1]["recorded_transitions"].get<int>());
  CHECK(report["details"].back()["rayjob"] == "rayjob-selector");

  const Result one = invoke({"conform", db, "--rayjob", "default/rayjob-selector", "--json"});
  CHECK(one.code == 0);
  const json selected = json::parse(one.out);
  CHECK(selected["rayjob"] == "rayjob-selector");
  CHECK(selected["rayjobs"].size() == 1);
}

TEST_CASE("rjsim conform: bad input exits 2 and says what was wrong") {
  ScratchDirectory dir;
  const std::string db = dir.file("t.db");
  SUBCASE("a database without a trace run") {
    REQUIRE(invoke({"run", cli::testing::bundled_scenario("k8sjobmode-success"), "--db", db}).code == 0);
    Result result = invoke({"conform", db});
    CHECK(result.code == 2);
    CHECK(contains(result.err, "holds no trace run"));
    Result named = invoke({"conform", db, "--run", "1"});
    CHECK(named.code == 2);
    CHECK(contains(named.err, "run 1 is a run run of scenario k8sjobmode-success, not a trace"));
  }
  SUBCASE("an unknown run") {
    REQUIRE(invoke({"run", cli::testing::bundled_scenario("k8sjobmode-success"), "--db", db}).code == 0);
    Result result = invoke({"conform", db, "--run", "9"});
    CHECK(result.code == 2);
    CHECK(contains(result.err, "no run 9"));
  }
  SUBCASE("--rayjob naming no RayJob of the trace") {
    write_bytes(dir.file("rayjobs.json"), watch_line("ADDED", observed(manifest("rayjob-sample.yaml"), "u-1", "5")));
    REQUIRE(invoke({"import", dir.file("rayjobs.json"), "--format", "kubectl-watch", "--db", db}).code == 0);
    Result result = invoke({"conform", db, "--rayjob", "other"});
    CHECK(result.code == 2);
    CHECK(contains(result.err, "--rayjob: the trace holds no RayJob \"other\" (it holds default/rayjob-sample)"));
  }
  SUBCASE("a trace without a RayJob") {
    write_bytes(dir.file("rc.json"),
                watch_line("ADDED", observed(manifest("raycluster-sample.yaml"), "u-rc", "5")));
    REQUIRE(invoke({"import", dir.file("rc.json"), "--format", "kubectl-watch", "--db", db}).code == 0);
    Result result = invoke({"conform", db});
    CHECK(result.code == 2);
    CHECK(contains(result.err, "rjsim conform: "));
    CHECK(contains(result.err, "holds no RayJob"));
    CHECK(result.out.empty());
  }
}

}  // namespace conform_test
}  // namespace rjsim::trace

