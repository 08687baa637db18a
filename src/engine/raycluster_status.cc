#include "engine/raycluster_status.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace rjsim::engine {

namespace {

bool is_v1_7(RayClusterReadiness release) { return release == RayClusterReadiness::desired_pods_ready; }

bool is_worker(const Pod& pod) {
  const auto type = pod.metadata.labels->find(kRayNodeTypeLabel);
  return type != pod.metadata.labels->end() && type->second == "worker";
}

bool is_head(const Pod& pod) {
  const auto type = pod.metadata.labels->find(kRayNodeTypeLabel);
  return type != pod.metadata.labels->end() && type->second == "head";
}

bool suspended(const WorkerGroupSpec& group) { return group.suspend.value_or(false); }

// Go's int32 addition, which wraps (v1.0.0 and v1.1.0 sum maxReplicas in int32).
std::int32_t add_int32(std::int32_t a, std::int64_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// GetWorkerGroupDesiredReplicas: replicas within [minReplicas, maxReplicas], times numOfHosts; 0
// for a suspended group (v1.7.0).
int desired_replicas(const WorkerGroupSpec& group) {
  if (suspended(group)) return 0;
  const int min = group.min_replicas.value_or(0);
  const int max = group.max_replicas.value_or(std::numeric_limits<std::int32_t>::max());
  int replicas = group.replicas.value_or(min);
  if (replicas < min) replicas = min;
  else if (replicas > max) replicas = max;
  return add_int32(0, static_cast<std::int64_t>(replicas) * group.num_of_hosts);
}

void count_replicas(const RayCluster& cluster, const std::vector<const Pod*>& pods, RayClusterReadiness release,
                    RayClusterStatus& status) {
  const bool v1_7 = is_v1_7(release);
  status.available_worker_replicas = static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const Pod* pod) {
    return is_worker(*pod) && pod->status.phase == "Running";
  }));
  if (v1_7) {   // CalculateReadyReplicas: Running with PodReady True
    status.ready_worker_replicas = static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const Pod* pod) {
      return is_worker(*pod) && pod->status.phase == "Running" && pod->status.ready == std::optional<bool>(true);
    }));
  }
  std::int32_t desired = 0;
  std::int32_t min = 0;
  std::int64_t max = 0;
  for (const WorkerGroupSpec& group : cluster.spec->worker_group_specs) {
    desired = add_int32(desired, desired_replicas(group));
    if (v1_7 && suspended(group)) continue;
    const std::int64_t hosts = v1_7 ? group.num_of_hosts : 1;
    min = add_int32(min, group.min_replicas.value_or(0) * hosts);
    const std::int64_t group_max = group.max_replicas.value_or(std::numeric_limits<std::int32_t>::max()) * hosts;
    max = v1_7 ? max + group_max : add_int32(static_cast<std::int32_t>(max), group_max);
  }
  status.desired_worker_replicas = desired;
  status.min_worker_replicas = min;
  // SafeInt64ToInt32 at v1.7.0: clamped.
  status.max_worker_replicas = static_cast<int>(std::clamp<std::int64_t>(
      max, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

// updateEndpoints: each named port of the head Service (its target port is its port here), added
// to what is there.
void update_endpoints(const Service& head_service, RayClusterStatus& status) {
  for (const ServicePort& port : head_service.spec->ports) {
    if (!port.name.empty() && port.port != 0) status.endpoints[port.name] = std::to_string(port.port);
  }
}

// updateHeadInfo (v1.7.0 also the names; v1.0.0 and v1.1.0 an IP only when one head Pod is listed).
void update_head_info(const std::vector<const Pod*>& pods, const Service& head_service, RayClusterReadiness release,
                      RayClusterStatus& status) {
  const Pod* head = nullptr;
  int heads = 0;
  for (const Pod* pod : pods) {
    if (is_head(*pod) && ++heads == 1) head = pod;
  }
  status.head.pod_ip = heads == 1 ? head->status.pod_ip : "";
  status.head.service_ip = head_service.spec->cluster_ip;
  if (is_v1_7(release)) {
    status.head.pod_name = heads == 1 ? head->metadata.name : "";
    status.head.service_name = head_service.metadata.name;
  }
}

// utils.FindHeadPodReadyCondition: the head Pod's PodReady condition as HeadPodReady. rjsim's Pods
// carry the condition's status only: False is the kubelet's ContainersNotReady, which KubeRay
// replaces with the first waiting or terminated container's reason.
StatusCondition head_pod_ready_condition(const Pod* head) {
  if (head == nullptr) return {"HeadPodReady", "False", "HeadPodNotFound", "Head Pod not found", 0};
  StatusCondition condition{"HeadPodReady", "False", "Unknown", "", 0};
  if (!head->status.ready) return condition;
  if (*head->status.ready) {
    condition.status = "True";
    condition.reason = "HeadPodRunningAndReady";
    return condition;
  }
  condition.reason = "ContainersNotReady";
  for (const ContainerStatus& container : head->status.container_statuses) {
    if (container.state == "waiting" || container.state == "terminated") {
      condition.reason = container.reason;
      condition.message = container.name + ": ";
      break;
    }
  }
  return condition;
}

bool condition_true(const std::vector<StatusCondition>& conditions, std::string_view type) {
  return std::any_of(conditions.begin(), conditions.end(),
                     [&](const StatusCondition& c) { return c.type == type && c.status == "True"; });
}

// The conditions of v1.7.0's calculateStatus (RC:L2023-2101), in its order.
void update_conditions(const RayCluster& cluster, const std::vector<const Pod*>& pods, std::int64_t now_ms,
                       RayClusterStatus& status) {
  auto& conditions = status.conditions;
  const Pod* head = nullptr;
  for (const Pod* pod : pods) {
    if (is_head(*pod)) head = pod;
  }
  set_status_condition(conditions, head_pod_ready_condition(head), now_ms);
  const bool all_running = !pods.empty() && std::all_of(pods.begin(), pods.end(), [](const Pod* pod) {
    return pod->status.phase == "Running" && pod->status.ready.value_or(true);
  });   // CheckAllPodsRunning
  const bool suspending = condition_true(conditions, "RayClusterSuspending");
  const bool was_suspended = condition_true(conditions, "RayClusterSuspended");
  if (!condition_true(conditions, "RayClusterProvisioned") && !was_suspended) {
    set_status_condition(conditions,
                         all_running ? StatusCondition{"RayClusterProvisioned", "True", "AllPodRunningAndReadyFirstTime",
                                                       "All Ray Pods are ready for the first time", 0}
                                     : StatusCondition{"RayClusterProvisioned", "False", "RayClusterPodsProvisioning",
                                                       "RayCluster Pods are being provisioned for first time", 0},
                         now_ms);
  }
  const bool suspend = cluster.spec->suspend.value_or(false);
  if (suspending) {
    if (pods.empty()) {
      set_status_condition(conditions, {"RayClusterProvisioned", "False", "RayClusterPodsProvisioning",
                                        "RayCluster has been suspended", 0}, now_ms);
      set_status_condition(conditions, {"RayClusterSuspending", "False", "RayClusterSuspending", "", 0}, now_ms);
      set_status_condition(conditions, {"RayClusterSuspended", "True", "RayClusterSuspended", "", 0}, now_ms);
    }
  } else if (was_suspended) {
    if (!suspend) set_status_condition(conditions, {"RayClusterSuspended", "False", "RayClusterSuspended", "", 0}, now_ms);
  } else {
    set_status_condition(conditions, {"RayClusterSuspended", "False", "RayClusterSuspended", "", 0}, now_ms);
    set_status_condition(conditions, {"RayClusterSuspending", suspend ? "True" : "False", "RayClusterSuspending", "", 0},
                         now_ms);
  }
}

}  // namespace

void set_status_condition(std::vector<StatusCondition>& conditions, StatusCondition condition, std::int64_t now_ms) {
  const std::int64_t now_seconds = now_ms / 1000 * 1000;   // metav1.Time is stored in whole seconds
  const auto existing = std::find_if(conditions.begin(), conditions.end(),
                                     [&](const StatusCondition& c) { return c.type == condition.type; });
  if (existing == conditions.end()) {
    condition.last_transition_time_ms = now_seconds;
    conditions.push_back(std::move(condition));
    return;
  }
  if (existing->status != condition.status) {
    existing->status = condition.status;
    existing->last_transition_time_ms = now_seconds;
  }
  existing->reason = condition.reason;
  existing->message = condition.message;
}

RayClusterStatus calculate_raycluster_status(const RayCluster& cluster, const std::vector<const Pod*>& pods,
                                             const Service& head_service, bool ready, RayClusterReadiness release,
                                             std::int64_t now_ms) {
  RayClusterStatus status = cluster.status;
  status.observed_generation = cluster.metadata.generation;
  count_replicas(cluster, pods, release, status);
  if (ready) {
    status.state = "ready";
    if (is_v1_7(release)) status.reason.clear();
  }
  if (is_v1_7(release)) update_conditions(cluster, pods, now_ms, status);
  const bool suspends = release != RayClusterReadiness::all_pods_running && cluster.spec->suspend.value_or(false);
  if (suspends && pods.empty()) status.state = "suspended";
  update_endpoints(head_service, status);
  update_head_info(pods, head_service, release, status);
  status.last_update_time_ms = now_ms;
  return status;
}

bool raycluster_status_changed(const RayClusterStatus& old_status, const RayClusterStatus& new_status,
                               RayClusterReadiness release) {
  const bool v1_7 = is_v1_7(release);
  return old_status.state != new_status.state || old_status.reason != new_status.reason ||
         (v1_7 && old_status.ready_worker_replicas != new_status.ready_worker_replicas) ||
         old_status.available_worker_replicas != new_status.available_worker_replicas ||
         old_status.desired_worker_replicas != new_status.desired_worker_replicas ||
         old_status.min_worker_replicas != new_status.min_worker_replicas ||
         old_status.max_worker_replicas != new_status.max_worker_replicas || old_status.endpoints != new_status.endpoints ||
         old_status.head != new_status.head || (v1_7 && old_status.conditions != new_status.conditions);
}

}  // namespace rjsim::engine
