// The garbage collector (kubernetes-semantics §2.2 "Garbage collection by ownerReferences" and
// "Propagation policy"), acting on the API server's truth, each deletion a step of its own after
// the owner's, never atomically with it:
//  - a dependent whose owners (matched by uid) are all gone is deleted (Background); the Pods of
//    one gone owner all in one step;
//  - an owner being deleted with the `orphan` finalizer has its ownerReferences removed from its
//    dependents, then loses the finalizer (batch/v1 Jobs deleted without a policy);
//  - an owner with the `foregroundDeletion` finalizer has its blocking dependents deleted, then
//    loses the finalizer once none remain.
// What the collector lists of each object (whether it is garbage, whether it is an owner being
// deleted with a finalizer the collector acts on) is kept for the objects of which it lists
// something, found by following each kind's watch log (followed_answers.h; issue 30): a listing
// asks again about the objects written since the last one, and about the objects controlled by an
// owner created or deleted since (every object of a kind whose objects have owners besides their
// controller); the listing is the one a walk of every object gives.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/actor.h"
#include "engine/followed_answers.h"
#include "engine/object_version.h"
#include "engine/shared_string.h"
#include "engine/watch_log_mark.h"

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
  // What the collector lists of one object version: whether it is garbage (it has owners, is not
  // being deleted, and every owner, looked up by kind, namespace and name and matched by uid, is
  // gone: only a create or a delete of its owners' kinds changes that), and whether it is being
  // deleted with the orphan or foregroundDeletion finalizer (its work depends on its dependents
  // and is listed afresh each time).
  struct ObjectAnswer {
    bool garbage = false;
    bool finalizing = false;
    // The work's object, made once with the answer rather than at each listing: a garbage
    // object's own ref, or for a garbage Pod its owner's (the Pods are deleted by owner).
    SharedString work_object;
  };
  // Brings the kept answers of every kind up to `api`.
  void follow(const ApiServer& api) const;
  // What changed in each kind's log since the last listing, as its objects' owners.
  struct OwnerChanges {
    std::array<std::span<const WatchEvent>, kKindCount> events;   // the events since, when known
    std::uint8_t unknown = 0;               // a bit per kind whose log does not continue the one read
    std::uint8_t created_or_deleted = 0;    // a bit per kind with a create or a delete since
  };
  // Appends to `named` the objects of `kind` whose answers the creates and deletes of their
  // owners' kinds may change; false when every object of `kind` must be asked.
  bool name_owned(const ApiServer& api, Kind kind, const OwnerChanges& changes, std::vector<std::uint64_t>& named) const;
  // Writes the answer of an object of `kind`; false when the collector lists nothing of it.
  bool compute_answer(const ApiServer& api, Kind kind, const ObjectMeta& m, ObjectAnswer& answer) const;

  Latency latency_;
  // Per kind, the answers of the objects of which something is listed.
  mutable std::array<FollowedAnswers<ObjectAnswer>, kKindCount> answers_;
  // Per kind, a bit for every kind an object of it was seen owned by (its answers then read that
  // kind's creates and deletes); grows only, so that it holds whatever objects a world has.
  mutable std::array<std::uint8_t, kKindCount> owner_kinds_{};
  // Per kind, a bit set when an object of it was seen with an owner besides its controller (then
  // a create or delete of that kind's owners cannot name the objects it changes); grows only.
  mutable std::array<bool, kKindCount> other_owners_{};
  // Per kind, where the last listing stopped in its log (its creates and deletes name owners).
  mutable std::array<WatchLogMark, kKindCount> owner_marks_;
  mutable std::vector<std::uint64_t> named_;   // name_owned's buffer
};

}  // namespace rjsim::engine
