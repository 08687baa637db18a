// The kubelet stopping deleted Pods (DESIGN §1.1 "Pods are objects"; kubernetes-semantics §4),
// acting on the API server's truth: a Pod deleted while it ran keeps its deletionTimestamp and
// deletionGracePeriodSeconds (ApiServer::remove) until its containers have stopped; then this
// actor deletes it with grace 0, which removes it unless finalizers still hold it. The containers
// stop after a delay within [0, world.pods.terminationGracePeriod] (the fault-free run: at once;
// with faults.latency the chooser picks it), so that a deleted Pod may still run for that long:
// a Ray head serves until its Pod goes (ray_dashboard.h). The Pods of one owner that are being
// deleted stop in one step, as the garbage collector deletes them in one (garbage_collector.h):
// a step per Pod would multiply the orders exhaustive search tells apart. Its own actor, beside
// the kubelet that starts Pods (kubelet.h), because its delay has another range.
#pragma once

#include "engine/actor.h"

namespace rjsim::engine {

class PodTermination final : public Actor {
 public:
  explicit PodTermination(std::int64_t grace_period_ms) : latency_{0, grace_period_ms} {}

  std::string_view name() const override { return "kubelet"; }
  ActorInputs inputs() const override { return ActorInputs::objects_of({Kind::Pod}); }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World&) const override { return std::nullopt; }
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

 private:
  Latency latency_;
};

}  // namespace rjsim::engine
