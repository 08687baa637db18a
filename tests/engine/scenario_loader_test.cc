// The scenario format of DESIGN §4 as the loader reads it: every default, every key, durations,
// RayJob and RayCluster manifests inline and from files (the project's KubeRay-shaped fixtures,
// and KubeRay's real samples when they are beside the repository), several RayJobs, and bad
// input: each kind of error is one line naming the file, the line and the field.
#include "engine/scenario_loader.h"
#include "engine/yaml_scalar.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model_names.h"

#include "kuberay_manifests.h"

namespace scenario_loader_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using rjsim::engine::Action;
using rjsim::engine::canonical_model_name;
using rjsim::engine::load_scenario;
using rjsim::engine::parse_duration;
using rjsim::engine::parse_scenario;
using rjsim::engine::RayClusterReadiness;
using rjsim::engine::RayJob;
using rjsim::engine::Scenario;
using rjsim::engine::ScenarioError;
using rjsim::testing::kuberay_samples;
using rjsim::testing::ManifestSet;
using rjsim::testing::own_manifests;
using rjsim::testing::skip_without_kuberay_samples;

constexpr std::string_view kHeader = R"(apiVersion: rjsim/v1
kind: Scenario
name: demo
)";

constexpr std::string_view kRayJob = R"(rayjob:
  apiVersion: ray.io/v1
  kind: RayJob
  metadata: {name: demo}
  spec: {entrypoint: python main.py, shutdownAfterJobFinishes: true}
)";

Scenario parse(std::string_view text) { return parse_scenario(text, "scenarios/x.yaml", "scenarios"); }

// The scenario header and one RayJob, then `rest`.
Scenario parse_with_rayjob(std::string_view rest) {
  return parse(std::string(kHeader) + std::string(kRayJob) + std::string(rest));
}

// what() of the ScenarioError that parsing throws, or "" if it parses.
std::string error_of(std::string_view text, const std::string& base_dir = "scenarios") {
  try {
    (void)parse_scenario(text, "scenarios/x.yaml", base_dir);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::string error_with_rayjob(std::string_view rest) {
  return error_of(std::string(kHeader) + std::string(kRayJob) + std::string(rest));
}

// A directory under the system temp directory, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "rjsim-scenario-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  std::string write(const std::string& relative, std::string_view text) const {
    const fs::path file = path_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file.string();
  }

 private:
  fs::path path_;
};

// A scenario in `dir` whose only RayJob is the file at `manifest` (an absolute path).
// Under kuberay-1.7: KubeRay's samples (and our fixtures like them) are written for its latest CRD;
// an InteractiveMode RayJob has no entrypoint, which v1.1.0's CRD requires.
Scenario load_with_rayjob_file(const TempDir& dir, const fs::path& manifest) {
  const std::string file =
      dir.write("s.yaml", std::string(kHeader) + "controller: kuberay-1.7\nrayjobFile: " + manifest.string() + "\n");
  return load_scenario(file);
}

}  // namespace

TEST_CASE("a minimal scenario gets every default of DESIGN §4") {
  const Scenario s = parse(std::string(kHeader) + std::string(kRayJob));
  CHECK(s.file == "scenarios/x.yaml");
  CHECK(s.text == std::string(kHeader) + std::string(kRayJob));
  CHECK(s.name == "demo");
  CHECK(s.description.empty());
  CHECK(s.controller == "kuberay-1.1");
  CHECK(s.seed == 1);
  REQUIRE(s.rayjobs.size() == 1);
  CHECK(s.rayjobs[0].metadata.namespace_ == "default");
  CHECK(s.rayclusters.empty());
  CHECK(s.world.ray_cluster.ready_after_ms == 20'000);
  CHECK(s.world.ray_cluster.deletion_takes_ms == 0);
  CHECK(s.world.submitter.start_after_ms == 2'000);
  CHECK(s.world.submitter.fail_attempts == 0);
  CHECK(s.world.submitter.fail_after_ms == 0);
  CHECK_FALSE(s.world.submitter.finishes_after_ms.has_value());
  CHECK(s.world.ray.pending_for_ms == 2'000);
  CHECK(s.world.ray.runs_for_ms == 30'000);
  CHECK(s.world.ray.results == std::vector<std::string>{"SUCCEEDED"});
  CHECK(s.world.dashboard.latency_ms == 5);
  CHECK(s.world.dashboard.timeout_ms == std::nullopt);   // the release's HTTP client timeout
  CHECK(s.world.dashboard.outages.empty());
  CHECK(s.world.operator_settings.env.empty());
  CHECK(s.world.operator_settings.feature_gates.empty());
  CHECK(s.actions.empty());
  CHECK_FALSE(s.has_faults);
  CHECK(s.faults.max_lag == 0);
  CHECK_FALSE(s.faults.squash);
  CHECK(s.faults.conflicts == 0);
  CHECK(s.faults.write_failures == 0);
  CHECK(s.faults.http_errors == 0);
  CHECK(s.faults.restarts == 0);
  CHECK(s.faults.max_rewind == 0);
  CHECK(s.limits.steps == 100'000);
  CHECK(s.limits.time_ms == 3'600'000);
  CHECK(s.limits.eventually_ms == 600'000);
  CHECK(s.invariants.all);
  CHECK(s.invariants.except.empty());
  CHECK(s.invariants.includes("single-submission"));
  CHECK_FALSE(s.expect.outcome.has_value());
  CHECK_FALSE(s.expect.violations.has_value());
  CHECK(s.expect.transitions.empty());
  CHECK(s.expect.final.empty());
}

TEST_CASE("every key of DESIGN §4 is read") {
  const Scenario s = parse(R"(apiVersion: rjsim/v1
kind: Scenario
name: suspend-while-initializing
description: one or two sentences
controller: kuberay-latest
seed: 42
rayjob:
  apiVersion: ray.io/v1
  kind: RayJob
  metadata: {name: demo, namespace: team-a, labels: {app: x}}
  spec:
    entrypoint: python main.py
    shutdownAfterJobFinishes: true
    ttlSecondsAfterFinished: 10
    backoffLimit: 2
    rayClusterSpec:
      rayVersion: "2.52.0"
      headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: ray-head, image: "rayproject/ray:2.52.0"}]}}}
      workerGroupSpecs: [{groupName: small-group, replicas: 1, minReplicas: 1, maxReplicas: 5, template: {}}]
rayclusters:
  - apiVersion: ray.io/v1
    kind: RayCluster
    metadata: {name: existing}
    spec: {rayVersion: "2.9.0", headGroupSpec: {template: {}}}
world:
  rayCluster: {readyAfter: 30s, deletionTakes: 5s}
  submitter: {startAfter: 3s, failAttempts: 2, failAfter: 1s, finishesAfter: 1m}
  ray: {pendingFor: 1s, runsFor: 1m30s, results: [FAILED, SUCCEEDED]}
  dashboard:
    latency: 10ms
    timeout: 3s
    outages: [{from: 10s, for: 400s}, {from: 1h, for: 1s}]
  operator:
    env: {RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS: "300", PLAIN: 42}
    featureGates: {SidecarSubmitterRestart: false, RayJobDeletionPolicy: true}
actions:
  - {at: 9s, patch: {spec: {suspend: false}}}
  - {at: 5s, patch: {spec: {suspend: true}}}
  - {at: 60s, delete: {}}
  - {at: 40s, headRestart: {}}
  - {at: 5s, headRestart: {}}
faults:
  staleReads: {maxLag: 3}
  squash: true
  conflicts: {max: 2}
  writeFailures: {max: 1}
  httpErrors: {max: 4}
  restarts: {max: 1}
  timeTravel: true
limits: {steps: 20000, time: 2h, eventually: 10m}
invariants: {all: true, except: [no-stuck-state]}
expect:
  outcome: violation
  violations: [single-submission]
  transitions: ["", Initializing, Running, Complete]
  final: {jobDeploymentStatus: Complete, jobStatus: SUCCEEDED, reason: "", rayJobs: 1, rayClusters: 0,
          submitterJobs: 1, jobId: set, rayClusterName: empty, succeeded: 1, failed: 0, workerGroupsSuspended: 0}
)");
  CHECK(s.name == "suspend-while-initializing");
  CHECK(s.description == "one or two sentences");
  CHECK(s.controller == "kuberay-1.7");
  CHECK(s.seed == 42);
  REQUIRE(s.rayjobs.size() == 1);
  const RayJob& rayjob = s.rayjobs[0];
  CHECK(rayjob.metadata.name == "demo");
  CHECK(rayjob.metadata.namespace_ == "team-a");
  CHECK(rayjob.metadata.labels->at("app") == "x");
  CHECK(rayjob.spec->entrypoint == "python main.py");
  CHECK(rayjob.spec->shutdown_after_job_finishes);
  CHECK(rayjob.spec->ttl_seconds_after_finished == 10);
  CHECK(rayjob.spec->backoff_limit == 2);
  REQUIRE(rayjob.spec->ray_cluster_spec.has_value());
  CHECK(rayjob.spec->ray_cluster_spec->ray_version == "2.52.0");
  CHECK(rayjob.spec->ray_cluster_spec->head_group_spec.template_.containers.at(0).image == "rayproject/ray:2.52.0");
  CHECK(rayjob.spec->ray_cluster_spec->worker_group_specs.at(0).max_replicas == 5);
  REQUIRE(s.rayclusters.size() == 1);
  CHECK(s.rayclusters[0].metadata.name == "existing");
  CHECK(s.rayclusters[0].metadata.namespace_ == "default");
  CHECK(s.rayclusters[0].spec->ray_version == "2.9.0");

  CHECK(s.world.ray_cluster.ready_after_ms == 30'000);
  CHECK(s.world.ray_cluster.deletion_takes_ms == 5'000);
  CHECK(s.world.submitter.start_after_ms == 3'000);
  CHECK(s.world.submitter.fail_attempts == 2);
  CHECK(s.world.submitter.fail_after_ms == 1'000);
  CHECK(s.world.submitter.finishes_after_ms == 60'000);
  CHECK(s.world.ray.pending_for_ms == 1'000);
  CHECK(s.world.ray.runs_for_ms == 90'000);
  CHECK(s.world.ray.results == std::vector<std::string>{"FAILED", "SUCCEEDED"});
  CHECK(s.world.dashboard.latency_ms == 10);
  CHECK(s.world.dashboard.timeout_ms == 3'000);
  CHECK(s.world.dashboard.outages ==
        std::vector<rjsim::engine::Outage>{{10'000, 400'000}, {3'600'000, 1'000}});
  CHECK(s.world.operator_settings.env ==
        std::map<std::string, std::string>{{"PLAIN", "42"}, {"RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS", "300"}});
  CHECK(s.world.operator_settings.feature_gates ==
        std::map<std::string, bool>{{"RayJobDeletionPolicy", true}, {"SidecarSubmitterRestart", false}});

  // Sorted by time; equal times keep file order.
  REQUIRE(s.actions.size() == 5);
  CHECK(s.actions[0].at_ms == 5'000);
  CHECK(s.actions[0].type == Action::Type::patch);
  CHECK(s.actions[0].patch == json::parse(R"({"spec": {"suspend": true}})"));
  CHECK(s.actions[0].line == 38);
  CHECK(s.actions[1].at_ms == 5'000);
  CHECK(s.actions[1].type == Action::Type::head_restart);
  CHECK(s.actions[2].at_ms == 9'000);
  CHECK(s.actions[2].patch == json::parse(R"({"spec": {"suspend": false}})"));
  CHECK(s.actions[3].type == Action::Type::head_restart);
  CHECK(s.actions[3].at_ms == 40'000);
  CHECK(s.actions[4].type == Action::Type::delete_);
  CHECK(s.actions[4].at_ms == 60'000);
  for (const Action& action : s.actions) CHECK(action.rayjob == "demo");

  CHECK(s.has_faults);
  CHECK(s.faults.max_lag == 3);
  CHECK(s.faults.squash);
  CHECK(s.faults.conflicts == 2);
  CHECK(s.faults.write_failures == 1);
  CHECK(s.faults.http_errors == 4);
  CHECK(s.faults.restarts == 1);
  CHECK(s.faults.max_rewind == rjsim::engine::kDefaultMaxRewind);   // timeTravel: true
  CHECK(s.limits.steps == 20'000);
  CHECK(s.limits.time_ms == 7'200'000);
  CHECK(s.limits.eventually_ms == 600'000);
  CHECK(s.invariants.all);
  CHECK(s.invariants.except == std::vector<std::string>{"no-stuck-state"});
  CHECK_FALSE(s.invariants.includes("no-stuck-state"));
  CHECK(s.invariants.includes("single-cluster"));

  CHECK(s.expect.outcome == "violation");
  CHECK(s.expect.violations == std::vector<std::string>{"single-submission"});
  CHECK(s.expect.transitions.at("demo") == std::vector<std::string>{"", "Initializing", "Running", "Complete"});
  const auto& final_state = s.expect.final.at("demo");
  CHECK(final_state.job_deployment_status == "Complete");
  CHECK(final_state.job_status == "SUCCEEDED");
  CHECK(final_state.reason == "");
  CHECK(final_state.ray_jobs == 1);
  CHECK(final_state.ray_clusters == 0);
  CHECK(final_state.submitter_jobs == 1);
  CHECK(final_state.job_id == "set");
  CHECK(final_state.ray_cluster_name == "empty");
  CHECK(final_state.succeeded == 1);
  CHECK(final_state.failed == 0);
  CHECK(final_state.worker_groups_suspended == 0);
}

TEST_CASE("ray.result gives one result; results lists one per submission") {
  CHECK(parse_with_rayjob("world: {ray: {result: STOPPED}}\n").world.ray.results == std::vector<std::string>{"STOPPED"});
  CHECK(error_with_rayjob("world: {ray: {result: DONE}}\n") ==
        "scenarios/x.yaml:9: world.ray.result: \"DONE\" is not one of: SUCCEEDED, FAILED, STOPPED");
  CHECK(error_with_rayjob("world: {ray: {results: []}}\n").find("world.ray.results: is empty") != std::string::npos);
  CHECK(parse_with_rayjob("world: {submitter: {finishesAfter: null}}\n").world.submitter.finishes_after_ms == std::nullopt);
}

TEST_CASE("invariants: all, a list of names, or all except some") {
  CHECK(parse_with_rayjob("invariants: all\n").invariants.all);
  const auto listed = parse_with_rayjob("invariants: [single-cluster, suspend-atomic]\n").invariants;
  CHECK_FALSE(listed.all);
  CHECK(listed.includes("suspend-atomic"));
  CHECK_FALSE(listed.includes("single-submission"));
  CHECK_FALSE(parse_with_rayjob("invariants: []\n").invariants.includes("single-cluster"));
  CHECK_FALSE(parse_with_rayjob("invariants: {except: [no-model-panic]}\n").invariants.includes("no-model-panic"));
  // Every name of DESIGN §5 is known.
  CHECK(parse_with_rayjob(
            "invariants: [single-submission, single-cluster, no-leaked-cluster, terminal-is-terminal, "
            "legal-transition, suspend-atomic, suspended-is-clean, status-mirrors-ray, eventually-terminal, "
            "no-stuck-state, no-rerun-after-terminal, jobstatus-monotone, retry-is-clean, "
            "validation-recoverable, no-model-panic]\n")
            .invariants.names.size() == 15);
  const std::string unknown = error_with_rayjob("invariants: [single-cluster, single-submision]\n");
  CHECK(unknown.rfind("scenarios/x.yaml:9: invariants[1]: \"single-submision\" is not an invariant (expected one of: "
                      "single-submission, ",
                      0) == 0);
  CHECK(unknown.find("did you mean \"single-submission\"?") != std::string::npos);
  CHECK(error_with_rayjob("invariants: some\n").find("expected all, a list of names, or {all: true, except: [...]}") !=
        std::string::npos);
  CHECK(error_with_rayjob("invariants: {all: false, except: [no-model-panic]}\n").find("goes with all: true") !=
        std::string::npos);
}

TEST_CASE("durations are numbers with units; a bare number is not a duration") {
  struct Good {
    const char* text;
    std::int64_t ms;
  };
  for (const Good good : {Good{"500ms", 500}, Good{"3s", 3'000}, Good{"2m", 120'000}, Good{"1h", 3'600'000},
                          Good{"1m30s", 90'000}, Good{"1h2m3s4ms", 3'723'004}, Good{"0s", 0}, Good{"1.5s", 1'500},
                          Good{"0.25m", 15'000}, Good{"400s", 400'000}}) {
    CAPTURE(good.text);
    std::int64_t ms = -1;
    CHECK(parse_duration(good.text, ms));
    CHECK(ms == good.ms);
  }
  for (const char* bad : {"", "20", "0", "s", "5 s", "-5s", "5sec", "5d", "1.5ms", "3s ", "1..5s", ".s",
                          "99999999999999999999h"}) {
    CAPTURE(bad);
    std::int64_t ms = -1;
    CHECK_FALSE(parse_duration(bad, ms));
  }
  CHECK(error_with_rayjob("world:\n  rayCluster:\n    readyAfter: \"20\"\n") ==
        "scenarios/x.yaml:11: world.rayCluster.readyAfter: \"20\" is not a duration (use 20s, 500ms, 2m)");
  CHECK(error_with_rayjob("limits: {time: 20}\n") ==
        "scenarios/x.yaml:9: limits.time: \"20\" is not a duration (use 20s, 500ms, 2m)");
  CHECK(error_with_rayjob("actions: [{at: [5s], delete: {}}]\n") ==
        "scenarios/x.yaml:9: actions[0].at: a list is not a duration (use 20s, 500ms, 2m)");
}

TEST_CASE("the Pod timeline of world.rayCluster is ordered: head Running, head Ready, every Pod Ready") {
  const Scenario staged =
      parse_with_rayjob("world:\n  rayCluster: {readyAfter: 20s, headReadyAfter: 10s, runningBeforeReady: 4s}\n");
  CHECK(staged.world.ray_cluster.ready_after_ms == 20'000);
  CHECK(staged.world.ray_cluster.head_ready_ms() == 10'000);
  CHECK(staged.world.ray_cluster.running_before_ready_ms == 4'000);
  const Scenario plain = parse_with_rayjob("world:\n  rayCluster: {readyAfter: 20s}\n");
  CHECK(plain.world.ray_cluster.head_ready_ms() == 20'000);
  CHECK(plain.world.ray_cluster.running_before_ready_ms == 0);
  CHECK(error_with_rayjob("world:\n  rayCluster: {readyAfter: 20s, headReadyAfter: 30s}\n") ==
        "scenarios/x.yaml:10: world.rayCluster.headReadyAfter: is later than readyAfter (the head Pod is Ready no "
        "later than every Pod)");
  CHECK(error_with_rayjob("world:\n  rayCluster: {readyAfter: 20s, runningBeforeReady: 21s}\n")
            .find("world.rayCluster.runningBeforeReady: is longer than the time to the head Pod's readiness") !=
        std::string::npos);
}

TEST_CASE("controller names a model; kuberay-latest is kuberay-1.7") {
  CHECK(canonical_model_name("kuberay-latest") == "kuberay-1.7");
  CHECK(canonical_model_name("kuberay-1.0") == "kuberay-1.0");
  CHECK(canonical_model_name("kuberay-1.5").empty());
  CHECK(parse(std::string(kHeader) + "controller: kuberay-1.0\n" + std::string(kRayJob)).controller == "kuberay-1.0");
  CHECK(error_of(std::string(kHeader) + "controller: kuberay-1.2\n" + std::string(kRayJob)) ==
        "scenarios/x.yaml:4: controller: \"kuberay-1.2\" is not a model (expected one of: kuberay-1.0, kuberay-1.1, "
        "kuberay-1.7, kuberay-latest, kuberay-1.7+ray-before-submitter-timeout, "
        "kuberay-1.7+api-reader-confirms-deletion, kuberay-1.7+wait-for-pods-deleted; did you mean \"kuberay-1.0\"?)");
  // A fix variant of a release (docs/findings/) is a model too.
  CHECK(canonical_model_name("kuberay-1.7+ray-before-submitter-timeout") == "kuberay-1.7+ray-before-submitter-timeout");
  CHECK(canonical_model_name("kuberay-1.7+api-reader-confirms-deletion") == "kuberay-1.7+api-reader-confirms-deletion");
  CHECK(canonical_model_name("kuberay-1.7+wait-for-pods-deleted") == "kuberay-1.7+wait-for-pods-deleted");
}

TEST_CASE("a scenario that is not UTF-8 is refused at the line and column of the first bad byte") {
  // Found by the scenario fuzzer: yaml-cpp passes such bytes through, and a manifest's kind holding
  // them made nlohmann::json::dump throw out of the loader (tests/fuzz/regressions/scenario/).
  CHECK(error_of(std::string(kHeader) + "description: caf\xc3\n" + std::string(kRayJob)) ==
        "scenarios/x.yaml:4: not valid UTF-8 (byte 0xC3 at column 17): YAML is read as UTF-8");
  CHECK(error_of(std::string(kHeader) + "description: \xff\n" + std::string(kRayJob)) ==
        "scenarios/x.yaml:4: not valid UTF-8 (byte 0xFF at column 14): YAML is read as UTF-8");
  CHECK(error_of(std::string(kHeader) + "description: caf\xc3\xa9\n" + std::string(kRayJob)).empty());   // é is fine
  // NUL bytes make yaml-cpp read UTF-16 or UTF-32 (the rayjob_manifest fuzzer's find).
  CHECK(error_of(std::string(kHeader) + std::string("name: a\0b\n", 10)) ==
        "scenarios/x.yaml:4: not valid UTF-8 (byte 0x00 at column 8): YAML is read as UTF-8");
  nlohmann::json json;
  int line = 0;
  std::string error;
  CHECK_FALSE(rjsim::engine::yaml_document_to_json("a: 1\nb: \xed\xa0\x80\n", json, line, error));   // a surrogate
  CHECK(line == 2);
  CHECK(error == "not valid UTF-8 (byte 0xED at column 4): YAML is read as UTF-8");
}

TEST_CASE("YAML that yaml-cpp reads as endless empty documents is refused, not loaded forever") {
  // Found by the scenario fuzzer as a hang: YAML::LoadAll never returns on these four bytes.
  CHECK(error_of("!,t[") ==
        "scenarios/x.yaml:1: more than 16 YAML documents (a scenario file holds one; yaml-cpp reads some "
        "malformed YAML as endless empty documents)");
  CHECK(error_of(std::string(kHeader) + std::string(kRayJob) + "---\n").empty());   // a stray --- is fine
}

TEST_CASE("an alias that contains itself is refused, not followed forever") {
  // Found by the scenario fuzzer, which overflowed the stack with `&spec` ... `*spec` inside it.
  nlohmann::json json;
  int line = 0;
  std::string error;
  CHECK_FALSE(rjsim::engine::yaml_document_to_json("a: &x [1, *x]\n", json, line, error));
  CHECK(error.find("nested deeper than 100 levels (an alias that contains itself?)") != std::string::npos);
  // Aliases that repeat aliases: 16^6 values, refused after a million.
  std::string bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (char level = 'b'; level <= 'g'; ++level) {
    const std::string previous(1, static_cast<char>(level - 1));
    bomb += std::string(1, level) + ": &" + std::string(1, level) + " [";
    for (int i = 0; i < 16; ++i) bomb += (i ? ", *" : "*") + previous;
    bomb += "]\n";
  }
  CHECK_FALSE(rjsim::engine::yaml_document_to_json(bomb, json, line, error));
  CHECK(error.find("more than 1000000 values (aliases that repeat aliases?)") != std::string::npos);
}

TEST_CASE("a plain float too large for a double stays a string; one too small is 0") {
  // Found by the manifest fuzzer: std::stod threw out of range for 1e6969.
  nlohmann::json json;
  int line = 0;
  std::string error;
  REQUIRE(rjsim::engine::yaml_document_to_json("big: 1e6969\nsmall: 1e-6969\nfine: 2.5e3\n", json, line, error));
  CHECK(json["big"] == "1e6969");
  CHECK(json["small"] == 0.0);
  CHECK(json["fine"] == 2500.0);
}

TEST_CASE("the escapes \\N and \\_ are read as U+0085 and U+00A0, in UTF-8") {
  // Found by the manifest fuzzer: yaml-cpp 0.7 decodes them to the lone bytes 0x85 and 0xA0, and
  // nlohmann's dump() of a refusal quoting the value threw out of the loader.
  CHECK(rjsim::engine::latin1_bytes_as_utf8("a\x85" "b\xa0") == "a\xc2\x85" "b\xc2\xa0");
  CHECK(rjsim::engine::latin1_bytes_as_utf8("caf\xc3\xa9 \xe2\x80\xa8") == "caf\xc3\xa9 \xe2\x80\xa8");   // UTF-8 stays
  nlohmann::json json;
  int line = 0;
  std::string error;
  REQUIRE(rjsim::engine::yaml_document_to_json("\"k\\N\": \"v\\_\"\nplain: a\\Nb\n", json, line, error));
  CHECK(json.dump() == "{\"k\xc2\x85\":\"v\xc2\xa0\",\"plain\":\"a\\\\Nb\"}");   // a plain \N is two characters
  // A scenario's strings, and the refusal quoting a value of the wrong type.
  CHECK(parse(std::string(kHeader) + "description: \"x\\N\"\n" + std::string(kRayJob)).description == "x\xc2\x85");
  CHECK(error_with_rayjob("seed: \"\\N\"\n").find("got \"\xc2\x85\"") != std::string::npos);
}

TEST_CASE("a rayjobFile's other kinds are named in UTF-8 too") {
  TempDir dir;
  dir.write("job.yaml", "kind: \"Config\\NMap\"\n---\nkind: Secret\n");
  CHECK(error_of(std::string(kHeader) + "rayjobFile: job.yaml\n", dir.path().string())
            .find("no RayJob document in the file (found: Config\xc2\x85Map, Secret)") != std::string::npos);
}

TEST_CASE("a long value quoted in a refusal is cut between characters, not inside one") {
  const std::string long_value(56, 'a');   // 56 bytes, then a 2-byte é across the 57-byte cut
  const std::string refusal = error_with_rayjob("seed: \"" + long_value + "\xc3\xa9" + "bbbb\"\n");
  CHECK(refusal.find("got \"" + long_value + "...\"") != std::string::npos);
}

TEST_CASE("unknown keys are errors that name the key and its line, at every level of the scenario") {
  CHECK(error_of(std::string(kHeader) + "rayjb: {}\n" + std::string(kRayJob)) ==
        "scenarios/x.yaml:4: unknown key \"rayjb\" (expected one of: apiVersion, kind, name, description, "
        "controller, seed, rayjob, rayjobFile, rayjobs, rayclusters, world, actions, faults, limits, invariants, "
        "expect; did you mean \"rayjob\"?)");
  CHECK(error_with_rayjob("world:\n  rayCluster: {readyAftr: 3s}\n") ==
        "scenarios/x.yaml:10: world.rayCluster: unknown key \"readyAftr\" (expected one of: readyAfter, "
        "headReadyAfter, runningBeforeReady, deletionTakes; did you mean \"readyAfter\"?)");
  CHECK(error_with_rayjob("faults: {stale: {maxLag: 1}}\n").find("scenarios/x.yaml:9: faults: unknown key \"stale\"") == 0);
  CHECK(error_with_rayjob("faults: {staleReads: {lag: 1}}\n").find("faults.staleReads: unknown key \"lag\"") !=
        std::string::npos);
  CHECK(error_with_rayjob("limits: {step: 1}\n").find("limits: unknown key \"step\"") != std::string::npos);
  CHECK(error_with_rayjob("expect: {final: {rayCluster: 0}}\n")
            .find("expect.final: unknown key \"rayCluster\" (expected one of: jobDeploymentStatus") != std::string::npos);
  CHECK(error_with_rayjob("expect: {outcomes: pass}\n").find("expect: unknown key \"outcomes\"") != std::string::npos);
  CHECK(error_with_rayjob("actions: [{at: 1s, delete: {}, when: now}]\n").find("actions[0]: unknown key \"when\"") !=
        std::string::npos);
  CHECK(error_with_rayjob("world: {dashboard: {outages: [{from: 1s, until: 2s}]}}\n")
            .find("world.dashboard.outages[0]: unknown key \"until\"") != std::string::npos);
  CHECK(error_with_rayjob("seed: 1\nseed: 2\n") == "scenarios/x.yaml:10: seed: duplicate key (first given on line 9)");
}

TEST_CASE("faults.timeTravel: true is {maxRewind: 3}; {maxRewind: N} sets how far back a relist may go") {
  CHECK(parse_with_rayjob("faults: {timeTravel: {maxRewind: 5}}\n").faults.max_rewind == 5);
  CHECK(parse_with_rayjob("faults: {timeTravel: false}\n").faults.max_rewind == 0);
  CHECK(error_with_rayjob("faults: {timeTravel: {rewind: 5}}\n").find("faults.timeTravel: unknown key \"rewind\"") !=
        std::string::npos);
  CHECK(error_with_rayjob("faults: {timeTravel: sometimes}\n").find("faults.timeTravel: ") != std::string::npos);
}

TEST_CASE("world.latency: a {min, max} range or one duration per reaction; defaults react at once") {
  const Scenario defaults = parse_with_rayjob("");
  CHECK(defaults.world.latency.garbage_collector == rjsim::engine::Latency{0, 2'000});
  CHECK(defaults.world.latency.job_controller == rjsim::engine::Latency{0, 1'000});
  CHECK(defaults.world.latency.ray_cluster_controller == rjsim::engine::Latency{0, 1'000});
  CHECK(defaults.world.latency.kubelet == rjsim::engine::Latency{0, 2'000});
  CHECK_FALSE(defaults.world.latency.operator_restart.has_value());
  CHECK(rjsim::engine::operator_restart_latency(defaults.world.latency, 15'000) ==
        rjsim::engine::Latency{15'000, 60'000});
  CHECK_FALSE(defaults.faults.latency);

  const Scenario s = parse_with_rayjob(
      "world:\n  latency:\n    garbageCollector: {min: 1s, max: 5s}\n    jobController: 500ms\n"
      "    kubelet: {min: 0s, max: 4s}\n    operatorRestart: {min: 30s, max: 90s}\nfaults: {latency: true}\n");
  CHECK(s.world.latency.kubelet == rjsim::engine::Latency{0, 4'000});
  CHECK(s.world.latency.garbage_collector == rjsim::engine::Latency{1'000, 5'000});
  CHECK(s.world.latency.job_controller == rjsim::engine::Latency{500, 500});
  CHECK(rjsim::engine::operator_restart_latency(s.world.latency, 15'000) == rjsim::engine::Latency{30'000, 90'000});
  CHECK(s.faults.latency);

  CHECK(error_with_rayjob("world: {latency: {garbageCollector: {min: 3s, max: 1s}}}\n") ==
        "scenarios/x.yaml:9: world.latency.garbageCollector.max: is shorter than min");
  CHECK(error_with_rayjob("world: {latency: {jobController: {min: 1s}}}\n")
            .find("world.latency.jobController.max: missing") != std::string::npos);
  CHECK(error_with_rayjob("world: {latency: {gc: 1s}}\n").find("world.latency: unknown key \"gc\"") !=
        std::string::npos);
  CHECK(error_with_rayjob("world: {latency: {garbageCollector: soon}}\n")
            .find("world.latency.garbageCollector: ") != std::string::npos);
}

TEST_CASE("world.latency.watch: how long a held delivery may wait, 5 s by default, min always 0") {
  const Scenario defaults = parse_with_rayjob("faults: {squash: true}\n");
  CHECK(defaults.world.latency.watch == rjsim::engine::Latency{0, 5'000});
  CHECK(defaults.faults.watch_latency_max_ms == 5'000);   // what the simulation bounds holding with
  const Scenario s = parse_with_rayjob("world: {latency: {watch: {min: 0s, max: 30s}}}\nfaults: {squash: true}\n");
  CHECK(s.faults.watch_latency_max_ms == 30'000);
  CHECK(parse_with_rayjob("world: {latency: {watch: 1s}}\n").faults.watch_latency_max_ms == 1'000);
  CHECK(error_with_rayjob("world: {latency: {watch: {min: 1s, max: 5s}}}\n")
            .find("world.latency.watch: min must be 0s") != std::string::npos);
}

TEST_CASE("world.pods.terminationGracePeriod: Kubernetes' 30 s by default, whole seconds") {
  CHECK(parse_with_rayjob("").world.pods.termination_grace_period_ms == 30'000);
  CHECK(parse_with_rayjob("world: {pods: {terminationGracePeriod: 5s}}\n").world.pods.termination_grace_period_ms ==
        5'000);
  CHECK(parse_with_rayjob("world: {pods: {terminationGracePeriod: 0s}}\n").world.pods.termination_grace_period_ms == 0);
  CHECK(error_with_rayjob("world: {pods: {terminationGracePeriod: 1500ms}}\n") ==
        "scenarios/x.yaml:9: world.pods.terminationGracePeriod: is not a whole number of seconds (a Pod's grace "
        "period is in seconds)");
  CHECK(error_with_rayjob("world: {pods: {grace: 1s}}\n").find("world.pods: unknown key \"grace\"") !=
        std::string::npos);
}

TEST_CASE("faults.interleaveCalls and restarts.midReconcile are read, and default to off") {
  const Scenario defaults = parse_with_rayjob("faults: {restarts: {max: 2}}\n");
  CHECK(defaults.faults.restarts == 2);
  CHECK_FALSE(defaults.faults.mid_reconcile);
  CHECK_FALSE(defaults.faults.interleave_calls);
  const Scenario s = parse_with_rayjob("faults: {restarts: {max: 1, midReconcile: true}, interleaveCalls: true}\n");
  CHECK(s.faults.mid_reconcile);
  CHECK(s.faults.interleave_calls);
  CHECK(error_with_rayjob("faults: {restarts: {max: 1, midreconcile: true}}\n")
            .find("faults.restarts: unknown key \"midreconcile\"") != std::string::npos);
  CHECK(error_with_rayjob("faults: {restarts: {midReconcile: true}}\n").find("faults.restarts.max: missing") !=
        std::string::npos);
  CHECK(error_with_rayjob("faults: {interleaveCalls: sometimes}\n").find("faults.interleaveCalls: ") !=
        std::string::npos);
}

TEST_CASE("inside a manifest, what rjsim does not model is ignored, but a spec field the release's CRD lacks is "
          "refused") {
  const std::string manifest = std::string(kHeader) + R"(rayjob:
  apiVersion: ray.io/v1
  kind: RayJob
  metadata: {name: demo, generateName: x-}
  spec:
    entrypoint: python main.py
    rayClusterSpec: {headGroupSpec: {rayStartParams: {}, template: {spec: {volumes: [{name: v}]}}}}
)";
  CHECK(parse(manifest).rayjobs.at(0).spec->entrypoint == "python main.py");
  CHECK(error_of(manifest + "    someFutureField: {a: 1}\n") ==
        "scenarios/x.yaml:11: rayjob.spec.someFutureField: unknown field: KubeRay v1.1.0's RayJob CRD has no "
        "someFutureField (kubectl's strict field validation refuses it; no KubeRay release has it)");
  CHECK(error_of(manifest + "    preRunningDeadlineSeconds: 30\n") ==
        "scenarios/x.yaml:11: rayjob.spec.preRunningDeadlineSeconds: unknown field: KubeRay v1.1.0's RayJob CRD has "
        "no preRunningDeadlineSeconds (kubectl's strict field validation refuses it; v1.7.0 has it)");
  CHECK(error_of(manifest + "    preRunningDeadlineSeconds: 0\ncontroller: kuberay-1.7\n") ==
        "scenarios/x.yaml:11: rayjob.spec.preRunningDeadlineSeconds: 0 is less than 1, the minimum in KubeRay "
        "v1.7.0's RayJob CRD");
}

TEST_CASE("the loader applies the defaults of the model's release's CRD") {
  const std::string rayjob = R"(rayjob:
  apiVersion: ray.io/v1
  kind: RayJob
  metadata: {name: demo}
  spec:
    entrypoint: python main.py
    rayClusterSpec:
      headGroupSpec: {rayStartParams: {}, template: {}}
      workerGroupSpecs: [{groupName: small, rayStartParams: {}, template: {}}]
)";
  const Scenario v10 = parse(std::string(kHeader) + "controller: kuberay-1.0\n" + rayjob);
  CHECK(v10.rayjobs.at(0).spec->submission_mode.empty());
  CHECK_FALSE(v10.rayjobs.at(0).spec->ttl_seconds_after_finished.has_value());
  const Scenario v17 = parse(std::string(kHeader) + "controller: kuberay-1.7\n" + rayjob);
  CHECK(v17.rayjobs.at(0).spec->submission_mode == "K8sJobMode");
  CHECK(v17.rayjobs.at(0).spec->ttl_seconds_after_finished == 0);
  const auto& group = v17.rayjobs.at(0).spec->ray_cluster_spec->worker_group_specs.at(0);
  CHECK(group.replicas == 0);
  CHECK(group.min_replicas == 0);
  CHECK(group.max_replicas == 2147483647);
}

TEST_CASE("wrong types are errors naming what was expected") {
  CHECK(error_with_rayjob("seed: abc\n") == "scenarios/x.yaml:9: seed: expected a non-negative integer, got \"abc\"");
  CHECK(error_with_rayjob("seed: -1\n") == "scenarios/x.yaml:9: seed: -1 is out of range (expected 0 or more)");
  CHECK(error_with_rayjob("faults: {squash: yes}\n") ==
        "scenarios/x.yaml:9: faults.squash: expected true or false, got \"yes\"");
  CHECK(error_with_rayjob("faults: {conflicts: 2}\n") ==
        "scenarios/x.yaml:9: faults.conflicts: expected a map such as {max: 2}, got \"2\"");
  CHECK(error_with_rayjob("world: [a]\n") == "scenarios/x.yaml:9: world: expected a map, got a list");
  CHECK(error_with_rayjob("limits: {steps: 0}\n") == "scenarios/x.yaml:9: limits.steps: 0 is out of range (expected 1 or more)");
  CHECK(error_with_rayjob("world: {submitter: {failAttempts: two}}\n") ==
        "scenarios/x.yaml:9: world.submitter.failAttempts: expected a non-negative integer, got \"two\"");
  CHECK(error_with_rayjob("world: {operator: {featureGates: {X: on}}}\n") ==
        "scenarios/x.yaml:9: world.operator.featureGates.X: expected true or false, got \"on\"");
  CHECK(error_with_rayjob("expect: {transitions: [\"\", Runing]}\n")
            .find("expect.transitions[1]: \"Runing\" is not one of: \"\", Initializing, Running") != std::string::npos);
  CHECK(error_with_rayjob("expect: {final: {jobId: yes}}\n") ==
        "scenarios/x.yaml:9: expect.final.jobId: \"yes\" is not one of: set, empty");
  CHECK(error_with_rayjob("expect: {outcome: passed}\n") ==
        "scenarios/x.yaml:9: expect.outcome: \"passed\" is not one of: pass, violation; did you mean \"pass\"?");
}

TEST_CASE("the scenario's apiVersion, kind and name are checked first") {
  CHECK(error_of("kind: Scenario\nname: x\n") ==
        "scenarios/x.yaml:1: apiVersion: missing (a scenario starts: apiVersion: rjsim/v1, kind: Scenario)");
  CHECK(error_of("apiVersion: rjsim/v2\nkind: Scenario\n") ==
        "scenarios/x.yaml:1: apiVersion: \"rjsim/v2\" is not a scenario apiVersion (expected rjsim/v1)");
  // A RayJob manifest passed where a scenario belongs.
  CHECK(error_of("apiVersion: rjsim/v1\nkind: RayJob\nmetadata: {}\n") ==
        "scenarios/x.yaml:2: kind: \"RayJob\" is not a scenario (expected kind: Scenario)");
  CHECK(error_of("apiVersion: rjsim/v1\nkind: Scenario\n" + std::string(kRayJob)) ==
        "scenarios/x.yaml:1: name: missing (a scenario needs a name matching [a-z0-9-]+)");
  CHECK(error_of("apiVersion: rjsim/v1\nkind: Scenario\nname: Suspend_Test\n" + std::string(kRayJob)) ==
        "scenarios/x.yaml:3: name: \"Suspend_Test\" must match [a-z0-9-]+ (lowercase letters, digits and dashes)");
  CHECK(error_of("") == "scenarios/x.yaml:1: the file is empty (a scenario starts: apiVersion: rjsim/v1, kind: "
                        "Scenario, name: ...)");
  CHECK(error_of("- a\n- b\n").find("scenarios/x.yaml:1: expected a scenario") == 0);
  CHECK(error_of(std::string(kHeader)) ==
        "scenarios/x.yaml:1: no RayJob: give rayjob: (a manifest), rayjobFile: (a path) or rayjobs: (a list)");
  CHECK(error_of(std::string(kHeader) + std::string(kRayJob) + "rayjobFile: x.yaml\n") ==
        "scenarios/x.yaml:9: rayjobFile: give one of rayjob, rayjobFile or rayjobs (this file also gives rayjob)");
}

TEST_CASE("YAML that does not parse is reported at its line") {
  const std::string error = error_of(std::string(kHeader) + "world: {rayCluster: [1, 2}\nseed: 1\n");
  CHECK(error.rfind("scenarios/x.yaml:", 0) == 0);
  CHECK(error.find("YAML does not parse") != std::string::npos);
  CHECK(error_of(std::string(kHeader) + "  bad: indentation\n").rfind("scenarios/x.yaml:4: YAML does not parse", 0) == 0);
}

TEST_CASE("a missing scenario file is one clear line") {
  CHECK_THROWS_WITH_AS(load_scenario("/nonexistent/rjsim/x.yaml"),
                       "/nonexistent/rjsim/x.yaml: cannot read the scenario file: No such file or directory",
                       ScenarioError);
}

TEST_CASE("RayJobs KubeRay would reject are errors at the offending line") {
  const std::string header(kHeader);
  CHECK(error_of(header + "rayjob:\n  apiVersion: ray.io/v1alpha1\n  kind: RayJob\n  metadata: {name: x}\n"
                          "  spec: {entrypoint: a}\n") ==
        "scenarios/x.yaml:5: rayjob.apiVersion: \"ray.io/v1alpha1\" is not supported: expected ray.io/v1 (rjsim "
        "models the ray.io/v1 RayJob API of KubeRay 1.0 and later)");
  CHECK(error_of(header + "rayjob:\n  kind: RayJob\n  metadata: {name: x}\n  spec: {entrypoint: a}\n") ==
        "scenarios/x.yaml:4: rayjob.apiVersion: missing (a RayJob has apiVersion: ray.io/v1)");
  CHECK(error_of(header + "rayjob:\n  apiVersion: ray.io/v1\n  kind: RayCluster\n  metadata: {name: x}\n") ==
        "scenarios/x.yaml:6: rayjob.kind: \"RayCluster\" is not a RayJob (expected kind: RayJob)");
  CHECK(error_of(header + "rayjob:\n  apiVersion: ray.io/v1\n  kind: RayJob\n  metadata: {namespace: x}\n"
                          "  spec: {entrypoint: a}\n") ==
        "scenarios/x.yaml:7: rayjob.metadata.name: missing (Kubernetes requires every RayJob to have a name)");
  CHECK(error_of(header + "rayjob:\n  apiVersion: ray.io/v1\n  kind: RayJob\n  metadata: {name: x}\n"
                          "  spec: {shutdownAfterJobFinishes: true}\n") ==
        "scenarios/x.yaml:8: rayjob.spec.entrypoint: missing: KubeRay v1.1.0's RayJob CRD requires it");
  CHECK(error_of(header + "rayjob: [a]\n") ==
        "scenarios/x.yaml:4: rayjob: expected a RayJob manifest (a map with apiVersion, kind, metadata and spec)");
  // v1.7.0's CRD makes entrypoint optional: InteractiveMode submits nothing itself.
  CHECK(parse(header + "controller: kuberay-1.7\nrayjob:\n  apiVersion: ray.io/v1\n  kind: RayJob\n  metadata: {name: x}\n"
                       "  spec: {submissionMode: InteractiveMode}\n")
            .rayjobs.at(0)
            .spec->submission_mode == "InteractiveMode");
}

TEST_CASE("a manifest field of the wrong type is reported at its own line with its full path") {
  const std::string text = std::string(kHeader) + R"(rayjob:
  apiVersion: ray.io/v1
  kind: RayJob
  metadata: {name: demo}
  spec:
    entrypoint: python main.py
    rayClusterSpec:
      rayVersion: "2.52.0"
      headGroupSpec: {rayStartParams: {}, template: {}}
      workerGroupSpecs:
      - groupName: small
        rayStartParams: {}
        template: {}
        replicas: one
)";
  CHECK(error_of(text) == "scenarios/x.yaml:17: rayjob.spec.rayClusterSpec.workerGroupSpecs[0].replicas: expected "
                          "an integer, got the string \"one\"");
  CHECK(error_of(std::string(kHeader) + "rayjob:\n  apiVersion: ray.io/v1\n  kind: RayJob\n  metadata: {name: d}\n"
                                        "  spec:\n    entrypoint: a\n    rayClusterSpec: {rayVersion: 2.5, headGroupSpec: {rayStartParams: {}, "
                                        "template: {}}}\n") ==
        "scenarios/x.yaml:10: rayjob.spec.rayClusterSpec.rayVersion: expected a string, got the number 2.5 (quote it "
        "in YAML: \"2.5\")");
  CHECK(error_of(std::string(kHeader) + "rayjob:\n  apiVersion: ray.io/v1\n  kind: RayJob\n  metadata:\n    name: d\n"
                                        "    labels:\n      app: x\n      app: y\n  spec: {entrypoint: a}\n") ==
        "scenarios/x.yaml:11: rayjob.metadata.labels.app: duplicate key \"app\"");
}

TEST_CASE("actions: patch, delete and headRestart, each checked now rather than at its time") {
  const Scenario s = parse_with_rayjob("actions:\n- at: 1s\n  patch:\n    spec: {suspend: true}\n"
                                       "    metadata: {labels: {a: b}}\n");
  CHECK(s.actions.at(0).patch == json::parse(R"({"spec": {"suspend": true}, "metadata": {"labels": {"a": "b"}}})"));
  CHECK(s.actions.at(0).line == 10);
  CHECK(error_with_rayjob("actions:\n- at: 1s\n  patch:\n    spec: {suspend: \"true\"}\n") ==
        "scenarios/x.yaml:12: actions[0].patch.spec.suspend: expected true or false, got the string \"true\"");
  // The API server refuses what the release's CRD lacks; rjsim, what it would not change.
  CHECK(error_with_rayjob("actions:\n- at: 1s\n  patch:\n    spec: {supsend: true}\n") ==
        "scenarios/x.yaml:12: actions[0].patch.spec.supsend: unknown field: KubeRay v1.1.0's RayJob CRD has no supsend "
        "(kubectl's strict field validation refuses it; no KubeRay release has it)");
  CHECK(error_with_rayjob("actions:\n- at: 1s\n  patch:\n    spec: {rayClusterSpec: {autoscalerOptions: {}, "
                          "headGroupSpec: {rayStartParams: {}, template: {}}}}\n") ==
        "scenarios/x.yaml:12: actions[0].patch.spec.rayClusterSpec.autoscalerOptions: is not a RayJob field rjsim "
        "models, so the patch would change nothing");
  CHECK(error_with_rayjob("actions:\n- at: 1s\n  patch:\n    spec: {entrypoint: null}\n") ==
        "scenarios/x.yaml:12: actions[0].patch.spec.entrypoint: missing: KubeRay v1.1.0's RayJob CRD requires it");
  CHECK(error_with_rayjob("actions:\n- {at: 1s, patch: {metadata: {name: other}}}\n") ==
        "scenarios/x.yaml:10: actions[0].patch.metadata: a patch cannot change a RayJob's name or namespace");
  CHECK(error_with_rayjob("actions:\n- {at: 1s, patch: [1]}\n")
            .find("actions[0].patch: expected a JSON merge patch") != std::string::npos);
  CHECK(error_with_rayjob("actions:\n- {at: 1s, delete: {now: true}}\n") ==
        "scenarios/x.yaml:10: actions[0].delete: takes no settings (write delete: {})");
  CHECK(error_with_rayjob("actions:\n- {at: 1s, delete: {}, headRestart: {}}\n") ==
        "scenarios/x.yaml:10: actions[0]: an action does one thing: delete or headRestart, not both (write two "
        "actions)");
  CHECK(error_with_rayjob("actions:\n- {at: 1s}\n") ==
        "scenarios/x.yaml:10: actions[0]: says what happens with one of: patch: {...}, delete: {}, headRestart: {}, "
        "stopSubmitter: {}");
  CHECK(error_with_rayjob("actions:\n- {at: 1s, stopSubmitter: {signal: TERM}}\n") ==
        "scenarios/x.yaml:10: actions[0].stopSubmitter: takes no settings (write stopSubmitter: {})");
  const Scenario stops = parse_with_rayjob("actions:\n- {at: 40s, stopSubmitter: {}}\n");
  REQUIRE(stops.actions.size() == 1);
  CHECK(stops.actions[0].type == Action::Type::stop_submitter);
  CHECK(stops.actions[0].at_ms == 40'000);
  CHECK(error_with_rayjob("actions:\n- {delete: {}}\n") ==
        "scenarios/x.yaml:10: actions[0].at: missing (when the action happens, e.g. at: 5s)");
  CHECK(error_with_rayjob("actions:\n- {at: 1s, delete: {}, rayjob: other}\n") ==
        "scenarios/x.yaml:10: actions[0].rayjob: no RayJob named \"other\" in this scenario (expected one of: demo)");
  CHECK(parse_with_rayjob("actions:\n- {at: 1s, delete: }\n").actions.at(0).type == Action::Type::delete_);
}

TEST_CASE("expect: violations must be selected invariants and agree with the outcome") {
  CHECK(error_with_rayjob("invariants: [single-cluster]\nexpect: {violations: [suspend-atomic]}\n") ==
        "scenarios/x.yaml:10: expect.violations[0]: \"suspend-atomic\" is expected to fire but the scenario's "
        "invariants: leave it out");
  CHECK(error_with_rayjob("expect: {outcome: pass, violations: [suspend-atomic]}\n") ==
        "scenarios/x.yaml:9: expect.violations: lists invariants that must fire, which contradicts outcome: pass "
        "(use outcome: violation)");
  // The single RayJob's expectations may also be keyed by its name.
  const Scenario s = parse_with_rayjob("expect:\n  transitions: {demo: [\"\", Initializing]}\n"
                                       "  final: {demo: {rayClusters: 1}}\n");
  CHECK(s.expect.transitions.at("demo") == std::vector<std::string>{"", "Initializing"});
  CHECK(s.expect.final.at("demo").ray_clusters == 1);
}

TEST_CASE("rayjobFile is resolved relative to the scenario file") {
  TempDir dir;
  dir.write("scenarios/manifests/demo.yaml",
            "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: from-file}\nspec: {entrypoint: python x.py}\n");
  const std::string file = dir.write("scenarios/s.yaml", std::string(kHeader) + "rayjobFile: manifests/demo.yaml\n");
  const Scenario s = load_scenario(file);
  CHECK(s.file == file);
  REQUIRE(s.rayjobs.size() == 1);
  CHECK(s.rayjobs[0].metadata.name == "from-file");
  CHECK(s.rayjobs[0].spec->entrypoint == "python x.py");

  // parse_scenario resolves against the base directory it is given.
  const Scenario parsed = parse_scenario(std::string(kHeader) + "rayjobFile: manifests/demo.yaml\n", "inline.yaml",
                                         (dir.path() / "scenarios").string());
  CHECK(parsed.rayjobs.at(0).metadata.name == "from-file");

  // A missing file names both the path as written and where it was looked for.
  const std::string missing = dir.write("scenarios/m.yaml", std::string(kHeader) + "rayjobFile: manifests/nope.yaml\n");
  const std::string resolved = (dir.path() / "scenarios/manifests/nope.yaml").string();
  CHECK_THROWS_WITH_AS(load_scenario(missing),
                       (missing + ":4: rayjobFile: cannot read \"manifests/nope.yaml\" (resolved to " + resolved +
                        "): No such file or directory")
                           .c_str(),
                       ScenarioError);

  // An error inside the manifest names the manifest's own file and line, and where it was used.
  const std::string bad_manifest = dir.write(
      "scenarios/manifests/bad.yaml",
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: bad}\nspec:\n  entrypoint: a\n  suspend: lots\n");
  const std::string uses_bad = dir.write("scenarios/b.yaml", std::string(kHeader) + "rayjobFile: manifests/bad.yaml\n");
  CHECK_THROWS_WITH_AS(load_scenario(uses_bad),
                       ((dir.path() / "scenarios/manifests/bad.yaml").string() +
                           ":6: spec.suspend: expected true or false, got the string \"lots\" (in rayjobFile of " +
                           uses_bad + ":4)")
                           .c_str(),
                       ScenarioError);
}

TEST_CASE("several RayJobs: rayjobs lists them, inline or by file; expectations and actions name them") {
  TempDir dir;
  dir.write("second.yaml", "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: second}\nspec: {entrypoint: b}\n");
  const std::string file = dir.write("s.yaml", std::string(kHeader) + R"(rayjobs:
  - apiVersion: ray.io/v1
    kind: RayJob
    metadata: {name: first, namespace: ns}
    spec: {entrypoint: a}
  - file: second.yaml
actions:
  - {at: 2s, rayjob: second, delete: {}}
  - {at: 1s, rayjob: first, patch: {spec: {suspend: true}}}
expect:
  transitions:
    first: ["", Initializing]
    second: ["", Initializing, Running]
  final:
    first: {rayClusters: 0}
    second: {jobStatus: SUCCEEDED}
)");
  const Scenario s = load_scenario(file);
  REQUIRE(s.rayjobs.size() == 2);
  CHECK(s.rayjobs[0].metadata.name == "first");
  CHECK(s.rayjobs[0].metadata.namespace_ == "ns");
  CHECK(s.rayjobs[1].metadata.name == "second");
  CHECK(s.rayjobs[1].metadata.namespace_ == "default");
  REQUIRE(s.actions.size() == 2);
  CHECK(s.actions[0].rayjob == "first");
  CHECK(s.actions[1].rayjob == "second");
  CHECK(s.expect.transitions.at("second").size() == 3);
  CHECK(s.expect.final.at("first").ray_clusters == 0);
  CHECK(s.expect.final.at("second").job_status == "SUCCEEDED");

  const std::string two = std::string(kHeader) + R"(rayjobs:
  - {apiVersion: ray.io/v1, kind: RayJob, metadata: {name: a}, spec: {entrypoint: x}}
  - {apiVersion: ray.io/v1, kind: RayJob, metadata: {name: b}, spec: {entrypoint: x}}
)";
  CHECK(error_of(two + "actions: [{at: 1s, delete: {}}]\n") ==
        "scenarios/x.yaml:7: actions[0]: this scenario has several RayJobs: name the target with rayjob: NAME (one "
        "of: a, b)");
  CHECK(error_of(two + "expect: {transitions: [\"\"]}\n") ==
        "scenarios/x.yaml:7: expect.transitions: this scenario has several RayJobs: give a map from RayJob name to a "
        "list (a: [...])");
  CHECK(error_of(two + "expect: {final: {rayClusters: 0}}\n") ==
        "scenarios/x.yaml:7: expect.final: this scenario has several RayJobs: key expect.final by RayJob name (a: "
        "{rayClusters: ...})");
  CHECK(error_of(two + "expect: {final: {c: {rayClusters: 0}}}\n") ==
        "scenarios/x.yaml:7: expect.final: \"c\" is not a RayJob of this scenario (expected one of: a, b)");
  CHECK(error_of(std::string(kHeader) + R"(rayjobs:
  - {apiVersion: ray.io/v1, kind: RayJob, metadata: {name: a}, spec: {entrypoint: x}}
  - {apiVersion: ray.io/v1, kind: RayJob, metadata: {name: a, namespace: other}, spec: {entrypoint: x}}
)") == "scenarios/x.yaml:6: rayjobs[1]: a second RayJob named \"a\" (the first is rayjobs[0]); RayJob names must "
       "be unique in a scenario");
  CHECK(error_of(std::string(kHeader) + "rayjobs: []\n") ==
        "scenarios/x.yaml:4: rayjobs: is empty (list at least one RayJob)");
  CHECK(error_of(std::string(kHeader) + "rayjobs:\n  - {file: a.yaml, kind: RayJob}\n")
            .find("rayjobs[0]: unknown key \"kind\" (expected one of: file)") != std::string::npos);
}

namespace {

// Each ray.io/v1 RayJob of the set loads through rayjobFile, with the fields the controller reads.
void check_rayjob_manifests_load(const ManifestSet& set) {
  INFO(set.label);
  const std::vector<fs::path> files = set.rayjob_files();
  REQUIRE(files.size() >= 4);
  TempDir dir;
  for (const fs::path& file : files) {
    CAPTURE(file.string());
    const Scenario s = load_with_rayjob_file(dir, file);
    REQUIRE(s.rayjobs.size() == 1);
    CHECK_FALSE(s.rayjobs[0].metadata.name.empty());
    CHECK(s.rayjobs[0].metadata.namespace_ == "default");
  }

  // A RayJob and a ConfigMap in one file; the RayJob is taken.
  const RayJob sample = load_with_rayjob_file(dir, set.path(set.rayjob)).rayjobs.at(0);
  CHECK(sample.metadata.name == "rayjob-sample");
  CHECK(sample.spec->entrypoint == "python /home/ray/samples/sample_code.py");
  CHECK_FALSE(sample.spec->shutdown_after_job_finishes);
  CHECK(sample.spec->runtime_env_yaml.find("pendulum==2.1.2") != std::string::npos);
  REQUIRE(sample.spec->ray_cluster_spec.has_value());
  CHECK(sample.spec->ray_cluster_spec->ray_version == "2.52.0");
  CHECK(sample.spec->ray_cluster_spec->head_group_spec.template_.containers.at(0).name == "ray-head");
  CHECK(sample.spec->ray_cluster_spec->head_group_spec.template_.containers.at(0).image == "rayproject/ray:2.52.0");
  REQUIRE(sample.spec->ray_cluster_spec->worker_group_specs.size() == 1);
  CHECK(sample.spec->ray_cluster_spec->worker_group_specs[0].group_name == "small-group");
  CHECK(sample.spec->ray_cluster_spec->worker_group_specs[0].replicas == 1);
  CHECK(sample.spec->ray_cluster_spec->worker_group_specs[0].min_replicas == 1);
  CHECK(sample.spec->ray_cluster_spec->worker_group_specs[0].max_replicas == 5);

  const RayJob shutdown = load_with_rayjob_file(dir, set.path(set.rayjob_shutdown)).rayjobs.at(0);
  CHECK(shutdown.metadata.name == "rayjob-sample-shutdown");
  CHECK(shutdown.spec->shutdown_after_job_finishes);
  CHECK(shutdown.spec->ttl_seconds_after_finished == 10);
  CHECK(shutdown.spec->ray_cluster_spec->ray_version == "2.52.0");

  const RayJob interactive = load_with_rayjob_file(dir, set.path(set.rayjob_interactive)).rayjobs.at(0);
  CHECK(interactive.spec->submission_mode == "InteractiveMode");
  CHECK(interactive.spec->entrypoint.empty());
  CHECK(interactive.spec->job_id.empty());
  CHECK(interactive.spec->ray_cluster_spec->ray_version == "2.52.0");
  CHECK(interactive.spec->ray_cluster_spec->worker_group_specs.at(0).group_name == "default-group");
  CHECK(interactive.spec->ray_cluster_spec->worker_group_specs.at(0).replicas == 1);

  const RayJob existing = load_with_rayjob_file(dir, set.path(set.rayjob_existing_cluster)).rayjobs.at(0);
  CHECK(existing.spec->entrypoint == R"x(python -c "import ray; ray.init(); print(ray.cluster_resources())")x");
  CHECK(existing.spec->cluster_selector == rjsim::engine::StringMap{{"ray.io/cluster", "ray-cluster-kuberay"}});
  CHECK_FALSE(existing.spec->ray_cluster_spec.has_value());
}

// The 1-based number of the first line of `file` in `set` that starts with `prefix`.
int first_line_of(const ManifestSet& set, const std::string& file, std::string_view prefix) {
  std::istringstream text(set.text(file));
  std::string line;
  for (int number = 1; std::getline(text, line); ++number) {
    if (line.rfind(prefix, 0) == 0) return number;
  }
  FAIL("no line of " << file << " starts with " << prefix);
  return 0;
}

// The v1alpha1 RayJob is refused: rjsim expects ray.io/v1.
void check_v1alpha1_rejected(const ManifestSet& set) {
  INFO(set.label);
  TempDir dir;
  const fs::path file = set.path(set.rayjob_v1alpha1);
  try {
    (void)load_with_rayjob_file(dir, file);
    FAIL("the v1alpha1 RayJob was accepted");
  } catch (const ScenarioError& e) {
    const std::string message = e.what();
    CHECK(message.rfind(file.lexically_normal().string() + ":" + std::to_string(first_line_of(set, set.rayjob_v1alpha1, "apiVersion:")) +
                            ": apiVersion: \"ray.io/v1alpha1\" is not supported: expected ray.io/v1",
                        0) == 0);
    CHECK(message.find("(in rayjobFile of ") != std::string::npos);
  }
}

// The RayCluster loads through rayclusters; a RayJob file given there says what it holds.
void check_raycluster_manifest_loads(const ManifestSet& set) {
  INFO(set.label);
  TempDir dir;
  const fs::path file = set.path(set.raycluster);
  const std::string scenario = dir.write("s.yaml", std::string(kHeader) + std::string(kRayJob) +
                                                       "rayclusters:\n  - file: " + file.string() + "\n");
  const Scenario s = load_scenario(scenario);
  REQUIRE(s.rayclusters.size() == 1);
  const auto& cluster = s.rayclusters[0];
  CHECK(cluster.metadata.name == "raycluster-kuberay");
  CHECK(cluster.metadata.namespace_ == "default");
  CHECK(cluster.spec->ray_version == "2.52.0");
  CHECK(cluster.spec->head_group_spec.template_.containers.at(0).image == "rayproject/ray:2.52.0");
  REQUIRE(cluster.spec->worker_group_specs.size() == 1);
  CHECK(cluster.spec->worker_group_specs[0].group_name == "workergroup");
  CHECK(cluster.spec->worker_group_specs[0].replicas == 1);
  CHECK(cluster.spec->worker_group_specs[0].max_replicas == 5);

  const std::string wrong = dir.write("w.yaml", std::string(kHeader) + std::string(kRayJob) + "rayclusters:\n  - file: " +
                                                    set.path(set.rayjob).string() + "\n");
  CHECK_THROWS_WITH_AS(load_scenario(wrong),
                       doctest::Contains("no RayCluster document in the file (found: RayJob, ConfigMap)"),
                       ScenarioError);
}

}  // namespace

TEST_CASE("every RayJob fixture loads through rayjobFile") { check_rayjob_manifests_load(own_manifests()); }
TEST_CASE("KubeRay samples: every RayJob sample loads through rayjobFile" * skip_without_kuberay_samples()) {
  check_rayjob_manifests_load(kuberay_samples());
}

TEST_CASE("a ray.io/v1alpha1 RayJob fixture is rejected: rjsim expects ray.io/v1") {
  check_v1alpha1_rejected(own_manifests());
}
TEST_CASE("KubeRay samples: the ray.io/v1alpha1 sample is rejected" * skip_without_kuberay_samples()) {
  check_v1alpha1_rejected(kuberay_samples());
}

TEST_CASE("the RayCluster fixture loads through rayclusters") { check_raycluster_manifest_loads(own_manifests()); }
TEST_CASE("KubeRay samples: the RayCluster sample loads through rayclusters" * skip_without_kuberay_samples()) {
  check_raycluster_manifest_loads(kuberay_samples());
}

}  // namespace scenario_loader_test
