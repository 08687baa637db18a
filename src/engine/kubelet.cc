#include "engine/kubelet.h"

#include <algorithm>
#include <cassert>
#include <span>

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

constexpr std::string_view kStartPods = "start-pods";

// A Pod is Ready only while every container runs: not one that exited or waits to restart.
bool all_containers_running(const Pod& pod) {
  return std::all_of(pod.status.container_statuses.begin(), pod.status.container_statuses.end(),
                     [](const ContainerStatus& c) { return c.state == "running"sv; });
}

bool may_become_ready(const Pod& pod) {
  return pod.status.phase == "Running"sv && pod.status.ready == std::optional<bool>(false) &&
         all_containers_running(pod);
}

}  // namespace

std::optional<Kubelet::Timeline> Kubelet::timeline_of(const World& world, const Pod& pod) const {
  const ObjectMeta& m = pod.metadata;
  if (m.deletion_timestamp_ms || !m.labels->contains(kRayClusterLabel)) return std::nullopt;
  const OwnerReference* owner = controller_owner(m);
  if (!owner || owner->kind != Kind::RayCluster) return std::nullopt;
  const RayCluster* cluster = world.api.find<RayCluster>(m.namespace_, owner->name);
  if (!cluster || cluster->metadata.uid != owner->uid) return std::nullopt;
  const std::int64_t created = cluster->metadata.creation_timestamp_ms;
  if (node_type_is(pod, "head")) {
    return Timeline{created + behaviour_.head_ready_ms() - behaviour_.running_before_ready_ms,
                    created + behaviour_.head_ready_ms()};
  }
  return Timeline{created + behaviour_.ready_after_ms, created + behaviour_.ready_after_ms};
}

bool Kubelet::due(const World& world, const Pod& pod) const {
  // Its status first: most Pods are long Running and Ready, and need no lookup of their cluster.
  if (!is_pending(pod) && !may_become_ready(pod)) return false;
  const std::optional<Timeline> timeline = timeline_of(world, pod);
  if (!timeline) return false;
  if (is_pending(pod)) return timeline->running_at_ms <= world.now_ms;
  return may_become_ready(pod) && timeline->ready_at_ms <= world.now_ms;
}

void Kubelet::enabled(const World& world, std::vector<ActorWork>& out) const {
  follow(world);
  WorkOnce starts(out);
  for (const auto& [pod, key_hash, answer] : waiting_pods_.kept()) {
    const std::int64_t due_at = answer.pending ? answer.timeline.running_at_ms : answer.timeline.ready_at_ms;
    if (due_at <= world.now_ms) starts.add(kStartPods, answer.cluster);
  }
}

std::optional<std::int64_t> Kubelet::next_timer_ms(const World& world) const {
  follow(world);
  EarliestTimer timer(world.now_ms);
  for (const auto& [pod, key_hash, answer] : waiting_pods_.kept()) {
    if (answer.pending) timer.consider(answer.timeline.running_at_ms);
    timer.consider(answer.timeline.ready_at_ms);
  }
  return timer.next_ms();
}

void Kubelet::follow(const World& world) const {
  // A Pod's timeline reads whether its controlling cluster exists: the Pods of the clusters
  // created or deleted since are asked again.
  const std::optional<std::span<const WatchEvent>> cluster_events =
      cluster_log_mark_.advance(world.api.watch_log(Kind::RayCluster));
  pods_of_clusters_come_or_gone_.clear();
  const bool afresh = !cluster_events || !name_controlled_by_created_or_deleted(world.api, Kind::RayCluster, Kind::Pod,
                                                                                *cluster_events, pods_of_clusters_come_or_gone_);
  waiting_pods_.follow(
      world.api, Kind::Pod, afresh,
      [&](const ObjectVersion& pod, PodAnswer& answer) { return compute_answer(world, std::get<Pod>(*pod), answer); },
      pods_of_clusters_come_or_gone_);
}

bool Kubelet::compute_answer(const World& world, const Pod& pod, PodAnswer& answer) const {
  // Its status first: most Pods are long Running and Ready, and need no lookup of their cluster.
  if (!is_pending(pod) && !may_become_ready(pod)) return false;
  const std::optional<Timeline> timeline = timeline_of(world, pod);
  if (!timeline) return false;
  answer.pending = is_pending(pod);
  answer.timeline = *timeline;
  const OwnerReference* owner = controller_owner(pod.metadata);   // a timeline: a live cluster's Pod
  answer.cluster = SharedString(object_ref(Kind::RayCluster, pod.metadata.namespace_, owner->name));
  return true;
}

void Kubelet::apply(const ActorWork& work, StepContext& context) const {
  ObjectRef ref;
  [[maybe_unused]] const bool ok = parse_object_ref(work.object.str(), ref);
  assert(ok && ref.kind == Kind::RayCluster && work.what == kStartPods && "rjsim bug: unknown kubelet work");
  // The Pods due now, named first: each write changes the store being walked.
  std::vector<std::pair<std::string, bool>> due_pods;   // name, and whether Ready is due too
  const World& world = context.world();
  for (const Object& object : world.api.objects(Kind::Pod)) {
    const auto& pod = std::get<Pod>(object);
    const OwnerReference* owner = controller_owner(pod.metadata);
    if (pod.metadata.namespace_ != ref.namespace_ || !owner || owner->name != ref.name || !due(world, pod)) continue;
    due_pods.emplace_back(pod.metadata.name, timeline_of(world, pod)->ready_at_ms <= world.now_ms);
  }
  LoggedApi api(context, std::string(name()));
  for (const auto& [pod_name, ready_due] : due_pods) {
    const bool ready = ready_due;   // a copy to capture: Clang 14 captures no structured binding
    api.patch_status(Kind::Pod, ref.namespace_, pod_name, [ready](Object& object) {
      Pod& pod = std::get<Pod>(object);
      if (is_pending(pod)) {
        pod.status.phase = "Running";
        pod.status.pod_ip = address_of_serial("10.244", uid_serial(pod.metadata.uid));   // the node's Pod CIDR
        pod.status.container_statuses.clear();
        for (const Container& container : pod.spec->containers) {
          ContainerStatus running;
          running.name = container.name;
          running.state = "running";
          pod.status.container_statuses.push_back(std::move(running));
        }
      }
      pod.status.ready = ready;
      for (ContainerStatus& container : pod.status.container_statuses) container.ready = ready;
    });
  }
}

}  // namespace rjsim::engine
