// The RayCluster controller as the RayJob controller sees it (DESIGN §1 actors; kuberay-rayjob
// §2.6), acting on the API server's truth, one write per step:
//  - each RayCluster gets its head Service "<cluster>-head-svc" (or
//    spec.headGroupSpec.headServiceName), controller-owned by the cluster, with the port
//    {dashboard, 8265}; it is created once no Service of that name exists (an old cluster's
//    Service waits for the garbage collector);
//  - status.state becomes "ready" (one status patch) at creationTimestamp + the time the
//    release's readiness rule waits for (RayClusterBehaviour::state_ready_after_ms: readyAfter,
//    or earlier for rules that do not wait for every Pod, or for Ready);
//  - with `world.rayCluster.deletionTakes` > 0 each cluster carries the finalizer
//    "rjsim.dev/lingering-deletion" from when it is first seen, removed once
//    deletionTimestamp + deletionTakes has passed: a deleted cluster lingers that long.
//  - a cluster whose head template carries the RayJob submitter sidecar (a container named
//    "ray-job-submitter", kuberay-1.7 SidecarMode, kuberay-rayjob §1.10.4) gets one head Pod
//    "<cluster>-head" (labels ray.io/cluster and ray.io/node-type=head, controller-owned by the
//    cluster) with the template's containers, created once and never re-created (the cluster is
//    annotated ray.io/disable-provisioned-head-restart); the submitter actor runs its sidecar.
// Deliberate omissions: other Pods of clusters are not modelled, so State never derives from Pod
// phases and never becomes unhealthy, failed or suspended (the RayJob controllers read only
// State, and only before DashboardURL is known); clusters being deleted do not become ready.
#pragma once

#include <string>

#include "engine/actor.h"
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
      : behaviour_(behaviour), ready_after_ms_(behaviour.state_ready_after_ms(readiness)), latency_(latency) {}

  std::string_view name() const override { return "raycluster-controller"; }
  ActorInputs inputs() const override {
    return ActorInputs::objects_of({Kind::RayCluster, Kind::Service, Kind::Pod}).and_clock();
  }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

 private:
  RayClusterBehaviour behaviour_;
  std::int64_t ready_after_ms_;   // from creation to State ready under the release's rule
  Latency latency_;
};

}  // namespace rjsim::engine
