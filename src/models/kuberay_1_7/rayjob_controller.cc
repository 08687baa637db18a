#include "models/kuberay_1_7/rayjob_controller.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "models/kuberay_1_1/rayjob_controller.h"
#include "models/kuberay_1_7/dashboard_client.h"
#include "models/kuberay_1_7/submitter_job.h"
#include "models/kuberay_1_7/validation.h"
#include "models/shared/go_time.h"
#include "models/shared/kuberay_1_0_1_1.h"

namespace rjsim::models::kuberay_1_7 {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using namespace rjsim::engine;
// Unchanged in the Go since v1.0.0 (models/shared) and since v1.1.0 (kuberay_1_1/rayjob_controller.h).
using shared::fetch_head_service_url;
using shared::go_date_time;
using shared::go_time_string;
using kuberay_1_1::update_status_to_suspending_if_needed;

namespace {

// ---- constants (RJC:L38-40; utils/constant.go at v1.7.0) ----
constexpr std::int64_t kRayJobDefaultRequeueDurationMs = 3'000;      // RayJobDefaultRequeueDuration
constexpr std::int64_t kDefaultSubmitterFinishedTimeoutMs = 30'000;   // DefaultSubmitterFinishedTimeout
// DEFAULT_RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD_SECONDS
constexpr int kDefaultTransitionGracePeriodSeconds = 300;
constexpr int kDefaultStatusCheckTimeoutSeconds = 300;      // DEFAULT_RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS
constexpr const char* kRayJobClusterSelectorKey = "ray.io/cluster";
constexpr const char* kRayJobStopJobFinalizer = "ray.io/rayjob-finalizer";
constexpr const char* kKubeRayController = "ray.io/kuberay-operator";
constexpr const char* kRayOriginatedFromCRNameLabelKey = "ray.io/originated-from-cr-name";
constexpr const char* kRayOriginatedFromCRDLabelKey = "ray.io/originated-from-crd";
constexpr const char* kRayJobSubmissionModeLabelKey = "ray.io/job-submission-mode";
constexpr const char* kRayClusterLabelKey = "ray.io/cluster";
constexpr const char* kJobNameLabelKey = "batch.kubernetes.io/job-name";   // batchv1.JobNameLabel
constexpr const char* kRayNodeTypeLabelKey = "ray.io/node-type";
constexpr const char* kRayIDLabelKey = "ray.io/identifier";
constexpr const char* kDisableProvisionedHeadRestartAnnotationKey = "ray.io/disable-provisioned-head-restart";
constexpr const char* kKubernetesCreatedByLabelKey = "app.kubernetes.io/created-by";
constexpr const char* kComponentName = "kuberay-operator";

// JobDeploymentStatus values (apis/ray/v1/rayjob_types.go:L48-59).
constexpr std::string_view kNew = "";
constexpr std::string_view kInitializing = "Initializing";
constexpr std::string_view kRunning = "Running";
constexpr std::string_view kComplete = "Complete";
constexpr std::string_view kFailed = "Failed";
constexpr std::string_view kValidationFailed = "ValidationFailed";
constexpr std::string_view kSuspending = "Suspending";
constexpr std::string_view kSuspended = "Suspended";
constexpr std::string_view kRetrying = "Retrying";
constexpr std::string_view kWaiting = "Waiting";

bool is_job_terminal(std::string_view status) {   // rayjob_types.go:L36-43
  return status == "STOPPED"sv || status == "SUCCEEDED"sv || status == "FAILED"sv;
}
bool is_job_deployment_terminal(std::string_view status) {   // rayjob_types.go:L63-65
  return status == kComplete || status == kFailed;
}
bool has_submitter(const RayJob& rayjob) {   // utils.HasSubmitter
  return rayjob.spec->submission_mode == "K8sJobMode"sv || rayjob.spec->submission_mode == "SidecarMode"sv;
}

ReconcileResult requeue() { return ReconcileResult::requeue_after(kRayJobDefaultRequeueDurationMs); }
ReconcileResult requeue_with(Error err) {
  // `ctrl.Result{RequeueAfter: 3s}, err`: the queue ignores the RequeueAfter (§0.3).
  return ReconcileResult::error(std::move(err), kRayJobDefaultRequeueDurationMs);
}
Error go_error(std::string message) { return Error(ErrorCode::other, std::move(message)); }

OwnerReference controller_reference(const RayJob& rayjob) {   // ctrl.SetControllerReference
  return OwnerReference{"ray.io/v1", Kind::RayJob, rayjob.metadata.name, rayjob.metadata.uid, true, true};
}

// strconv.Atoi of an env value: nullopt when unset or not an integer.
std::optional<int> atoi_env(Clients& clients, std::string_view name) {
  const std::optional<std::string> value = clients.runtime.operator_env(name);
  if (!value) return std::nullopt;
  int parsed = 0;
  const char* begin = value->data();
  if (!value->empty() && *begin == '+') ++begin;
  const auto [end, ec] = std::from_chars(begin, value->data() + value->size(), parsed);
  if (value->empty() || ec != std::errc() || end != value->data() + value->size()) return std::nullopt;
  return parsed;
}

bool deletion_policy_gate(Clients& clients) {   // features.Enabled(RayJobDeletionPolicy): Beta, on
  return clients.runtime.feature_gate("RayJobDeletionPolicy", true);
}
bool sidecar_submitter_restart_gate(Clients& clients) {   // features.Enabled(SidecarSubmitterRestart): Alpha, off
  return clients.runtime.feature_gate("SidecarSubmitterRestart", false);
}

// ---- helpers, in the Go's order ----

// validateRayJob (RJC:L464-482): metadata, spec, status; the first failure wins.
Error validate_rayjob(Clients& clients, const RayJob& rayjob) {
  if (Error err = validate_rayjob_metadata(rayjob.metadata)) return err;
  if (Error err = validate_rayjob_spec(rayjob, deletion_policy_gate(clients))) return err;
  return validate_rayjob_status(rayjob);
}

// checkBackoffLimitAndUpdateStatusIfNeeded (RJC:L518-557).
void check_backoff_limit_and_update_status_if_needed(RayJob& rayjob) {
  RayJobStatus& status = rayjob.status;
  int failed_count = status.failed.value_or(0);
  int succeeded_count = status.succeeded.value_or(0);
  if (status.job_deployment_status == kFailed) ++failed_count;
  if (status.job_status == "SUCCEEDED"sv && status.job_deployment_status == kComplete) ++succeeded_count;
  status.failed = failed_count;
  status.succeeded = succeeded_count;
  if (status.job_deployment_status == kFailed && rayjob.spec->backoff_limit &&
      *status.failed < *rayjob.spec->backoff_limit + 1) {
    if (status.reason == "DeadlineExceeded"sv || status.reason == "JobStatusCheckTimeoutExceeded"sv) return;
    status.job_deployment_status = kRetrying;
  }
}

// GenerateRayJobId, GenerateRayClusterName (utils/util.go:L369-376).
std::string generate_name(Clients& clients, const std::string& rayjob) {
  return fmt::format("{}-{}", rayjob, clients.runtime.random_string(5));
}

// initRayJobStatusIfNeed (RJC:L887-917).
void init_rayjob_status_if_need(Clients& clients, RayJob& rayjob) {
  RayJobStatus& status = rayjob.status;
  const bool should_update_status = status.job_id.empty() || status.ray_cluster_name.empty() ||
                                    status.job_status.empty();
  if (!should_update_status) return;
  if (rayjob.spec->submission_mode != "InteractiveMode"sv && status.job_id.empty()) {
    status.job_id = !rayjob.spec->job_id.empty() ? rayjob.spec->job_id : generate_name(clients, rayjob.metadata.name);
  }
  if (status.ray_cluster_name.empty()) {
    auto it = rayjob.spec->cluster_selector.find(kRayJobClusterSelectorKey);
    if (it != rayjob.spec->cluster_selector.end() && !it->second.empty()) {
      status.ray_cluster_name = it->second;
    } else {
      status.ray_cluster_name = generate_name(clients, rayjob.metadata.name);
    }
  }
  if (status.job_status.empty()) status.job_status = "";   // JobStatusNew
  status.job_deployment_status = kInitializing;
  status.start_time_ms = clients.runtime.now_ms();
}

// utils.InconsistentRayClusterStatus (consistency.go:L16-34): LastUpdateTime and
// ObservedGeneration are ignored.
bool inconsistent_raycluster_status(const RayClusterStatus& old_status, const RayClusterStatus& new_status) {
  if (old_status.state != new_status.state || old_status.reason != new_status.reason) return true;   // :L17-19
  if (old_status.ready_worker_replicas != new_status.ready_worker_replicas ||                          // :L20-26
      old_status.available_worker_replicas != new_status.available_worker_replicas ||
      old_status.desired_worker_replicas != new_status.desired_worker_replicas ||
      old_status.min_worker_replicas != new_status.min_worker_replicas ||
      old_status.max_worker_replicas != new_status.max_worker_replicas) {
    return true;
  }
  if (old_status.endpoints != new_status.endpoints || old_status.head != new_status.head) return true;   // :L27-29
  return old_status.conditions != new_status.conditions;                                                  // :L30-32
}

// updateRayJobStatus (RJC:L919-945).
Error update_rayjob_status(Clients& clients, const RayJob& old_rayjob, RayJob& new_rayjob) {
  const RayJobStatus& old_status = old_rayjob.status;
  RayJobStatus& new_status = new_rayjob.status;
  // One shared status is consistent with itself: only copies that do not share it are compared.
  const bool raycluster_status_changed =
      !old_status.ray_cluster_status.shares_value_with(new_status.ray_cluster_status) &&
      inconsistent_raycluster_status(old_status.ray_cluster_status, new_status.ray_cluster_status);
  const bool failure_start_time_changed =   // jobStatusCheckFailureStartTimeChanged
      old_status.job_status_check_failure_start_time_ms != new_status.job_status_check_failure_start_time_ms;
  if (old_status.job_status == new_status.job_status &&
      old_status.job_deployment_status == new_status.job_deployment_status && !raycluster_status_changed &&
      !failure_start_time_changed) {
    return {};
  }
  if (is_job_deployment_terminal(new_status.job_deployment_status)) new_status.end_time_ms = clients.runtime.now_ms();
  return clients.kube.update_status(new_rayjob);
}

// constructRayClusterForRayJob (RJC:L997-1041).
Error construct_raycluster_for_rayjob(Clients& clients, const RayJob& rayjob, const std::string& cluster_name,
                                      RayCluster& cluster) {
  cluster = RayCluster{};
  cluster.metadata.labels = rayjob.metadata.labels;
  cluster.metadata.labels.edit()[kRayOriginatedFromCRNameLabelKey] = rayjob.metadata.name;
  cluster.metadata.labels.edit()[kRayOriginatedFromCRDLabelKey] = "RayJob";
  cluster.metadata.labels.edit()[kRayJobSubmissionModeLabelKey] = rayjob.spec->submission_mode;
  cluster.metadata.annotations = rayjob.metadata.annotations;
  if (rayjob.spec->submission_mode == "SidecarMode"sv) {
    cluster.metadata.annotations.edit()[kDisableProvisionedHeadRestartAnnotationKey] = "true";
  }
  cluster.metadata.name = cluster_name;
  cluster.metadata.namespace_ = rayjob.metadata.namespace_;
  cluster.spec = *rayjob.spec->ray_cluster_spec;
  cluster.metadata.owner_references.edit().push_back(controller_reference(rayjob));
  if (rayjob.spec->submission_mode == "SidecarMode"sv) {                                  // RJC:L1027-1038
    // getSubmitterContainer (RJC:L610-631).
    Container sidecar = get_default_submitter_container(cluster.spec);
    const bool restart_gate = sidecar_submitter_restart_gate(clients);
    if (Error err = configure_submitter_container(sidecar, rayjob, "SidecarMode", restart_gate)) {
      return err;
    }
    if (restart_gate) sidecar.restart_policy = "OnFailure";                            // RJC:L619-628
    cluster.spec.edit().head_group_spec.template_.containers.push_back(std::move(sidecar));
    cluster.spec.edit().head_group_spec.template_.restart_policy = "Never";
  }
  return {};
}

// getOrCreateRayClusterInstance (RJC:L947-995). The returned cluster is the cached copy, or the
// Create reply (empty status) when this pass created it.
Error get_or_create_raycluster_instance(Clients& clients, const RayJob& rayjob, RayCluster& cluster) {
  const std::string& name = rayjob.status.ray_cluster_name;
  Error err = clients.kube.get(rayjob.metadata.namespace_, name, cluster);
  if (!err) return {};   // spec drift is only logged (RJC:L988-992)
  if (!is_not_found(err)) return err;
  if (!rayjob.spec->cluster_selector.empty()) {                                        // RJC:L957-962
    return go_error(fmt::format("clusterSelector mode is enabled, but RayCluster {}/{} is not found: {}",
                                rayjob.metadata.namespace_, name, err.message()));
  }
  if (Error construct_err = construct_raycluster_for_rayjob(clients, rayjob, name, cluster)) return construct_err;
  return clients.kube.create(cluster);                                                // RJC:L977
}

// getSubmitterTemplate (RJC:L585-604).
Error get_submitter_template(Clients& clients, const RayJob& rayjob, const RayCluster& cluster,
                             PodTemplate& submitter) {
  submitter = kuberay_1_7::get_submitter_template(rayjob.spec, cluster.spec);
  if (submitter.containers.empty()) {   // Containers[utils.RayContainerIndex] (RJC:L590)
    throw ModelPanic("runtime error: index out of range [0] with length 0 (SubmitterPodTemplate without "
                     "containers; rayjob_controller.go:590)");
  }
  if (Error err = configure_submitter_container(submitter.containers.front(), rayjob, "K8sJobMode",
                                                sidecar_submitter_restart_gate(clients))) {
    return err;
  }
  submitter.labels[kRayOriginatedFromCRNameLabelKey] = rayjob.metadata.name;
  submitter.labels[kRayOriginatedFromCRDLabelKey] = "RayJob";
  submitter.labels[kKubernetesCreatedByLabelKey] = kComponentName;
  return {};
}

// createNewK8sJob (RJC:L716-756): named after the RayJob, backoffLimit 2 or submitterConfig's.
Error create_new_k8s_job(Clients& clients, const RayJob& rayjob, PodTemplate submitter) {
  Job job;
  job.metadata.name = rayjob.metadata.name;
  job.metadata.namespace_ = rayjob.metadata.namespace_;
  job.metadata.labels = StringMap{{kRayOriginatedFromCRNameLabelKey, rayjob.metadata.name},
                                  {kRayOriginatedFromCRDLabelKey, "RayJob"},
                                  {kKubernetesCreatedByLabelKey, kComponentName}};
  job.spec.edit().backoff_limit = rayjob.spec->submitter_backoff_limit.value_or(2);
  job.spec.edit().template_ = std::move(submitter);
  job.metadata.owner_references.edit().push_back(controller_reference(rayjob));
  return clients.kube.create(job);
}

// createK8sJobIfNeed (RJC:L560-583).
Error create_k8s_job_if_need(Clients& clients, const RayJob& rayjob, const RayCluster& cluster) {
  Job job;
  Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.metadata.name, job);
  if (!err) return {};   // already exists
  if (!is_not_found(err)) return err;
  PodTemplate submitter;
  if (Error template_err = get_submitter_template(clients, rayjob, cluster, submitter)) return template_err;
  return create_new_k8s_job(clients, rayjob, std::move(submitter));
}

// CheckLabel (utils/util.go:L251-268): a label value cut to its last 63 characters, and not
// starting with punctuation.
std::string check_label(std::string value) {
  constexpr std::size_t kMaxLength = 63;
  if (value.size() > kMaxLength) value.erase(0, value.size() - kMaxLength);
  if (!value.empty() && std::ispunct(static_cast<unsigned char>(value.front()))) value.front() = 'r';
  return value;
}

// The head Service's name as BuildHeadServiceForRayJob gives it (common/job.go:L24-45).
std::string head_service_name(const RayJob& rayjob) { return fmt::format("{}-head-svc", rayjob.metadata.name); }

// BuildHeadServiceForRayJob (common/job.go:L24-45) over BuildServiceForHeadPod
// (common/service.go:L37-145): "<rayjob>-head-svc" selecting the current cluster's head Pod by
// HeadServiceLabels (service.go:L25-33), with the default ports sorted by name (L436-446, L135-139).
// Headless ClusterIP and the ports of the head container are not modelled (no field reads them).
Service build_head_service_for_rayjob(const RayJob& rayjob, const RayCluster& cluster) {
  Service service;
  service.metadata.name = head_service_name(rayjob);
  service.metadata.namespace_ = rayjob.metadata.namespace_;
  service.metadata.labels = StringMap{{kRayOriginatedFromCRNameLabelKey, rayjob.metadata.name},
                                      {kRayOriginatedFromCRDLabelKey, "RayJob"},
                                      {kRayNodeTypeLabelKey, "head"},
                                      {kRayIDLabelKey, check_label(fmt::format("{}-head", rayjob.metadata.name))}};
  service.spec.edit().selector = {{kRayClusterLabelKey, cluster.metadata.name},
                                  {kRayNodeTypeLabelKey, "head"},
                                  {kRayIDLabelKey, check_label(fmt::format("{}-head", cluster.metadata.name))},
                                  {"app.kubernetes.io/name", "kuberay"},
                                  {"app.kubernetes.io/created-by", "kuberay-operator"}};
  service.spec.edit().ports = {
      {"client", 10001}, {"dashboard", 8265}, {"gcs-server", 6379}, {"metrics", 8080}, {"serve", 8000}};
  return service;
}

// reconcileServices (RJC:L665-713). The Go builds the whole Service first (L671); until a write,
// only its name and its selector's cluster are read, so the rest is built when a write needs it
// (building it at every reconcile was a tenth of a one-RayJob exploration; issue 30).
Error reconcile_services(Clients& clients, const RayJob& rayjob, const RayCluster& cluster) {
  if (!rayjob.spec->cluster_selector.empty()) return {};
  Service old_service;
  Error err = clients.kube.get(rayjob.metadata.namespace_, head_service_name(rayjob), old_service);
  if (!err) {
    // A missing key reads "" in Go, as a cluster's name never is.
    const auto selected = old_service.spec->selector.find(kRayClusterLabelKey);
    const bool same_cluster = selected != old_service.spec->selector.end() && selected->second == cluster.metadata.name;
    if (same_cluster) return {};                                                      // RJC:L682-686
    // ClusterIP is carried over (not modelled).
    old_service.spec = build_head_service_for_rayjob(rayjob, cluster).spec;
    return clients.kube.update(old_service);                                          // RJC:L694
  }
  if (!is_not_found(err)) return err;
  Service new_service = build_head_service_for_rayjob(rayjob, cluster);
  new_service.metadata.owner_references.edit().push_back(controller_reference(rayjob));
  return clients.kube.create(new_service);                                            // RJC:L705
}

// Whether a cache NotFound stands: always in v1.7.0; with the finding-002 fix only when the API
// server agrees (a cache that has not yet seen a just-created object answers NotFound too). On
// an error of the uncached read, or when the object is there, `out` holds it or `err` the error.
template <class T>
Error confirm_not_found(Clients& clients, const Fixes& fixes, std::string_view namespace_, std::string_view name,
                        T& out, bool& not_found) {
  not_found = true;
  if (!fixes.api_reader_confirms_deletion) return {};
  Error err = clients.kube.get_from_api(namespace_, name, out);
  if (is_not_found(err)) return {};
  not_found = false;
  return err;
}

// deleteSubmitterJob (RJC:L759-795): true only once the cache no longer has the Job.
Error delete_submitter_job(Clients& clients, const RayJob& rayjob, bool& is_job_deleted, const Fixes& fixes = {}) {
  is_job_deleted = false;
  if (rayjob.spec->submission_mode == "HTTPMode"sv || rayjob.spec->submission_mode == "SidecarMode"sv) {
    is_job_deleted = true;
    return {};
  }
  Job job;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.metadata.name, job)) {
    if (!is_not_found(err)) return err;
    if (Error api_err = confirm_not_found(clients, fixes, rayjob.metadata.namespace_, rayjob.metadata.name, job,
                                          is_job_deleted)) {
      return api_err;
    }
    if (is_job_deleted) return {};
  }
  if (job.metadata.deletion_timestamp_ms) return {};   // the deletion is ongoing
  return clients.kube.remove(Kind::Job, job.metadata.namespace_, job.metadata.name, Propagation::background);
}

// deleteClusterResources (RJC:L798-834): true only once the cache no longer has the cluster.
Error delete_cluster_resources(Clients& clients, const RayJob& rayjob, bool& is_cluster_deleted,
                               const Fixes& fixes = {}) {
  is_cluster_deleted = false;
  if (!rayjob.spec->cluster_selector.empty()) {
    is_cluster_deleted = true;
    return {};
  }
  RayCluster cluster;
  const std::string& name = rayjob.status.ray_cluster_name;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, name, cluster)) {
    if (!is_not_found(err)) return err;
    if (Error api_err = confirm_not_found(clients, fixes, rayjob.metadata.namespace_, name, cluster,
                                          is_cluster_deleted)) {
      return api_err;
    }
    if (is_cluster_deleted) return {};
  }
  if (cluster.metadata.deletion_timestamp_ms) return {};   // the deletion is ongoing
  return clients.kube.remove(Kind::RayCluster, cluster.metadata.namespace_, cluster.metadata.name);
}

// The finding-003 fix: whether the API server still holds a Pod of the RayJob's RayCluster or of
// its submitter Job. Listed uncached: the cache selects Pods by ray.io/node-type, so it never
// holds the submitter's, and it may not have seen the last Pods created.
Error are_pods_deleted(Clients& clients, const RayJob& rayjob, bool& pods_deleted) {
  pods_deleted = false;
  const std::string& namespace_ = rayjob.metadata.namespace_;
  std::vector<Object> pods;
  if (rayjob.spec->cluster_selector.empty() && !rayjob.status.ray_cluster_name.empty()) {
    StringMap cluster_pods{{kRayClusterLabelKey, rayjob.status.ray_cluster_name}};
    if (Error err = clients.kube.list_from_api(Kind::Pod, namespace_, cluster_pods, pods)) return err;
    if (!pods.empty()) return {};
  }
  // As deleteSubmitterJob: HTTPMode and SidecarMode have no submitter Job.
  if (rayjob.spec->submission_mode != "HTTPMode"sv && rayjob.spec->submission_mode != "SidecarMode"sv) {
    StringMap submitter_pods{{kJobNameLabelKey, rayjob.metadata.name}};
    if (Error err = clients.kube.list_from_api(Kind::Pod, namespace_, submitter_pods, pods)) return err;
    if (!pods.empty()) return {};
  }
  pods_deleted = true;
  return {};
}

// suspendWorkerGroups (RJC:L836-862).
Error suspend_worker_groups(Clients& clients, const RayJob& rayjob) {
  RayCluster cluster;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.status.ray_cluster_name, cluster)) return err;
  for (WorkerGroupSpec& group : cluster.spec.edit().worker_group_specs) group.suspend = true;
  return clients.kube.update(cluster);
}

// The submitter container's status in the head Pod (utils.SubmitterContainerName).
const ContainerStatus* submitter_container_status(const Pod& head_pod) {
  for (const ContainerStatus& status : head_pod.status.container_statuses) {
    if (status.name == kSubmitterContainerName) return &status;
  }
  return nullptr;
}

// The submitter failed (RJC:L1104-1113, L1126-1133, L1155-1163): Failed, with AppFailed when the
// Ray job was already seen FAILED, else SubmissionFailed and `message`. Returns shouldUpdate.
bool fail_submission(RayJob& rayjob, std::string message) {
  rayjob.status.job_deployment_status = kFailed;
  if (rayjob.status.job_status == "FAILED"sv) {
    rayjob.status.reason = "AppFailed";
  } else {
    rayjob.status.reason = "SubmissionFailed";
    rayjob.status.message = std::move(message);
  }
  return true;
}

// checkSubmitterAndUpdateStatusIfNeeded (RJC:L1062-1181): (shouldUpdate, finishedAt, err).
Error check_submitter_and_update_status_if_needed(Clients& clients, RayJob& rayjob, bool& should_update,
                                                  std::optional<std::int64_t>& finished_at_ms) {
  should_update = false;
  finished_at_ms.reset();
  if (rayjob.spec->submission_mode == "SidecarMode"sv) {                                 // RJC:L1071-1140
    RayCluster cluster;
    if (Error err = get_or_create_raycluster_instance(clients, rayjob, cluster)) return err;
    // common.GetRayClusterHeadPod: List Pods with the cluster and head labels; > 1 is an error.
    std::vector<Object> pods;
    if (Error err = clients.kube.list(Kind::Pod, cluster.metadata.namespace_,
                                      {{kRayClusterLabelKey, cluster.metadata.name}, {kRayNodeTypeLabelKey, "head"}},
                                      pods)) {
      return err;
    }
    if (pods.size() > 1) {
      return go_error(fmt::format("found multiple heads. filter labels for cluster {}", cluster.metadata.name));
    }
    if (pods.empty()) {
      should_update = true;
      rayjob.status.job_deployment_status = kFailed;
      rayjob.status.reason = "AppFailed";
      rayjob.status.message = "Ray head pod not found.";
      return {};
    }
    const Pod& head_pod = std::get<Pod>(pods.front());
    const ContainerStatus* container = submitter_container_status(head_pod);
    if (!sidecar_submitter_restart_gate(clients)) {                                   // checkSidecarContainerStatus
      if (container && container->state == "terminated"sv && container->exit_code.value_or(0) != 0) {
        should_update = fail_submission(
            rayjob, fmt::format("Ray head pod container {} terminated with exit code {}: {}", container->name,
                                container->exit_code.value_or(0), container->reason));   // RJC:L1111-1112
      }
    } else {                                                                          // checkIsRestartCountExceeded
      const int submitter_backoff_limit = rayjob.spec->submitter_backoff_limit.value_or(2);
      const bool terminated_before = container && container->last_termination_state.has_value();   // RJC:L1221
      const bool exited_ok = container && container->state == "terminated"sv && container->exit_code.value_or(0) == 0;
      if (terminated_before && !exited_ok && container->restart_count >= submitter_backoff_limit) {   // RJC:L1223-1226
        should_update = fail_submission(rayjob, fmt::format("Ray head pod submitter container {} terminated after "
                                                            "exceeding the maximum restart count", container->name));
      }
    }
    if (container && container->state == "terminated"sv) finished_at_ms = container->finished_at_ms.value_or(0);
    return {};
  }
  if (rayjob.spec->submission_mode == "K8sJobMode"sv) {                                  // RJC:L1141-1174
    Job job;
    if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.metadata.name, job)) return err;
    for (const JobCondition& condition : job.status.conditions) {                     // checkK8sJobStatus
      if (condition.type != "Failed"sv || condition.status != "True"sv) continue;
      should_update = fail_submission(rayjob, fmt::format("Job submission has failed. Reason: {}. Message: {}",
                                                          condition.reason, condition.message));
      break;
    }
    for (const JobCondition& condition : job.status.conditions) {                     // getJobFinishedCondition
      if ((condition.type == "Complete"sv || condition.type == "Failed"sv) && condition.status == "True"sv) {
        if (condition.last_transition_time_ms != 0) finished_at_ms = condition.last_transition_time_ms;
        break;
      }
    }
    return {};
  }
  throw ModelPanic("You can only call checkSubmitterAndUpdateStatusIfNeeded when using K8sJobMode and SidecarMode. "
                   "(rayjob_controller.go:1177)");
}

// Status.StartTime.Add on a nil pointer: only a status not written by this release lacks it.
std::int64_t start_time_or_panic(const RayJob& rayjob, const char* where) {
  if (!rayjob.status.start_time_ms) {
    throw ModelPanic(fmt::format("runtime error: invalid memory address or nil pointer dereference "
                                 "(Status.StartTime; rayjob_controller.go:{})", where));
  }
  return *rayjob.status.start_time_ms;
}

// checkActiveDeadlineAndUpdateStatusIfNeeded (RJC:L1234-1245).
bool check_active_deadline_and_update_status_if_needed(Clients& clients, RayJob& rayjob) {
  const std::optional<int>& deadline_seconds = rayjob.spec->active_deadline_seconds;
  if (!deadline_seconds) return false;
  const std::int64_t start_ms = start_time_or_panic(rayjob, "1236");
  if (clients.runtime.now_ms() < start_ms + std::int64_t{*deadline_seconds} * 1000) return false;
  rayjob.status.job_deployment_status = kFailed;
  rayjob.status.reason = "DeadlineExceeded";
  rayjob.status.message = fmt::format("The RayJob has passed the activeDeadlineSeconds. StartTime: {}. "
                                      "ActiveDeadlineSeconds: {}", go_time_string(start_ms), *deadline_seconds);
  return true;
}

// checkPreRunningDeadlineAndUpdateStatusIfNeeded (RJC:L1249-1261).
bool check_pre_running_deadline_and_update_status_if_needed(Clients& clients, RayJob& rayjob) {
  const std::optional<int>& deadline_seconds = rayjob.spec->pre_running_deadline_seconds;
  if (!deadline_seconds) return false;
  const std::int64_t start_ms = start_time_or_panic(rayjob, "1253");
  if (clients.runtime.now_ms() < start_ms + std::int64_t{*deadline_seconds} * 1000) return false;
  rayjob.status.job_deployment_status = kFailed;
  rayjob.status.reason = "PreRunningDeadlineExceeded";
  rayjob.status.message = fmt::format("The RayJob has passed the preRunningDeadlineSeconds. StartTime: {}. "
                                      "PreRunningDeadlineSeconds: {}", go_time_string(start_ms), *deadline_seconds);
  return true;
}

// checkSubmitterFinishedTimeoutAndUpdateStatusIfNeeded (RJC:L1263-1286).
bool check_submitter_finished_timeout_and_update_status_if_needed(Clients& clients, RayJob& rayjob,
                                                                  const std::optional<std::int64_t>& finished_at_ms) {
  if (!finished_at_ms) return false;
  if (clients.runtime.now_ms() < *finished_at_ms + kDefaultSubmitterFinishedTimeoutMs) return false;
  rayjob.status.job_status = "FAILED";
  rayjob.status.job_deployment_status = kFailed;
  rayjob.status.reason = "JobDeploymentStatusTransitionGracePeriodExceeded";
  rayjob.status.message = fmt::format("The RayJob submitter finished at {} but the ray job did not reach terminal "
                                      "state within 30s", go_date_time(*finished_at_ms));
  return true;
}

// getJobStatusCheckTimeoutSeconds (RJC:L1288-1294).
int get_job_status_check_timeout_seconds(Clients& clients) {
  const std::optional<int> seconds = atoi_env(clients, "RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS");
  if (!seconds || *seconds <= 0) return kDefaultStatusCheckTimeoutSeconds;
  return *seconds;
}

// clearJobStatusCheckFailureTimer (RJC:L1297-1304): whether the status should be persisted.
bool clear_job_status_check_failure_timer(RayJob& rayjob) {
  if (!rayjob.status.job_status_check_failure_start_time_ms) return false;
  rayjob.status.job_status_check_failure_start_time_ms.reset();
  return true;
}

// recordJobStatusCheckFailure (RJC:L1325-1334): whether the timer was armed now.
bool record_job_status_check_failure(Clients& clients, RayJob& rayjob) {
  if (rayjob.status.job_status_check_failure_start_time_ms) return false;
  rayjob.status.job_status_check_failure_start_time_ms = clients.runtime.now_ms();
  return true;
}

// reconcileHTTPModeJobNotFound (RJC:L1307-1321).
bool reconcile_http_mode_job_not_found(Clients& clients, RayJob& rayjob, RayDashboardClient& dashboard) {
  std::string submitted_id;
  if (Error err = dashboard.submit_job(rayjob, submitted_id)) return record_job_status_check_failure(clients, rayjob);
  return clear_job_status_check_failure_timer(rayjob);
}

// checkJobStatusCheckTimeoutAndUpdateStatusIfNeeded (RJC:L1336-1354).
bool check_job_status_check_timeout_and_update_status_if_needed(Clients& clients, RayJob& rayjob) {
  const std::optional<std::int64_t>& start_ms = rayjob.status.job_status_check_failure_start_time_ms;
  if (!start_ms) return false;
  const int timeout_seconds = get_job_status_check_timeout_seconds(clients);
  if (clients.runtime.now_ms() < *start_ms + std::int64_t{timeout_seconds} * 1000) return false;
  rayjob.status.job_deployment_status = kFailed;
  rayjob.status.reason = "JobStatusCheckTimeoutExceeded";
  rayjob.status.message = fmt::format("Job status checks have been failing since {}; exceeded timeout of {}s",
                                      go_date_time(*start_ms), timeout_seconds);
  return true;
}

// checkTransitionGracePeriodAndUpdateStatusIfNeeded (RJC:L1366-1394).
bool check_transition_grace_period_and_update_status_if_needed(Clients& clients, RayJob& rayjob) {
  RayJobStatus& status = rayjob.status;
  if (!is_job_terminal(status.job_status) || status.job_deployment_status != kRunning) return false;
  // An unparsable value falls back to the default; 0 and negative values are taken as they are.
  const int grace_seconds = atoi_env(clients, "RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD_SECONDS")
                                .value_or(kDefaultTransitionGracePeriodSeconds);
  if (!status.ray_job_end_time_ms) return false;
  if (clients.runtime.now_ms() < *status.ray_job_end_time_ms + std::int64_t{grace_seconds} * 1000) return false;
  status.job_deployment_status = status.job_status == "FAILED"sv ? kFailed : kComplete;
  status.reason = "JobDeploymentStatusTransitionGracePeriodExceeded";
  status.message = "JobDeploymentStatus does not transition to Complete or Failed within the grace period after "
                   "JobStatus reaches a terminal state.";
  return true;
}

// requeueDelayFor (RJC:L1703-1705): time.Until(t) + 2s.
ReconcileResult requeue_delay_for(Clients& clients, std::int64_t at_ms) {
  return ReconcileResult::requeue_after(at_ms - clients.runtime.now_ms() + 2'000);
}

// Status.EndTime in Complete/Failed: set by every terminal write of this release.
std::int64_t end_time_or_panic(const RayJob& rayjob) {
  if (!rayjob.status.end_time_ms) {
    throw ModelPanic("runtime error: invalid memory address or nil pointer dereference (Status.EndTime in "
                     "Complete/Failed; rayjob_controller.go:1427, :1494 or :1520)");
  }
  return *rayjob.status.end_time_ms;
}

// EndTime + TTLSecondsAfterFinished: when the legacy policy and ShutdownAfterJobFinishes act.
std::int64_t shutdown_time_ms(const RayJob& rayjob) {
  return end_time_or_panic(rayjob) + std::int64_t{rayjob.spec->ttl_seconds_after_finished.value_or(0)} * 1000;
}

// executeDeletionPolicy (RJC:L1560-1586).
ReconcileResult execute_deletion_policy(Clients& clients, const RayJob& rayjob, const std::string& policy) {
  Error err;
  if (policy == "DeleteCluster"sv) {
    bool is_cluster_deleted = false;
    err = delete_cluster_resources(clients, rayjob, is_cluster_deleted);
  } else if (policy == "DeleteWorkers"sv) {
    err = suspend_worker_groups(clients, rayjob);
  } else if (policy == "DeleteSelf"sv) {
    err = clients.kube.remove(Kind::RayJob, rayjob.metadata.namespace_, rayjob.metadata.name);
  }   // DeleteNone and unknown policies: no action
  if (err) return requeue_with(err);
  return ReconcileResult::done();
}

// isDeletionRuleMatched (RJC:L1589-1595).
bool is_deletion_rule_matched(const DeletionRule& rule, const RayJob& rayjob) {
  if (rule.condition.job_status) return *rule.condition.job_status == rayjob.status.job_status;
  return rule.condition.job_deployment_status &&
         *rule.condition.job_deployment_status == rayjob.status.job_deployment_status;
}

// isDeletionActionCompleted (RJC:L1597-1650).
Error is_deletion_action_completed(Clients& clients, const RayJob& rayjob, const std::string& policy, bool& completed) {
  completed = false;
  if (policy == "DeleteWorkers"sv || policy == "DeleteCluster"sv) {
    RayCluster cluster;
    if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.status.ray_cluster_name, cluster)) {
      if (!is_not_found(err)) return err;
      completed = true;
      return {};
    }
    if (cluster.metadata.deletion_timestamp_ms) {
      completed = true;
      return {};
    }
    if (policy == "DeleteCluster"sv) return {};
    completed = std::all_of(cluster.spec->worker_group_specs.begin(), cluster.spec->worker_group_specs.end(),
                            [](const WorkerGroupSpec& group) { return group.suspend.value_or(false); });
    return {};
  }
  if (policy == "DeleteSelf"sv) return {};
  if (policy == "DeleteNone"sv) {
    completed = true;
    return {};
  }
  return go_error(fmt::format("unknown deletion policy for completion check: {}", policy));
}

// selectMostImpactfulRule (RJC:L1685-1700).
const DeletionRule& select_most_impactful_rule(const std::vector<const DeletionRule*>& rules) {
  auto order = [](const std::string& policy) {
    if (policy == "DeleteSelf"sv) return 4;
    if (policy == "DeleteCluster"sv) return 3;
    if (policy == "DeleteWorkers"sv) return 2;
    if (policy == "DeleteNone"sv) return 1;
    return 0;
  };
  const DeletionRule* most_impactful = rules.front();
  for (const DeletionRule* rule : rules) {
    if (order(rule->policy) > order(most_impactful->policy)) most_impactful = rule;
  }
  return *most_impactful;
}

// handleDeletionRules (RJC:L1413-1468): at most one deletion action per reconcile.
ReconcileResult handle_deletion_rules(Clients& clients, const RayJob& rayjob) {
  const std::int64_t now_ms = clients.runtime.now_ms();
  std::vector<const DeletionRule*> overdue_rules;
  std::optional<std::int64_t> next_requeue_ms;
  for (const DeletionRule& rule : rayjob.spec->deletion_strategy->deletion_rules) {
    if (!is_deletion_rule_matched(rule, rayjob)) continue;
    const std::int64_t deletion_ms = end_time_or_panic(rayjob) + std::int64_t{rule.condition.ttl_seconds} * 1000;
    if (now_ms < deletion_ms) {
      if (!next_requeue_ms || deletion_ms < *next_requeue_ms) next_requeue_ms = deletion_ms;
      continue;
    }
    bool completed = false;
    if (Error err = is_deletion_action_completed(clients, rayjob, rule.policy, completed)) return requeue_with(err);
    if (completed) continue;
    overdue_rules.push_back(&rule);
  }
  if (!overdue_rules.empty()) {
    const ReconcileResult executed =
        execute_deletion_policy(clients, rayjob, select_most_impactful_rule(overdue_rules).policy);
    if (executed.err) return executed;
  }
  if (next_requeue_ms) return requeue_delay_for(clients, *next_requeue_ms);
  return ReconcileResult::done();
}

// handleLegacyDeletionPolicy (RJC:L1471-1512).
ReconcileResult handle_legacy_deletion_policy(Clients& clients, const RayJob& rayjob) {
  std::string policy;
  if (rayjob.status.job_status == "SUCCEEDED"sv) {
    policy = rayjob.spec->deletion_strategy->on_success_policy.value_or("");
  } else if (rayjob.status.job_status == "FAILED"sv) {
    policy = rayjob.spec->deletion_strategy->on_failure_policy.value_or("");
  } else {
    return ReconcileResult::done();   // JobStatus is not valid for deletion
  }
  if (policy == "DeleteNone"sv) return ReconcileResult::done();
  const std::int64_t shutdown_ms = shutdown_time_ms(rayjob);
  if (shutdown_ms > clients.runtime.now_ms()) return requeue_delay_for(clients, shutdown_ms);
  return execute_deletion_policy(clients, rayjob, policy);
}

// handleShutdownAfterJobFinishes (RJC:L1515-1556).
ReconcileResult handle_shutdown_after_job_finishes(Clients& clients, const RayJob& rayjob) {
  const std::int64_t shutdown_ms = shutdown_time_ms(rayjob);
  if (shutdown_ms > clients.runtime.now_ms()) return requeue_delay_for(clients, shutdown_ms);
  Error err;
  std::string delete_rayjob = clients.runtime.operator_env("DELETE_RAYJOB_CR_AFTER_JOB_FINISHES").value_or("");
  std::transform(delete_rayjob.begin(), delete_rayjob.end(), delete_rayjob.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (delete_rayjob == "true"sv) {
    err = clients.kube.remove(Kind::RayJob, rayjob.metadata.namespace_, rayjob.metadata.name);
  } else {
    // The submitter Job is kept so that the driver logs stay readable (RJC:L1543-1544).
    bool is_cluster_deleted = false;
    err = delete_cluster_resources(clients, rayjob, is_cluster_deleted);
  }
  if (err) return requeue_with(err);
  return ReconcileResult::done();
}

// ---- the states of the switch (RJC:L165-451); each returns nullopt to fall through to the
// retry accounting and the status write after the switch, as a Go `break` does ----

using StateResult = std::optional<ReconcileResult>;

// New (RJC:L166-178).
StateResult reconcile_new(Clients& clients, RayJob& rayjob) {
  if (!has_finalizer(rayjob.metadata, kRayJobStopJobFinalizer)) {                     // :167-174
    rayjob.metadata.finalizers.edit().emplace_back(kRayJobStopJobFinalizer);
    if (Error err = clients.kube.update(rayjob)) return requeue_with(err);
  }
  init_rayjob_status_if_need(clients, rayjob);                                        // :178
  return std::nullopt;
}

// Initializing (RJC:L179-236).
StateResult reconcile_initializing(Clients& clients, RayJob& rayjob) {
  if (update_status_to_suspending_if_needed(rayjob)) return std::nullopt;                            // :180
  if (check_active_deadline_and_update_status_if_needed(clients, rayjob)) return std::nullopt;       // :184
  if (check_pre_running_deadline_and_update_status_if_needed(clients, rayjob)) return std::nullopt;  // :188
  // :192-200 batch scheduler: not modelled (no scheduler configured).
  RayCluster cluster;
  if (Error err = get_or_create_raycluster_instance(clients, rayjob, cluster)) return requeue_with(err);   // :203
  if (rayjob.status.dashboard_url.empty()) {                                          // :208
    if (cluster.status->state != "ready"sv) {                                            // :209-215: mirror, break
      rayjob.status.ray_cluster_status = cluster.status;
      return std::nullopt;
    }
    std::string url;
    if (Error err = fetch_head_service_url(clients, cluster, url); err || url.empty()) {   // :218-221
      return requeue_with(err ? err : go_error("empty dashboard URL"));
    }
    rayjob.status.dashboard_url = url;
  }
  if (rayjob.spec->submission_mode == "InteractiveMode"sv) {                             // :225-228
    rayjob.status.job_deployment_status = kWaiting;
    return std::nullopt;
  }
  if (rayjob.spec->submission_mode == "K8sJobMode"sv) {                                  // :230-234
    if (Error err = create_k8s_job_if_need(clients, rayjob, cluster)) return requeue_with(err);
  }
  rayjob.status.job_deployment_status = kRunning;                                     // :236
  return std::nullopt;
}

// Waiting, InteractiveMode only (RJC:L237-248).
StateResult reconcile_waiting(Clients& clients, RayJob& rayjob) {
  if (check_pre_running_deadline_and_update_status_if_needed(clients, rayjob)) return std::nullopt;  // :238
  if (rayjob.spec->job_id.empty()) return requeue();                                   // :243-245, no write
  rayjob.status.job_id = rayjob.spec->job_id;                                          // :247-248
  rayjob.status.job_deployment_status = kRunning;
  return std::nullopt;
}

// Running (RJC:L249-365).
StateResult reconcile_running(Clients& clients, RayJob& rayjob, const Fixes& fixes) {
  // Finding 001's fix: the timeout waits for Ray's answer (below) instead of coming before it.
  const bool timeout_first = !fixes.ray_before_submitter_timeout;
  if (update_status_to_suspending_if_needed(rayjob)) return std::nullopt;                             // :250
  if (check_active_deadline_and_update_status_if_needed(clients, rayjob)) return std::nullopt;        // :254
  if (check_transition_grace_period_and_update_status_if_needed(clients, rayjob)) return std::nullopt;  // :258
  if (check_job_status_check_timeout_and_update_status_if_needed(clients, rayjob)) return std::nullopt; // :262
  RayCluster cluster;
  if (Error err = get_or_create_raycluster_instance(clients, rayjob, cluster)) return requeue_with(err);   // :269
  if (Error err = reconcile_services(clients, rayjob, cluster)) return requeue_with(err);                // :273
  std::optional<std::int64_t> finished_at_ms;
  if (has_submitter(rayjob)) {                                                        // :279-292
    bool should_update = false;
    if (Error err = check_submitter_and_update_status_if_needed(clients, rayjob, should_update, finished_at_ms)) {
      return requeue_with(err);
    }
    if (timeout_first && check_submitter_finished_timeout_and_update_status_if_needed(clients, rayjob, finished_at_ms)) {
      return std::nullopt;
    }
    if (should_update) return std::nullopt;
  }
  RayDashboardClient dashboard(clients.dashboard);                                   // :295-299
  dashboard.init_client(rayjob.status.dashboard_url);
  RayJobInfo job_info;
  if (Error err = dashboard.get_job_info(rayjob.status.job_id, job_info)) {           // :301
    if (is_bad_request(err)) {                                                        // :304-320: not found
      if (rayjob.spec->submission_mode == "HTTPMode"sv) {
        if (reconcile_http_mode_job_not_found(clients, rayjob, dashboard)) return std::nullopt;
        return requeue();
      }
      if (finished_at_ms) {
        rayjob.status.job_deployment_status = kFailed;
        rayjob.status.reason = "AppFailed";
        rayjob.status.message = "Submitter completed but Ray job not found in RayCluster.";
        return std::nullopt;
      }
      return requeue();
    }
    if (!timeout_first && check_submitter_finished_timeout_and_update_status_if_needed(clients, rayjob, finished_at_ms)) {
      return std::nullopt;   // fix 001: Ray cannot be reached
    }
    if (record_job_status_check_failure(clients, rayjob)) return std::nullopt;        // :322-326
    return requeue();
  }
  if (!timeout_first && !is_job_terminal(job_info.job_status) &&
      check_submitter_finished_timeout_and_update_status_if_needed(clients, rayjob, finished_at_ms)) {
    return std::nullopt;     // fix 001: Ray answered, and not with an end
  }
  rayjob.status.job_status_check_failure_start_time_ms.reset();                       // :329
  std::string job_deployment_status(kRunning);                                       // :334-349
  std::string reason;
  bool is_terminal = is_job_terminal(job_info.job_status);
  if (has_submitter(rayjob)) is_terminal = is_terminal && finished_at_ms.has_value();
  if (is_terminal) {
    job_deployment_status = kComplete;
    if (job_info.job_status == "FAILED"sv) {
      job_deployment_status = kFailed;
      reason = "AppFailed";
    }
  }
  RayJobStatus& status = rayjob.status;                                               // :352-364
  status.ray_cluster_status = cluster.status;
  status.job_status = job_info.job_status;
  status.job_deployment_status = job_deployment_status;
  status.reason = reason;
  status.message = job_info.message;
  if (job_info.start_time_ms != 0) status.ray_job_start_time_ms = job_info.start_time_ms;
  if (job_info.end_time_ms != 0) status.ray_job_end_time_ms = job_info.end_time_ms;
  return std::nullopt;
}

// Suspending and Retrying (RJC:L366-410): atomic; no StopJob.
StateResult reconcile_suspending_or_retrying(Clients& clients, RayJob& rayjob, const Fixes& fixes) {
  bool is_cluster_deleted = false, is_job_deleted = false;
  if (Error err = delete_cluster_resources(clients, rayjob, is_cluster_deleted, fixes)) {          // :375
    return requeue_with(err);
  }
  if (Error err = delete_submitter_job(clients, rayjob, is_job_deleted, fixes)) return requeue_with(err);   // :379
  if (!is_cluster_deleted || !is_job_deleted) return requeue();                       // :383-387
  if (fixes.wait_for_pods_deleted) {   // finding 003: and their Pods, before quota is handed back
    bool pods_deleted = false;
    if (Error err = are_pods_deleted(clients, rayjob, pods_deleted)) return requeue_with(err);
    if (!pods_deleted) return requeue();
  }
  // :389-391 cleanupBatchSchedulerResources: no batch scheduler is modelled.
  RayJobStatus& status = rayjob.status;                                               // :394-409
  status.ray_cluster_status = RayClusterStatus{};
  status.ray_cluster_name.clear();
  status.dashboard_url.clear();
  status.job_id.clear();
  status.message.clear();
  status.reason.clear();
  status.ray_job_start_time_ms.reset();
  status.ray_job_end_time_ms.reset();
  status.job_status_check_failure_start_time_ms.reset();
  status.job_status = "";
  if (status.job_deployment_status == kSuspending) status.job_deployment_status = kSuspended;
  if (status.job_deployment_status == kRetrying) status.job_deployment_status = kNew;
  return std::nullopt;
}

// Suspended (RJC:L411-419): not requeued since PR #4443.
StateResult reconcile_suspended(RayJob& rayjob) {
  if (!rayjob.spec->suspend) {
    rayjob.status.job_status = "";
    rayjob.status.job_deployment_status = kNew;
    return std::nullopt;
  }
  return ReconcileResult::done();
}

// Complete and Failed (RJC:L420-447). The deferred batch-scheduler cleanup is not modelled.
StateResult reconcile_complete_or_failed(Clients& clients, RayJob& rayjob) {
  if (!rayjob.spec->cluster_selector.empty()) return ReconcileResult::done();          // :428-431
  if (deletion_policy_gate(clients) && rayjob.spec->deletion_strategy) {               // :433-439
    if (!rayjob.spec->deletion_strategy->deletion_rules.empty()) return handle_deletion_rules(clients, rayjob);
    return handle_legacy_deletion_policy(clients, rayjob);
  }
  if (rayjob.spec->shutdown_after_job_finishes) return handle_shutdown_after_job_finishes(clients, rayjob);   // :441
  return ReconcileResult::done();                                                     // :446
}

// The deletion branch (RJC:L112-139): StopJob while the Ray job may still run, then the finalizer
// goes whether StopJob succeeded or not. The cluster Get feeds only the token-auth client
// factory, which is not modelled.
ReconcileResult reconcile_deletion(Clients& clients, RayJob& rayjob) {
  if (!is_job_terminal(rayjob.status.job_status)) {                                   // :115-129
    RayCluster cluster;
    (void)clients.kube.get(rayjob.metadata.namespace_, rayjob.status.ray_cluster_name, cluster);   // error only logged
    RayDashboardClient dashboard(clients.dashboard);
    dashboard.init_client(rayjob.status.dashboard_url);
    (void)dashboard.stop_job(rayjob.status.job_id);   // the error is only logged
  }
  std::erase(rayjob.metadata.finalizers.edit(), std::string(kRayJobStopJobFinalizer));      // :132-138
  if (Error err = clients.kube.update(rayjob)) return requeue_with(err);
  return requeue();
}

}  // namespace

ReleaseEnvironment RayJobReconciler::environment() const {
  ReleaseEnvironment environment;   // controller-runtime v0.24.1, client-go v0.36.0 (§0.1)
  environment.queue = QueueBehaviour::priority;
  environment.fifo = FifoBehaviour::real_fifo;
  environment.workers_wait_for_handlers = true;
  environment.panic_kills_process = false;
  environment.initial_list_is_consistent = true;
  // The v1.7.0 RayCluster controller waits for every desired Pod, Running and Ready (§1.12).
  environment.ray_cluster_readiness = RayClusterReadiness::desired_pods_ready;
  // Its e2e tests run on kind nodes v1.29.0 and later: Job Pods carry the tracking finalizer.
  environment.job_pod_tracking = JobPodTracking::finalizers;
  environment.dashboard_timeout_ms = 2'000;   // 2 s without UseKubernetesProxy (reference §1.3)
  return environment;
}

const Watches& RayJobReconciler::watches() const {
  // SetupWithManager (RJC:L864-881); cache selectors (internal/managercache/cache.go:L18-38).
  static const Watches watches{
      .for_kind = Kind::RayJob,
      .owns = {Kind::RayCluster, Kind::Service, Kind::Job},
      .cache_selectors = {{Kind::Job, LabelSelector{kKubernetesCreatedByLabelKey, {kComponentName}}},
                          {Kind::Pod, LabelSelector{kRayNodeTypeLabelKey, {"head", "worker", "redis-cleanup"}}}}};
  return watches;
}

// Reconcile (RJC:L89-461).
ReconcileResult RayJobReconciler::reconcile(const Request& request, Clients& clients) {
  RayJob& rayjob = rayjob_;
  if (Error err = clients.kube.get(request.namespace_, request.name, rayjob)) {       // :95-105
    if (is_not_found(err)) return ReconcileResult::done();
    return requeue_with(err);
  }
  if (rayjob.spec->managed_by && *rayjob.spec->managed_by != kKubeRayController) {      // :107-110
    return ReconcileResult::done();
  }
  if (rayjob.metadata.deletion_timestamp_ms) return reconcile_deletion(clients, rayjob);   // :112
  const RayJob original = rayjob;                                                     // :142

  if (Error err = validate_rayjob(clients, rayjob)) {                                 // :145-162
    rayjob.status.job_deployment_status = kValidationFailed;
    rayjob.status.reason = "ValidationFailed";
    rayjob.status.message = err.message();
    if (Error write_err = update_rayjob_status(clients, original, rayjob)) return requeue_with(write_err);
    return ReconcileResult::done();
  }

  StateResult result;
  const std::string state = rayjob.status.job_deployment_status;                      // :165
  if (state == kNew) {
    result = reconcile_new(clients, rayjob);
  } else if (state == kInitializing) {
    result = reconcile_initializing(clients, rayjob);
  } else if (state == kWaiting) {
    result = reconcile_waiting(clients, rayjob);
  } else if (state == kRunning) {
    result = reconcile_running(clients, rayjob, fixes_);
  } else if (state == kSuspending || state == kRetrying) {
    result = reconcile_suspending_or_retrying(clients, rayjob, fixes_);
  } else if (state == kSuspended) {
    result = reconcile_suspended(rayjob);
  } else if (state == kComplete || state == kFailed) {
    result = reconcile_complete_or_failed(clients, rayjob);
  } else {
    result = requeue();                                                               // default :448-451
  }
  if (result) return *result;

  check_backoff_limit_and_update_status_if_needed(rayjob);                            // :452
  // "one of the only 2 places where we update the RayJob status" (RJC:L454-458).
  if (Error err = update_rayjob_status(clients, original, rayjob)) return requeue_with(err);
  return requeue();
}

std::vector<std::pair<std::string, std::string>> RayJobReconciler::transition_table() const {
  constexpr std::pair<std::string_view, std::string_view> kTransitions[] = {
      {kNew, kInitializing},
      {kInitializing, kSuspending},   {kInitializing, kFailed},  {kInitializing, kRetrying},
      {kInitializing, kWaiting},      {kInitializing, kRunning},
      {kWaiting, kFailed},            {kWaiting, kRunning},   // no retry: InteractiveMode forbids backoffLimit
      {kRunning, kSuspending},        {kRunning, kFailed},       {kRunning, kRetrying},
      {kRunning, kComplete},
      {kSuspending, kSuspended},      {kRetrying, kNew},         {kSuspended, kNew},
  };
  std::vector<std::pair<std::string, std::string>> table(std::begin(kTransitions), std::end(kTransitions));
  // Validation failure is written from every state, ValidationFailed included only as a no-op.
  for (std::string_view state :
       {kNew, kInitializing, kWaiting, kRunning, kComplete, kFailed, kSuspending, kSuspended, kRetrying}) {
    table.emplace_back(state, kValidationFailed);
  }
  return table;
}

}  // namespace rjsim::models::kuberay_1_7
