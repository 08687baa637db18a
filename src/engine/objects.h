// The Kubernetes objects of the simulated cluster, as plain typed values: object metadata
// (kubernetes-semantics §7.1) and the five kinds the RayJob controller touches: RayJob,
// RayCluster (ray.io/v1), Service, Pod (v1) and Job (batch/v1). Only the fields that some
// model, actor or check reads are kept; they carry KubeRay's and Kubernetes' names. Times are
// virtual milliseconds. Every type is copyable and compares with ==, which is what the API
// server uses to detect no-op writes and spec changes. An object's spec is copy-on-write
// (copy_on_write.h): read it as `object.spec->field`, change it with `object.spec.edit()`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/copy_on_write.h"

namespace rjsim::engine {

// Virtual time 0 is 2026-01-01T00:00:00Z: virtual millisecond t is the wall-clock time
// kVirtualEpochUnixMs + t ms after the Unix epoch (object_json.h prints times from it).
inline constexpr std::int64_t kVirtualEpochUnixMs = 1'767'225'600'000;

enum class Kind : std::uint8_t { RayJob, RayCluster, Service, Job, Pod };
inline constexpr int kKindCount = 5;
inline constexpr Kind kAllKinds[kKindCount] = {Kind::RayJob, Kind::RayCluster, Kind::Service,
                                              Kind::Job, Kind::Pod};

std::string_view to_string(Kind kind);
// The actor name of the controller's informer of `kind` in events: "informer/RayJob".
std::string_view informer_actor(Kind kind);
bool parse_kind(std::string_view text, Kind& kind);
constexpr int kind_index(Kind kind) { return static_cast<int>(kind); }

// Labels and annotations are ordered maps so that iteration, equality and hashing are stable.
using StringMap = std::map<std::string, std::string, std::less<>>;   // finds take a string_view

struct OwnerReference {
  std::string api_version;
  Kind kind = Kind::RayJob;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  // From the API server's one global counter. Opaque to controllers: compare for equality only
  // (kubernetes-semantics §1.2, "resourceVersion is opaque").
  std::int64_t resource_version = 0;
  std::int64_t generation = 0;
  std::int64_t creation_timestamp_ms = 0;
  std::optional<std::int64_t> deletion_timestamp_ms;
  // A Pod deleted while it runs stays this long at most: its kubelet stops the containers, then
  // deletes it with grace 0 (kubernetes-semantics §4; 0 once it may go).
  std::optional<std::int64_t> deletion_grace_period_seconds;
  // Shared by copies until changed, as specs are: few writes change them, and copying them
  // (an allocation per name, uid and finalizer) was most of the cost of copying an object.
  CopyOnWrite<StringMap> labels;
  CopyOnWrite<StringMap> annotations;
  CopyOnWrite<std::vector<OwnerReference>> owner_references;
  CopyOnWrite<std::vector<std::string>> finalizers;
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

// The controller ownerReference (controller=true), if any.
const OwnerReference* controller_owner(const ObjectMeta& meta);
bool has_finalizer(const ObjectMeta& meta, std::string_view finalizer);

// ---- core/v1 ----

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  StringMap env;
  // A container's own restartPolicy (Kubernetes 1.33+ per-container restart rules; "" when unset,
  // so the Pod's applies). KubeRay v1.7.0 sets OnFailure on the SidecarMode submitter under the
  // SidecarSubmitterRestart gate; the submitter actor, the kubelet of that container, restarts it
  // on a non-zero exit (submitter.h).
  std::string restart_policy;
  friend bool operator==(const Container&, const Container&) = default;
};

struct PodTemplate {
  StringMap labels;
  StringMap annotations;
  std::vector<Container> containers;
  std::string restart_policy;   // "Never", "OnFailure", "Always"
  friend bool operator==(const PodTemplate&, const PodTemplate&) = default;
};

struct PodSpec {
  std::vector<Container> containers;
  std::string restart_policy;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

// A container's terminated state (core/v1 ContainerStateTerminated, the fields rjsim reads).
struct ContainerTerminated {
  int exit_code = 0;
  std::string reason;
  std::int64_t finished_at_ms = 0;
  friend bool operator==(const ContainerTerminated&, const ContainerTerminated&) = default;
};

struct ContainerStatus {
  std::string name;
  bool ready = false;
  int restart_count = 0;
  std::string state;                     // "waiting", "running", "terminated"
  std::optional<int> exit_code;          // set when terminated
  std::optional<std::int64_t> finished_at_ms;
  std::string reason;                    // terminated: the kubelet's reason (Completed, Error, OOMKilled);
                                         // waiting: CrashLoopBackOff
  // lastTerminationState.terminated: how the previous run of a restarted container ended.
  std::optional<ContainerTerminated> last_termination_state;
  friend bool operator==(const ContainerStatus&, const ContainerStatus&) = default;
};

struct PodStatus {
  std::string phase;                     // Pending, Running, Succeeded, Failed
  std::string pod_ip;                    // set by the kubelet once the Pod runs
  std::optional<bool> ready;             // the PodReady condition, when present
  std::vector<ContainerStatus> container_statuses;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};

struct Pod {
  static constexpr Kind kind = Kind::Pod;
  ObjectMeta metadata;
  CopyOnWrite<PodSpec> spec;
  PodStatus status;
  friend bool operator==(const Pod&, const Pod&) = default;
};

// The labels KubeRay puts on a RayCluster's Pods and head Service.
inline constexpr std::string_view kRayClusterLabel = "ray.io/cluster";
inline constexpr std::string_view kRayNodeTypeLabel = "ray.io/node-type";

// A Pod KubeRay made for a RayCluster's `node_type` group ("head" or "worker": ray.io/node-type).
inline bool node_type_is(const Pod& pod, std::string_view node_type) {
  const auto type = pod.metadata.labels->find(kRayNodeTypeLabel);
  return type != pod.metadata.labels->end() && type->second == node_type;
}

// A Pod no kubelet has started yet.
inline bool is_pending(const Pod& pod) { return pod.status.phase.empty() || pod.status.phase == "Pending"; }

// A Pod whose containers were stopped: deleted, and its grace period over (the kubelet's grace-0
// delete, or never started). Finalizers may still hold the object in the API; while the grace
// period runs, a deleted Pod's processes run on.
inline bool containers_stopped(const Pod& pod) {
  return pod.metadata.deletion_timestamp_ms && pod.metadata.deletion_grace_period_seconds.value_or(0) == 0;
}

struct ServicePort {
  std::string name;
  int port = 0;
  friend bool operator==(const ServicePort&, const ServicePort&) = default;
};

struct ServiceSpec {
  StringMap selector;
  std::vector<ServicePort> ports;
  std::string cluster_ip;   // allocated by the API server on create
  friend bool operator==(const ServiceSpec&, const ServiceSpec&) = default;
};

struct ServiceStatus {
  friend bool operator==(const ServiceStatus&, const ServiceStatus&) = default;
};

struct Service {
  static constexpr Kind kind = Kind::Service;
  ObjectMeta metadata;
  CopyOnWrite<ServiceSpec> spec;
  ServiceStatus status;
  friend bool operator==(const Service&, const Service&) = default;
};

// ---- batch/v1 ----

struct JobCondition {
  std::string type;     // Complete, Failed, FailureTarget, SuccessCriteriaMet, Suspended
  std::string status;   // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::int64_t last_transition_time_ms = 0;
  friend bool operator==(const JobCondition&, const JobCondition&) = default;
};

struct JobSpec {
  std::optional<int> backoff_limit;            // nil means the server default, 6
  std::optional<std::int64_t> active_deadline_seconds;
  std::optional<bool> suspend;
  PodTemplate template_;
  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

struct JobStatus {
  int active = 0;
  int succeeded = 0;
  int failed = 0;
  std::optional<std::int64_t> start_time_ms;
  std::optional<std::int64_t> completion_time_ms;
  std::vector<JobCondition> conditions;
  friend bool operator==(const JobStatus&, const JobStatus&) = default;
};

struct Job {
  static constexpr Kind kind = Kind::Job;
  ObjectMeta metadata;
  CopyOnWrite<JobSpec> spec;
  JobStatus status;
  friend bool operator==(const Job&, const Job&) = default;
};

// ---- ray.io/v1 RayCluster ----

struct WorkerGroupSpec {
  std::string group_name;
  std::optional<int> replicas;
  std::optional<int> min_replicas;
  std::optional<int> max_replicas;
  int num_of_hosts = 1;
  std::optional<bool> suspend;
  StringMap ray_start_params;
  PodTemplate template_;   // the worker Pods' template
  friend bool operator==(const WorkerGroupSpec&, const WorkerGroupSpec&) = default;
};

struct HeadGroupSpec {
  StringMap ray_start_params;
  PodTemplate template_;
  std::optional<std::string> head_service_name;   // headService.metadata.name override
  friend bool operator==(const HeadGroupSpec&, const HeadGroupSpec&) = default;
};

struct RayClusterSpec {
  std::string ray_version;
  std::optional<bool> suspend;
  HeadGroupSpec head_group_spec;
  std::vector<WorkerGroupSpec> worker_group_specs;
  std::optional<bool> enable_in_tree_autoscaling;
  // Whether gcsFaultToleranceOptions is set (v1.1.0 on): its presence turns GCS fault tolerance on,
  // which v1.7.0's validation reads; its contents are not modelled.
  bool gcs_fault_tolerance_options = false;
  friend bool operator==(const RayClusterSpec&, const RayClusterSpec&) = default;
};

// RayClusterStatus.head (HeadInfo): podName and serviceName from v1.2 on.
struct RayClusterHeadInfo {
  std::string pod_ip;
  std::string service_ip;
  std::string pod_name;
  std::string service_name;
  friend bool operator==(const RayClusterHeadInfo&, const RayClusterHeadInfo&) = default;
};

// A metav1.Condition (no observedGeneration: KubeRay sets none). lastTransitionTime changes only
// when the status does (meta.SetStatusCondition), in whole seconds as the API stores it.
struct StatusCondition {
  std::string type;
  std::string status;   // True, False, Unknown
  std::string reason;
  std::string message;
  std::int64_t last_transition_time_ms = 0;
  friend bool operator==(const StatusCondition&, const StatusCondition&) = default;
};

struct RayClusterStatus {
  std::string state;     // "", ready, unhealthy, failed, suspended
  std::string reason;
  int ready_worker_replicas = 0;
  int available_worker_replicas = 0;
  int desired_worker_replicas = 0;
  int min_worker_replicas = 0;
  int max_worker_replicas = 0;
  StringMap endpoints;                       // Service port name -> port, as text
  RayClusterHeadInfo head;
  std::vector<StatusCondition> conditions;   // v1.7.0: HeadPodReady, RayClusterProvisioned, ...
  std::int64_t observed_generation = 0;
  std::optional<std::int64_t> last_update_time_ms;
  friend bool operator==(const RayClusterStatus&, const RayClusterStatus&) = default;
};

struct RayCluster {
  static constexpr Kind kind = Kind::RayCluster;
  ObjectMeta metadata;
  CopyOnWrite<RayClusterSpec> spec;
  // Shared as the spec is: the models copy each RayCluster they read, and a RayJob's status copies
  // its cluster's (RayJobStatus::ray_cluster_status), which copying the strings, map and conditions
  // made a tenth of a 1.7 reconcile (issue 30).
  CopyOnWrite<RayClusterStatus> status;
  friend bool operator==(const RayCluster&, const RayCluster&) = default;
};

// ---- ray.io/v1 RayJob (the v1.7.0 field set; older models ignore what they did not have) ----

struct DeletionCondition {
  std::optional<std::string> job_status;             // SUCCEEDED | FAILED
  std::optional<std::string> job_deployment_status;  // Failed
  int ttl_seconds = 0;
  friend bool operator==(const DeletionCondition&, const DeletionCondition&) = default;
};

struct DeletionRule {
  std::string policy;   // DeleteCluster | DeleteWorkers | DeleteSelf | DeleteNone
  DeletionCondition condition;
  friend bool operator==(const DeletionRule&, const DeletionRule&) = default;
};

struct DeletionStrategy {
  std::optional<std::string> on_success_policy;   // legacy onSuccess.policy
  std::optional<std::string> on_failure_policy;   // legacy onFailure.policy
  std::vector<DeletionRule> deletion_rules;
  friend bool operator==(const DeletionStrategy&, const DeletionStrategy&) = default;
};

struct RayJobSpec {
  std::string entrypoint;
  StringMap metadata;
  std::string runtime_env_yaml;
  std::string job_id;
  bool shutdown_after_job_finishes = false;
  // A *int32 at v1.0.0, where nil (no wait) and 0 differ; an int32 from v1.1.0 on, whose models
  // read an absent value as 0.
  std::optional<int> ttl_seconds_after_finished;
  std::optional<int> active_deadline_seconds;
  std::optional<int> pre_running_deadline_seconds;
  std::optional<int> backoff_limit;
  std::optional<RayClusterSpec> ray_cluster_spec;
  StringMap cluster_selector;
  std::string submission_mode;                      // K8sJobMode (default), HTTPMode, ...
  bool suspend = false;
  std::optional<PodTemplate> submitter_pod_template;
  bool submitter_config = false;                     // the submitterConfig block is set, even empty
                                                     // (a backoffLimit implies it)
  std::optional<int> submitter_backoff_limit;        // submitterConfig.backoffLimit
  std::optional<std::string> managed_by;
  std::optional<DeletionStrategy> deletion_strategy;
  std::optional<double> entrypoint_num_cpus;
  std::optional<double> entrypoint_num_gpus;
  std::string entrypoint_resources;
  friend bool operator==(const RayJobSpec&, const RayJobSpec&) = default;
};

struct RayJobStatus {
  std::string job_id;
  std::string ray_cluster_name;
  std::string dashboard_url;
  std::string job_status;              // "", PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED
  std::string job_deployment_status;   // "", Initializing, Running, Complete, Failed, ...
  std::string reason;
  std::string message;
  std::optional<std::int64_t> start_time_ms;
  std::optional<std::int64_t> end_time_ms;
  std::optional<std::int64_t> ray_job_start_time_ms;   // rayJobInfo.startTime (v1.4+)
  std::optional<std::int64_t> ray_job_end_time_ms;     // rayJobInfo.endTime
  std::optional<int> succeeded;
  std::optional<int> failed;
  CopyOnWrite<RayClusterStatus> ray_cluster_status;   // the cluster's, shared with it (RayCluster::status)
  std::optional<std::int64_t> job_status_check_failure_start_time_ms;
  std::int64_t observed_generation = 0;
  friend bool operator==(const RayJobStatus&, const RayJobStatus&) = default;
};

struct RayJob {
  static constexpr Kind kind = Kind::RayJob;
  ObjectMeta metadata;
  CopyOnWrite<RayJobSpec> spec;
  RayJobStatus status;
  friend bool operator==(const RayJob&, const RayJob&) = default;
};

// Any stored object. The variant's index is the Kind.
using Object = std::variant<RayJob, RayCluster, Service, Job, Pod>;
static_assert(std::is_same_v<std::variant_alternative_t<kind_index(Kind::Job), Object>, Job>);

inline Kind kind_of(const Object& object) { return static_cast<Kind>(object.index()); }
const ObjectMeta& meta(const Object& object);
ObjectMeta& meta(Object& object);
// True when the two objects (of one kind) have equal specs.
bool same_spec(const Object& a, const Object& b);
// True when the two objects are of one kind and share one spec value (copy_on_write.h): equal
// without comparing contents.
bool shares_spec_value(const Object& a, const Object& b);
// True when the two objects (of one kind) differ at most in their status.
bool same_but_status(const Object& a, const Object& b);
// Makes `to` (same kind, equal spec) share `from`'s spec instead of holding a copy of its own.
void share_spec(const Object& from, Object& to);
// Copies `from`'s status into `to` (same kind): the status-subresource masking of a main update.
void copy_status(const Object& from, Object& to);

// What the JSON round trip of a write does to a RayJob's status times: metav1.Time serializes as
// RFC 3339 with whole seconds, so the server stores, and the writer reads back, each time rounded
// down to its second (startTime, endTime, rayJobInfo's times, jobStatusCheckFailureStartTime).
// Other kinds are left as they are.
void truncate_status_times_to_seconds(Object& object);

// "namespace/name": the work-queue key and the cache key.
std::string key_of(const ObjectMeta& meta);

// An address in the /16 network `network` ("10.244") for the `serial`-th object: how rjsim's
// allocators hand addresses out deterministically (the API server's Service IPs, the kubelet's
// Pod IPs). The serial of an object is its uid's ("uid-Pod-7": 7).
std::string address_of_serial(std::string_view network, std::int64_t serial);
std::int64_t uid_serial(std::string_view uid);
std::string key_of(std::string_view namespace_, std::string_view name);
// "Kind/namespace/name": how events and messages name an object.
// The API server's store order (namespace, then name): whether `meta`'s key comes before the key
// (`namespace_`, `name`).
bool key_less(const ObjectMeta& meta, std::string_view namespace_, std::string_view name);

std::string object_ref(Kind kind, const ObjectMeta& meta);
std::string object_ref(Kind kind, std::string_view namespace_, std::string_view name);
std::string object_ref(const Object& object);
// Makes `ref` that name, reusing its storage.
void assign_object_ref(std::string& ref, Kind kind, std::string_view namespace_, std::string_view name);

// The parts of an object_ref; false when `ref` is not of the form Kind/namespace/name.
struct ObjectRef {
  Kind kind = Kind::RayJob;
  std::string namespace_;
  std::string name;
};
bool parse_object_ref(std::string_view ref, ObjectRef& parsed);

}  // namespace rjsim::engine
