// The kubelet of a RayCluster's Pods (DESIGN §1.1 "Pods are objects"; kubernetes-semantics §4.1),
// acting on the API server's truth, one status write per step, for the Pods the RayCluster
// controller made (label ray.io/cluster, controller-owned by a RayCluster that still exists):
//  - a Pending Pod becomes phase Running, its containers running, at its time on the cluster's
//    Pod timeline (world.rayCluster): the head at headReadyAfter - runningBeforeReady after the
//    cluster's creation, a worker at readyAfter; its PodReady condition is present and False
//    until its Ready time (headReadyAfter for the head, readyAfter for a worker), then True, in
//    the same write when both times have come;
//  - a Running Pod with a container that is not running (an exited SidecarMode submitter, or one
//    waiting to restart, which the submitter actor runs) stays Running and is not made Ready; the
//    submitter actor makes it Ready again when it restarts the container.
// One step does what is due for every Pod of one cluster (`start-pods`, a write per Pod), so that
// a cluster coming up adds one step, not one per Pod and phase: a step per Pod would multiply the
// orders exhaustive search tells apart (every write takes the next resourceVersion). Each reacts
// within world.latency.kubelet. Submitter Pods (owned by a batch Job) are run by the
// submitter actor, which is their kubelet. Deleted Pods are stopped by PodTermination
// (pod_termination.h). Not modelled yet: image pulls, probes failing later, restarts of the Ray containers.
// What each Pod waits for is kept for the Pods that wait, found by following the Pods' watch log
// (followed_answers.h; issue 30): a listing asks again only about the Pods written since the last
// one, and about the Pods of the RayClusters created or deleted since.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/actor.h"
#include "engine/scenario_behaviour.h"
#include "engine/followed_answers.h"
#include "engine/object_version.h"
#include "engine/shared_string.h"
#include "engine/watch_log_mark.h"

namespace rjsim::engine {

class Kubelet final : public Actor {
 public:
  Kubelet(RayClusterBehaviour behaviour, Latency latency = {}) : behaviour_(behaviour), latency_(latency) {}

  std::string_view name() const override { return "kubelet"; }
  ActorInputs inputs() const override { return ActorInputs::objects_of({Kind::RayCluster, Kind::Pod}).and_clock(); }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

  // How many Pods' answers were computed rather than kept (for tests).
  std::size_t pod_answers_computed() const { return waiting_pods_.computed(); }

 private:
  struct Timeline {
    std::int64_t running_at_ms = 0;
    std::int64_t ready_at_ms = 0;
  };
  // What one Pod version that waits for a status write waits for: its times on its cluster's
  // timeline, found by the cluster's name and uid, which hold while the cluster that controls it
  // was neither created nor deleted. A Pod that is Running and Ready, or that cannot become Ready,
  // or is no live cluster's, waits for nothing and has no answer.
  struct PodAnswer {
    bool pending = false;                // it is Pending: Running comes first
    Timeline timeline;
    SharedString cluster;                // the work's object: its cluster's ref
  };
  // Brings the answers of the Pods that wait up to `world`.
  void follow(const World& world) const;
  // Writes the Pod's answer; false when it waits for nothing.
  bool compute_answer(const World& world, const Pod& pod, PodAnswer& answer) const;
  // The Pod's times on its cluster's timeline; nullopt for a Pod that is not a live cluster's.
  std::optional<Timeline> timeline_of(const World& world, const Pod& pod) const;
  // Whether the kubelet has a status write due for the Pod now.
  bool due(const World& world, const Pod& pod) const;

  RayClusterBehaviour behaviour_;
  Latency latency_;
  mutable FollowedAnswers<PodAnswer> waiting_pods_;
  // Where the last listing stopped in the RayCluster log, and the key hashes of the Pods of the
  // clusters created or deleted since (follow's buffer).
  mutable WatchLogMark cluster_log_mark_;
  mutable std::vector<std::uint64_t> pods_of_clusters_come_or_gone_;
};

}  // namespace rjsim::engine
