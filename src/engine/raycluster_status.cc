#include "engine/raycluster_status.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

bool is_v1_7(RayClusterReadiness release) { return release == RayClusterReadiness::desired_pods_ready; }

bool is_worker(const Pod& pod) { return node_type_is(pod, "worker"); }
bool is_head(const Pod& pod) { return node_type_is(pod, "head"); }

bool suspended(const WorkerGroupSpec& group) { return group.suspend.value_or(false); }

// Go's int32 addition, which wraps (v1.0.0 and v1.1.0 sum maxReplicas in int32).
std::int32_t add_int32(std::int32_t a, std::int64_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

struct WorkerCounts {
  int ready = 0;   // v1.7.0 only: else the stored value stays
  int available = 0;
  int desired = 0;
  int min = 0;
  int max = 0;
};

WorkerCounts worker_counts(const RayCluster& cluster, const std::vector<const Pod*>& pods,
                           RayClusterReadiness release) {
  const bool v1_7 = is_v1_7(release);
  WorkerCounts counts;
  counts.ready = cluster.status->ready_worker_replicas;
  counts.available = static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const Pod* pod) {
    return is_worker(*pod) && pod->status.phase == "Running"sv;
  }));
  if (v1_7) {   // CalculateReadyReplicas: Running with PodReady True
    counts.ready = static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const Pod* pod) {
      return is_worker(*pod) && pod->status.phase == "Running"sv && pod->status.ready == std::optional<bool>(true);
    }));
  }
  std::int32_t desired = 0;
  std::int32_t min = 0;
  std::int64_t max = 0;
  for (const WorkerGroupSpec& group : cluster.spec->worker_group_specs) {
    desired = add_int32(desired, desired_worker_replicas(group, release));
    if (v1_7 && suspended(group)) continue;
    const std::int64_t hosts = v1_7 ? group.num_of_hosts : 1;
    min = add_int32(min, group.min_replicas.value_or(0) * hosts);
    const std::int64_t group_max = group.max_replicas.value_or(std::numeric_limits<std::int32_t>::max()) * hosts;
    max = v1_7 ? max + group_max : add_int32(static_cast<std::int32_t>(max), group_max);
  }
  counts.desired = desired;
  counts.min = min;
  // SafeInt64ToInt32 at v1.7.0: clamped.
  counts.max = static_cast<int>(std::clamp<std::int64_t>(max, std::numeric_limits<std::int32_t>::min(),
                                                         std::numeric_limits<std::int32_t>::max()));
  return counts;
}

void count_replicas(const RayCluster& cluster, const std::vector<const Pod*>& pods, RayClusterReadiness release,
                    RayClusterStatus& status) {
  const WorkerCounts counts = worker_counts(cluster, pods, release);
  status.ready_worker_replicas = counts.ready;
  status.available_worker_replicas = counts.available;
  status.desired_worker_replicas = counts.desired;
  status.min_worker_replicas = counts.min;
  status.max_worker_replicas = counts.max;
}

// The single head Pod listed, or null (none, or more than one).
const Pod* only_head(const std::vector<const Pod*>& pods) {
  const Pod* head = nullptr;
  int heads = 0;
  for (const Pod* pod : pods) {
    if (is_head(*pod) && ++heads == 1) head = pod;
  }
  return heads == 1 ? head : nullptr;
}

// The state calculateStatus leaves: ready when the release's rule holds, suspended for a
// suspended cluster without Pods (v1.1.0 on), else as it was.
std::string_view new_state(const RayCluster& cluster, const std::vector<const Pod*>& pods, bool ready,
                           RayClusterReadiness release) {
  const bool suspends = release != RayClusterReadiness::all_pods_running && cluster.spec->suspend.value_or(false);
  if (suspends && pods.empty()) return "suspended";
  return ready ? std::string_view("ready") : std::string_view(cluster.status->state);
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
  const Pod* head = only_head(pods);
  status.head.pod_ip = head ? head->status.pod_ip : "";
  status.head.service_ip = head_service.spec->cluster_ip;
  if (is_v1_7(release)) {
    status.head.pod_name = head ? head->metadata.name : "";
    status.head.service_name = head_service.metadata.name;
  }
}

bool endpoints_change(const Service& head_service, const StringMap& endpoints) {
  for (const ServicePort& port : head_service.spec->ports) {
    if (port.name.empty() || port.port == 0) continue;
    const auto it = endpoints.find(port.name);
    std::array<char, 16> text{};
    const auto end = std::to_chars(text.data(), text.data() + text.size(), port.port).ptr;
    if (it == endpoints.end() || it->second != std::string_view(text.data(), static_cast<std::size_t>(end - text.data()))) {
      return true;
    }
  }
  return false;
}

bool head_info_changes(const std::vector<const Pod*>& pods, const Service& head_service, RayClusterReadiness release,
                       const RayClusterHeadInfo& head_info) {
  const Pod* head = only_head(pods);
  if (head_info.pod_ip != (head ? std::string_view(head->status.pod_ip) : std::string_view()) ||
      head_info.service_ip != head_service.spec->cluster_ip) {
    return true;
  }
  if (!is_v1_7(release)) return false;
  return head_info.pod_name != (head ? std::string_view(head->metadata.name) : std::string_view()) ||
         head_info.service_name != head_service.metadata.name;
}

// A condition calculateStatus sets, as views into its inputs (no copies: a listing asks about
// every cluster at every step).
struct ConditionWish {
  std::string_view type;
  std::string_view status;
  std::string_view reason;
  std::string_view message;
  std::string_view message_suffix;   // appended to message (a container's name and ": ")
};

// utils.FindHeadPodReadyCondition: the head Pod's PodReady condition as HeadPodReady. rjsim's Pods
// carry the condition's status only: False is the kubelet's ContainersNotReady, which KubeRay
// replaces with the first waiting or terminated container's reason.
ConditionWish head_pod_ready_condition(const Pod* head) {
  if (head == nullptr) return {"HeadPodReady", "False", "HeadPodNotFound", "Head Pod not found", ""};
  ConditionWish condition{"HeadPodReady", "False", "Unknown", "", ""};
  if (!head->status.ready) return condition;
  if (*head->status.ready) return {"HeadPodReady", "True", "HeadPodRunningAndReady", "", ""};
  condition.reason = "ContainersNotReady";
  for (const ContainerStatus& container : head->status.container_statuses) {
    if (container.state == "waiting"sv || container.state == "terminated"sv) {
      return {"HeadPodReady", "False", container.reason, container.name, ": "};
    }
  }
  return condition;
}

bool condition_true(const std::vector<StatusCondition>& conditions, std::string_view type) {
  return std::any_of(conditions.begin(), conditions.end(),
                     [&](const StatusCondition& c) { return c.type == type && c.status == "True"sv; });
}

// At most six conditions set in one calculateStatus, kept in place (no allocation).
class ConditionWishes {
 public:
  void push_back(const ConditionWish& wish) {
    assert(size_ < wishes_.size() && "rjsim bug: more conditions than calculateStatus sets");
    wishes_[size_++] = wish;
  }
  const ConditionWish* begin() const { return wishes_.data(); }
  const ConditionWish* end() const { return wishes_.data() + size_; }

 private:
  std::array<ConditionWish, 6> wishes_{};
  std::size_t size_ = 0;
};

// The conditions v1.7.0's calculateStatus sets (RC:L2023-2101), in its order; a later one of a
// type overrides an earlier.
ConditionWishes condition_wishes(const RayCluster& cluster, const std::vector<const Pod*>& pods) {
  const std::vector<StatusCondition>& conditions = cluster.status->conditions;
  ConditionWishes wishes;
  wishes.push_back(head_pod_ready_condition(only_head(pods)));
  const bool all_running = !pods.empty() && std::all_of(pods.begin(), pods.end(), [](const Pod* pod) {
    return pod->status.phase == "Running"sv && pod->status.ready.value_or(true);
  });   // CheckAllPodsRunning
  const bool suspending = condition_true(conditions, "RayClusterSuspending");
  const bool was_suspended = condition_true(conditions, "RayClusterSuspended");
  if (!condition_true(conditions, "RayClusterProvisioned") && !was_suspended) {
    wishes.push_back(all_running ? ConditionWish{"RayClusterProvisioned", "True", "AllPodRunningAndReadyFirstTime",
                                                 "All Ray Pods are ready for the first time", ""}
                                 : ConditionWish{"RayClusterProvisioned", "False", "RayClusterPodsProvisioning",
                                                 "RayCluster Pods are being provisioned for first time", ""});
  }
  const bool suspend = cluster.spec->suspend.value_or(false);
  if (suspending) {
    if (pods.empty()) {
      wishes.push_back({"RayClusterProvisioned", "False", "RayClusterPodsProvisioning", "RayCluster has been suspended", ""});
      wishes.push_back({"RayClusterSuspending", "False", "RayClusterSuspending", "", ""});
      wishes.push_back({"RayClusterSuspended", "True", "RayClusterSuspended", "", ""});
    }
  } else if (was_suspended) {
    if (!suspend) wishes.push_back({"RayClusterSuspended", "False", "RayClusterSuspended", "", ""});
  } else {
    wishes.push_back({"RayClusterSuspended", "False", "RayClusterSuspended", "", ""});
    wishes.push_back({"RayClusterSuspending", suspend ? "True" : "False", "RayClusterSuspending", "", ""});
  }
  return wishes;
}

StatusCondition condition_of(const ConditionWish& wish) {
  return {std::string(wish.type), std::string(wish.status), std::string(wish.reason),
          std::string(wish.message) + std::string(wish.message_suffix), 0};
}

// Whether setting the wishes in order leaves a condition other than it was (its status, reason or
// message), or adds one.
bool conditions_change(const std::vector<StatusCondition>& conditions, const ConditionWishes& wishes) {
  for (const ConditionWish* it = wishes.begin(); it != wishes.end(); ++it) {
    const ConditionWish& wish = *it;
    const bool overridden = std::any_of(it + 1, wishes.end(),
                                        [&](const ConditionWish& later) { return later.type == wish.type; });
    if (overridden) continue;
    const auto existing = std::find_if(conditions.begin(), conditions.end(),
                                       [&](const StatusCondition& c) { return c.type == wish.type; });
    if (existing == conditions.end() || existing->status != wish.status || existing->reason != wish.reason) return true;
    const std::string_view message = existing->message;
    if (message.size() != wish.message.size() + wish.message_suffix.size() || !message.starts_with(wish.message) ||
        !message.ends_with(wish.message_suffix)) {
      return true;
    }
  }
  return false;
}

void update_conditions(const RayCluster& cluster, const std::vector<const Pod*>& pods, std::int64_t now_ms,
                       RayClusterStatus& status) {
  for (const ConditionWish& wish : condition_wishes(cluster, pods)) {
    set_status_condition(status.conditions, condition_of(wish), now_ms);
  }
}

}  // namespace

int desired_worker_replicas(const WorkerGroupSpec& group, RayClusterReadiness release) {
  const int min = group.min_replicas.value_or(0);
  const int max = group.max_replicas.value_or(std::numeric_limits<std::int32_t>::max());
  if (!is_v1_7(release)) {   // utils/util.go:L218-236 at v1.0.0, L243-261 at v1.1.0
    if (min > max) return max;
    if (!group.replicas || *group.replicas < min) return min;
    return std::min(*group.replicas, max);
  }
  if (suspended(group)) return 0;   // utils/util.go:L389-407 at v1.7.0
  int replicas = group.replicas.value_or(min);
  if (replicas < min) replicas = min;
  else if (replicas > max) replicas = max;
  return add_int32(0, static_cast<std::int64_t>(replicas) * group.num_of_hosts);
}

int desired_worker_replicas(const RayCluster& cluster, RayClusterReadiness release) {
  std::int32_t desired = 0;   // CalculateDesiredReplicas: an int32 sum
  for (const WorkerGroupSpec& group : cluster.spec->worker_group_specs) {
    desired = add_int32(desired, desired_worker_replicas(group, release));
  }
  return desired;
}

int expected_worker_pods(const WorkerGroupSpec& group, RayClusterReadiness release) {
  const int desired = desired_worker_replicas(group, release);
  // reconcilePods: v1.1.0 multiplies by numOfHosts here (RC:L799); v1.0.0 has no numOfHosts (1).
  return is_v1_7(release) ? desired : add_int32(0, static_cast<std::int64_t>(desired) * group.num_of_hosts);
}

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
  if (ready && is_v1_7(release)) status.reason.clear();
  if (is_v1_7(release)) update_conditions(cluster, pods, now_ms, status);
  status.state = std::string(new_state(cluster, pods, ready, release));
  update_endpoints(head_service, status);
  update_head_info(pods, head_service, release, status);
  status.last_update_time_ms = now_ms;
  return status;
}

bool raycluster_status_would_change(const RayCluster& cluster, const std::vector<const Pod*>& pods,
                                    const Service& head_service, bool ready, RayClusterReadiness release) {
  const RayClusterStatus& status = cluster.status;
  const bool v1_7 = is_v1_7(release);
  if (status.state != new_state(cluster, pods, ready, release) || (v1_7 && ready && !status.reason.empty())) return true;
  const WorkerCounts counts = worker_counts(cluster, pods, release);
  if (counts.ready != status.ready_worker_replicas || counts.available != status.available_worker_replicas ||
      counts.desired != status.desired_worker_replicas || counts.min != status.min_worker_replicas ||
      counts.max != status.max_worker_replicas) {
    return true;
  }
  if (endpoints_change(head_service, status.endpoints)) return true;
  if (head_info_changes(pods, head_service, release, status.head)) return true;
  return v1_7 && conditions_change(status.conditions, condition_wishes(cluster, pods));
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
