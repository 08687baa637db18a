#include "models/kuberay_1_1/rayjob_controller.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "models/kuberay_1_1/runtime_env.h"
#include "models/kuberay_1_1/submitter_job.h"
#include "models/shared/go_time.h"
#include "models/shared/kuberay_1_0_1_1.h"

namespace rjsim::models::kuberay_1_1 {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using namespace rjsim::engine;

namespace {

// ---- constants (RJC:L31-33; utils/constant.go at v1.1.0) ----
constexpr std::int64_t kRayJobDefaultRequeueDurationMs = 3'000;    // RayJobDefaultRequeueDuration
constexpr const char* kRayJobDefaultClusterSelectorKey = "ray.io/cluster";
constexpr const char* kRayJobStopJobFinalizer = "ray.io/rayjob-finalizer";
constexpr const char* kRayOriginatedFromCRNameLabelKey = "ray.io/originated-from-cr-name";
constexpr const char* kRayOriginatedFromCRDLabelKey = "ray.io/originated-from-crd";
constexpr const char* kKubernetesCreatedByLabelKey = "app.kubernetes.io/created-by";
constexpr const char* kComponentName = "kuberay-operator";

// JobDeploymentStatus values (apis/ray/v1/rayjob_types.go:L36-44).
constexpr std::string_view kNew = "";
constexpr std::string_view kInitializing = "Initializing";
constexpr std::string_view kRunning = "Running";
constexpr std::string_view kComplete = "Complete";
constexpr std::string_view kFailed = "Failed";
constexpr std::string_view kSuspending = "Suspending";
constexpr std::string_view kSuspended = "Suspended";

using shared::fetch_head_service_url;      // DASH:L63-99, the same Go at v1.0.0
using shared::generate_raycluster_name;    // utils/util.go:L229-236
using shared::generate_rayjob_id;
using shared::is_job_terminal;             // rayjob_types.go:L25-31

ReconcileResult requeue() { return ReconcileResult::requeue_after(kRayJobDefaultRequeueDurationMs); }
ReconcileResult requeue_with(Error err) {
  // `ctrl.Result{RequeueAfter: 3s}, err`: the queue ignores the RequeueAfter (§0.3).
  return ReconcileResult::error(std::move(err), kRayJobDefaultRequeueDurationMs);
}
Error go_error(std::string message) { return Error(ErrorCode::other, std::move(message)); }

// ---- helpers below the reconcile, in the Go's order ----

// validateRayJobSpec (RJC:L720-742).
Error validate_rayjob_spec(const RayJob& rayjob) {
  const RayJobSpec& spec = rayjob.spec;
  if (spec.suspend && !spec.shutdown_after_job_finishes) {
    return go_error("a RayJob with shutdownAfterJobFinishes set to false is not allowed to be suspended");
  }
  if (spec.suspend && !spec.cluster_selector.empty()) {
    return go_error("the ClusterSelector mode doesn't support the suspend operation");
  }
  if (!spec.ray_cluster_spec && spec.cluster_selector.empty()) {
    return go_error("one of RayClusterSpec or ClusterSelector must be set");
  }
  std::string runtime_env_json;
  if (Error err = runtime_env_yaml_to_json(spec.runtime_env_yaml, runtime_env_json)) return err;
  if (spec.active_deadline_seconds && *spec.active_deadline_seconds <= 0) {
    return go_error("activeDeadlineSeconds must be a positive integer");
  }
  return {};
}

// initRayJobStatusIfNeed (RJC:L539-577).
Error init_rayjob_status_if_need(Clients& clients, RayJob& rayjob) {
  RayJobStatus& status = rayjob.status;
  const bool should_update_status = status.job_id.empty() || status.ray_cluster_name.empty() ||
                                    status.job_status.empty();
  if (!should_update_status) return {};
  if (status.job_id.empty()) {
    status.job_id = !rayjob.spec->job_id.empty() ? rayjob.spec->job_id
                                                : generate_rayjob_id(clients, rayjob.metadata.name);
  }
  if (status.ray_cluster_name.empty()) {
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
  if (status.job_status.empty()) status.job_status = "";   // JobStatusNew
  status.job_deployment_status = kInitializing;
  status.start_time_ms = clients.runtime.now_ms();
  return {};
}

// What updateRayJobStatus reads of the reconcile's DeepCopy of the RayJob (RJC:L120): the rest
// of the copy is never read, so the model keeps these two fields instead of copying the object.
struct OriginalStatus {
  std::string job_status;
  std::string job_deployment_status;
};

// updateRayJobStatus (RJC:L579-600): the only status write.
Error update_rayjob_status(Clients& clients, const OriginalStatus& old_status, RayJob& new_rayjob) {
  RayJobStatus& new_status = new_rayjob.status;
  if (old_status.job_status == new_status.job_status &&
      old_status.job_deployment_status == new_status.job_deployment_status) {
    return {};
  }
  if (new_status.job_deployment_status == kComplete || new_status.job_deployment_status == kFailed) {
    new_status.end_time_ms = clients.runtime.now_ms();
  }
  return clients.kube.update_status(new_rayjob);
}

// constructRayClusterForRayJob (RJC:L643-666).
RayCluster construct_raycluster_for_rayjob(const RayJob& rayjob, const std::string& cluster_name) {
  RayCluster cluster;
  cluster.metadata.labels = rayjob.metadata.labels;
  cluster.metadata.labels.edit()[kRayOriginatedFromCRNameLabelKey] = rayjob.metadata.name;
  cluster.metadata.labels.edit()[kRayOriginatedFromCRDLabelKey] = "RayJob";
  cluster.metadata.annotations = rayjob.metadata.annotations;
  cluster.metadata.name = cluster_name;
  cluster.metadata.namespace_ = rayjob.metadata.namespace_;
  cluster.spec = *rayjob.spec->ray_cluster_spec;
  cluster.metadata.owner_references.edit().push_back(OwnerReference{
      "ray.io/v1", Kind::RayJob, rayjob.metadata.name, rayjob.metadata.uid, true, true});
  return cluster;
}

// getOrCreateRayClusterInstance (RJC:L602-641). The returned cluster is the cached copy, or the
// Create reply (empty status) when this pass created it.
Error get_or_create_raycluster_instance(Clients& clients, const RayJob& rayjob, RayCluster& cluster) {
  const std::string& name = rayjob.status.ray_cluster_name;
  Error err = clients.kube.get(rayjob.metadata.namespace_, name, cluster);
  if (!err) return {};   // spec drift is only logged (RJC:L636-638)
  if (!is_not_found(err)) return err;
  if (!rayjob.spec->cluster_selector.empty()) {                              // RJC:L614-617
    return go_error(fmt::format("we have choosed the cluster selector mode, failed to find the cluster "
                                "named {}, err: {}", name, err.message()));
  }
  cluster = construct_raycluster_for_rayjob(rayjob, name);                  // RJC:L620
  return clients.kube.create(cluster);                                      // RJC:L625
}

// getSubmitterTemplate (RJC:L363-407).
Error get_submitter_template(const RayJob& rayjob, const RayCluster& cluster, PodTemplate& submitter) {
  submitter = rayjob.spec->submitter_pod_template ? *rayjob.spec->submitter_pod_template
                                                 : get_default_submitter_template(cluster);
  if (submitter.containers.empty()) {   // Containers[utils.RayContainerIndex] (RJC:L377)
    throw ModelPanic("runtime error: index out of range [0] with length 0 (SubmitterPodTemplate "
                     "without containers; rayjob_controller.go:377)");
  }
  Container& container = submitter.containers.front();
  if (container.command.empty()) {
    if (Error err = get_k8s_job_command(rayjob, container.command)) return err;
  }
  container.env["PYTHONUNBUFFERED"] = "1";
  container.env["RAY_DASHBOARD_ADDRESS"] = rayjob.status.dashboard_url;
  container.env["RAY_JOB_SUBMISSION_ID"] = rayjob.status.job_id;
  return {};
}

// createNewK8sJob (RJC:L410-446): named after the RayJob, backoffLimit 2, visible to the
// label-filtered Job cache.
Error create_new_k8s_job(Clients& clients, const RayJob& rayjob, PodTemplate submitter) {
  Job job;
  job.metadata.name = rayjob.metadata.name;
  job.metadata.namespace_ = rayjob.metadata.namespace_;
  job.metadata.labels = StringMap{{kRayOriginatedFromCRNameLabelKey, rayjob.metadata.name},
                                  {kRayOriginatedFromCRDLabelKey, "RayJob"},
                                  {kKubernetesCreatedByLabelKey, kComponentName}};
  job.spec.edit().backoff_limit = 2;
  job.spec.edit().template_ = std::move(submitter);
  job.metadata.owner_references.edit().push_back(OwnerReference{
      "ray.io/v1", Kind::RayJob, rayjob.metadata.name, rayjob.metadata.uid, true, true});
  return clients.kube.create(job);
}

// createK8sJobIfNeed (RJC:L339-360).
Error create_k8s_job_if_need(Clients& clients, const RayJob& rayjob, const RayCluster& cluster) {
  Job job;
  Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.metadata.name, job);
  if (!err) return {};   // already exists
  if (!is_not_found(err)) return err;
  PodTemplate submitter;
  if (Error template_err = get_submitter_template(rayjob, cluster, submitter)) return template_err;
  return create_new_k8s_job(clients, rayjob, std::move(submitter));
}

// deleteSubmitterJob (RJC:L449-483): true only once the cache no longer has the Job.
Error delete_submitter_job(Clients& clients, const RayJob& rayjob, bool& is_job_deleted) {
  is_job_deleted = false;
  if (rayjob.spec->submission_mode == "HTTPMode"sv) {
    is_job_deleted = true;
    return {};
  }
  Job job;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.metadata.name, job)) {
    if (!is_not_found(err)) return err;
    is_job_deleted = true;
    return {};
  }
  if (job.metadata.deletion_timestamp_ms) return {};   // the deletion is ongoing
  return clients.kube.remove(Kind::Job, job.metadata.namespace_, job.metadata.name, Propagation::background);
}

// deleteClusterResources (RJC:L486-515): true only once the cache no longer has the cluster.
Error delete_cluster_resources(Clients& clients, const RayJob& rayjob, bool& is_cluster_deleted) {
  is_cluster_deleted = false;
  RayCluster cluster;
  if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.status.ray_cluster_name, cluster)) {
    if (!is_not_found(err)) return err;
    is_cluster_deleted = true;
    return {};
  }
  if (cluster.metadata.deletion_timestamp_ms) return {};   // the deletion is ongoing
  return clients.kube.remove(Kind::RayCluster, cluster.metadata.namespace_, cluster.metadata.name);
}

// checkK8sJobAndUpdateStatusIfNeeded (RJC:L687-706).
bool check_k8s_job_and_update_status_if_needed(RayJob& rayjob, const Job& job) {
  for (const JobCondition& condition : job.status.conditions) {
    if (condition.type != "Failed"sv || condition.status != "True"sv) continue;
    rayjob.status.job_deployment_status = kFailed;
    if (rayjob.status.job_status == "FAILED"sv) {
      rayjob.status.reason = "AppFailed";
    } else {
      rayjob.status.reason = "SubmissionFailed";
      rayjob.status.message = fmt::format("Job submission has failed. Reason: {}. Message: {}",
                                          condition.reason, condition.message);
    }
    return true;
  }
  return false;
}

// checkActiveDeadlineAndUpdateStatusIfNeeded (RJC:L708-718).
bool check_active_deadline_and_update_status_if_needed(Clients& clients, RayJob& rayjob) {
  const std::optional<int>& deadline_seconds = rayjob.spec->active_deadline_seconds;
  if (!deadline_seconds) return false;
  if (!rayjob.status.start_time_ms) {   // Status.StartTime.Add on a nil pointer
    throw ModelPanic("runtime error: invalid memory address or nil pointer dereference "
                     "(Status.StartTime with activeDeadlineSeconds; rayjob_controller.go:710)");
  }
  if (clients.runtime.now_ms() < *rayjob.status.start_time_ms + std::int64_t{*deadline_seconds} * 1000) {
    return false;
  }
  rayjob.status.job_deployment_status = kFailed;
  rayjob.status.reason = "DeadlineExceeded";
  // %v of the *metav1.Time (rayjob_controller.go:716).
  rayjob.status.message = fmt::format("The RayJob has passed the activeDeadlineSeconds. StartTime: {}. "
                                      "ActiveDeadlineSeconds: {}",
                                      shared::go_time_string(*rayjob.status.start_time_ms), *deadline_seconds);
  return true;
}

// IsJobFinished (utils/util.go:L533-540).
bool is_job_finished(const Job& job) {
  return std::any_of(job.status.conditions.begin(), job.status.conditions.end(), [](const JobCondition& c) {
    return (c.type == "Complete"sv || c.type == "Failed"sv) && c.status == "True"sv;
  });
}

// ---- the states of the switch (RJC:L123-327); each returns nullopt to fall through to the
// single status write after the switch, as a Go `break` does ----

using StateResult = std::optional<ReconcileResult>;

// New (RJC:L124-138).
StateResult reconcile_new(Clients& clients, RayJob& rayjob) {
  if (!has_finalizer(rayjob.metadata, kRayJobStopJobFinalizer)) {                 // :126
    rayjob.metadata.finalizers.edit().emplace_back(kRayJobStopJobFinalizer);
    if (Error err = clients.kube.update(rayjob)) return requeue_with(err);        // :128-131
  }
  if (Error err = init_rayjob_status_if_need(clients, rayjob)) return requeue_with(err);   // :136
  return std::nullopt;
}

// Initializing (RJC:L139-175).
StateResult reconcile_initializing(Clients& clients, RayJob& rayjob) {
  if (update_status_to_suspending_if_needed(rayjob)) return std::nullopt;               // :140
  if (check_active_deadline_and_update_status_if_needed(clients, rayjob)) return std::nullopt;   // :144
  RayCluster cluster;
  if (Error err = get_or_create_raycluster_instance(clients, rayjob, cluster)) return requeue_with(err);  // :149
  if (rayjob.status.dashboard_url.empty()) {                                            // :154
    if (cluster.status->state != "ready"sv) return requeue();                              // :155-158, no write
    std::string url;
    if (Error err = fetch_head_service_url(clients, cluster, url); err || url.empty()) { // :160-163
      return requeue_with(err ? err : go_error("empty dashboard URL"));
    }
    rayjob.status.dashboard_url = url;
  }
  if (rayjob.spec->submission_mode == "K8sJobMode"sv) {                                   // :167
    if (Error err = create_k8s_job_if_need(clients, rayjob, cluster)) return requeue_with(err);
  }
  rayjob.status.job_deployment_status = kRunning;                                      // :175
  return std::nullopt;
}

// Running (RJC:L176-254).
StateResult reconcile_running(Clients& clients, RayJob& rayjob) {
  if (update_status_to_suspending_if_needed(rayjob)) return std::nullopt;               // :177
  if (check_active_deadline_and_update_status_if_needed(clients, rayjob)) return std::nullopt;   // :181
  const bool k8s_job_mode = rayjob.spec->submission_mode == "K8sJobMode"sv;
  Job job;
  if (k8s_job_mode) {                                                                   // :186-200
    if (Error err = clients.kube.get(rayjob.metadata.namespace_, rayjob.metadata.name, job)) {
      return requeue_with(err);
    }
    if (check_k8s_job_and_update_status_if_needed(rayjob, job)) return std::nullopt;
  }
  RayCluster cluster;
  if (Error err = get_or_create_raycluster_instance(clients, rayjob, cluster)) return requeue_with(err);  // :205
  RayDashboardClient dashboard(clients.dashboard);                                     // :210-212
  dashboard.init_client(rayjob.status.dashboard_url);
  RayJobInfo job_info;
  if (Error err = dashboard.get_job_info(rayjob.status.job_id, job_info)) {
    if (rayjob.spec->submission_mode == "HTTPMode"sv && is_bad_request(err)) {            // :215-222
      std::string submitted_id;
      if (Error submit_err = dashboard.submit_job(rayjob, submitted_id)) return requeue_with(submit_err);
      return requeue();
    }
    return requeue_with(err);                                                           // :224-225
  }
  std::string job_deployment_status(kRunning);                                        // :232-247
  std::string reason;
  bool is_terminal = is_job_terminal(job_info.job_status);
  if (k8s_job_mode) is_terminal = is_terminal && is_job_finished(job);
  if (is_terminal) {
    job_deployment_status = kComplete;
    if (job_info.job_status == "FAILED"sv) {
      job_deployment_status = kFailed;
      reason = "AppFailed";
    }
  }
  rayjob.status.ray_cluster_status = cluster.status;                                   // :249-253
  rayjob.status.job_status = job_info.job_status;
  rayjob.status.job_deployment_status = job_deployment_status;
  rayjob.status.reason = reason;
  rayjob.status.message = job_info.message;
  return std::nullopt;
}

// Suspending (RJC:L255-286): atomic; no StopJob; Reason is not reset.
StateResult reconcile_suspending(Clients& clients, RayJob& rayjob) {
  bool is_cluster_deleted = false, is_job_deleted = false;
  if (Error err = delete_cluster_resources(clients, rayjob, is_cluster_deleted)) return requeue_with(err);  // :264
  if (Error err = delete_submitter_job(clients, rayjob, is_job_deleted)) return requeue_with(err);          // :268
  if (!is_cluster_deleted || !is_job_deleted) return requeue();                         // :272-276
  RayJobStatus& status = rayjob.status;                                                // :279-285
  status.ray_cluster_status = RayClusterStatus{};
  status.ray_cluster_name.clear();
  status.dashboard_url.clear();
  status.job_id.clear();
  status.message.clear();
  status.job_status = "";
  status.job_deployment_status = kSuspended;
  return std::nullopt;
}

// Suspended (RJC:L287-295).
StateResult reconcile_suspended(RayJob& rayjob) {
  if (!rayjob.spec->suspend) {
    rayjob.status.job_status = "";
    rayjob.status.job_deployment_status = kNew;
    return std::nullopt;
  }
  return requeue();   // keeps polling every 3 s
}

// Complete and Failed (RJC:L296-323).
StateResult reconcile_complete_or_failed(Clients& clients, RayJob& rayjob) {
  if (rayjob.spec->shutdown_after_job_finishes && rayjob.spec->cluster_selector.empty()) {
    if (!rayjob.status.end_time_ms) {   // Status.EndTime.Add on a nil pointer (:302)
      throw ModelPanic("runtime error: invalid memory address or nil pointer dereference "
                       "(Status.EndTime in Complete/Failed; rayjob_controller.go:302)");
    }
    const std::int64_t now_ms = clients.runtime.now_ms();
    const std::int64_t shutdown_ms =
        *rayjob.status.end_time_ms + std::int64_t{rayjob.spec->ttl_seconds_after_finished.value_or(0)} * 1000;
    if (shutdown_ms > now_ms) {                                                         // :310-313
      // int32(time.Until(shutdownTime + 2s).Seconds()): truncated to whole seconds.
      const std::int64_t delta_seconds = (shutdown_ms + 2'000 - now_ms) / 1000;
      return ReconcileResult::requeue_after(delta_seconds * 1000);
    }
    bool is_cluster_deleted = false;                                                    // :317
    if (Error err = delete_cluster_resources(clients, rayjob, is_cluster_deleted)) return requeue_with(err);
  }
  return ReconcileResult::done();                                                       // :322
}

// The deletion branch (RJC:L91-112): StopJob when the Ray job may still run, then the finalizer
// goes whether StopJob succeeded or not.
ReconcileResult reconcile_deletion(Clients& clients, RayJob& rayjob) {
  if (!is_job_terminal(rayjob.status.job_status)) {                                     // :94-101
    RayDashboardClient dashboard(clients.dashboard);
    dashboard.init_client(rayjob.status.dashboard_url);
    dashboard.stop_job(rayjob.status.job_id);   // the error is only logged
  }
  auto& finalizers = rayjob.metadata.finalizers.edit();                                      // :104-111
  finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), kRayJobStopJobFinalizer), finalizers.end());
  if (Error err = clients.kube.update(rayjob)) return requeue_with(err);
  return requeue();
}

}  // namespace

// updateStatusToSuspendingIfNeeded (RJC:L668-685).
bool update_status_to_suspending_if_needed(RayJob& rayjob) {
  if (!rayjob.spec->suspend) return false;
  const std::string& state = rayjob.status.job_deployment_status;
  if (state != kRunning && state != kInitializing) return false;
  rayjob.status.job_deployment_status = kSuspending;
  return true;
}

// controller-runtime v0.16.3, client-go v0.28.4 (kubernetes-semantics §0.1); the v1.1.0
// RayCluster controller is ready when every listed Pod is Running and Ready (reference §2.6).
ReleaseEnvironment RayJobReconciler::environment() const {
  ReleaseEnvironment environment = shared::legacy_release_environment();
  environment.ray_cluster_readiness = RayClusterReadiness::listed_pods_ready;
  environment.dashboard_timeout_ms = 2'000;   // the dashboard client's http.Client (DASH:L104-109)
  return environment;
}

// SetupWithManager (RJC:L518-534); Job cache filter (main.go:L231-240).
const Watches& RayJobReconciler::watches() const { return shared::rayjob_watches(); }

// Reconcile (RJC:L74-336).
ReconcileResult RayJobReconciler::reconcile(const Request& request, Clients& clients) {
  RayJob& rayjob = rayjob_;
  if (Error err = clients.kube.get(request.namespace_, request.name, rayjob)) {         // :79-89
    if (is_not_found(err)) return ReconcileResult::done();
    return requeue_with(err);
  }
  if (rayjob.metadata.deletion_timestamp_ms) return reconcile_deletion(clients, rayjob);   // :91
  if (Error err = validate_rayjob_spec(rayjob)) return requeue_with(err);               // :114-117
  const OriginalStatus original{rayjob.status.job_status, rayjob.status.job_deployment_status};   // :120

  StateResult result;
  const std::string& state = rayjob.status.job_deployment_status;                       // :123
  if (state == kNew) {
    result = reconcile_new(clients, rayjob);
  } else if (state == kInitializing) {
    result = reconcile_initializing(clients, rayjob);
  } else if (state == kRunning) {
    result = reconcile_running(clients, rayjob);
  } else if (state == kSuspending) {
    result = reconcile_suspending(clients, rayjob);
  } else if (state == kSuspended) {
    result = reconcile_suspended(rayjob);
  } else if (state == kComplete || state == kFailed) {
    result = reconcile_complete_or_failed(clients, rayjob);
  } else {
    result = requeue();                                                                 // default :324-326
  }
  if (result) return *result;

  // "This is the only place where we update the RayJob status" (RJC:L329-335).
  if (Error err = update_rayjob_status(clients, original, rayjob)) return requeue_with(err);
  return requeue();
}

std::vector<std::pair<std::string, std::string>> RayJobReconciler::transition_table() const {
  constexpr std::pair<std::string_view, std::string_view> kTransitions[] = {
      {kNew, kInitializing},     {kInitializing, kSuspending}, {kInitializing, kFailed},
      {kInitializing, kRunning}, {kRunning, kSuspending},      {kRunning, kFailed},
      {kRunning, kComplete},     {kSuspending, kSuspended},    {kSuspended, kNew},
  };
  return {std::begin(kTransitions), std::end(kTransitions)};
}

}  // namespace rjsim::models::kuberay_1_1
