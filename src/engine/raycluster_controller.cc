#include "engine/raycluster_controller.h"

#include <algorithm>
#include <cassert>

namespace rjsim::engine {

namespace {

constexpr std::string_view kAddFinalizer = "add-finalizer";
constexpr std::string_view kCreateHeadService = "create-head-service";
constexpr std::string_view kCreateHeadPod = "create-head-pod";
constexpr std::string_view kReady = "ready";
constexpr std::string_view kRemoveFinalizer = "remove-finalizer";

bool becomes_ready(const RayCluster& cluster) {
  return cluster.status.state != "ready" && !cluster.metadata.deletion_timestamp_ms;
}

std::string head_pod_name(const ObjectMeta& cluster) { return cluster.name + "-head"; }

}  // namespace

bool has_submitter_sidecar(const RayCluster& cluster) {
  const auto& containers = cluster.spec->head_group_spec.template_.containers;
  return std::any_of(containers.begin(), containers.end(),
                     [](const Container& c) { return c.name == kSubmitterSidecarName; });
}

std::string head_service_name(const RayCluster& cluster) {
  const auto& custom = cluster.spec->head_group_spec.head_service_name;
  if (custom && !custom->empty()) return *custom;
  return cluster.metadata.name + "-head-svc";
}

void RayClusterController::enabled(const World& world, std::vector<ActorWork>& out) const {
  const bool lingering = behaviour_.deletion_takes_ms > 0;
  for (const Object& object : world.api.objects(Kind::RayCluster)) {
    const auto& cluster = std::get<RayCluster>(object);
    const ObjectMeta& m = cluster.metadata;
    const bool has_ours = has_finalizer(m, kLingeringDeletionFinalizer);
    if (lingering && !m.deletion_timestamp_ms && !has_ours) {
      out.push_back({std::string(kAddFinalizer), object_ref(object), 0});
    }
    if (!m.deletion_timestamp_ms &&
        !world.api.find<Service>(m.namespace_, head_service_name(cluster))) {
      out.push_back({std::string(kCreateHeadService), object_ref(object), 0});
    }
    if (!m.deletion_timestamp_ms && has_submitter_sidecar(cluster) &&
        !world.api.find<Pod>(m.namespace_, head_pod_name(m))) {
      out.push_back({std::string(kCreateHeadPod), object_ref(object), 0});
    }
    if (becomes_ready(cluster) && m.creation_timestamp_ms + ready_after_ms_ <= world.now_ms) {
      out.push_back({std::string(kReady), object_ref(object), 0});
    }
    if (m.deletion_timestamp_ms && has_ours &&
        *m.deletion_timestamp_ms + behaviour_.deletion_takes_ms <= world.now_ms) {
      out.push_back({std::string(kRemoveFinalizer), object_ref(object), 0});
    }
  }
}

std::optional<std::int64_t> RayClusterController::next_timer_ms(const World& world) const {
  std::optional<std::int64_t> next;
  auto consider = [&](std::int64_t at) {
    if (at > world.now_ms && (!next || at < *next)) next = at;
  };
  for (const Object& object : world.api.objects(Kind::RayCluster)) {
    const auto& cluster = std::get<RayCluster>(object);
    const ObjectMeta& m = cluster.metadata;
    if (becomes_ready(cluster)) consider(m.creation_timestamp_ms + ready_after_ms_);
    if (m.deletion_timestamp_ms && has_finalizer(m, kLingeringDeletionFinalizer)) {
      consider(*m.deletion_timestamp_ms + behaviour_.deletion_takes_ms);
    }
  }
  return next;
}

void RayClusterController::apply(const ActorWork& work, StepContext& context) const {
  ObjectRef ref;
  [[maybe_unused]] const bool ok = parse_object_ref(work.object, ref);
  assert(ok && ref.kind == Kind::RayCluster && "rjsim bug: RayCluster work names no cluster");
  LoggedApi api(context, std::string(name()));

  if (work.what == kAddFinalizer) {
    api.patch(Kind::RayCluster, ref.namespace_, ref.name, [](Object& object) {
      meta(object).finalizers.emplace_back(kLingeringDeletionFinalizer);
    });
    return;
  }
  if (work.what == kRemoveFinalizer) {
    api.patch(Kind::RayCluster, ref.namespace_, ref.name, [](Object& object) {
      std::erase(meta(object).finalizers, std::string(kLingeringDeletionFinalizer));
    });
    return;
  }
  if (work.what == kReady) {
    api.patch_status(Kind::RayCluster, ref.namespace_, ref.name, [&](Object& object) {
      auto& status = std::get<RayCluster>(object).status;
      status.state = "ready";
      status.last_update_time_ms = context.now_ms();
    });
    return;
  }
  if (work.what == kCreateHeadPod) {
    const RayCluster* cluster = context.world().api.find<RayCluster>(ref.namespace_, ref.name);
    assert(cluster && "rjsim bug: a head Pod for a cluster that is gone");
    Pod pod;
    pod.metadata.name = head_pod_name(cluster->metadata);
    pod.metadata.namespace_ = ref.namespace_;
    pod.metadata.labels = StringMap{{"ray.io/cluster", ref.name}, {"ray.io/node-type", "head"}};
    pod.metadata.owner_references.push_back(
        OwnerReference{"ray.io/v1", Kind::RayCluster, ref.name, cluster->metadata.uid, true, true});
    pod.spec.edit().containers = cluster->spec->head_group_spec.template_.containers;
    pod.spec.edit().restart_policy = cluster->spec->head_group_spec.template_.restart_policy;
    Object object = std::move(pod);
    api.create(object);
    return;
  }
  assert(work.what == kCreateHeadService && "rjsim bug: unknown RayCluster controller work");
  const RayCluster* cluster = context.world().api.find<RayCluster>(ref.namespace_, ref.name);
  assert(cluster && "rjsim bug: a head Service for a cluster that is gone");
  Service service;
  service.metadata.name = head_service_name(*cluster);
  service.metadata.namespace_ = ref.namespace_;
  service.metadata.labels = StringMap{{"ray.io/cluster", ref.name}, {"ray.io/node-type", "head"}};
  service.metadata.owner_references.push_back(
      OwnerReference{"ray.io/v1", Kind::RayCluster, ref.name, cluster->metadata.uid, true, true});
  service.spec.edit().selector = {{"ray.io/cluster", ref.name}, {"ray.io/node-type", "head"}};
  service.spec.edit().ports.push_back(ServicePort{"dashboard", kDashboardPort});
  Object object = std::move(service);
  api.create(object);
}

}  // namespace rjsim::engine
