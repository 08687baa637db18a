// The garbage collector (kubernetes-semantics §2.2 "Garbage collection by ownerReferences" and
// "Propagation policy"), acting on the API server's truth, each deletion a step of its own after
// the owner's, never atomically with it:
//  - a dependent whose owners (matched by uid) are all gone is deleted (Background); the Pods of
//    one gone owner all in one step;
//  - an owner being deleted with the `orphan` finalizer has its ownerReferences removed from its
//    dependents, then loses the finalizer (batch/v1 Jobs deleted without a policy);
//  - an owner with the `foregroundDeletion` finalizer has its blocking dependents deleted, then
//    loses the finalizer once none remain.
// Whether an owned object is garbage is kept per object version (version_answers.h; issue 30): a
// listing looks its owners up again only for an object that changed, or when an object of its
// owners' kinds was created or deleted since (write_stamps.h); the listing is the one a walk that
// keeps nothing gives.
#pragma once

#include <array>
#include <cstddef>

#include "engine/actor.h"
#include "engine/object_version.h"
#include "engine/version_answers.h"

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

  // How many objects' answers were computed rather than kept, since the collector was made (for
  // tests: a write that creates or deletes no owner computes the written object's answer only).
  std::size_t garbage_answers_computed() const;

 private:
  // Whether one owned object version, not being deleted, is garbage (every owner gone). It holds
  // while no object of its owners' kinds was created or deleted: owners are found by kind,
  // namespace and name, and matched by uid, which only a create or a delete changes. Compared by
  // identity (write_stamps.h), so it holds across forks and runs.
  struct GarbageAnswer {
    std::array<ObjectVersion, kKindCount> owner_kind_existence;   // of its owners' kinds only
    bool garbage = false;
  };
  // Whether the object at `place` in its kind's list is garbage: kept when its answer holds.
  bool is_garbage(const ApiServer& api, Kind kind, std::size_t place, const ObjectVersion& object) const;

  Latency latency_;
  // Per kind, one answer per place in its list (version_answers.h).
  mutable std::array<VersionAnswers<GarbageAnswer>, kKindCount> garbage_answers_;
};

}  // namespace rjsim::engine
