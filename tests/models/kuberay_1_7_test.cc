// The kuberay-1.7 model, state by state and branch by branch (reference kuberay-rayjob.md §1.5-1.9,
// rayjob_controller.go at v1.7.0): each test builds the world in the state, reconciles once and
// asserts the persisted status, the writes and the result.
#include <doctest/doctest.h>

#include "engine/model_names.h"
#include "engine/objects.h"
#include "model_harness.h"
#include "models/kuberay_1_7/rayjob_controller.h"
#include "models/kuberay_1_7/submitter_job.h"
#include "models/kuberay_1_7/validation.h"
#include "models/shared/go_time.h"
#include "models/registry.h"

namespace rjsim::models::kuberay_1_7 {
namespace kuberay_1_7_test {
namespace {

using namespace rjsim::engine;
using testing::ModelHarness;

constexpr std::int64_t kRequeueMs = 3'000;

RayJob sample_rayjob(const std::string& name = "demo") {
  RayJob rayjob;
  rayjob.metadata.name = name;
  rayjob.metadata.namespace_ = "default";
  rayjob.spec.edit().entrypoint = "python /home/ray/samples/sample_code.py";
  rayjob.spec.edit().shutdown_after_job_finishes = true;
  RayClusterSpec cluster;
  cluster.ray_version = "2.46.0";
  Container head;
  head.name = "ray-head";
  head.image = "rayproject/ray:2.46.0";
  cluster.head_group_spec.template_.containers.push_back(head);
  cluster.worker_group_specs.push_back(WorkerGroupSpec{"small-group", 1, 1, 5, 1, std::nullopt, {}, {}});
  rayjob.spec.edit().ray_cluster_spec = cluster;
  return rayjob;
}

RayJob initializing_rayjob(std::int64_t start_ms = 0) {
  RayJob rayjob = sample_rayjob();
  rayjob.metadata.finalizers = std::vector<std::string>{"ray.io/rayjob-finalizer"};
  rayjob.status.job_id = "demo-abcde";
  rayjob.status.ray_cluster_name = "demo-abcde";
  rayjob.status.job_deployment_status = "Initializing";
  rayjob.status.start_time_ms = start_ms;
  return rayjob;
}

RayJob running_rayjob(const std::string& mode = "K8sJobMode") {
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().submission_mode = mode;
  rayjob.status.job_deployment_status = "Running";
  rayjob.status.dashboard_url = "demo-abcde-head-svc.default.svc.cluster.local:8265";
  return rayjob;
}

RayJob terminal_rayjob(const std::string& state, const std::string& job_status, std::int64_t end_ms) {
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = state;
  rayjob.status.job_status = job_status;
  rayjob.status.end_time_ms = end_ms;
  return rayjob;
}

RayCluster cluster_for(const RayJob& rayjob, const std::string& state) {
  RayCluster cluster;
  cluster.metadata.name = rayjob.status.ray_cluster_name;
  cluster.metadata.namespace_ = "default";
  cluster.spec = *rayjob.spec->ray_cluster_spec;
  cluster.status.edit().state = state;
  return cluster;
}

Service head_service_for(const RayCluster& cluster) {
  Service service;
  service.metadata.name = cluster.metadata.name + "-head-svc";
  service.metadata.namespace_ = "default";
  service.spec.edit().ports.push_back({"dashboard", 8265});
  return service;
}

Job submitter_job(const std::string& condition = "", std::int64_t at_ms = 0) {
  Job job;
  job.metadata.name = "demo";
  job.metadata.namespace_ = "default";
  job.metadata.labels.edit()["app.kubernetes.io/created-by"] = "kuberay-operator";
  if (!condition.empty()) job.status.conditions.push_back({condition, "True", "BackoffLimitExceeded", "limit", at_ms});
  return job;
}

// A ready cluster with its head Service and a live Ray head whose table holds `job_status` for
// the RayJob's submission id (nothing when empty).
void put_live_ray_head(ModelHarness& harness, const RayJob& rayjob, const std::string& job_status,
                       std::int64_t end_ms = 0) {
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  Service service = head_service_for(cluster);   // the dashboard finds the head through its owner
  service.metadata.owner_references.edit().push_back(
      OwnerReference{"ray.io/v1", Kind::RayCluster, cluster.metadata.name, cluster.metadata.uid, true, true});
  harness.put(service);
  RayHead head;
  head.cluster_namespace = "default";
  head.cluster_name = cluster.metadata.name;
  head.cluster_uid = cluster.metadata.uid;
  if (!job_status.empty()) {
    RayJobRecord job;
    job.submission_id = rayjob.status.job_id;
    job.status = job_status;
    job.message = "from Ray";
    job.start_time_ms = 1'000;
    job.end_time_ms = end_ms;
    head.jobs.push_back(job);
  }
  harness.world.ray.edit().heads.push_back(head);
}

bool is_requeue_without_error(const ReconcileResult& result) {
  return !result.err && result.requeue_after_ms == kRequeueMs;
}
bool is_done(const ReconcileResult& result) { return !result.err && result.requeue_after_ms == 0; }

// ---- registration and environment ----

TEST_CASE("kuberay-1.7: the registry knows kuberay-1.7 and its alias kuberay-latest") {
  CHECK(canonical_model_name("kuberay-latest") == "kuberay-1.7");
  auto model = make_model("kuberay-latest");
  REQUIRE(model);
  CHECK(model->name() == "kuberay-1.7");
}

TEST_CASE("registry: every model name the scenario loader accepts builds a model of its canonical name") {
  // engine/model_names.h is the one list; a name added there without a model here fails.
  for (std::string_view name : engine::kModelNamesWithAlias) {
    CAPTURE(name);
    auto model = make_model(name);
    REQUIRE(model);
    CHECK(model->name() == engine::canonical_model_name(name));
  }
  CHECK(model_names().size() == engine::kModelNamesWithAlias.size() - 1);   // without the alias
  CHECK(make_model("kuberay-1.8") == nullptr);
  CHECK(canonical_model_name("kuberay-1.8").empty());
}

TEST_CASE("kuberay-1.7: the environment is the priority queue, RealFIFO, and panics recovered as errors") {
  RayJobReconciler model;
  const ReleaseEnvironment environment = model.environment();
  CHECK(environment.queue == QueueBehaviour::priority);
  CHECK(environment.fifo == FifoBehaviour::real_fifo);
  CHECK(environment.workers_wait_for_handlers);
  CHECK_FALSE(environment.panic_kills_process);
}

// ---- Reconcile entry (RJC:L89-165) ----

TEST_CASE("kuberay-1.7: a RayJob managed by another controller is skipped without any write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().managed_by = "kueue.x-k8s.io/multikueue";
  harness.put(rayjob);
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.7: a RayJob managed by ray.io/kuberay-operator is reconciled") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().managed_by = "ray.io/kuberay-operator";
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Initializing");
}

TEST_CASE("kuberay-1.7: a deleted RayJob with a non-terminal JobStatus calls StopJob and drops the finalizer") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_status = "RUNNING";
  put_live_ray_head(harness, rayjob, "RUNNING");
  harness.put(rayjob);
  harness.world.api.remove(Kind::RayJob, "default", "demo", Propagation::background, 0);
  harness.sync();
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.events_of("dashboard.stop_job").size() == 1);
  CHECK(harness.truth<RayJob>("demo") == nullptr);
}

TEST_CASE("kuberay-1.7: a deleted RayJob with a terminal JobStatus drops the finalizer without StopJob") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(terminal_rayjob("Complete", "SUCCEEDED", 0));
  harness.world.api.remove(Kind::RayJob, "default", "demo", Propagation::background, 0);
  harness.sync();
  harness.reconcile("demo");
  CHECK(harness.events_of("dashboard.stop_job").empty());
  CHECK(harness.truth<RayJob>("demo") == nullptr);
}

// ---- Validation (VAL:L526-630, L752-966) ----

// Puts a RayJob in Running, breaks its spec, reconciles: the persisted status and the result.
std::pair<RayJobStatus, ReconcileResult> validate_once(const std::function<void(RayJob&)>& breaking,
                                                       OperatorSettings settings = {}) {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.operator_settings = std::move(settings);
  RayJob rayjob = running_rayjob();
  breaking(rayjob);
  harness.put(rayjob);
  const ReconcileResult result = harness.reconcile(rayjob.metadata.name);
  return {harness.truth<RayJob>(rayjob.metadata.name)->status, result};
}

TEST_CASE("kuberay-1.7: a failed validation persists ValidationFailed with the message and does not requeue") {
  const auto [status, result] = validate_once([](RayJob& r) {
    r.spec.edit().suspend = true;
    r.spec.edit().shutdown_after_job_finishes = false;
  });
  CHECK(is_done(result));
  CHECK(status.job_deployment_status == "ValidationFailed");
  CHECK(status.reason == "ValidationFailed");
  CHECK(status.message.find("shutdownAfterJobFinishes set to false is not allowed to be suspended") !=
        std::string::npos);
}

TEST_CASE("kuberay-1.7: validation rules of metadata, spec and status, first failure wins") {
  auto message = [](const std::function<void(RayJob&)>& breaking, OperatorSettings settings = {}) {
    const auto [status, result] = validate_once(breaking, std::move(settings));
    CHECK(status.job_deployment_status == "ValidationFailed");
    return status.message;
  };
  auto has = [](const std::string& text, const char* part) { return text.find(part) != std::string::npos; };
  CHECK(has(message([](RayJob& r) { r.metadata.name = std::string(48, 'a'); }), "no more than 47 characters"));
  CHECK(has(message([](RayJob& r) { r.metadata.name = "1demo"; }), "DNS1035"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().ttl_seconds_after_finished = -1; }), "TTLSecondsAfterFinished must be"));
  CHECK(has(message([](RayJob& r) {
              r.spec.edit().shutdown_after_job_finishes = false;
              r.spec.edit().ttl_seconds_after_finished = 5;
            }),
            "cannot have TTLSecondsAfterFinished"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().suspend = true; r.spec.edit().cluster_selector["ray.io/cluster"] = "c"; }),
            "doesn't support the suspend operation"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().ray_cluster_spec.reset(); }), "one of RayClusterSpec or ClusterSelector"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().ray_cluster_spec.reset(); r.spec.edit().cluster_selector["team"] = "a"; }),
            "cluster name in ClusterSelector should not be empty"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().cluster_selector["ray.io/cluster"] = "c"; r.spec.edit().backoff_limit = 1; }),
            "BackoffLimit is incompatible with ClusterSelector"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().submission_mode = "InteractiveMode"; r.spec.edit().backoff_limit = 1; }),
            "BackoffLimit is incompatible with InteractiveMode"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().submission_mode = "SidecarMode"; r.spec.edit().submitter_backoff_limit = 1; }),
            "SidecarMode doesn't support SubmitterConfig"));
  // An empty submitterConfig is a non-nil pointer in Go (VAL:L596-598).
  CHECK(has(message([](RayJob& r) { r.spec.edit().submission_mode = "SidecarMode"; r.spec.edit().submitter_config = true; }),
            "SidecarMode doesn't support SubmitterConfig"));
  CHECK(has(message([](RayJob& r) {
              r.spec.edit().submission_mode = "SidecarMode";
              r.spec.edit().ray_cluster_spec->head_group_spec.template_.restart_policy = "Always";
            }),
            "restartPolicy for head Pod"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().runtime_env_yaml = "- not\n- a map"; }), "RuntimeEnvYAML"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().active_deadline_seconds = 0; }), "activeDeadlineSeconds"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().pre_running_deadline_seconds = 0; }), "preRunningDeadlineSeconds"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().backoff_limit = -1; }), "backoffLimit must be"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().submission_mode = "HTTPMode"; r.status.job_deployment_status = "Waiting"; }),
            "cannot be `Waiting`"));
}

TEST_CASE("kuberay-1.7: a kept spec verdict follows every edit of the spec, the annotations and the gate") {
  // validate_rayjob_spec keeps its verdicts by the values' serials (validation.cc): an edit in
  // place, an edit of a shared copy, a new annotation and the other gate value are each asked anew.
  RayJob rayjob = sample_rayjob();
  CHECK_FALSE(validate_rayjob_spec(rayjob, true));
  rayjob.spec.edit().backoff_limit = -1;   // not shared: changed in place
  CHECK(validate_rayjob_spec(rayjob, true).message().find("backoffLimit must be") != std::string::npos);
  RayJob copy = rayjob;                    // shares the spec, and its verdict
  CHECK(validate_rayjob_spec(copy, true));
  copy.spec.edit().backoff_limit = 0;      // shared: copied, then changed
  CHECK_FALSE(validate_rayjob_spec(copy, true));
  CHECK(validate_rayjob_spec(rayjob, true));
  copy.spec.edit().deletion_strategy = DeletionStrategy{};   // the same spec under either gate
  CHECK(validate_rayjob_spec(copy, true).message().find("requires either BOTH") != std::string::npos);
  CHECK(validate_rayjob_spec(copy, false).message().find("feature gate must be enabled") != std::string::npos);
  CHECK(validate_rayjob_spec(copy, true).message().find("requires either BOTH") != std::string::npos);
  copy.spec.edit().deletion_strategy.reset();
  copy.spec.edit().ray_cluster_spec->gcs_fault_tolerance_options = true;
  CHECK_FALSE(validate_rayjob_spec(copy, true));
  copy.metadata.annotations.edit()["ray.io/ft-enabled"] = "true";   // the spec as it was
  CHECK(validate_rayjob_spec(copy, true).message().find("annotation and GcsFaultToleranceOptions are both set") !=
        std::string::npos);
}

TEST_CASE("kuberay-1.7: validation of the RayJob's cluster spec (ValidateRayClusterSpec)") {
  auto message = [](const std::function<void(RayJob&)>& breaking, OperatorSettings settings = {}) {
    const auto [status, result] = validate_once(breaking, std::move(settings));
    CHECK(status.job_deployment_status == "ValidationFailed");
    return status.message;
  };
  auto workers = [](RayJob& r) -> WorkerGroupSpec& {
    r.spec.edit().ray_cluster_spec->worker_group_specs = {WorkerGroupSpec{}};
    r.spec.edit().ray_cluster_spec->worker_group_specs[0].group_name = "small";
    return r.spec.edit().ray_cluster_spec->worker_group_specs[0];
  };
  CHECK(message([](RayJob& r) { r.spec.edit().ray_cluster_spec->head_group_spec.template_.containers.clear(); }) ==
        "The RayJob spec is invalid: headGroupSpec should have at least one container");
  CHECK(message([&](RayJob& r) { workers(r).min_replicas = -1; }) ==
        "The RayJob spec is invalid: worker group small has negative minReplicas -1");
  CHECK(message([&](RayJob& r) {
          WorkerGroupSpec& group = workers(r);
          group.min_replicas = 3;
          group.max_replicas = 2;
        }) == "The RayJob spec is invalid: worker group small has minReplicas 3 greater than maxReplicas 2");
  OperatorSettings gate_off;
  gate_off.feature_gates["RayJobDeletionPolicy"] = false;
  CHECK(message([&](RayJob& r) { workers(r).suspend = true; }, gate_off) ==
        "The RayJob spec is invalid: worker group small can be suspended only when the RayJobDeletionPolicy feature "
        "gate is enabled");
  CHECK(message([](RayJob& r) { r.metadata.name = "1demo"; }).find("(e.g. 'my-name',  or 'abc-123', regex used") !=
        std::string::npos);
}

TEST_CASE("kuberay-1.7: validation of rayStartParams labels, Redis and GCS fault tolerance, and the autoscaler v2 env") {
  // ValidateRayClusterSpec (VAL:L103-225) on fields rjsim carries: rayStartParams, the head Ray
  // container's env, the RayJob's annotations, gcsFaultToleranceOptions, enableInTreeAutoscaling.
  auto message = [](const std::function<void(RayJob&)>& breaking) {
    const auto [status, result] = validate_once(breaking);
    return status.job_deployment_status == "ValidationFailed" ? status.message : std::string("(valid)");
  };
  auto head_env = [](RayJob& r) -> StringMap& {
    return r.spec.edit().ray_cluster_spec->head_group_spec.template_.containers.front().env;
  };
  const std::string invalid = "The RayJob spec is invalid: ";
  CHECK(message([](RayJob& r) { r.spec.edit().ray_cluster_spec->head_group_spec.ray_start_params["labels"] = "a=b"; }) ==
        invalid + "rayStartParams['labels'] is not supported for Head group; please use the top-level Labels field instead");
  CHECK(message([](RayJob& r) {
          WorkerGroupSpec group;
          group.group_name = "small";
          group.ray_start_params["labels"] = "a=b";
          r.spec.edit().ray_cluster_spec->worker_group_specs = {group};
        }) == invalid + "rayStartParams['labels'] is not supported for small group; please use the top-level Labels "
                        "field instead");
  // RAY_REDIS_ADDRESS turns GCS fault tolerance on implicitly: refused unless it is on.
  CHECK(message([&](RayJob& r) { head_env(r)["RAY_REDIS_ADDRESS"] = "redis:6379"; }) ==
        invalid + "RAY_REDIS_ADDRESS is set which implicitly enables GCS fault tolerance, but GcsFaultToleranceOptions "
                  "is not set. Please set GcsFaultToleranceOptions to enable GCS fault tolerance");
  CHECK(message([&](RayJob& r) {
          head_env(r)["RAY_REDIS_ADDRESS"] = "redis:6379";
          r.metadata.annotations.edit()["ray.io/ft-enabled"] = "True";
        }) == "(valid)");
  CHECK(message([&](RayJob& r) {
          head_env(r)["RAY_REDIS_ADDRESS"] = "redis:6379";
          r.spec.edit().ray_cluster_spec->gcs_fault_tolerance_options = true;
        }) == invalid + "cannot set `RAY_REDIS_ADDRESS` env var in head Pod when GcsFaultToleranceOptions is enabled - "
                        "use GcsFaultToleranceOptions.RedisAddress instead");
  CHECK(message([](RayJob& r) {
          r.metadata.annotations.edit()["ray.io/ft-enabled"] = "true";
          r.spec.edit().ray_cluster_spec->gcs_fault_tolerance_options = true;
        }).find("ray.io/ft-enabled annotation and GcsFaultToleranceOptions are both set") != std::string::npos);
  const std::string username = invalid + "cannot set redis username in rayStartParams or environment variables - use "
                                         "GcsFaultToleranceOptions.RedisUsername instead";
  CHECK(message([](RayJob& r) { r.spec.edit().ray_cluster_spec->head_group_spec.ray_start_params["redis-username"] = "u"; }) ==
        username);
  CHECK(message([&](RayJob& r) { head_env(r)["REDIS_USERNAME"] = "u"; }) == username);
  // Autoscaler v2 by env needs in-tree autoscaling.
  CHECK(message([&](RayJob& r) { head_env(r)["RAY_enable_autoscaler_v2"] = "1"; }) ==
        invalid + "environment variable RAY_enable_autoscaler_v2 cannot be set to '1' when enableInTreeAutoscaling is "
                  "false. Please set enableInTreeAutoscaling: true to use autoscaler v2");
  CHECK(message([&](RayJob& r) {
          head_env(r)["RAY_enable_autoscaler_v2"] = "1";
          r.spec.edit().ray_cluster_spec->enable_in_tree_autoscaling = true;
        }) == "(valid)");
  CHECK(message([&](RayJob& r) { head_env(r)["RAY_enable_autoscaler_v2"] = "0"; }) == "(valid)");
}

TEST_CASE("kuberay-1.7: validation of the deletion strategy: gate, exclusivity, legacy and rules") {
  auto message = [](const std::function<void(RayJob&)>& breaking, OperatorSettings settings = {}) {
    const auto [status, result] = validate_once(breaking, std::move(settings));
    CHECK(status.job_deployment_status == "ValidationFailed");
    return status.message;
  };
  auto has = [](const std::string& text, const char* part) { return text.find(part) != std::string::npos; };
  auto rules = [](std::vector<DeletionRule> list) {
    return [list](RayJob& r) {
      r.spec.edit().shutdown_after_job_finishes = false;
      r.spec.edit().deletion_strategy = DeletionStrategy{};
      r.spec.edit().deletion_strategy->deletion_rules = list;
    };
  };
  const DeletionCondition on_succeeded{"SUCCEEDED", std::nullopt, 0};
  OperatorSettings gate_off;
  gate_off.feature_gates["RayJobDeletionPolicy"] = false;
  CHECK(has(message(rules({{"DeleteCluster", on_succeeded}}), gate_off), "feature gate must be enabled"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().deletion_strategy = DeletionStrategy{}; }), "cannot be empty"));
  CHECK(has(message([&](RayJob& r) {
              rules({{"DeleteCluster", on_succeeded}})(r);
              r.spec.edit().shutdown_after_job_finishes = true;
            }),
            "mutually exclusive"));
  CHECK(has(message([&](RayJob& r) {
              rules({{"DeleteCluster", on_succeeded}})(r);
              r.spec.edit().deletion_strategy->on_success_policy = "DeleteCluster";
            }),
            "Cannot use both"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().deletion_strategy = DeletionStrategy{"DeleteCluster", std::nullopt, {}}; }),
            "both DeletionStrategy.OnSuccess and DeletionStrategy.OnFailure"));
  CHECK(has(message([](RayJob& r) { r.spec.edit().deletion_strategy = DeletionStrategy{"DeleteNone", "DeleteCluster", {}}; }),
            "'DeleteNone'"));
  CHECK(has(message(rules({{"DeleteCluster", DeletionCondition{"SUCCEEDED", "Failed", 0}}})), "cannot set both"));
  CHECK(has(message(rules({{"DeleteCluster", DeletionCondition{std::nullopt, std::nullopt, 0}}})), "exactly one"));
  CHECK(has(message(rules({{"DeleteCluster", DeletionCondition{"SUCCEEDED", std::nullopt, -1}}})), "non-negative"));
  CHECK(has(message(rules({{"DeleteCluster", on_succeeded}, {"DeleteCluster", on_succeeded}})), "duplicate rule"));
  CHECK(has(message(rules({{"DeleteCluster", DeletionCondition{"SUCCEEDED", std::nullopt, 10}},
                           {"DeleteWorkers", DeletionCondition{"SUCCEEDED", std::nullopt, 20}}})),
            "DeleteCluster TTL (10) must be >= DeleteWorkers TTL (20)"));
}

TEST_CASE("kuberay-1.7: ValidationFailed overrides Complete, and a valid spec again only polls (sticky)") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = terminal_rayjob("Complete", "SUCCEEDED", 0);
  rayjob.spec.edit().runtime_env_yaml = "- bad";
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "ValidationFailed");
  RayJob fixed = *harness.truth<RayJob>("demo");
  fixed.spec.edit().runtime_env_yaml.clear();
  harness.put(fixed);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "ValidationFailed");
}

// ---- New (RJC:L166-178, L887-917) ----

TEST_CASE("kuberay-1.7: New adds the finalizer, chooses <job>-<5> names and persists Initializing with counters") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.world.now_ms = 7'000;
  harness.put(sample_rayjob());
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  const RayJob& stored = *harness.truth<RayJob>("demo");
  CHECK(has_finalizer(stored.metadata, "ray.io/rayjob-finalizer"));
  CHECK(stored.status.job_deployment_status == "Initializing");
  CHECK(stored.status.job_id.size() == std::string("demo-").size() + 5);
  CHECK(stored.status.ray_cluster_name.size() == std::string("demo-").size() + 5);
  CHECK(stored.status.ray_cluster_name != stored.status.job_id);
  CHECK(stored.status.start_time_ms == 7'000);
  CHECK(stored.status.succeeded == 0);
  CHECK(stored.status.failed == 0);
  CHECK(harness.writes() ==
        std::vector<std::string>{"update RayJob/default/demo", "update_status RayJob/default/demo"});
}

TEST_CASE("kuberay-1.7: New in InteractiveMode leaves Status.JobId empty") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().submission_mode = "InteractiveMode";
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_id.empty());
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Initializing");
}

// ---- Initializing (RJC:L179-236) ----

TEST_CASE("kuberay-1.7: Initializing creates the cluster <job>-<5> and mirrors its status while not ready") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(initializing_rayjob());
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  const RayCluster* cluster = harness.truth<RayCluster>("demo-abcde");
  REQUIRE(cluster);
  CHECK(cluster->metadata.labels->at("ray.io/job-submission-mode") == "K8sJobMode");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Initializing");
  // A later pass sees a cluster status that differs: it is written although JDS did not change.
  RayCluster changed = *cluster;
  changed.status.edit().state = "unhealthy";
  changed.status.edit().desired_worker_replicas = 1;
  harness.put(changed);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.ray_cluster_status->state == "unhealthy");
  CHECK(harness.writes() == std::vector<std::string>{"update_status RayJob/default/demo"});
}

TEST_CASE("kuberay-1.7: Initializing with a ready cluster creates the submitter Job with the 1.7 script") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().submitter_backoff_limit = 4;
  harness.put(rayjob);
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Running");
  const Job* job = harness.truth<Job>("demo");
  REQUIRE(job);
  CHECK(job->spec->backoff_limit == 4);
  const Container& container = job->spec->template_.containers.at(0);
  CHECK(container.command == std::vector<std::string>{"/bin/bash", "-ce", "--"});
  REQUIRE(container.args.size() == 1);
  const std::string& script = container.args[0];
  CHECK(script.find("if ! ray job status --address http://demo-abcde-head-svc.default.svc.cluster.local:8265 "
                    "demo-abcde >/dev/null 2>&1 ; then ray job submit --address") != std::string::npos);
  CHECK(script.find("--no-wait --submission-id demo-abcde -- python /home/ray/samples/sample_code.py ; fi ; "
                    "ray job logs --address") != std::string::npos);
  CHECK(script.find("--follow demo-abcde") != std::string::npos);
  CHECK(script.starts_with("until python -c"));
  CHECK(container.env.at("RAY_JOB_SUBMISSION_ID") == "demo-abcde");
}

TEST_CASE("kuberay-1.7: Initializing in InteractiveMode persists Waiting with the dashboard URL") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().submission_mode = "InteractiveMode";
  harness.put(rayjob);
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Waiting");
  CHECK_FALSE(status.dashboard_url.empty());
  CHECK(harness.truth<Job>("demo") == nullptr);
}

TEST_CASE("kuberay-1.7: Initializing in HTTPMode persists Running without a submitter Job") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().submission_mode = "HTTPMode";
  harness.put(rayjob);
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Running");
  CHECK(harness.truth<Job>("demo") == nullptr);
}

TEST_CASE("kuberay-1.7: Initializing in SidecarMode injects the submitter container into the head Pod template") {
  RayJobReconciler model;
  ModelHarness harness(model);
  bool restart_gate = false;
  SUBCASE("SidecarSubmitterRestart off") {}
  SUBCASE("SidecarSubmitterRestart on") {
    harness.operator_settings.feature_gates["SidecarSubmitterRestart"] = true;
    restart_gate = true;
  }
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().submission_mode = "SidecarMode";
  harness.put(rayjob);
  harness.reconcile("demo");
  const RayCluster* cluster = harness.truth<RayCluster>("demo-abcde");
  REQUIRE(cluster);
  const PodTemplate& head = cluster->spec->head_group_spec.template_;
  REQUIRE(head.containers.size() == 2);
  CHECK(head.containers[1].name == "ray-job-submitter");
  // Gate off: a blocking submit, and the Pod's restartPolicy. Gate on: --no-wait behind the
  // `ray job status` guard, then the logs followed, and the container restarts on failure
  // (getSubmitterContainer, RJC:L619-628).
  const std::string& script = head.containers[1].args.at(0);
  CHECK(script.find(restart_gate ? "ray job submit --address http://127.0.0.1:8265 --no-wait --submission-id"
                                 : "ray job submit --address http://127.0.0.1:8265 --submission-id") !=
        std::string::npos);
  CHECK((script.find("if ! ray job status") != std::string::npos) == restart_gate);
  CHECK(head.containers[1].restart_policy == (restart_gate ? "OnFailure" : ""));
  CHECK(head.restart_policy == "Never");
  CHECK(cluster->metadata.annotations->at("ray.io/disable-provisioned-head-restart") == "true");
}

TEST_CASE("kuberay-1.7: Initializing past activeDeadlineSeconds persists Failed/DeadlineExceeded, never retried") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob(0);
  rayjob.spec.edit().active_deadline_seconds = 10;
  rayjob.spec.edit().backoff_limit = 3;
  harness.put(rayjob);
  harness.world.now_ms = 10'000;
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.reason == "DeadlineExceeded");
  CHECK(status.failed == 1);
  CHECK(status.end_time_ms == 10'000);
}

TEST_CASE("kuberay-1.7: Initializing past preRunningDeadlineSeconds retries while backoffLimit allows") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob(0);
  rayjob.spec.edit().pre_running_deadline_seconds = 5;
  rayjob.spec.edit().backoff_limit = 1;
  harness.put(rayjob);
  harness.world.now_ms = 5'000;
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Retrying");
  CHECK(status.reason == "PreRunningDeadlineExceeded");
  // %v of the *metav1.Time StartTime (RJC:L1259)
  CHECK(status.message == "The RayJob has passed the preRunningDeadlineSeconds. StartTime: 2026-01-01 00:00:00 +0000 UTC. "
                          "PreRunningDeadlineSeconds: 5");
  CHECK(status.failed == 1);
  CHECK_FALSE(status.end_time_ms.has_value());   // a retried failure is never persisted as Failed
}

TEST_CASE("kuberay-1.7: Initializing with suspend persists Suspending before the deadlines") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob(0);
  rayjob.spec.edit().suspend = true;
  rayjob.spec.edit().active_deadline_seconds = 1;
  harness.put(rayjob);
  harness.world.now_ms = 5'000;
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
}

TEST_CASE("kuberay-1.7: New with a pre-filled status never leaves New and writes nothing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.metadata.finalizers = std::vector<std::string>{"ray.io/rayjob-finalizer"};
  rayjob.status.job_id = "demo-abcde";
  rayjob.status.ray_cluster_name = "demo-abcde";
  rayjob.status.job_status = "RUNNING";
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());   // reference §1.16 item 11
}

TEST_CASE("kuberay-1.7: Initializing with a ready cluster but no dashboard port returns an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initializing_rayjob());
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  Service service = head_service_for(cluster);
  service.spec.edit().ports.clear();
  harness.put(service);
  CHECK(harness.reconcile("demo").err);
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Initializing");
}

TEST_CASE("kuberay-1.7: Initializing with a selector whose cluster is missing returns an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().ray_cluster_spec.reset();
  rayjob.spec.edit().cluster_selector["ray.io/cluster"] = "demo-abcde";
  harness.put(rayjob);
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.err.message().find("clusterSelector mode is enabled") != std::string::npos);
  CHECK(harness.truth<RayCluster>("demo-abcde") == nullptr);
}

TEST_CASE("kuberay-1.7: Initializing with Metadata and rayVersion below 2.6.0 cannot build the submitter command") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.spec.edit().metadata["owner"] = "team-a";
  rayjob.spec.edit().ray_cluster_spec->ray_version = "2.5.0";
  harness.put(rayjob);
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));
  CHECK(harness.reconcile("demo").err.message().find("at least 2.6.0") != std::string::npos);
  CHECK(harness.truth<Job>("demo") == nullptr);
}

TEST_CASE("kuberay-1.7: the submitter command takes Metadata without a Ray version (no nil dereference)") {
  RayJob rayjob = running_rayjob();
  rayjob.spec.edit().metadata["owner"] = "team-a";
  rayjob.spec.edit().ray_cluster_spec.reset();
  std::vector<std::string> command;
  CHECK_FALSE(build_job_submit_command(rayjob, "K8sJobMode", false, command));
  const auto flag = std::find(command.begin(), command.end(), "--metadata-json");
  REQUIRE(flag != command.end());
  REQUIRE(flag + 1 != command.end());
  // strconv.Quote of the JSON: the quotes escaped, and a backslash in a value escaped twice over.
  CHECK(*(flag + 1) == R"("{\"owner\":\"team-a\"}")");
  rayjob.spec.edit().metadata["path"] = R"(C:\x)";
  CHECK_FALSE(build_job_submit_command(rayjob, "K8sJobMode", false, command));
  CHECK(*(std::find(command.begin(), command.end(), "--metadata-json") + 1) ==
        R"("{\"owner\":\"team-a\",\"path\":\"C:\\\\x\"}")");
}

TEST_CASE("kuberay-1.7: a deadline with a nil StartTime panics, which this release recovers as an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initializing_rayjob();
  rayjob.status.start_time_ms.reset();
  rayjob.spec.edit().active_deadline_seconds = 10;
  harness.put(rayjob);
  CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
}

// ---- Waiting (RJC:L237-248) ----

TEST_CASE("kuberay-1.7: Waiting without spec.jobId requeues without a write; with it persists Running") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob("InteractiveMode");
  rayjob.status.job_id.clear();
  rayjob.status.job_deployment_status = "Waiting";
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  rayjob = *harness.truth<RayJob>("demo");
  rayjob.spec.edit().job_id = "user-job";
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Running");
  CHECK(harness.truth<RayJob>("demo")->status.job_id == "user-job");
}

TEST_CASE("kuberay-1.7: Waiting past preRunningDeadlineSeconds persists Failed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob("InteractiveMode");
  rayjob.status.job_deployment_status = "Waiting";
  rayjob.spec.edit().pre_running_deadline_seconds = 30;
  harness.put(rayjob);
  harness.world.now_ms = 30'000;
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Failed");
  CHECK(harness.truth<RayJob>("demo")->status.reason == "PreRunningDeadlineExceeded");
}

// ---- Running (RJC:L249-365) ----

TEST_CASE("kuberay-1.7: Running creates the RayJob head Service <job>-head-svc selecting the cluster") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job());
  put_live_ray_head(harness, rayjob, "RUNNING");
  harness.reconcile("demo");
  const Service* service = harness.truth<Service>("demo-head-svc");
  REQUIRE(service);
  CHECK(controller_owner(service->metadata)->kind == Kind::RayJob);
  // common/job.go:L24-45 over common/service.go: the selector is HeadServiceLabels (L25-33), the
  // ports the defaults (L436-446, utils.GcsServerPortName) sorted by name (L135-139).
  const StringMap selector{{"ray.io/cluster", "demo-abcde"},
                           {"ray.io/node-type", "head"},
                           {"ray.io/identifier", "demo-abcde-head"},
                           {"app.kubernetes.io/name", "kuberay"},
                           {"app.kubernetes.io/created-by", "kuberay-operator"}};
  CHECK(service->spec->selector == selector);
  std::vector<std::string> port_names;
  for (const ServicePort& port : service->spec->ports) port_names.push_back(port.name);
  CHECK(port_names == std::vector<std::string>{"client", "dashboard", "gcs-server", "metrics", "serve"});
  CHECK(service->metadata.labels->at("ray.io/identifier") == "demo-head");
}

TEST_CASE("kuberay-1.7: Running points an existing head Service at a new cluster with an Update") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job());
  put_live_ray_head(harness, rayjob, "RUNNING");
  Service old_service;
  old_service.metadata.name = "demo-head-svc";
  old_service.metadata.namespace_ = "default";
  old_service.spec.edit().selector = {{"ray.io/cluster", "demo-old"}, {"ray.io/node-type", "head"}};
  harness.put(old_service);
  harness.reconcile("demo");
  CHECK(harness.truth<Service>("demo-head-svc")->spec->selector.at("ray.io/cluster") == "demo-abcde");
  CHECK(harness.events_of("api.update", "Service/default/demo-head-svc").size() == 1);
}

TEST_CASE("kuberay-1.7: Running with Ray SUCCEEDED and the submitter Job Complete persists Complete and counts it") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.world.now_ms = 50'000;
  harness.put(submitter_job("Complete", 49'000));
  put_live_ray_head(harness, rayjob, "SUCCEEDED", 48'000);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Complete");
  CHECK(status.job_status == "SUCCEEDED");
  CHECK(status.succeeded == 1);
  CHECK(status.failed == 0);
  CHECK(status.ray_job_end_time_ms == 48'000);
  CHECK(status.end_time_ms == 50'000);
}

TEST_CASE("kuberay-1.7: Running with Ray SUCCEEDED but the submitter unfinished mirrors and stays Running") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job());
  put_live_ray_head(harness, rayjob, "SUCCEEDED", 1'500);
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Running");
  CHECK(status.job_status == "SUCCEEDED");
}

TEST_CASE("kuberay-1.7: Running past the transition grace period after Ray's EndTime persists Complete") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_status = "SUCCEEDED";
  rayjob.status.ray_job_end_time_ms = 10'000;
  harness.put(rayjob);
  harness.world.now_ms = 310'000;
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Complete");
  CHECK(status.reason == "JobDeploymentStatusTransitionGracePeriodExceeded");
}

TEST_CASE("kuberay-1.7: the grace period comes from RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD_SECONDS") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.operator_settings.env["RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD_SECONDS"] = "20";
  RayJob rayjob = running_rayjob();
  rayjob.status.job_status = "FAILED";
  rayjob.status.ray_job_end_time_ms = 10'000;
  harness.put(rayjob);
  harness.world.now_ms = 30'000;
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Failed");
}

TEST_CASE("kuberay-1.7: Running 30 s after the submitter finished without a terminal Ray job forces FAILED") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job("Complete", 10'000));
  put_live_ray_head(harness, rayjob, "SUCCEEDED");
  harness.world.now_ms = 40'000;
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.job_status == "FAILED");
  CHECK(status.reason == "JobDeploymentStatusTransitionGracePeriodExceeded");
  CHECK(harness.events_of("dashboard.get_job_info").empty());   // decided before asking Ray
}

// Finding 001's fix (docs/findings/001-submitter-timeout-after-outage.md): the variant asks Ray
// first and applies the timeout only to an answer that is not terminal.
TEST_CASE("kuberay-1.7+ray-before-submitter-timeout: Ray's SUCCEEDED wins over the elapsed timeout; RUNNING does not") {
  for (const char* ray_status : {"SUCCEEDED", "RUNNING"}) {
    CAPTURE(ray_status);
    RayJobReconciler model(Fixes{.ray_before_submitter_timeout = true});
    CHECK(model.name() == "kuberay-1.7+ray-before-submitter-timeout");
    ModelHarness harness(model);
    const RayJob& rayjob = harness.put(running_rayjob());
    harness.put(submitter_job("Complete", 10'000));
    put_live_ray_head(harness, rayjob, ray_status);
    harness.world.now_ms = 40'000;
    harness.reconcile("demo");
    const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
    CHECK_FALSE(harness.events_of("dashboard.get_job_info").empty());   // asked Ray first
    if (std::string(ray_status) == "SUCCEEDED") {
      CHECK(status.job_deployment_status == "Complete");
      CHECK(status.job_status == "SUCCEEDED");
    } else {
      CHECK(status.job_deployment_status == "Failed");
      CHECK(status.reason == "JobDeploymentStatusTransitionGracePeriodExceeded");
    }
  }
  CHECK(make_model("kuberay-1.7+ray-before-submitter-timeout")->name() == "kuberay-1.7+ray-before-submitter-timeout");
}

TEST_CASE("kuberay-1.7: Running with a Failed submitter Job persists Failed/SubmissionFailed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.world.now_ms = 5'000;
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job("Failed", 4'000));
  put_live_ray_head(harness, rayjob, "RUNNING");
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.reason == "SubmissionFailed");
  CHECK(status.message.starts_with("Job submission has failed."));
}

TEST_CASE("kuberay-1.7: Running in K8sJobMode without the submitter Job in the cache returns an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  put_live_ray_head(harness, rayjob, "RUNNING");
  CHECK(is_not_found(harness.reconcile("demo").err));
}

TEST_CASE("kuberay-1.7: Running in K8sJobMode with a 404 before the submitter finished requeues without error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job());
  put_live_ray_head(harness, rayjob, "");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"create Service/default/demo-head-svc"});   // no status write
}

TEST_CASE("kuberay-1.7: Running with a 404 after the submitter finished persists Failed/AppFailed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.world.now_ms = 5'000;
  const RayJob& rayjob = harness.put(running_rayjob());
  harness.put(submitter_job("Complete", 4'000));
  put_live_ray_head(harness, rayjob, "");
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.reason == "AppFailed");
  CHECK(status.message == "Submitter completed but Ray job not found in RayCluster.");
}

TEST_CASE("kuberay-1.7: Running with Ray FAILED retries through Retrying while backoffLimit allows") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("HTTPMode");
  wanted.spec.edit().backoff_limit = 2;
  wanted.status.failed = 1;
  const RayJob& rayjob = harness.put(wanted);
  put_live_ray_head(harness, rayjob, "FAILED");
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Retrying");
  CHECK(status.failed == 2);
  CHECK(status.reason == "AppFailed");
}

TEST_CASE("kuberay-1.7: Running with Ray FAILED at the backoffLimit persists Failed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("HTTPMode");
  wanted.spec.edit().backoff_limit = 1;
  wanted.status.failed = 1;
  const RayJob& rayjob = harness.put(wanted);
  put_live_ray_head(harness, rayjob, "FAILED");
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.failed == 2);
}

TEST_CASE("kuberay-1.7: Running in HTTPMode submits on a 404 and requeues without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("HTTPMode"));
  put_live_ray_head(harness, rayjob, "");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"create Service/default/demo-head-svc"});
  REQUIRE(harness.world.ray->heads.back()->jobs.size() == 1);
  CHECK(harness.world.ray->heads.back()->jobs.front().submitted_by == "controller");
}

TEST_CASE("kuberay-1.7: Running with GetJobInfo failing arms the status-check timer once (a write)") {
  RayJobReconciler model;
  ModelHarness harness(model, DashboardBehaviour{5, 2'000, {Outage{0, 1'000'000}}});
  const RayJob& rayjob = harness.put(running_rayjob("HTTPMode"));
  put_live_ray_head(harness, rayjob, "RUNNING");
  harness.world.now_ms = 8'000;
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.truth<RayJob>("demo")->status.job_status_check_failure_start_time_ms == 8'000);
  harness.world.now_ms = 11'000;
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.events_of("api.update_status").empty());   // already armed: no write
}

TEST_CASE("kuberay-1.7: Running past the status-check timeout persists Failed, not retried") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.operator_settings.env["RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS"] = "60";
  RayJob rayjob = running_rayjob("HTTPMode");
  rayjob.spec.edit().backoff_limit = 3;
  rayjob.status.job_status_check_failure_start_time_ms = 1'000;
  harness.put(rayjob);
  harness.world.now_ms = 61'000;
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.reason == "JobStatusCheckTimeoutExceeded");
  // startTime.Format(time.DateTime) (RJC:L1351-1352)
  CHECK(status.message == "Job status checks have been failing since 2026-01-01 00:00:01; exceeded timeout of 60s");
}

TEST_CASE("kuberay-1.7: a successful GetJobInfo clears the status-check timer") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("HTTPMode");
  wanted.status.job_status = "RUNNING";
  wanted.status.job_status_check_failure_start_time_ms = 1'000;
  const RayJob& rayjob = harness.put(wanted);
  put_live_ray_head(harness, rayjob, "RUNNING");
  harness.world.now_ms = 5'000;
  harness.reconcile("demo");
  CHECK_FALSE(harness.truth<RayJob>("demo")->status.job_status_check_failure_start_time_ms.has_value());
}

TEST_CASE("kuberay-1.7: Running in SidecarMode without a head Pod persists Failed/AppFailed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("SidecarMode"));
  put_live_ray_head(harness, rayjob, "RUNNING");
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.message == "Ray head pod not found.");
}

TEST_CASE("kuberay-1.7: Running in SidecarMode with the submitter container exited non-zero persists SubmissionFailed") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("SidecarMode"));
  put_live_ray_head(harness, rayjob, "RUNNING");
  Pod head;
  head.metadata.name = "demo-abcde-head";
  head.metadata.namespace_ = "default";
  head.metadata.labels = StringMap{{"ray.io/cluster", "demo-abcde"}, {"ray.io/node-type", "head"}};
  // RJC:L1111-1112 print State.Terminated.Reason, the kubelet's: an OOM-killed sidecar says so.
  std::string expected_message;
  SUBCASE("exit code 1") {
    head.status.container_statuses.push_back({"ray-job-submitter", false, 0, "terminated", 1, 500, "Error", std::nullopt});
    expected_message = "Ray head pod container ray-job-submitter terminated with exit code 1: Error";
  }
  SUBCASE("OOM-killed") {
    head.status.container_statuses.push_back({"ray-job-submitter", false, 0, "terminated", 137, 500, "OOMKilled", std::nullopt});
    expected_message = "Ray head pod container ray-job-submitter terminated with exit code 137: OOMKilled";
  }
  harness.put(head);
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Failed");
  CHECK(status.reason == "SubmissionFailed");
  CHECK(status.message == expected_message);
}

TEST_CASE("kuberay-1.7: Running with suspend persists Suspending") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.spec.edit().suspend = true;
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
}

TEST_CASE("kuberay-1.7: Running re-creates a RayCluster that vanished, with the same name") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob("HTTPMode"));
  harness.reconcile("demo");
  CHECK(harness.truth<RayCluster>("demo-abcde") != nullptr);
}

TEST_CASE("kuberay-1.7: Running in HTTPMode with a failing submit arms the status-check timer") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("HTTPMode");
  // ConvertRayJobToReq fails unless entrypointResources decodes into a map[string]float32
  // (fidelity-1.7.md D4): a syntax error, or valid JSON of another shape.
  SUBCASE("not JSON") { wanted.spec.edit().entrypoint_resources = "{not json"; }
  SUBCASE("a string where a number goes") { wanted.spec.edit().entrypoint_resources = R"({"GPU": "one"})"; }
  SUBCASE("an array") { wanted.spec.edit().entrypoint_resources = "[1]"; }
  const RayJob& rayjob = harness.put(wanted);
  put_live_ray_head(harness, rayjob, "");
  harness.world.now_ms = 4'000;
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.truth<RayJob>("demo")->status.job_status_check_failure_start_time_ms == 4'000);
  CHECK(harness.world.ray->heads.back()->jobs.empty());
}

TEST_CASE("kuberay-1.7: SidecarMode with SidecarSubmitterRestart fails only past the restart count") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.operator_settings.feature_gates["SidecarSubmitterRestart"] = true;
  const RayJob& rayjob = harness.put(running_rayjob("SidecarMode"));
  put_live_ray_head(harness, rayjob, "RUNNING");
  Pod head;
  head.metadata.name = "demo-abcde-head";
  head.metadata.namespace_ = "default";
  head.metadata.labels = StringMap{{"ray.io/cluster", "demo-abcde"}, {"ray.io/node-type", "head"}};
  ContainerStatus submitter;
  submitter.name = "ray-job-submitter";
  submitter.restart_count = 2;
  submitter.state = "running";
  std::string deployment_status = "Failed";
  // RJC:L1216-1232: only a container with a lastState counts its restarts, and not once it exited 0.
  SUBCASE("restarted twice, running again") {
    submitter.last_termination_state = ContainerTerminated{137, "Error", 400};
  }
  SUBCASE("restarted twice, waiting in CrashLoopBackOff") {
    submitter.state = "waiting";
    submitter.reason = "CrashLoopBackOff";
    submitter.last_termination_state = ContainerTerminated{1, "Error", 400};
  }
  SUBCASE("restarted once: under the default limit 2") {
    submitter.restart_count = 1;
    submitter.last_termination_state = ContainerTerminated{1, "Error", 400};
    deployment_status = "Running";
  }
  SUBCASE("a restart count without a lastState") { deployment_status = "Running"; }
  SUBCASE("restarted twice, then exited 0") {
    submitter.state = "terminated";
    submitter.exit_code = 0;
    submitter.finished_at_ms = 500;
    submitter.reason = "Completed";
    submitter.last_termination_state = ContainerTerminated{1, "Error", 400};
    deployment_status = "Running";
  }
  head.status.container_statuses.push_back(submitter);
  harness.put(head);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == deployment_status);
  if (deployment_status == "Failed") {
    CHECK(harness.truth<RayJob>("demo")->status.reason == "SubmissionFailed");
    CHECK(harness.truth<RayJob>("demo")->status.message ==
          "Ray head pod submitter container ray-job-submitter terminated after exceeding the maximum restart count");
  }
}

// ---- Suspending / Retrying (RJC:L366-410) ----

TEST_CASE("kuberay-1.7: Suspending deletes the cluster and the Job and waits for the cache to lose them") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "Suspending";
  harness.put(rayjob);
  harness.put(cluster_for(rayjob, "ready"));
  harness.put(submitter_job());
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
  CHECK(harness.events_of("api.delete").size() == 2);
}

// Finding 002 (docs/findings/002-suspended-before-cluster-cached.md): the RayCluster was created
// (it is in the API server) but its ADDED event is not in the cache yet when Suspending reads it.
void create_uncached_cluster(ModelHarness& harness, const RayJob& rayjob) {
  engine::Object cluster = cluster_for(rayjob, "");
  harness.world.api.create(cluster, harness.world.now_ms);   // no sync: the event stays pending
  harness.faults.max_lag = 1;                                 // and the read may leave it so
}

TEST_CASE("kuberay-1.7: Suspending takes a cache NotFound for a deleted cluster and persists Suspended") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "Suspending";
  create_uncached_cluster(harness, harness.put(rayjob));
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "Suspended");
  CHECK(status.ray_cluster_name.empty());
  CHECK(harness.world.api.find<RayCluster>("default", rayjob.status.ray_cluster_name) != nullptr);   // left running
  CHECK(harness.events_of("api.get").empty());   // v1.7.0 never reads past its cache
}

TEST_CASE("kuberay-1.7+api-reader-confirms-deletion: the API reader finds the cluster; it is deleted, not forgotten") {
  RayJobReconciler model(Fixes{.api_reader_confirms_deletion = true});
  CHECK(model.name() == "kuberay-1.7+api-reader-confirms-deletion");
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "Suspending";
  create_uncached_cluster(harness, harness.put(rayjob));
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspending");
  CHECK(harness.events_of("api.get").size() == 2);      // the cluster, then the Job (found: none)
  CHECK(harness.events_of("api.delete").size() == 1);   // the cluster the cache had not seen
  CHECK(harness.world.api.find<RayCluster>("default", rayjob.status.ray_cluster_name) == nullptr);   // no finalizer

  harness.sync();   // the cluster is gone from the server and the cache: now Suspended
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspended");
  CHECK(make_model("kuberay-1.7+api-reader-confirms-deletion")->name() == "kuberay-1.7+api-reader-confirms-deletion");
}

// Finding 003 (docs/findings/003-suspended-while-pods-run.md): the RayCluster and the submitter Job
// are gone, their Pods are not (the garbage collector deletes them later, and a running Pod stays
// for its grace period). The submitter's Pod has no ray.io/node-type label, so the operator's
// cache never holds it (managercache/cache.go).
Pod leftover_pod(const std::string& name, StringMap labels) {
  Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = "default";
  pod.metadata.labels = std::move(labels);
  return pod;
}
const StringMap kHeadPodLabels{{"ray.io/cluster", "demo-abcde"}, {"ray.io/node-type", "head"}};
const StringMap kSubmitterPodLabels{{"batch.kubernetes.io/job-name", "demo"}, {"job-name", "demo"}};

TEST_CASE("kuberay-1.7: Suspending persists Suspended with the cluster's and the submitter's Pods still there") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "Suspending";
  harness.put(rayjob);
  harness.put(leftover_pod("demo-abcde-head", kHeadPodLabels));
  harness.put(leftover_pod("demo-xyz12", kSubmitterPodLabels));
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspended");
  CHECK(harness.events_of("api.list").empty());   // v1.7.0 never looks at the Pods
}

TEST_CASE("kuberay-1.7+wait-for-pods-deleted: Suspending and Retrying wait until the API server holds none of their Pods") {
  RayJobReconciler model(Fixes{.wait_for_pods_deleted = true});
  CHECK(model.name() == "kuberay-1.7+wait-for-pods-deleted");
  CHECK(make_model("kuberay-1.7+wait-for-pods-deleted")->name() == "kuberay-1.7+wait-for-pods-deleted");
  std::string pod_name = "demo-abcde-head";
  StringMap pod_labels = kHeadPodLabels;
  SUBCASE("a Pod of the RayCluster") {}
  SUBCASE("the submitter's Pod, which the cache does not hold") {
    pod_name = "demo-xyz12";
    pod_labels = kSubmitterPodLabels;
  }
  using Edge = std::pair<std::string, std::string>;   // the state, and what it persists once the Pods are gone
  for (const Edge& edge : {Edge{"Suspending", "Suspended"}, Edge{"Retrying", ""}}) {
    const std::string& state = edge.first;
    const std::string& next = edge.second;
    CAPTURE(state);
    ModelHarness harness(model);
    RayJob rayjob = running_rayjob();
    rayjob.status.job_deployment_status = state;
    harness.put(rayjob);
    harness.put(leftover_pod(pod_name, pod_labels));
    CHECK(is_requeue_without_error(harness.reconcile("demo")));
    CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == state);
    CHECK_FALSE(harness.events_of("api.list").empty());

    harness.world.api.remove(Kind::Pod, "default", pod_name, Propagation::background, harness.world.now_ms);
    harness.sync();
    harness.reconcile("demo");
    CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == next);
  }
}

TEST_CASE("kuberay-1.7+wait-for-pods-deleted: no wait for Pods it does not own") {
  RayJobReconciler model(Fixes{.wait_for_pods_deleted = true});
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob("HTTPMode");
  SUBCASE("clusterSelector: the selected cluster's Pods are not the RayJob's") {
    rayjob = running_rayjob();
    rayjob.spec.edit().cluster_selector = {{"ray.io/cluster", "demo-abcde"}};
    harness.put(leftover_pod("demo-abcde-head", kHeadPodLabels));
  }
  SUBCASE("HTTPMode: no submitter Job, so a Pod named after one is not its") {
    harness.put(leftover_pod("demo-xyz12", kSubmitterPodLabels));
  }
  rayjob.status.job_deployment_status = "Suspending";
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "Suspended");
}

TEST_CASE("kuberay-1.7: Retrying with both gone persists New and resets the attempt's fields, keeps counters") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "Retrying";
  rayjob.status.reason = "AppFailed";
  rayjob.status.job_status = "FAILED";
  rayjob.status.failed = 1;
  rayjob.status.ray_job_end_time_ms = 9;
  harness.put(rayjob);
  harness.reconcile("demo");
  const RayJobStatus& status = harness.truth<RayJob>("demo")->status;
  CHECK(status.job_deployment_status == "");
  CHECK(status.job_status == "");
  CHECK(status.reason == "");
  CHECK(status.job_id.empty());
  CHECK(status.ray_cluster_name.empty());
  CHECK_FALSE(status.ray_job_end_time_ms.has_value());
  CHECK(status.failed == 1);
}

// ---- Suspended (RJC:L411-419) ----

TEST_CASE("kuberay-1.7: Suspended with suspend set is done without requeue; cleared it persists New") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().suspend = true;
  rayjob.status.job_deployment_status = "Suspended";
  harness.put(rayjob);
  CHECK(is_done(harness.reconcile("demo")));
  rayjob = *harness.truth<RayJob>("demo");
  rayjob.spec.edit().suspend = false;
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.truth<RayJob>("demo")->status.job_deployment_status == "");
}

// ---- Complete / Failed (RJC:L420-447) ----

TEST_CASE("kuberay-1.7: Complete before its TTL requeues until EndTime+TTL+2s") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = terminal_rayjob("Complete", "SUCCEEDED", 10'000);
  rayjob.spec.edit().ttl_seconds_after_finished = 60;
  harness.put(rayjob);
  harness.world.now_ms = 20'000;
  CHECK(harness.reconcile("demo").requeue_after_ms == 52'000);
}

TEST_CASE("kuberay-1.7: Complete after its TTL deletes the cluster and keeps the Job") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(terminal_rayjob("Complete", "SUCCEEDED", 0));
  harness.put(cluster_for(rayjob, "ready"));
  harness.put(submitter_job("Complete"));
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-abcde"});
}

TEST_CASE("kuberay-1.7: DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true deletes the RayJob instead of the cluster") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.operator_settings.env["DELETE_RAYJOB_CR_AFTER_JOB_FINISHES"] = "True";
  const RayJob& rayjob = harness.put(terminal_rayjob("Complete", "SUCCEEDED", 0));
  harness.put(cluster_for(rayjob, "ready"));
  harness.reconcile("demo");
  CHECK(harness.writes() == std::vector<std::string>{"delete RayJob/default/demo"});
}

TEST_CASE("kuberay-1.7: Complete with a ClusterSelector is done at once") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = terminal_rayjob("Complete", "SUCCEEDED", 0);
  rayjob.spec.edit().ray_cluster_spec.reset();
  rayjob.spec.edit().cluster_selector["ray.io/cluster"] = "demo-abcde";
  harness.put(rayjob);
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

RayJob with_rules(RayJob rayjob, std::vector<DeletionRule> rules) {
  rayjob.spec.edit().shutdown_after_job_finishes = false;
  rayjob.spec.edit().deletion_strategy = DeletionStrategy{};
  rayjob.spec.edit().deletion_strategy->deletion_rules = std::move(rules);
  return rayjob;
}

TEST_CASE("kuberay-1.7: deletion rules run only the most impactful overdue rule and requeue for the next") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const DeletionCondition now{"SUCCEEDED", std::nullopt, 0};
  const DeletionCondition later{"SUCCEEDED", std::nullopt, 100};
  const RayJob& rayjob = harness.put(
      with_rules(terminal_rayjob("Complete", "SUCCEEDED", 0),
                 {{"DeleteWorkers", now}, {"DeleteCluster", now}, {"DeleteSelf", later}}));
  harness.put(cluster_for(rayjob, "ready"));
  harness.world.now_ms = 10'000;
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-abcde"});
  CHECK(result.requeue_after_ms == 92'000);
}

TEST_CASE("kuberay-1.7: DeleteWorkers suspends every worker group with an Update of the cluster") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(with_rules(terminal_rayjob("Failed", "FAILED", 0),
                                                {{"DeleteWorkers", DeletionCondition{std::nullopt, "Failed", 0}}}));
  harness.put(cluster_for(rayjob, "ready"));
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.truth<RayCluster>("demo-abcde")->spec->worker_group_specs.at(0).suspend == true);
  harness.reconcile("demo");   // completed now: nothing more
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.7: DeleteSelf deletes the RayJob; DeleteNone does nothing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(with_rules(terminal_rayjob("Complete", "SUCCEEDED", 0),
                         {{"DeleteNone", DeletionCondition{"SUCCEEDED", std::nullopt, 0}},
                          {"DeleteSelf", DeletionCondition{"FAILED", std::nullopt, 0}}}));
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  RayJob failed = *harness.truth<RayJob>("demo");
  failed.status.job_status = "FAILED";
  harness.put(failed);
  harness.reconcile("demo");
  CHECK(harness.writes() == std::vector<std::string>{"delete RayJob/default/demo"});
}

TEST_CASE("kuberay-1.7: a DeleteSelf rule never runs with a ClusterSelector (Done first)") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = with_rules(terminal_rayjob("Complete", "SUCCEEDED", 0),
                             {{"DeleteSelf", DeletionCondition{"SUCCEEDED", std::nullopt, 0}}});
  rayjob.spec.edit().ray_cluster_spec.reset();
  rayjob.spec.edit().cluster_selector["ray.io/cluster"] = "demo-abcde";
  harness.put(rayjob);
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());   // reference §1.16 item 9
}

TEST_CASE("kuberay-1.7: the legacy policy picks OnSuccess or OnFailure by JobStatus and ignores STOPPED") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = terminal_rayjob("Complete", "STOPPED", 0);
  rayjob.spec.edit().shutdown_after_job_finishes = false;
  rayjob.spec.edit().deletion_strategy = DeletionStrategy{"DeleteCluster", "DeleteSelf", {}};
  harness.put(rayjob);
  harness.put(cluster_for(rayjob, "ready"));
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  rayjob = *harness.truth<RayJob>("demo");
  rayjob.status.job_status = "SUCCEEDED";
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-abcde"});
}

TEST_CASE("kuberay-1.7: an unknown JobDeploymentStatus polls every 3 s without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  rayjob.status.job_deployment_status = "Mystery";
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.7: the transition table has the retry and validation edges but no way out of terminal") {
  RayJobReconciler model;
  const auto table = model.transition_table();
  auto has = [&](const char* from, const char* to) {
    return std::find(table.begin(), table.end(), std::pair<std::string, std::string>{from, to}) != table.end();
  };
  CHECK(has("Running", "Retrying"));
  CHECK(has("Retrying", ""));
  CHECK(has("Complete", "ValidationFailed"));
  CHECK(has("Waiting", "Running"));
  CHECK_FALSE(has("Complete", "Running"));
  CHECK_FALSE(has("Failed", "Retrying"));
  CHECK_FALSE(has("Waiting", "Retrying"));
  CHECK_FALSE(has("ValidationFailed", "Running"));
}

}  // namespace
}  // namespace kuberay_1_7_test
}  // namespace rjsim::models::kuberay_1_7

namespace rjsim::models::shared {

TEST_CASE("Go time formatting: time.DateTime drops sub-seconds; Time.String trims the fraction's zeros, in UTC") {
  CHECK(go_date_time(41'250) == "2026-01-01 00:00:41");
  CHECK(go_date_time(86'400'000) == "2026-01-02 00:00:00");
  CHECK(go_time_string(0) == "2026-01-01 00:00:00 +0000 UTC");
  CHECK(go_time_string(1'250) == "2026-01-01 00:00:01.25 +0000 UTC");
}

}  // namespace rjsim::models::shared

