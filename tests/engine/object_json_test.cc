// The Kubernetes JSON form of the typed objects (object_json.h): Kubernetes field names, omitted
// empty fields, RFC 3339 times on the virtual epoch, an exact round trip for every kind, unknown
// fields ignored, known fields of the wrong type reported by JSON path, and RFC 7386 merge patches.
#include "engine/object_json.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace object_json_test {
namespace {

using nlohmann::json;
using rjsim::engine::apply_merge_patch;
using rjsim::engine::Container;
using rjsim::engine::ContainerStatus;
using rjsim::engine::ContainerTerminated;
using rjsim::engine::DeletionRule;
using rjsim::engine::DeletionStrategy;
using rjsim::engine::format_timestamp;
using rjsim::engine::Job;
using rjsim::engine::JobCondition;
using rjsim::engine::json_path_index;
using rjsim::engine::json_path_key;
using rjsim::engine::Kind;
using rjsim::engine::kVirtualEpochUnixMs;
using rjsim::engine::Object;
using rjsim::engine::object_from_json;
using rjsim::engine::ObjectFormatError;
using rjsim::engine::ObjectMeta;
using rjsim::engine::OwnerReference;
using rjsim::engine::parse_timestamp;
using rjsim::engine::Pod;
using rjsim::engine::PodTemplate;
using rjsim::engine::RayCluster;
using rjsim::engine::RayClusterSpec;
using rjsim::engine::RayClusterStatus;
using rjsim::engine::RayJob;
using rjsim::engine::rayjob_from_json;
using rjsim::engine::Service;
using rjsim::engine::ServicePort;
using rjsim::engine::to_json;
using rjsim::engine::WorkerGroupSpec;

ObjectMeta full_meta(const std::string& name) {
  ObjectMeta meta;
  meta.name = name;
  meta.namespace_ = "team-a";
  meta.uid = "uid-" + name;
  meta.resource_version = 1042;
  meta.generation = 3;
  meta.creation_timestamp_ms = 1'500;
  meta.deletion_timestamp_ms = 61'000;
  meta.labels = rjsim::engine::StringMap{{"ray.io/cluster", "demo-abcde"}, {"app", "x"}};
  meta.annotations = rjsim::engine::StringMap{{"note", "hello"}};
  meta.owner_references = std::vector<OwnerReference>{OwnerReference{"ray.io/v1", Kind::RayJob, "demo", "uid-demo", true, true},
                           OwnerReference{"v1", Kind::Service, "svc", "uid-svc", false, false}};
  meta.finalizers = std::vector<std::string>{"ray.io/rayjob-finalizer", "foregroundDeletion"};
  return meta;
}

PodTemplate full_template() {
  PodTemplate pod_template;
  pod_template.labels = {{"role", "submitter"}};
  pod_template.annotations = {{"a", "b"}};
  Container container;
  container.name = "ray-job-submitter";
  container.image = "rayproject/ray:2.52.0";
  container.command = {"sh", "-c"};
  container.args = {"ray job submit -- python main.py"};
  container.env = {{"PYTHONUNBUFFERED", "1"}, {"EMPTY", ""}};
  pod_template.containers = {container, Container{"sidecar", "", {}, {}, {}, "OnFailure"}};
  pod_template.restart_policy = "Never";
  return pod_template;
}

RayClusterSpec full_cluster_spec() {
  RayClusterSpec spec;
  spec.ray_version = "2.52.0";
  spec.suspend = false;
  spec.head_group_spec.ray_start_params = {{"dashboard-host", "0.0.0.0"}};
  spec.head_group_spec.template_ = full_template();
  spec.head_group_spec.head_service_name = "custom-head-svc";
  spec.worker_group_specs = {WorkerGroupSpec{"small-group", 1, 1, 5, 1, std::nullopt, {{"num-cpus", "2"}}, {}},
                             WorkerGroupSpec{"multi-host", 2, std::nullopt, std::nullopt, 4, true, {}, {}}};
  spec.enable_in_tree_autoscaling = false;
  spec.gcs_fault_tolerance_options = true;
  return spec;
}

RayClusterStatus full_cluster_status() {
  RayClusterStatus status;
  status.state = "ready";
  status.ready_worker_replicas = 1;
  status.available_worker_replicas = 1;
  status.desired_worker_replicas = 2;
  status.min_worker_replicas = 1;
  status.max_worker_replicas = 5;
  status.endpoints = {{"dashboard", "8265"}};
  status.head = {"10.244.0.1", "10.96.0.1", "demo-abcde-head", "demo-abcde-head-svc"};
  status.conditions = {{"HeadPodReady", "True", "HeadPodRunningAndReady", "", 19'000},
                       {"RayClusterProvisioned", "False", "RayClusterPodsProvisioning", "being provisioned", 3'000}};
  status.observed_generation = 2;
  status.last_update_time_ms = 20'000;
  return status;
}

RayJob full_rayjob() {
  RayJob rayjob;
  rayjob.metadata = full_meta("demo");
  rayjob.spec.edit().entrypoint = "python main.py";
  rayjob.spec.edit().metadata = {{"owner", "me"}};
  rayjob.spec.edit().runtime_env_yaml = "pip:\n  - requests\n";
  rayjob.spec.edit().job_id = "my-job";
  rayjob.spec.edit().shutdown_after_job_finishes = true;
  rayjob.spec.edit().ttl_seconds_after_finished = 10;
  rayjob.spec.edit().active_deadline_seconds = 120;
  rayjob.spec.edit().pre_running_deadline_seconds = 300;
  rayjob.spec.edit().backoff_limit = 2;
  rayjob.spec.edit().ray_cluster_spec = full_cluster_spec();
  rayjob.spec.edit().cluster_selector = {{"ray.io/cluster", "existing"}};
  rayjob.spec.edit().submission_mode = "HTTPMode";
  rayjob.spec.edit().suspend = true;
  rayjob.spec.edit().submitter_pod_template = full_template();
  rayjob.spec.edit().submitter_config = true;
  rayjob.spec.edit().submitter_backoff_limit = 3;
  rayjob.spec.edit().managed_by = "kueue.x-k8s.io/multikueue";
  DeletionStrategy strategy;
  strategy.on_success_policy = "DeleteCluster";
  strategy.on_failure_policy = "DeleteNone";
  strategy.deletion_rules = {DeletionRule{"DeleteWorkers", {"SUCCEEDED", std::nullopt, 30}},
                             DeletionRule{"DeleteSelf", {std::nullopt, "Failed", 0}}};
  rayjob.spec.edit().deletion_strategy = strategy;
  rayjob.spec.edit().entrypoint_num_cpus = 1.5;
  rayjob.spec.edit().entrypoint_num_gpus = 0.25;
  rayjob.spec.edit().entrypoint_resources = R"({"custom": 1})";
  rayjob.status.job_id = "demo-xk2p9";
  rayjob.status.ray_cluster_name = "demo-raycluster-b7q4m";
  rayjob.status.dashboard_url = "demo-raycluster-b7q4m-head-svc.team-a.svc.cluster.local:8265";
  rayjob.status.job_status = "RUNNING";
  rayjob.status.job_deployment_status = "Running";
  rayjob.status.reason = "AppFailed";
  rayjob.status.message = "it failed";
  rayjob.status.start_time_ms = 0;
  rayjob.status.end_time_ms = 90'250;
  rayjob.status.ray_job_start_time_ms = 25'000;
  rayjob.status.ray_job_end_time_ms = 85'000;
  rayjob.status.succeeded = 0;
  rayjob.status.failed = 1;
  rayjob.status.ray_cluster_status = full_cluster_status();
  rayjob.status.job_status_check_failure_start_time_ms = 40'000;
  rayjob.status.observed_generation = 3;
  return rayjob;
}

RayCluster full_raycluster() {
  RayCluster cluster;
  cluster.metadata = full_meta("demo-raycluster-b7q4m");
  cluster.spec = full_cluster_spec();
  cluster.status = full_cluster_status();
  return cluster;
}

Service full_service() {
  Service service;
  service.metadata = full_meta("demo-head-svc");
  service.spec.edit().selector = {{"ray.io/node-type", "head"}};
  service.spec.edit().ports = {ServicePort{"dashboard", 8265}, ServicePort{"", 6379}};
  service.spec.edit().cluster_ip = "10.96.0.7";
  return service;
}

Job full_job() {
  Job job;
  job.metadata = full_meta("demo");
  job.spec.edit().backoff_limit = 2;
  job.spec.edit().active_deadline_seconds = 600;
  job.spec.edit().suspend = false;
  job.spec.edit().template_ = full_template();
  job.status.active = 1;
  job.status.succeeded = 0;
  job.status.failed = 2;
  job.status.start_time_ms = 22'000;
  job.status.completion_time_ms = 95'000;
  job.status.conditions = {JobCondition{"Failed", "True", "BackoffLimitExceeded", "too many", 95'000},
                           JobCondition{"FailureTarget", "True", "", "", 0}};
  return job;
}

Pod full_pod() {
  Pod pod;
  pod.metadata = full_meta("demo-abcde");
  pod.spec.edit().containers = full_template().containers;
  pod.spec.edit().restart_policy = "Never";
  pod.status.phase = "Failed";
  pod.status.pod_ip = "10.244.0.9";
  pod.status.ready = false;
  pod.status.container_statuses = {ContainerStatus{"ray-job-submitter", false, 2, "terminated", 1, 94'000, "Error",
                                                   ContainerTerminated{137, "Error", 61'000}},
                                   ContainerStatus{"sidecar", true, 0, "running", std::nullopt, std::nullopt, "", std::nullopt},
                                   ContainerStatus{"init", false, 0, "", std::nullopt, std::nullopt, "", std::nullopt}};
  return pod;
}

std::vector<Object> full_objects() {
  return {full_rayjob(), full_raycluster(), full_service(), full_job(), full_pod()};
}

// The path of the ObjectFormatError that reading `value` as `kind` throws, or "" if none.
std::string error_path(const json& value, Kind kind) {
  try {
    (void)object_from_json(value, kind);
  } catch (const ObjectFormatError& e) {
    return e.path;
  }
  return "";
}

}  // namespace

TEST_CASE("virtual time 0 is 2026-01-01T00:00:00Z and times keep their milliseconds") {
  CHECK(kVirtualEpochUnixMs == 1'767'225'600'000);
  CHECK(format_timestamp(0) == "2026-01-01T00:00:00Z");
  CHECK(format_timestamp(5'000) == "2026-01-01T00:00:05Z");
  CHECK(format_timestamp(5'250) == "2026-01-01T00:00:05.250Z");
  CHECK(format_timestamp(3'600'000LL * 24 * 59) == "2026-03-01T00:00:00Z");
  CHECK(format_timestamp(-1) == "2025-12-31T23:59:59.999Z");

  std::int64_t ms = -42;
  CHECK(parse_timestamp("2026-01-01T00:00:05Z", ms));
  CHECK(ms == 5'000);
  CHECK(parse_timestamp("2026-01-01T00:00:05.250Z", ms));
  CHECK(ms == 5'250);
  CHECK(parse_timestamp("2026-01-01T00:00:05.123456789Z", ms));   // MicroTime and finer: truncated
  CHECK(ms == 5'123);
  CHECK(parse_timestamp("2026-01-01T02:00:05+02:00", ms));
  CHECK(ms == 5'000);
  CHECK(parse_timestamp("2025-12-31T23:00:00-01:00", ms));
  CHECK(ms == 0);
  CHECK(parse_timestamp("2023-07-11t10:00:00z", ms));
  CHECK(ms < 0);
  for (std::int64_t t : {0LL, 1LL, 999LL, 86'399'999LL, -86'400'001LL, 400LL * 86'400'000 * 366}) {
    std::int64_t back = 0;
    CHECK(parse_timestamp(format_timestamp(t), back));
    CHECK(back == t);
  }
  for (const char* bad : {"", "2026-01-01", "2026-01-01T00:00:00", "2026-02-30T00:00:00Z",
                          "2026-01-01T24:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00.Z",
                          "2026-01-01T00:00:00Z trailing", "5s"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_timestamp(bad, ms));
  }
}

TEST_CASE("every kind survives the round trip through Kubernetes JSON") {
  for (const Object& object : full_objects()) {
    CAPTURE(to_json(object).dump());
    CHECK(object_from_json(to_json(object), kind_of(object)) == object);
    // Through text too: what a log or a file holds reads back the same.
    CHECK(object_from_json(json::parse(to_json(object).dump()), kind_of(object)) == object);
  }
  // And the defaults: nothing set reads back as nothing set.
  for (const Object& object : {Object{RayJob{}}, Object{RayCluster{}}, Object{Service{}}, Object{Job{}},
                               Object{Pod{}}}) {
    CHECK(object_from_json(to_json(object), kind_of(object)) == object);
  }
}

TEST_CASE("to_json writes Kubernetes field names, apiVersion and kind, and a string resourceVersion") {
  const json rayjob = to_json(full_rayjob());
  CHECK(rayjob["apiVersion"] == "ray.io/v1");
  CHECK(rayjob["kind"] == "RayJob");
  CHECK(rayjob["metadata"]["resourceVersion"] == "1042");
  CHECK(rayjob["metadata"]["creationTimestamp"] == "2026-01-01T00:00:01.500Z");
  CHECK(rayjob["metadata"]["ownerReferences"][0] ==
        json{{"apiVersion", "ray.io/v1"}, {"kind", "RayJob"}, {"name", "demo"}, {"uid", "uid-demo"},
             {"controller", true}, {"blockOwnerDeletion", true}});
  CHECK(rayjob["spec"]["shutdownAfterJobFinishes"] == true);
  CHECK(rayjob["spec"]["runtimeEnvYAML"] == "pip:\n  - requests\n");
  CHECK(rayjob["spec"]["submitterConfig"]["backoffLimit"] == 3);
  CHECK(rayjob["spec"]["deletionStrategy"]["onSuccess"]["policy"] == "DeleteCluster");
  CHECK(rayjob["spec"]["deletionStrategy"]["deletionRules"][0]["condition"]["ttlSeconds"] == 30);
  CHECK(rayjob["spec"]["rayClusterSpec"]["headGroupSpec"]["headService"]["metadata"]["name"] == "custom-head-svc");
  CHECK(rayjob["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["env"][0] ==
        json{{"name", "EMPTY"}});
  CHECK(rayjob["spec"]["rayClusterSpec"]["workerGroupSpecs"][1]["numOfHosts"] == 4);
  CHECK(rayjob["status"]["dashboardURL"] == "demo-raycluster-b7q4m-head-svc.team-a.svc.cluster.local:8265");
  CHECK(rayjob["status"]["rayJobInfo"]["endTime"] == "2026-01-01T00:01:25Z");
  CHECK(rayjob["status"]["startTime"] == "2026-01-01T00:00:00Z");
  CHECK(rayjob["status"]["rayClusterStatus"]["desiredWorkerReplicas"] == 2);

  const json job = to_json(full_job());
  CHECK(job["apiVersion"] == "batch/v1");
  CHECK(job["status"]["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:01:35Z");
  const json pod = to_json(full_pod());
  CHECK(pod["apiVersion"] == "v1");
  CHECK(pod["status"]["conditions"] == json::parse(R"([{"type":"Ready","status":"False"}])"));
  CHECK(pod["status"]["containerStatuses"][0]["state"] ==
        json::parse(R"({"terminated":{"exitCode":1,"finishedAt":"2026-01-01T00:01:34Z","reason":"Error"}})"));
  CHECK(pod["status"]["containerStatuses"][0]["lastState"] ==
        json::parse(R"({"terminated":{"exitCode":137,"finishedAt":"2026-01-01T00:01:01Z","reason":"Error"}})"));
  CHECK(to_json(full_service())["spec"]["ports"][1] == json{{"port", 6379}});
}

TEST_CASE("to_json omits what is empty or unset, as Kubernetes' omitempty does") {
  RayJob rayjob;
  rayjob.metadata.name = "demo";
  rayjob.spec.edit().entrypoint = "python main.py";
  CHECK(to_json(rayjob) == json::parse(R"({"apiVersion":"ray.io/v1","kind":"RayJob",
        "metadata":{"name":"demo"},"spec":{"entrypoint":"python main.py"}})"));

  // A stored object has a creation time, even at virtual time 0.
  rayjob.metadata.resource_version = 1;
  CHECK(to_json(rayjob)["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z");

  WorkerGroupSpec group;
  group.group_name = "g";
  RayCluster cluster;
  cluster.spec.edit().worker_group_specs = {group};
  const json out = to_json(cluster);
  // rayStartParams and template have no omitempty up to v1.1.0: written even when empty.
  CHECK(out["spec"]["workerGroupSpecs"][0] ==
        json::parse(R"({"groupName": "g", "rayStartParams": {}, "template": {"spec": {"containers": []}}})"));
  CHECK_FALSE(out.contains("status"));
}

TEST_CASE("fields rjsim does not model are ignored, and reported when asked") {
  const json manifest = json::parse(R"({
    "apiVersion": "ray.io/v1", "kind": "RayJob",
    "metadata": {"name": "demo", "generateName": "x-"},
    "spec": {"entrypoint": "python main.py", "rayClusterSpec": {"headGroupSpec": {"template": {"spec": {
      "containers": [{"name": "ray-head", "resources": {"limits": {"cpu": "1"}}}],
      "volumes": [{"name": "code"}]}}}}}})");
  std::vector<std::string> ignored;
  const RayJob rayjob = rayjob_from_json(manifest, &ignored);
  std::sort(ignored.begin(), ignored.end());
  CHECK(rayjob.spec->ray_cluster_spec->head_group_spec.template_.containers.at(0).name == "ray-head");
  CHECK(ignored == std::vector<std::string>{
                       "metadata.generateName",
                       "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources",
                       "spec.rayClusterSpec.headGroupSpec.template.spec.volumes"});
}

TEST_CASE("a known field of the wrong type is an error naming its JSON path") {
  json manifest = to_json(full_rayjob());
  manifest["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] = "one";
  try {
    (void)object_from_json(manifest, Kind::RayJob);
    FAIL("no error");
  } catch (const ObjectFormatError& e) {
    CHECK(e.path == "spec.rayClusterSpec.workerGroupSpecs[0].replicas");
    CHECK(e.message == "expected an integer, got the string \"one\"");
    CHECK(std::string(e.what()) ==
          "spec.rayClusterSpec.workerGroupSpecs[0].replicas: expected an integer, got the string \"one\"");
  }

  auto with = [](const char* pointer, json value) {
    json out = to_json(full_rayjob());
    out[json::json_pointer(pointer)] = std::move(value);
    return out;
  };
  CHECK(error_path(with("/spec/shutdownAfterJobFinishes", "true"), Kind::RayJob) == "spec.shutdownAfterJobFinishes");
  CHECK(error_path(with("/spec/rayClusterSpec/rayVersion", 2.5), Kind::RayJob) == "spec.rayClusterSpec.rayVersion");
  CHECK(error_path(with("/metadata/labels/ray.io~1cluster", 7), Kind::RayJob) == "metadata.labels[\"ray.io/cluster\"]");
  CHECK(error_path(with("/metadata/resourceVersion", 12), Kind::RayJob) == "metadata.resourceVersion");
  CHECK(error_path(with("/metadata/resourceVersion", "abc"), Kind::RayJob) == "metadata.resourceVersion");
  CHECK(error_path(with("/status/startTime", "yesterday"), Kind::RayJob) == "status.startTime");
  CHECK(error_path(with("/spec/backoffLimit", 1.5), Kind::RayJob) == "spec.backoffLimit");
  CHECK(error_path(with("/spec/activeDeadlineSeconds", 3'000'000'000LL), Kind::RayJob) == "spec.activeDeadlineSeconds");
  CHECK(error_path(with("/spec/rayClusterSpec/workerGroupSpecs", json::object()), Kind::RayJob) ==
        "spec.rayClusterSpec.workerGroupSpecs");
  CHECK(error_path(with("/metadata/ownerReferences/0/kind", "ReplicaSet"), Kind::RayJob) ==
        "metadata.ownerReferences[0].kind");
  CHECK(error_path(json::array(), Kind::Pod) == "(root)");
  // null is the same as absent, as in Kubernetes.
  CHECK(error_path(with("/spec/backoffLimit", nullptr), Kind::RayJob).empty());
}

TEST_CASE("apiVersion and kind, when given, must be the kind's own") {
  json cluster = to_json(full_raycluster());
  CHECK(error_path(cluster, Kind::RayJob) == "kind");
  json old = to_json(full_rayjob());
  old["apiVersion"] = "ray.io/v1alpha1";
  CHECK(error_path(old, Kind::RayJob) == "apiVersion");
  json job = to_json(full_job());
  job.erase("apiVersion");
  job.erase("kind");
  CHECK(object_from_json(job, Kind::Job) == Object{full_job()});
}

TEST_CASE("a merge patch sets fields, null deletes them, and a bad patch leaves the object as it was") {
  Object object = full_rayjob();
  apply_merge_patch(object, json::parse(R"({"spec": {"suspend": false, "backoffLimit": null,
      "rayClusterSpec": {"workerGroupSpecs": [{"groupName": "g", "replicas": 3}]}},
      "metadata": {"labels": {"app": null, "new": "yes"}}})"));
  const RayJob& patched = std::get<RayJob>(object);
  CHECK_FALSE(patched.spec->suspend);
  CHECK_FALSE(patched.spec->backoff_limit.has_value());
  // Lists are replaced whole (RFC 7386).
  CHECK(patched.spec->ray_cluster_spec->worker_group_specs ==
        std::vector<WorkerGroupSpec>{WorkerGroupSpec{"g", 3, std::nullopt, std::nullopt, 1, std::nullopt, {}, {}}});
  CHECK(patched.metadata.labels == rjsim::engine::StringMap{{"new", "yes"}, {"ray.io/cluster", "demo-abcde"}});
  CHECK(patched.status == full_rayjob().status);

  const Object before = object;
  try {
    apply_merge_patch(object, json::parse(R"({"spec": {"suspend": "yes"}})"));
    FAIL("no error");
  } catch (const ObjectFormatError& e) {
    CHECK(e.path == "spec.suspend");
  }
  CHECK(object == before);
  CHECK_THROWS_AS(apply_merge_patch(object, json::parse(R"({"kind": "Pod"})")), ObjectFormatError);
  CHECK(object == before);
}

TEST_CASE("a suspend patch, set in place, gives what the JSON round trip of any other patch gives") {
  for (const bool suspend : {true, false}) {
    CAPTURE(suspend);
    const json patch = {{"spec", {{"suspend", suspend}}}};
    for (RayJob rayjob : {full_rayjob(), RayJob{}}) {
      rayjob.spec.edit().suspend = !suspend;
      json merged = to_json(Object{rayjob});
      merged.merge_patch(patch);
      Object patched = rayjob;
      apply_merge_patch(patched, patch);
      CHECK(patched == object_from_json(merged, Kind::RayJob));
      CHECK(std::get<RayJob>(patched).spec->suspend == suspend);
    }
  }
  // Beside another field, or with a value that is not a bool, the patch takes the round trip.
  Object both = full_rayjob();
  apply_merge_patch(both, json::parse(R"({"spec": {"suspend": true, "entrypoint": "x"}})"));
  CHECK(std::get<RayJob>(both).spec->entrypoint == "x");
  CHECK(std::get<RayJob>(both).spec->suspend);
  Object cluster = full_raycluster();
  CHECK_THROWS_AS(apply_merge_patch(cluster, json::parse(R"({"spec": {"suspend": 1}})")), ObjectFormatError);
}

TEST_CASE("JSON paths quote keys that are not identifiers") {
  CHECK(json_path_key("", "spec") == "spec");
  CHECK(json_path_key("spec", "rayClusterSpec") == "spec.rayClusterSpec");
  CHECK(json_path_key("metadata.labels", "ray.io/cluster") == "metadata.labels[\"ray.io/cluster\"]");
  CHECK(json_path_key("x", "a\"b") == "x[\"a\\\"b\"]");
  CHECK(json_path_index("spec.workerGroupSpecs", 2) == "spec.workerGroupSpecs[2]");
}

}  // namespace object_json_test
