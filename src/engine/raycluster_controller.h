// The RayCluster controller as the RayJob controller sees it (DESIGN §1 actors; kuberay-rayjob
// §2.6), acting on the API server's truth, one write per step:
//  - each RayCluster gets its head Service "<cluster>-head-svc" (or
//    spec.headGroupSpec.headServiceName), controller-owned by the cluster, with the port
//    {dashboard, 8265}; it is created once no Service of that name exists (an old cluster's
//    Service waits for the garbage collector);
//  - every RayCluster gets one head Pod "<cluster>-head" at once (labels ray.io/cluster,
//    ray.io/node-type=head, ray.io/group=headgroup, controller-owned by the cluster) with the head
//    template's containers, never re-created (a SidecarMode cluster is annotated
//    ray.io/disable-provisioned-head-restart; the submitter actor runs its sidecar), and one Pod
//    "<cluster>-<group>-worker-<i>" per replica of each worker group (ray.io/node-type=worker),
//    all created in one step at readyAfter: before then no worker Pod is listed, the case reference §2.6 names
//    ("a cluster whose worker Pods have not been created yet can already be ready"). KubeRay names
//    workers with a random suffix; an index keeps the names free of decisions;
//  - the status is written (one status patch) whenever what the release's calculateStatus makes of
//    the cluster's Pods and head Service differs from the stored status in a field the release
//    compares (raycluster_status.h: worker counts, endpoints, head Pod and Service, v1.7.0's
//    conditions); status.state becomes "ready" when the release's rule holds for the Pods as the
//    API lists them (RayClusterReadiness): v1.0.0 every listed Pod Running, v1.1.0 every listed Pod
//    Running with PodReady True, v1.7.0 that for desired workers + 1 Pods. No status is written
//    before the head Service exists (KubeRay's updateHeadInfo fails) or once the cluster is being
//    deleted. The kubelet moves the Pods along world.rayCluster's timeline (kubelet.h);
//  - with `world.rayCluster.deletionTakes` > 0 each cluster carries the finalizer
//    "rjsim.dev/lingering-deletion" from when it is first seen, removed once
//    deletionTimestamp + deletionTakes has passed: a deleted cluster lingers that long.
// Deliberate omissions: State never becomes unhealthy or failed and never leaves ready (the RayJob
// controllers read only State, and only before DashboardURL is known); it becomes suspended only
// for a suspended cluster without Pods, and the controller deletes no Pods for a suspension
// (suspended worker groups keep theirs too); a Pod that goes is not re-created.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/actor.h"
#include "engine/object_version.h"
#include "engine/scenario_behaviour.h"

namespace rjsim::engine {

inline constexpr std::string_view kLingeringDeletionFinalizer = "rjsim.dev/lingering-deletion";
inline constexpr int kDashboardPort = 8265;
inline constexpr std::string_view kSubmitterSidecarName = "ray-job-submitter";

// Whether the cluster's head template carries the RayJob submitter sidecar (SidecarMode).
bool has_submitter_sidecar(const RayCluster& cluster);

// The name of a cluster's head Service (KubeRay GenerateHeadServiceName).
std::string head_service_name(const RayCluster& cluster);

class RayClusterController final : public Actor {
 public:
  RayClusterController(RayClusterBehaviour behaviour, RayClusterReadiness readiness, Latency latency = {})
      : behaviour_(behaviour), readiness_(readiness), latency_(latency) {}

  std::string_view name() const override { return "raycluster-controller"; }
  ActorInputs inputs() const override {
    return ActorInputs::objects_of({Kind::RayCluster, Kind::Service, Kind::Pod}).and_clock();
  }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

 private:
  // The first worker Pod of the cluster not created yet: (group index, replica index).
  std::optional<std::pair<int, int>> missing_worker(const World& world, const RayCluster& cluster) const;
  // `pods`: the cluster's Pods as the API lists them.
  bool pods_ready(const std::vector<const Pod*>& pods, const RayCluster& cluster) const;
  // Whether the release's RayCluster controller would write the cluster's status now: what its
  // calculateStatus makes differs from the stored status in what that release compares
  // (raycluster_status.h). Asked of every cluster at every listing, so nothing is built.
  // `head_service`: the cluster's head Service as the listing found it, or null.
  bool status_due(const RayCluster& cluster, const Service* head_service, const std::vector<const Pod*>& pods) const;

  // status_due with a memo: the answer for these versions of the cluster, its head Service and
  // its Pods when the memo has them, else computed and remembered.
  // `head_service`: the cluster's head Service as the API server holds it (not null).
  bool status_due_memoized(const ObjectVersion& cluster, const ObjectVersion* head_service,
                           const std::vector<const ObjectVersion*>& pods) const;

  RayClusterBehaviour behaviour_;
  RayClusterReadiness readiness_;
  Latency latency_;
  // What status_due answered, per cluster, for the versions it was asked about. A pure function's
  // cache, not state: the versions are immutable and held here, so the same versions always give
  // the same answer, and a listing of 20 clusters asks again only of those a step changed. An
  // actor belongs to one runner, which one thread uses (explore::ScenarioRunner).
  struct StatusMemo {
    ObjectVersion cluster;
    std::optional<ObjectVersion> head_service;
    std::vector<ObjectVersion> pods;
    bool due = false;
  };
  mutable std::vector<StatusMemo> status_memo_;
};

}  // namespace rjsim::engine
