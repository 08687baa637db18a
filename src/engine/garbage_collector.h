// The garbage collector (kubernetes-semantics §2.2 "Garbage collection by ownerReferences" and
// "Propagation policy"), acting on the API server's truth, each deletion a step of its own after
// the owner's, never atomically with it:
//  - a dependent whose owners (matched by uid) are all gone is deleted (Background); the Pods of
//    one gone owner all in one step;
//  - an owner being deleted with the `orphan` finalizer has its ownerReferences removed from its
//    dependents, then loses the finalizer (batch/v1 Jobs deleted without a policy);
//  - an owner with the `foregroundDeletion` finalizer has its blocking dependents deleted, then
//    loses the finalizer once none remain.
#pragma once

#include "engine/actor.h"

namespace rjsim::engine {

class GarbageCollector final : public Actor {
 public:
  explicit GarbageCollector(Latency latency = {}) : latency_(latency) {}
  std::string_view name() const override { return "gc"; }
  ActorInputs inputs() const override {
    // Which objects exist and what owns them, nothing of their spec or status.
    return ActorInputs::ownership_of({Kind::RayJob, Kind::RayCluster, Kind::Service, Kind::Job, Kind::Pod});
  }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World&) const override { return std::nullopt; }
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

 private:
  Latency latency_;
};

}  // namespace rjsim::engine
