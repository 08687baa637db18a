// The kuberay-1.1 model, state by state and branch by branch (reference kuberay-rayjob.md §2.3-2.5,
// rayjob_controller.go at v1.1.0): each test builds the world in the state, reconciles once and
// asserts the persisted status, the writes and the result.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include "engine/objects.h"
#include "model_harness.h"
#include "rayjob_fixtures.h"
#include "models/kuberay_1_1/dashboard_client.h"
#include "models/kuberay_1_1/rayjob_controller.h"
#include "models/kuberay_1_1/submitter_job.h"

namespace rjsim::models::kuberay_1_1 {
namespace kuberay_1_1_test {
namespace {

using namespace rjsim::engine;
using testing::ModelHarness;
using testing::cluster_for;
using testing::head_service_for;
using testing::sample_rayjob;

constexpr std::int64_t kRequeueMs = 3'000;

// A RayJob that has gone through New: finalizer, names, StartTime, Initializing.
RayJob initializing_rayjob(std::int64_t start_ms = 0) {
  RayJob rayjob = sample_rayjob();
  rayjob.metadata.finalizers = std::vector<std::string>{"ray.io/rayjob-finalizer"};
  rayjob.status.job_id = "demo-abcde";
  rayjob.status.ray_cluster_name = "demo-raycluster-abcde";
  rayjob.status.job_deployment_status = "Initializing";
  rayjob.status.start_time_ms = start_ms;
  return rayjob;
}

Job submitter_job_with_condition(const std::string& type) {
  Job job;
  job.metadata.name = "demo";
  job.metadata.namespace_ = "default";
  job.metadata.labels.edit()["app.kubernetes.io/created-by"] = "kuberay-operator";
  if (!type.empty()) job.status.conditions.push_back({type, "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 0});
  return job;
}

RayJob running_rayjob() {
  RayJob rayjob = initializing_rayjob();
  rayjob.status.job_deployment_status = "Running";
  rayjob.status.dashboard_url = "demo-raycluster-abcde-head-svc.default.svc.cluster.local:8265";
  return rayjob;
}

bool is_requeue_without_error(const ReconcileResult& result) {
  return !result.err && result.requeue_after_ms == kRequeueMs;
}

// ---- Reconcile entry (RJC:L74-123) ----

TEST_CASE("kuberay-1.1: a RayJob missing from the cache ends the reconcile without requeue") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const ReconcileResult result = harness.reconcile("demo");
  CHECK_FALSE(result.err);
  CHECK(result.requeue_after_ms == 0);
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.1: a deleted RayJob with a non-terminal JobStatus stops the Ray job and drops the finalizer") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_status = "RUNNING";
  harness.put(rayjob);
  harness.world.api.remove(Kind::RayJob, "default", "demo", Propagation::background, 0);
  harness.sync();
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(is_requeue_without_error(result));   // StopJob failed (no dashboard here): only logged
  CHECK(harness.events_of("dashboard.fault").empty());
  CHECK(harness.truth<RayJob>("demo") == nullptr);   // the finalizer was the last one
  CHECK(harness.writes() == std::vector<std::string>{"update RayJob/default/demo"});
}

TEST_CASE("kuberay-1.1: a deleted RayJob whose JobStatus is terminal does not call StopJob") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_status = "SUCCEEDED";
  harness.put(rayjob);
  harness.world.api.remove(Kind::RayJob, "default", "demo", Propagation::background, 0);
  harness.sync();
  harness.reconcile("demo");
  CHECK(harness.events_of("dashboard.stop_job").empty());
  CHECK(harness.truth<RayJob>("demo") == nullptr);
}

TEST_CASE("kuberay-1.1: an invalid spec returns an error and leaves the status untouched") {
  auto invalid = [](const std::function<void(RayJob&)>& breaking) {
    RayJobReconciler model;
    ModelHarness harness(model);
    RayJob rayjob = running_rayjob();
    breaking(rayjob);
    harness.put(rayjob);
    const std::int64_t rv = harness.truth<RayJob>("demo")->metadata.resource_version;
    const ReconcileResult result = harness.reconcile("demo");
    CHECK(result.err);
    CHECK(harness.writes().empty());
    CHECK(harness.truth<RayJob>("demo")->metadata.resource_version == rv);
    return result.err.message();
  };
  CHECK(invalid([](RayJob& r) { r.spec.edit().suspend = true; r.spec.edit().shutdown_after_job_finishes = false; })
            .find("shutdownAfterJobFinishes") != std::string::npos);
  CHECK(invalid([](RayJob& r) { r.spec.edit().suspend = true; r.spec.edit().cluster_selector["ray.io/cluster"] = "c"; })
            .find("ClusterSelector") != std::string::npos);
  CHECK(invalid([](RayJob& r) { r.spec.edit().ray_cluster_spec.reset(); })
            .find("one of RayClusterSpec or ClusterSelector") != std::string::npos);
  CHECK(invalid([](RayJob& r) { r.spec.edit().runtime_env_yaml = "- not\n- a map"; })
            .find("RuntimeEnvYAML") != std::string::npos);
  CHECK(invalid([](RayJob& r) { r.spec.edit().active_deadline_seconds = 0; })
            .find("activeDeadlineSeconds") != std::string::npos);
}

// ---- New (RJC:L124-138) ----

TEST_CASE("kuberay-1.1: New adds the finalizer, chooses the names and persists Initializing with StartTime") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.world.now_ms = 7'000;
  harness.put(sample_rayjob());
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(is_requeue_without_error(result));
  const RayJob& stored = *harness.truth<RayJob>("demo");
  CHECK(has_finalizer(stored.metadata, "ray.io/rayjob-finalizer"));
  CHECK(stored.status.job_deployment_status == "Initializing");
  CHECK(stored.status.job_id.starts_with("demo-"));
  CHECK(stored.status.job_id.size() == std::string("demo-").size() + 5);
  CHECK(stored.status.ray_cluster_name.starts_with("demo-raycluster-"));
  CHECK(stored.status.start_time_ms == 7'000);
  CHECK(harness.writes() == std::vector<std::string>{"update RayJob/default/demo",
                                                     "update_status RayJob/default/demo"});
}

TEST_CASE("kuberay-1.1: New takes Status.JobId from spec.jobId and the cluster name from the selector") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().job_id = "my-job";
  rayjob.spec.edit().ray_cluster_spec.reset();
  rayjob.spec.edit().cluster_selector["ray.io/cluster"] = "shared";
  harness.put(rayjob);
  harness.reconcile("demo");
  const RayJob& stored = *harness.truth<RayJob>("demo");
  CHECK(stored.status.job_id == "my-job");
  CHECK(stored.status.ray_cluster_name == "shared");
}

TEST_CASE("kuberay-1.1: New with a selector that lacks ray.io/cluster returns an error and writes no status") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().ray_cluster_spec.reset();
  rayjob.spec.edit().cluster_selector["team"] = "a";
  harness.put(rayjob);
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.err);
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "");
}

TEST_CASE("kuberay-1.1: New whose cached RayJob is stale gets 409 on the finalizer update and persists nothing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(sample_rayjob());
  harness.faults.max_lag = 1;   // the cache may be one event behind
  // Someone else writes the RayJob; the cache has not seen it yet.
  harness.world.api.patch(Kind::RayJob, "default", "demo",
                          [](Object& o) { std::get<RayJob>(o).metadata.labels.edit()["x"] = "y"; }, 0);
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(is_conflict(result.err));
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "");
}

// ---- Initializing (RJC:L139-175) ----

TEST_CASE("kuberay-1.1: Initializing with suspend persists Suspending and creates nothing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().suspend = true;
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
  CHECK(harness.writes() == std::vector<std::string>{"update_status RayJob/default/demo"});
}

TEST_CASE("kuberay-1.1: Initializing past activeDeadlineSeconds persists Failed with DeadlineExceeded and EndTime") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob(1'000);
  rayjob.spec.edit().active_deadline_seconds = 5;
  harness.put(rayjob);
  harness.world.now_ms = 6'000;
  harness.reconcile("demo");
  const RayJob& stored = *harness.truth<RayJob>("demo");
  CHECK(stored.status.job_deployment_status == "Failed");
  CHECK(stored.status.reason == "DeadlineExceeded");
  CHECK(stored.status.end_time_ms == 6'000);
  // %v of the *metav1.Time StartTime (rayjob_controller.go:716), not virtual milliseconds.
  CHECK(stored.status.message == "The RayJob has passed the activeDeadlineSeconds. StartTime: 2026-01-01 00:00:01 +0000 UTC. "
                                 "ActiveDeadlineSeconds: 5");
}

TEST_CASE("kuberay-1.1: Initializing before activeDeadlineSeconds does not fail") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob(1'000);
  rayjob.spec.edit().active_deadline_seconds = 5;
  harness.put(rayjob);
  harness.world.now_ms = 5'999;
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Initializing");
}

TEST_CASE("kuberay-1.1: Initializing with a nil StartTime and activeDeadlineSeconds panics") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.status.start_time_ms.reset();
  rayjob.spec.edit().active_deadline_seconds = 5;
  harness.put(rayjob);
  CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
}

TEST_CASE("kuberay-1.1: Initializing creates the owned RayCluster and waits without a status write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(initializing_rayjob());
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  const RayCluster* cluster = harness.truth<RayCluster>("demo-raycluster-abcde");
  REQUIRE(cluster != nullptr);
  REQUIRE(controller_owner(cluster->metadata) != nullptr);
  CHECK(controller_owner(cluster->metadata)->name == "demo");
  CHECK(cluster->metadata.labels->at("ray.io/originated-from-cr-name") == "demo");
  CHECK(harness.writes() == std::vector<std::string>{"create RayCluster/default/demo-raycluster-abcde"});
}

TEST_CASE("kuberay-1.1: Initializing with a cluster that is not ready requeues without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initializing_rayjob());
  harness.put(cluster_for(rayjob, ""));
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.1: Initializing with a ready cluster but no dashboard port returns an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initializing_rayjob());
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster, false));
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.err.message() == "dashboard port is not found");
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.1: Initializing with a ready cluster creates the submitter Job and persists Running") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initializing_rayjob());
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  const RayJob& stored = *harness.truth<RayJob>("demo");
  CHECK(stored.status.job_deployment_status == "Running");
  CHECK(stored.status.dashboard_url == "demo-raycluster-abcde-head-svc.default.svc.cluster.local:8265");
  const Job* job = harness.truth<Job>("demo");
  REQUIRE(job != nullptr);
  CHECK(job->spec->backoff_limit == 2);
  CHECK(job->metadata.labels->at("app.kubernetes.io/created-by") == "kuberay-operator");
  const std::vector<std::string> expected_command = {
      "ray", "job", "submit", "--address",
      "http://demo-raycluster-abcde-head-svc.default.svc.cluster.local:8265", "--submission-id",
      "demo-abcde", "--", "python", "/home/ray/samples/sample_code.py"};
  CHECK(job->spec->template_.containers.at(0).command == expected_command);
  CHECK(job->spec->template_.containers.at(0).image == "rayproject/ray:2.9.0");
  CHECK(job->spec->template_.containers.at(0).env.at("RAY_JOB_SUBMISSION_ID") == "demo-abcde");
  CHECK(job->spec->template_.restart_policy == "Never");
}

TEST_CASE("kuberay-1.1: the entrypoint is split into words as google/shlex splits them") {
  // JOB:L112 shlex.Split (google/shlex scanStream); fidelity-1.1-1.0.md D5, D6.
  const auto split = [](const std::string& text) {
    std::vector<std::string> words;
    const Error err = shlex_split(text, words);
    if (err) words = {"error: " + err.message()};
    return words;
  };
  using Words = std::vector<std::string>;
  CHECK(split("python /home/ray/main.py --epochs 3") == Words{"python", "/home/ray/main.py", "--epochs", "3"});
  CHECK(split("  'a b'  \"c d\" e''f \"\"") == Words{"a b", "c d", "ef", ""});
  // Inside double quotes a backslash keeps the next character, whatever it is, and drops itself.
  CHECK(split(R"cmd(python -c "print(\"x\tY\")")cmd") == Words{"python", "-c", "print(\"xtY\")"});
  CHECK(split(R"cmd(echo "a\\b" a\ b 'c\d')cmd") == Words{"echo", "a\\b", "a b", "c\\d"});
  // A comment starts where a word would and ends at the newline; inside a word # is a character.
  CHECK(split("python run.py # note\n--epochs 3") == Words{"python", "run.py", "--epochs", "3"});
  CHECK(split("a#b \"c\"#d # e f") == Words{"a#b", "c#d"});
  CHECK(split("python 'unclosed") == Words{"error: EOF found when expecting closing quote"});
  CHECK(split("python \"unclosed\\") == Words{"error: EOF found after escape character"});
  CHECK(split("python trailing\\") == Words{"error: EOF found after escape character"});
}

TEST_CASE("kuberay-1.1: the submitter command's JSON arguments are encoding/json's: typed, HTML-safe") {
  // JOB:L76-90: getRuntimeEnvJson (yaml.YAMLToJSON) and json.Marshal of the metadata
  // (fidelity-1.1-1.0.md D2, D3, D7).
  RayJob rayjob = sample_rayjob();
  rayjob.status.dashboard_url = "demo-head-svc.default.svc.cluster.local:8265";
  rayjob.spec.edit().metadata = {{"k", "<a&b>"}};
  const auto argument_after = [&](const char* flag) {
    std::vector<std::string> command;
    REQUIRE_FALSE(get_k8s_job_command(rayjob, command));
    const auto it = std::find(command.begin(), command.end(), flag);
    return it == command.end() || it + 1 == command.end() ? std::string("(none)") : *(it + 1);
  };
  rayjob.spec.edit().runtime_env_yaml = "config: {setup_timeout_seconds: 600, eager_install: false}";
  CHECK(argument_after("--runtime-env-json") == R"({"config":{"eager_install":false,"setup_timeout_seconds":600}})");
  CHECK(argument_after("--metadata-json") == R"({"k":"\u003ca\u0026b\u003e"})");
  rayjob.spec.edit().runtime_env_yaml = "# nothing but a comment";
  CHECK(argument_after("--runtime-env-json") == "null");
}

TEST_CASE("kuberay-1.1: entrypointResources decodes as Go's json.Unmarshal into map[string]float32") {
  // DASH:L436-440 (RayJobRequest.Resources map[string]float32, DASH:L213).
  std::map<std::string, float, std::less<>> resources;
  const auto decode = [&](const std::string& text) {
    const Error err = decode_entrypoint_resources(text, resources);
    return err ? err.message() : std::string("ok");
  };
  CHECK(decode(R"({"custom": 1, "GPU": 0.5})") == "ok");
  CHECK(resources == std::map<std::string, float, std::less<>>{{"GPU", 0.5F}, {"custom", 1.0F}});
  CHECK(decode("null") == "ok");
  CHECK(resources.empty());
  CHECK(decode(R"({"GPU": null})") == "ok");   // a null leaves the zero value
  CHECK(resources.at("GPU") == 0.0F);
  CHECK(decode("[1]") == "json: cannot unmarshal array into Go value of type map[string]float32");
  CHECK(decode(R"("x")") == "json: cannot unmarshal string into Go value of type map[string]float32");
  CHECK(decode(R"({"GPU": "one"})") == "json: cannot unmarshal string into Go value of type float32");
  CHECK(decode(R"({"GPU": true})") == "json: cannot unmarshal bool into Go value of type float32");
  CHECK(decode(R"({"GPU": 1e50})").find("cannot unmarshal number") != std::string::npos);
  CHECK(decode("{not json").find("not JSON") != std::string::npos);
}

TEST_CASE("kuberay-1.1: the HTTPMode submit request carries the entrypoint's CPUs, GPUs and resources") {
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().entrypoint_num_cpus = 1.5;
  rayjob.spec.edit().entrypoint_num_gpus = 0.25;
  rayjob.spec.edit().entrypoint_resources = R"({"custom": 2})";
  SubmitJobRequest request;
  REQUIRE_FALSE(convert_rayjob_to_request(rayjob, request));
  CHECK(request.entrypoint_num_cpus == 1.5F);
  CHECK(request.entrypoint_num_gpus == 0.25F);
  CHECK(request.entrypoint_resources.at("custom") == 2.0F);
}

TEST_CASE("kuberay-1.1: Initializing in HTTPMode persists Running without a submitter Job") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = initializing_rayjob();
  wanted.spec.edit().submission_mode = "HTTPMode";
  const RayJob& rayjob = harness.put(wanted);
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Running");
  CHECK(harness.truth<Job>("demo") == nullptr);
}

TEST_CASE("kuberay-1.1: Initializing with Metadata and a Ray version below 2.6.0 cannot build the submitter command") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = initializing_rayjob();
  wanted.spec.edit().metadata["owner"] = "team-a";
  wanted.spec.edit().ray_cluster_spec->ray_version = "2.5.0";
  const RayJob& rayjob = harness.put(wanted);
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.err.message() == "the Ray version must be at least 2.6.0 to use the metadata field");
  CHECK(harness.truth<Job>("demo") == nullptr);
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Initializing");
}

TEST_CASE("kuberay-1.1: Initializing with a selector whose cluster is missing returns an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().ray_cluster_spec.reset();
  rayjob.spec.edit().cluster_selector["ray.io/cluster"] = "shared";
  rayjob.status.ray_cluster_name = "shared";
  harness.put(rayjob);
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.err.message().find("cluster selector mode") != std::string::npos);
  CHECK(harness.truth<RayCluster>("shared") == nullptr);
}

// ---- Running (RJC:L176-254), the branches before the dashboard ----

TEST_CASE("kuberay-1.1: Running in K8sJobMode without the submitter Job in the cache returns an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob());
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(is_not_found(result.err));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.1: Running with a Failed submitter Job persists Failed with SubmissionFailed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob());
  harness.put(submitter_job_with_condition("Failed"));
  harness.reconcile("demo");
  const RayJob& stored = *harness.truth<RayJob>("demo");
  CHECK(stored.status.job_deployment_status == "Failed");
  CHECK(stored.status.reason == "SubmissionFailed");
  CHECK(stored.status.message.starts_with("Job submission has failed. Reason: BackoffLimitExceeded."));
}

TEST_CASE("kuberay-1.1: Running with a Failed submitter Job after a FAILED Ray job persists AppFailed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_status = "FAILED";
  rayjob.status.message = "the app raised";
  harness.put(rayjob);
  harness.put(submitter_job_with_condition("Failed"));
  harness.reconcile("demo");
  const RayJob& stored = *harness.truth<RayJob>("demo");
  CHECK(stored.status.reason == "AppFailed");
  CHECK(stored.status.message == "the app raised");
}

TEST_CASE("kuberay-1.1: Running with suspend persists Suspending before looking at the Job") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.spec.edit().suspend = true;
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
}

TEST_CASE("kuberay-1.1: Running with an unreachable dashboard returns an error and writes nothing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job_with_condition(""));
  harness.put(cluster_for(rayjob, "ready"));
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.err);
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.1: Running re-creates a RayCluster that vanished") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob());
  harness.put(submitter_job_with_condition(""));
  harness.reconcile("demo");
  CHECK(harness.truth<RayCluster>("demo-raycluster-abcde") != nullptr);
}

// ---- Running (RJC:L207-253), the branches after GetJobInfo ----

// A ready cluster with its head Service and a live Ray head holding `job_status` for the RayJob.
void put_live_ray_head(ModelHarness& harness, const RayJob& rayjob, const std::string& job_status) {
  testing::put_ray_head(harness, rayjob, "ready", job_status);
}

TEST_CASE("kuberay-1.1: Running with Ray SUCCEEDED and the submitter Job Complete persists Complete with EndTime") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job_with_condition("Complete"));
  put_live_ray_head(harness, rayjob, "SUCCEEDED");
  harness.world.now_ms = 50'000;
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Complete");
  CHECK(status.job_status == "SUCCEEDED");
  CHECK(status.message == "from Ray");
  CHECK(status.ray_cluster_status->state == "ready");
  CHECK(status.end_time_ms == 50'000);
}

TEST_CASE("kuberay-1.1: Running with Ray SUCCEEDED but the submitter Job unfinished stays Running and mirrors the status") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job_with_condition(""));
  put_live_ray_head(harness, rayjob, "SUCCEEDED");
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Running");
  CHECK(status.job_status == "SUCCEEDED");
  CHECK_FALSE(status.end_time_ms.has_value());
}

TEST_CASE("kuberay-1.1: Running in HTTPMode with Ray FAILED persists Failed with AppFailed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob();
  wanted.spec.edit().submission_mode = "HTTPMode";
  const RayJob& rayjob = harness.put(wanted);
  put_live_ray_head(harness, rayjob, "FAILED");
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.reason == "AppFailed");
  CHECK(status.job_status == "FAILED");
}

TEST_CASE("kuberay-1.1: Running in HTTPMode submits the Ray job on a 404 and requeues without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob();
  wanted.spec.edit().submission_mode = "HTTPMode";
  const RayJob& rayjob = harness.put(wanted);
  put_live_ray_head(harness, rayjob, "");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  REQUIRE(harness.world.ray->heads.back()->jobs.size() == 1);
  CHECK(harness.world.ray->heads.back()->jobs.front().submission_id == "demo-abcde");
  CHECK(harness.world.ray->heads.back()->jobs.front().submitted_by == "controller");
}

TEST_CASE("kuberay-1.1: Running in K8sJobMode answers a 404 with an error (backoff), not a submit") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job_with_condition(""));
  put_live_ray_head(harness, rayjob, "");
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(is_bad_request(result.err));
  CHECK(harness.world.ray->heads.back()->jobs.empty());
  CHECK(harness.writes().empty());
}

// ---- Suspending (RJC:L255-286) ----

TEST_CASE("kuberay-1.1: Suspending deletes the cluster and the Job and waits for the cache to lose them") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob();
  wanted.status.job_deployment_status = "Suspending";
  const RayJob& rayjob = harness.put(wanted);
  harness.put(cluster_for(rayjob, "ready"));
  harness.put(submitter_job_with_condition(""));
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-raycluster-abcde",
                                                     "delete Job/default/demo"});
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
}

TEST_CASE("kuberay-1.1: Suspending does not delete a cluster whose deletion is ongoing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob();
  wanted.status.job_deployment_status = "Suspending";
  const RayJob& rayjob = harness.put(wanted);
  RayCluster cluster = cluster_for(rayjob, "ready");
  cluster.metadata.finalizers = std::vector<std::string>{"someone.else/finalizer"};
  harness.put(cluster);
  harness.world.api.remove(Kind::RayCluster, "default", cluster.metadata.name, Propagation::background, 0);
  harness.sync();
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());   // no second delete; the Job is already gone
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
}

TEST_CASE("kuberay-1.1: Suspending with both gone persists Suspended, resets the fields and keeps Reason") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob();
  wanted.status.job_deployment_status = "Suspending";
  wanted.status.job_status = "RUNNING";
  wanted.status.reason = "earlier";
  wanted.status.message = "m";
  harness.put(wanted);
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Suspended");
  CHECK(status.job_status == "");
  CHECK(status.job_id == "");
  CHECK(status.ray_cluster_name == "");
  CHECK(status.dashboard_url == "");
  CHECK(status.message == "");
  CHECK(status.reason == "earlier");
}

// ---- Suspended (RJC:L287-295) ----

TEST_CASE("kuberay-1.1: Suspended with suspend still set polls every 3 s without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().suspend = true;
  rayjob.status.job_deployment_status = "Suspended";
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.1: Suspended with suspend cleared persists New") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.status.job_deployment_status = "Suspended";
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "");
  CHECK(harness.writes() == std::vector<std::string>{"update_status RayJob/default/demo"});
}

// ---- Complete / Failed (RJC:L296-323) ----

RayJob finished_rayjob(std::int64_t end_ms, int ttl_seconds) {
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "Complete";
  rayjob.status.job_status = "SUCCEEDED";
  rayjob.status.end_time_ms = end_ms;
  rayjob.spec.edit().ttl_seconds_after_finished = ttl_seconds;
  return rayjob;
}

TEST_CASE("kuberay-1.1: Complete before its TTL requeues for the whole seconds until EndTime+TTL+2s") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(finished_rayjob(10'000, 30));
  harness.world.now_ms = 15'500;
  const ReconcileResult result = harness.reconcile("demo");
  CHECK_FALSE(result.err);
  CHECK(result.requeue_after_ms == 26'000);   // int32(26.5s) = 26 s
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.1: Complete after its TTL deletes the cluster, keeps the Job, and does not requeue") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(finished_rayjob(10'000, 0));
  harness.put(cluster_for(rayjob, "ready"));
  harness.put(submitter_job_with_condition("Complete"));
  harness.world.now_ms = 10'000;
  const ReconcileResult result = harness.reconcile("demo");
  CHECK_FALSE(result.err);
  CHECK(result.requeue_after_ms == 0);
  CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-raycluster-abcde"});
}

TEST_CASE("kuberay-1.1: Complete without shutdownAfterJobFinishes, or with a selector, deletes nothing") {
  for (bool selector : {false, true}) {
    RayJobReconciler model;
    ModelHarness harness(model);
    RayJob rayjob = finished_rayjob(0, 0);
    if (selector) {
      rayjob.spec.edit().cluster_selector["ray.io/cluster"] = "demo-raycluster-abcde";
    } else {
      rayjob.spec.edit().shutdown_after_job_finishes = false;
    }
    harness.put(cluster_for(harness.put(rayjob), "ready"));
    harness.world.now_ms = 60'000;
    const ReconcileResult result = harness.reconcile("demo");
    CHECK(result.requeue_after_ms == 0);
    CHECK(harness.writes().empty());
  }
}

TEST_CASE("kuberay-1.1: Failed with shutdown and a nil EndTime panics") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = finished_rayjob(0, 0);
  rayjob.status.job_deployment_status = "Failed";
  rayjob.status.end_time_ms.reset();
  harness.put(rayjob);
  CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
}

// ---- default (RJC:L324-326) ----

TEST_CASE("kuberay-1.1: an unknown JobDeploymentStatus polls every 3 s without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "WaitForK8sJob";   // written by v1.0.0
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

}  // namespace
}  // namespace kuberay_1_1_test
}  // namespace rjsim::models::kuberay_1_1

