// conform's search of the timings within a recording's resolution (trace/conform_timing.h): a
// RayJob whose Ray job ran about a second, recorded as kubectl prints it (whole-second
// timestamps), differs from the fault-free model at the derived timings and agrees at one the
// stamps allow; conform says which timing it took.
#include <doctest/doctest.h>

#include <regex>
#include <string>

#include <fmt/format.h>

#include "engine/scenario_loader.h"
#include "recorded_watches.h"
#include "trace/conform.h"
#include "trace/conform_timing.h"

namespace rjsim::trace {
namespace conform_timing_test {
namespace {

using namespace testing;

// A kuberay-1.7 RayJob whose Ray job is PENDING for `pending` and RUNNING for `runs` (ms), its
// cluster ready after `ready`; the submitter starts 2 s after its Job.
engine::Scenario short_job(std::int64_t ready, std::int64_t pending, std::int64_t runs) {
  return engine::parse_scenario(fmt::format(R"(apiVersion: rjsim/v1
kind: Scenario
name: short-ray-job
controller: kuberay-1.7
rayjob:
  apiVersion: ray.io/v1
  kind: RayJob
  metadata: {{name: rayjob-sample, namespace: default}}
  spec:
    entrypoint: python /home/ray/samples/sample_code.py
    shutdownAfterJobFinishes: true
    rayClusterSpec:
      rayVersion: "2.46.0"
      headGroupSpec:
        template: {{spec: {{containers: [{{name: ray-head, image: "rayproject/ray:2.46.0"}}]}}}}
world:
  rayCluster: {{readyAfter: {}ms}}
  submitter: {{startAfter: 2s}}
  ray: {{pendingFor: {}ms, runsFor: {}ms, result: SUCCEEDED}}
)",
                                            ready, pending, runs),
                                "short-ray-job.yaml", ".");
}

// The recording as kubectl prints it: Kubernetes keeps whole seconds (metav1.Time).
std::string whole_seconds(const std::string& watch) {
  static const std::regex fraction(R"((\d\d:\d\d:\d\d)\.\d+Z)");
  return std::regex_replace(watch, fraction, "$1Z");
}

std::vector<events::Event> recorded_in_whole_seconds(const RecordedScenario& recorded) {
  return trace_of({{"rayjobs.json", whole_seconds(recorded.watches.kubectl_watch(engine::Kind::RayJob))},
                   {"rayclusters.json", whole_seconds(recorded.watches.kubectl_watch(engine::Kind::RayCluster))},
                   {"jobs.json", whole_seconds(recorded.watches.kubectl_watch(engine::Kind::Job))}});
}

bool shows(const std::vector<explore::Transition>& transitions, const std::string& job_status) {
  return std::any_of(transitions.begin(), transitions.end(),
                     [&](const explore::Transition& t) { return t.job_status == job_status; });
}

}  // namespace

TEST_CASE("conform: a Ray job that ran a second, missed by every poll, agrees at a timing the stamps allow") {
  // The cluster ready at 20.1 s, the Ray job PENDING 1.7 s and RUNNING 1 s: no poll of the RayJob
  // controller lands while it runs. From the whole-second stamps conform derives a PENDING of 1 s,
  // under which a poll does land in RUNNING: the fault-free model differs by one transition.
  const RecordedScenario recorded = record(short_job(20'100, 1'700, 1'000));
  const std::vector<explore::Transition> truth = rayjob_transitions(recorded.run, "rayjob-sample");
  REQUIRE_FALSE(shows(truth, "RUNNING"));
  REQUIRE(shows(truth, "SUCCEEDED"));

  const ConformReport report = conform_trace(recorded_in_whole_seconds(recorded), "");
  CHECK(report.model.controller == "kuberay-1.7");
  CHECK(report.alignment.differs == 0);
  CHECK_FALSE(report.timing.empty());
  const bool named = std::any_of(report.derived.assumptions.begin(), report.derived.assumptions.end(),
                                 [](const std::string& line) { return line.starts_with("timing: "); });
  CHECK(named);
  CHECK(report.timing == "ray.pendingFor 1s taken as 1.25s");
  CHECK(report.derived.scenario.text.find("1250ms") != std::string::npos);   // stored as it ran
}

TEST_CASE("conform: a recording the derived timings already agree with takes no other timing") {
  const RecordedScenario recorded = record(short_job(20'000, 100, 700));
  const ConformReport report = conform_trace(recorded_in_whole_seconds(recorded), "");
  CHECK(report.alignment.differs == 0);
  CHECK(report.timing.empty());
}

}  // namespace conform_timing_test
}  // namespace rjsim::trace

