#include "models/kuberay_1_0/rayjob_controller.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "models/kuberay_1_0/dashboard_client.h"
#include "models/kuberay_1_1/submitter_job.h"
#include "models/shared/kuberay_1_0_1_1.h"

namespace rjsim::models::kuberay_1_0 {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using namespace rjsim::engine;

namespace {

// ---- constants (RJC:L32-36; common/constant.go at v1.0.0) ----
constexpr std::int64_t kRayJobDefaultRequeueDurationMs = 3'000;    // RayJobDefaultRequeueDuration
constexpr const char* kRayJobDefaultClusterSelectorKey = "ray.io/cluster";
constexpr const char* kRayJobStopJobFinalizer = "ray.io/rayjob-finalizer";
constexpr const char* kKubernetesCreatedByLabelKey = "app.kubernetes.io/created-by";
constexpr const char* kComponentName = "kuberay-operator";

// JobDeploymentStatus values (apis/ray/v1/rayjob_types.go:L35-46 at v1.0.0).
constexpr std::string_view kInitializing = "Initializing";
constexpr std::string_view kFailedToGetOrCreateRayCluster = "FailedToGetOrCreateRayCluster";
constexpr std::string_view kWaitForDashboard = "WaitForDashboard";
constexpr std::string_view kWaitForDashboardReady = "WaitForDashboardReady";
constexpr std::string_view kWaitForK8sJob = "WaitForK8sJob";
constexpr std::string_view kFailedJobDeploy = "FailedJobDeploy";
constexpr std::string_view kRunning = "Running";
constexpr std::string_view kFailedToGetJobStatus = "FailedToGetJobStatus";
constexpr std::string_view kComplete = "Complete";
constexpr std::string_view kSuspended = "Suspended";

using shared::fetch_head_service_url;      // DASH:L67-107, the same Go at v1.1.0
using shared::generate_raycluster_name;    // utils/util.go:L204-206
using shared::generate_rayjob_id;          // utils/util.go:L209
using shared::is_job_terminal;             // rayjob_types.go:L24-30

bool is_job_succeed_or_failed(std::string_view status) {   // RJC:L470-472 (STOPPED is not)
  return status == "SUCCEEDED"sv || status == "FAILED"sv;
}
bool is_job_pending_or_running(std::string_view status) {   // RJC:L475-477
  return status == "PENDING"sv || status == "RUNNING"sv;
}

ReconcileResult requeue() { return ReconcileResult::requeue_after(kRayJobDefaultRequeueDurationMs); }
// `ctrl.Result{RequeueAfter: 3s}, err`: with an error the queue ignores the RequeueAfter (§0.3);
// with a nil err it is a plain 3 s requeue.
ReconcileResult requeue_with(Error err) {
  return ReconcileResult::error(std::move(err), kRayJobDefaultRequeueDurationMs);
}
Error go_error(std::string message) { return Error(ErrorCode::other, std::move(message)); }

ModelPanic nil_dereference(std::string_view what) {
  return ModelPanic(fmt::format("runtime error: invalid memory address or nil pointer dereference ({})", what));
}

// ---- helpers, in the Go's order ----

// ConvertUnixTimeToMetav1Time (utils/util.go): Ray's times as they are, and its 0 (a job not
// started yet) as the Unix epoch, 1970-01-01T00:00:00Z, before rjsim's virtual epoch.
std::int64_t metav1_time_of(std::int64_t ray_ms) { return ray_ms == 0 ? -kVirtualEpochUnixMs : ray_ms; }

// updateState (RJC:L539-566): the only status writer. Writes only when the (JobStatus,
// JobDeploymentStatus) pair changes, and then drops nothing: the in-memory status goes with it.
// An unchanged pair returns nil and drops `err`.
Error update_state(Clients& clients, RayJob& rayjob, const std::optional<RayJobInfo>& job_info,
                   std::string_view job_status, std::string_view job_deployment_status, Error err) {
  RayJobStatus& status = rayjob.status;
  if (status.job_status == job_status && status.job_deployment_status == job_deployment_status) {   // :543
    return {};
  }
  status.job_status = job_status;
  status.job_deployment_status = job_deployment_status;
  if (job_info) {                                                                   // :549-557
    status.message = job_info->message;
    status.start_time_ms = metav1_time_of(job_info->start_time_ms);
    if (job_info->start_time_ms >= job_info->end_time_ms) {
      status.end_time_ms.reset();
    } else {
      status.end_time_ms = metav1_time_of(job_info->end_time_ms);
    }
  }
  status.observed_generation = rayjob.metadata.generation;                          // :560
  if (Error err_status = clients.kube.update_status(rayjob)) {                      // :562-564
    return Error(ErrorCode::other, fmt::format("combined error: {} {}", err ? err.message() : "<nil>",
                                                err_status.message()));
  }
  return err;
}

// initRayJobStatusIfNeed (RJC:L489-525): names and JobStatus PENDING, written before anything
// is created.
Error init_rayjob_status_if_need(Clients& clients, RayJob& rayjob) {
  RayJobStatus& status = rayjob.status;
  bool should_update_status = false;
  if (status.job_id.empty()) {                                                      // :491-498
    should_update_status = true;
    status.job_id = !rayjob.spec->job_id.empty() ? rayjob.spec->job_id
                                                : generate_rayjob_id(clients, rayjob.metadata.name);
  }
  if (status.ray_cluster_name.empty()) {                                            // :500-514
    should_update_status = true;
    if (!rayjob.spec->cluster_selector.empty()) {
      auto it = rayjob.spec->cluster_selector.find(kRayJobDefaultClusterSelectorKey);
      if (it == rayjob.spec->cluster_selector.end()) {
        return go_error(fmt::format("failed to get cluster name in ClusterSelector map, the default key is {}",
                                    kRayJobDefaultClusterSelectorKey));
      }
      status.ray_cluster_name = it->second;
    } else {
      status.ray_cluster_name = generate_raycluster_name(clients, rayjob.metadata.name);
    }
  }
  if (status.job_status.empty()) {                                                  // :516-519
    should_update_status = true;
    status.job_status = "PENDING";
  }
  if (should_update_status) {                                                       // :521-523
    return update_state(clients, rayjob, std::nullopt, status.job_status, kInitializing, {});
  }
  return {};
}

// shouldUpdateJobStatus (RJC:L527-536).
bool should_update_job_status(const std::string& old_job_status, const std::string& old_job_deployment_status,
                              const std::optional<RayJobInfo>& job_info) {
  if (!job_info) return false;
  return old_job_status != job_info->job_status || old_job_deployment_status == kFailedToGetJobStatus;
}

// constructRayClusterForRayJob (RJC:L684-701): the RayJob's labels and annotations, nothing added.
RayCluster construct_raycluster_for_rayjob(const RayJob& rayjob, const std::string& cluster_name) {
  RayCluster cluster;
  cluster.metadata.labels = rayjob.metadata.labels;
  cluster.metadata.annotations = rayjob.metadata.annotations;
  cluster.metadata.name = cluster_name;
  cluster.metadata.namespace_ = rayjob.metadata.namespace_;
  cluster.spec = *rayjob.spec->ray_cluster_spec;
  cluster.metadata.owner_references.edit().push_back(OwnerReference{
      "ray.io/v1", Kind::RayJob, rayjob.metadata.name, rayjob.metadata.uid, true, true});
  return cluster;
}

// getOrCreateRayClusterInstance (RJC:L569-682). `found` false with no error is Go's
// (nil, nil): suspend before a cluster exists, or the replica Update answered NotFound.
Error get_or_create_raycluster_instance(Clients& clients, const RayJob& rayjob, RayCluster& cluster, bool& found) {
  found = false;
  const std::string& name = rayjob.status.ray_cluster_name;
  Error err = clients.kube.get(rayjob.metadata.namespace_, name, cluster);
  if (!err) {
    if (!rayjob.spec->cluster_selector.empty()) {                                   // :587-590 Case1
      found = true;
      return {};
    }
    if (!rayjob.spec->ray_cluster_spec) throw nil_dereference("Spec.RayClusterSpec; rayjob_controller.go:601");
    if (rayjob.spec->ray_cluster_spec->enable_in_tree_autoscaling.value_or(false)) {   // :601-607 Case2
      found = true;   // the autoscaler alone sets replicas
      return {};
    }
    bool are_replicas_identical = true;                                            // :611-617 Case3
    const auto& wanted_groups = rayjob.spec->ray_cluster_spec->worker_group_specs;
    for (std::size_t i = 0; i < wanted_groups.size(); ++i) {
      if (i >= cluster.spec->worker_group_specs.size()) {
        throw ModelPanic(fmt::format("runtime error: index out of range [{}] with length {} "
                                     "(RayCluster WorkerGroupSpecs; rayjob_controller.go:613)",
                                     i, cluster.spec->worker_group_specs.size()));
      }
      // Replicas defaults to 0 in the CRD (raycluster_types.go:L48-50).
      const int wanted = wanted_groups[i].replicas.value_or(0);
      if (cluster.spec->worker_group_specs[i].replicas.value_or(0) != wanted) {
        are_replicas_identical = false;
        cluster.spec.edit().worker_group_specs[i].replicas = wanted;
      }
    }
    if (are_replicas_identical) {                                                  // :625-627
      found = true;
      return {};
    }
    if (Error update_err = clients.kube.update(cluster)) {                         // :630-634
      return is_not_found(update_err) ? Error{} : update_err;                      // client.IgnoreNotFound
    }
    found = true;
    return {};
  }
  if (!is_not_found(err)) return err;                                              // :675-679
  if (rayjob.spec->cluster_selector.empty() && !rayjob.spec->ray_cluster_spec) {      // :639-643
    return go_error("Both ClusterSelector and RayClusterSpec are undefined");
  }
  if (!rayjob.spec->cluster_selector.empty()) {                                     // :645-649
    return go_error(fmt::format("we have choosed the cluster selector mode, failed to find the cluster "
                                "named {}, err: {}", name, err.message()));
  }
  if (is_job_succeed_or_failed(rayjob.status.job_status) &&                       // :652-655
      rayjob.status.job_deployment_status == kComplete) {
    return err;
  }
  if (rayjob.spec->suspend) return {};                                              // :657-659
  cluster = construct_raycluster_for_rayjob(rayjob, name);                         // :662
  if (Error create_err = clients.kube.create(cluster)) return create_err;          // :668-672
  found = true;
  return {};
}

// getSubmitterTemplate (RJC:L368-404): only PYTHONUNBUFFERED is added (no RAY_DASHBOARD_ADDRESS
// or RAY_JOB_SUBMISSION_ID in this release). GetK8sJobCommand and GetDefaultSubmitterTemplate
// (common/job.go) are the v1.1.0 Go for every field the engine's RayJob has: v1.0.0 differs only
// by the deprecated base64 `runtimeEnv`, which the engine does not model.
Error get_submitter_template(const RayJob& rayjob, const RayCluster& cluster, PodTemplate& submitter) {
  submitter = rayjob.spec->submitter_pod_template ? *rayjob.spec->submitter_pod_template
                                                 : kuberay_1_1::get_default_submitter_template(cluster);
  if (submitter.containers.empty()) {   // Containers[common.RayContainerIndex] (RJC:L381)
    throw ModelPanic("runtime error: index out of range [0] with length 0 (SubmitterPodTemplate "
                     "without containers; rayjob_controller.go:381)");
  }
  Container& container = submitter.containers.front();
  if (container.command.empty()) {
    if (Error err = kuberay_1_1::get_k8s_job_command(rayjob, container.command)) return err;   // :387
  }
  container.env["PYTHONUNBUFFERED"] = "1";                                          // :398-401
  return {};
}

// createNewK8sJob (RJC:L407-440): named after the RayJob, label created-by only, backoffLimit 2.
Error create_new_k8s_job(Clients& clients, const RayJob& rayjob, PodTemplate submitter) {
  Job job;
  job.metadata.name = rayjob.metadata.name;
  job.metadata.namespace_ = rayjob.metadata.namespace_;
  job.metadata.labels = StringMap{{kKubernetesCreatedByLabelKey, kComponentName}};
  job.spec.edit().backoff_limit = 2;
  job.spec.edit().template_ = std::move(submitter);
  job.metadata.owner_references.edit().push_back(OwnerReference{
      "ray.io/v1", Kind::RayJob, rayjob.metadata.name, rayjob.metadata.uid, true, true});
  return clients.kube.create(job);
}

// getOrCreateK8sJob (RJC:L342-365): the Job's name; an existing Job (whatever its attempt) is
// "a success".
Error get_or_create_k8s_job(Clients& clients, const RayJob& rayjob, const RayCluster& cluster, std::string& job_name) {
  Job job;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.metadata.name, job)) {
    if (!is_not_found(err)) return err;                                             // :358-360
    PodTemplate submitter;
    if (Error template_err = get_submitter_template(rayjob, cluster, submitter)) return template_err;
    if (Error create_err = create_new_k8s_job(clients, rayjob, std::move(submitter))) return create_err;
  }
  job_name = rayjob.metadata.name;
  return {};
}

// deleteCluster (RJC:L442-467): NotFound comes back as the error (callers ignore it); a cluster
// already being deleted is left alone.
Error delete_cluster(Clients& clients, const RayJob& rayjob) {
  RayCluster cluster;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.status.ray_cluster_name, cluster)) return err;
  if (cluster.metadata.deletion_timestamp_ms) return {};                            // :455-456
  return clients.kube.remove(Kind::RayCluster, cluster.metadata.namespace_, cluster.metadata.name);
}

// The deletion branch (RJC:L103-122): StopJob only for PENDING/RUNNING (error logged), then the
// finalizer goes whatever StopJob did.
ReconcileResult reconcile_deletion(Clients& clients, RayJob& rayjob) {
  if (is_job_pending_or_running(rayjob.status.job_status)) {                        // :105-112
    RayDashboardClient dashboard(clients.dashboard);
    dashboard.init_client(rayjob.status.dashboard_url);
    dashboard.stop_job(rayjob.status.job_id);   // the error is only logged
  }
  auto& finalizers = rayjob.metadata.finalizers.edit();                                  // :115-121
  finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), kRayJobStopJobFinalizer), finalizers.end());
  return requeue_with(clients.kube.update(rayjob));
}

// Mark Complete once the Ray job SUCCEEDED/FAILED and its cluster is gone or going
// (RJC:L133-156); nullopt to go on with the pipeline.
std::optional<ReconcileResult> complete_if_cluster_gone(Clients& clients, RayJob& rayjob) {
  RayCluster cluster;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.status.ray_cluster_name, cluster)) {
    if (!is_not_found(err)) return requeue_with(err);                               // :141-143
  } else if (!cluster.metadata.deletion_timestamp_ms) {                             // :150
    return std::nullopt;
  }
  const std::string job_status = rayjob.status.job_status;                          // :144, :151
  if (Error err = update_state(clients, rayjob, std::nullopt, job_status, kComplete, {})) return requeue_with(err);
  return ReconcileResult::requeue_rate_limited();                                   // :147, :154 Requeue: true
}

// The suspend path in Running (RJC:L268-302): stop the Ray job, wait for STOPPED, delete the
// cluster (without waiting for it to go), clear the names, write Suspended. The submitter Job
// is kept.
ReconcileResult suspend_running_job(Clients& clients, RayJob& rayjob, RayDashboardClient& dashboard,
                                    const std::optional<RayJobInfo>& job_info) {
  std::optional<RayJobInfo> info;
  if (Error err = dashboard.get_job_info(rayjob.status.job_id, info)) return requeue_with(err);   // :269-272
  if (!info) throw nil_dereference("info.JobStatus after a 404 while suspending; rayjob_controller.go:273");
  if (!is_job_terminal(info->job_status)) {                                         // :273-278
    if (Error err = dashboard.stop_job(rayjob.status.job_id)) return requeue_with(err);
  }
  if (info->job_status != "STOPPED"sv) return requeue();                              // :279-281
  if (Error err = delete_cluster(clients, rayjob); err && !is_not_found(err)) return requeue();   // :283-286
  RayJobStatus& status = rayjob.status;                                             // :289-293
  status.ray_cluster_status = RayClusterStatus{};
  status.ray_cluster_name.clear();
  status.dashboard_url.clear();
  status.job_id.clear();
  status.message.clear();
  // :294 passes the step's jobInfo (not `info`), which re-fills Message, StartTime and EndTime.
  if (Error err = update_state(clients, rayjob, job_info, "STOPPED", kSuspended, {})) return requeue_with(err);
  return requeue();                                                                 // :300
}

}  // namespace

// controller-runtime v0.11.1, client-go v0.23.0 (kubernetes-semantics §0.1); the v1.0.0
// RayCluster controller is ready when every listed Pod is Running, Ready or not (reference §3.5).
ReleaseEnvironment RayJobReconciler::environment() const {
  ReleaseEnvironment environment = shared::legacy_release_environment();
  environment.ray_cluster_readiness = RayClusterReadiness::all_pods_running;
  environment.dashboard_timeout_ms = 120'000;   // the dashboard client's http.Client (DASH:L109-114)
  return environment;
}

// SetupWithManager (RJC:L480-487); Job cache filter (main.go:L179-189).
const Watches& RayJobReconciler::watches() const { return shared::rayjob_watches(); }

// Reconcile (RJC:L75-339): one pipeline, each step ending the pass or going on.
ReconcileResult RayJobReconciler::reconcile(const Request& request, Clients& clients) {
  RayJob& rayjob = rayjob_;
  if (Error err = clients.kube.get(request.namespace_, request.name, rayjob)) {    // :81-90
    if (is_not_found(err)) return ReconcileResult::done();
    return requeue_with(err);
  }
  RayJobStatus& status = rayjob.status;

  if (!rayjob.metadata.deletion_timestamp_ms) {                                     // :92-102
    if (!has_finalizer(rayjob.metadata, kRayJobStopJobFinalizer)) {
      rayjob.metadata.finalizers.edit().emplace_back(kRayJobStopJobFinalizer);
      if (Error err = clients.kube.update(rayjob)) return requeue_with(err);
    }
  } else {
    return reconcile_deletion(clients, rayjob);                                     // :103-122
  }

  if (status.job_deployment_status == kComplete) return ReconcileResult::done();   // :125-128

  if (is_job_succeed_or_failed(status.job_status)) {                               // :133-156
    if (auto result = complete_if_cluster_gone(clients, rayjob)) return *result;
  }

  if (Error err = init_rayjob_status_if_need(clients, rayjob)) return requeue_with(err);   // :160-164

  RayCluster cluster;                                                               // :166-170
  bool found = false;
  if (Error err = get_or_create_raycluster_instance(clients, rayjob, cluster, found)) {
    return requeue_with(update_state(clients, rayjob, std::nullopt, status.job_status,
                                     kFailedToGetOrCreateRayCluster, err));
  }
  if (!found) {                                                                     // :172-184
    if (status.job_deployment_status == kSuspended) return requeue();
    return requeue_with(update_state(clients, rayjob, std::nullopt, status.job_status, kSuspended, {}));
  }

  status.ray_cluster_status = cluster.status;                                       // :187

  RayDashboardClient dashboard(clients.dashboard);                                  // :189-210
  if (std::string client_url = status.dashboard_url; client_url.empty()) {
    Error err = fetch_head_service_url(clients, cluster, client_url);
    if (err || client_url.empty()) {
      if (client_url.empty()) err = go_error("empty dashboardURL");
      return requeue_with(update_state(clients, rayjob, std::nullopt, status.job_status, kWaitForDashboard, err));
    }
    // The readiness probe (issue #1381): a 404 is "ready", since GetJobInfo returns nil, nil.
    dashboard.init_client(client_url);
    std::optional<RayJobInfo> probe;
    if (Error probe_err = dashboard.get_job_info(status.job_id, probe)) {           // :203-206
      return requeue_with(update_state(clients, rayjob, std::nullopt, status.job_status, kWaitForDashboardReady,
                                       probe_err));
    }
    status.dashboard_url = client_url;                                              // :207
  } else {
    dashboard.init_client(client_url);
  }

  if (cluster.status->state != "ready"sv) {                                            // :213-217, every pass
    return requeue_with(update_state(clients, rayjob, std::nullopt, status.job_status, kInitializing, {}));
  }

  std::string job_name;                                                             // :220-224
  if (Error err = get_or_create_k8s_job(clients, rayjob, cluster, job_name)) {
    return requeue_with(update_state(clients, rayjob, std::nullopt, status.job_status, kFailedJobDeploy, err));
  }

  Job k8s_job;                                                                      // :235-246
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, job_name, k8s_job)) {
    const std::string_view label = is_not_found(err) ? kWaitForK8sJob : kFailedToGetJobStatus;
    return requeue_with(update_state(clients, rayjob, std::nullopt, status.job_status, label, err));
  }

  std::optional<RayJobInfo> job_info;                                               // :249-256
  if (Error err = dashboard.get_job_info(status.job_id, job_info)) {
    return requeue_with(update_state(clients, rayjob, job_info, status.job_status, kFailedToGetJobStatus, err));
  }

  if (should_update_job_status(status.job_status, status.job_deployment_status, job_info)) {   // :259-262
    return requeue_with(update_state(clients, rayjob, job_info, job_info->job_status, kRunning, {}));
  }

  if (status.job_deployment_status == kRunning) {                                   // :264-306
    if (rayjob.spec->suspend && rayjob.spec->cluster_selector.empty()) {
      return suspend_running_job(clients, rayjob, dashboard, job_info);
    }
    if (!job_info) throw nil_dereference("jobInfo.JobStatus after a 404 in Running; rayjob_controller.go:303");
    if (is_job_pending_or_running(job_info->job_status)) return requeue();
  }

  if (is_job_succeed_or_failed(status.job_status) && status.job_deployment_status == kRunning) {   // :309-330
    if (rayjob.spec->shutdown_after_job_finishes && rayjob.spec->cluster_selector.empty()) {
      // TTLSecondsAfterFinished is a *int32 in v1.0.0: nil skips the wait, an explicit 0 does not
      // (and dereferences EndTime like any other value).
      if (rayjob.spec->ttl_seconds_after_finished) {                                  // :313-322
        const int ttl_seconds = *rayjob.spec->ttl_seconds_after_finished;
        if (!status.end_time_ms) throw nil_dereference("Status.EndTime in the TTL wait; rayjob_controller.go:316");
        const std::int64_t now_ms = clients.runtime.now_ms();
        const std::int64_t shutdown_ms = *status.end_time_ms + std::int64_t{ttl_seconds} * 1000;
        if (shutdown_ms > now_ms) {
          // int32(time.Until(shutdownTime + 2s).Seconds()): truncated to whole seconds.
          const std::int64_t delta_seconds = (shutdown_ms + 2'000 - now_ms) / 1000;
          return ReconcileResult::requeue_after(delta_seconds * 1000);
        }
      }
      if (Error err = delete_cluster(clients, rayjob); err && !is_not_found(err)) return requeue();   // :325-328
    }
  }

  if (is_job_pending_or_running(status.job_status)) return requeue();              // :332-335
  return ReconcileResult::done();                                                   // :338
}

// Reference §3.6-3.7: a label is whatever the step that last blocked wrote, and a later pass can
// write any other label (a cluster that leaves `ready` sends Running back to Initializing; a
// finished job with a gone cluster becomes Complete from whatever label it had). The only fixed
// points: the first write is Initializing, Complete is never left, "" never comes back.
std::vector<std::pair<std::string, std::string>> RayJobReconciler::transition_table() const {
  const std::string_view labels[] = {kInitializing,          kFailedToGetOrCreateRayCluster, kWaitForDashboard,
                                     kWaitForDashboardReady, kWaitForK8sJob,                 kFailedJobDeploy,
                                     kRunning,               kFailedToGetJobStatus,          kSuspended};
  std::vector<std::pair<std::string, std::string>> edges = {{"", std::string(kInitializing)}};
  for (const std::string_view from : labels) {
    for (const std::string_view to : labels) {
      if (from != to) edges.emplace_back(from, to);
    }
    edges.emplace_back(from, kComplete);
  }
  return edges;
}

}  // namespace rjsim::models::kuberay_1_0
