#include "engine/garbage_collector.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>

namespace rjsim::engine {

namespace {

constexpr std::string_view kDeleteDependent = "delete-dependent";
constexpr std::string_view kDeletePods = "delete-pods-of";
constexpr std::string_view kOrphanDependent = "orphan-dependent";
constexpr std::string_view kRemoveFinalizer = "remove-finalizer";

bool owner_exists(const ApiServer& api, const ObjectMeta& dependent, const OwnerReference& owner) {
  const Object* found = api.find(owner.kind, dependent.namespace_, owner.name);
  return found && meta(*found).uid == owner.uid;
}

bool owned_by(const ObjectMeta& dependent, const ObjectMeta& owner) {
  return dependent.namespace_ == owner.namespace_ &&
         std::any_of(dependent.owner_references->begin(), dependent.owner_references->end(),
                     [&](const OwnerReference& ref) { return ref.uid == owner.uid; });
}

// An object that has owners and is not being deleted: whether it is garbage is a question.
bool may_be_garbage(const ObjectMeta& m) { return !m.owner_references->empty() && !m.deletion_timestamp_ms; }

// Objects whose every owner is gone: garbage.
bool is_orphaned_garbage(const ApiServer& api, const ObjectMeta& m) {
  if (!may_be_garbage(m)) return false;
  return std::none_of(m.owner_references->begin(), m.owner_references->end(),
                      [&](const OwnerReference& owner) { return owner_exists(api, m, owner); });
}

// Calls visit(dependent) for every object in `owner`'s namespace that references it.
template <class Visit>
void for_each_dependent(const ApiServer& api, const ObjectMeta& owner, Visit visit) {
  for (Kind kind : kAllKinds) {
    for (const Object& object : api.objects(kind)) {
      if (owned_by(meta(object), owner)) visit(object);
    }
  }
}

void list_finalizer_work(const ApiServer& api, const Object& owner, std::vector<ActorWork>& out) {
  const ObjectMeta& m = meta(owner);
  if (!m.deletion_timestamp_ms) return;   // first: most objects are not being deleted
  const bool orphan = has_finalizer(m, kOrphanFinalizer);
  const bool foreground = has_finalizer(m, kForegroundFinalizer);
  if (!orphan && !foreground) return;
  bool dependents_left = false;
  for_each_dependent(api, m, [&](const Object& dependent) {
    dependents_left = true;
    if (orphan) {
      out.push_back({kOrphanDependent, SharedString(object_ref(dependent)), 0});
    } else if (!meta(dependent).deletion_timestamp_ms) {
      out.push_back({kDeleteDependent, SharedString(object_ref(dependent)), 0});
    }
  });
  if (!dependents_left) out.push_back({kRemoveFinalizer, SharedString(object_ref(owner)), 0});
}

ObjectRef parse_work_object(const ActorWork& work) {
  ObjectRef ref;
  [[maybe_unused]] const bool ok = parse_object_ref(work.object.str(), ref);
  assert(ok && "rjsim bug: a garbage collector work item names no object");
  return ref;
}

}  // namespace

// An owner's orphaned Pods go in one step (delete-pods-of, named by the owner): the RayJob models
// read no Pod of a RayCluster, and a step per Pod would multiply the orders exhaustive search tells
// apart (every delete takes the next resourceVersion), so that a cluster's Pods would cost more
// than the rest of the run.
void GarbageCollector::enabled(const World& world, std::vector<ActorWork>& out) const {
  const ApiServer& api = world.api;
  follow(api);
  WorkOnce pod_deletions(out);
  for (Kind kind : kAllKinds) {
    for (const auto& [object, key_hash, answer] : answers_[static_cast<std::size_t>(kind_index(kind))].kept()) {
      if (answer.garbage) {
        if (kind != Kind::Pod) {
          out.push_back({kDeleteDependent, answer.work_object, 0});
        } else {
          pod_deletions.add(kDeletePods, answer.work_object);
        }
      }
      if (answer.finalizing) list_finalizer_work(api, *object, out);
    }
  }
}

void GarbageCollector::follow(const ApiServer& api) const {
  OwnerChanges changes;
  for (Kind kind : kAllKinds) {
    const auto k = static_cast<std::size_t>(kind_index(kind));
    const auto bit = static_cast<std::uint8_t>(1U << k);
    const std::optional<std::span<const WatchEvent>> events = owner_marks_[k].advance(api.watch_log(kind));
    if (!events) {
      changes.unknown |= bit;
      continue;
    }
    changes.events[k] = *events;
    if (std::any_of(events->begin(), events->end(), [](const WatchEvent& e) { return e.type != WatchType::Modified; })) {
      changes.created_or_deleted |= bit;
    }
  }
  for (Kind kind : kAllKinds) {
    const auto k = static_cast<std::size_t>(kind_index(kind));
    named_.clear();
    const bool afresh = !name_owned(api, kind, changes, named_);
    answers_[k].follow(
        api, kind, afresh,
        [&](const ObjectVersion& object, ObjectAnswer& answer) { return compute_answer(api, kind, meta(*object), answer); },
        named_);
  }
}

bool GarbageCollector::name_owned(const ApiServer& api, Kind kind, const OwnerChanges& changes,
                                  std::vector<std::uint64_t>& named) const {
  const auto k = static_cast<std::size_t>(kind_index(kind));
  if ((owner_kinds_[k] & changes.unknown) != 0) return false;
  const std::uint8_t owners_come_or_gone = owner_kinds_[k] & changes.created_or_deleted;
  if (owners_come_or_gone == 0) return true;   // most listings: no owner of its objects came or went
  if (other_owners_[k]) return false;
  for (Kind owner : kAllKinds) {
    const auto o = static_cast<std::size_t>(kind_index(owner));
    if ((owners_come_or_gone & (1U << o)) == 0) continue;
    if (!name_controlled_by_created_or_deleted(api, owner, kind, changes.events[o], named)) return false;
  }
  return true;
}

bool GarbageCollector::compute_answer(const ApiServer& api, Kind kind, const ObjectMeta& m,
                                      ObjectAnswer& answer) const {
  const auto k = static_cast<std::size_t>(kind_index(kind));
  for (const OwnerReference& owner : *m.owner_references) {
    owner_kinds_[k] |= static_cast<std::uint8_t>(1U << kind_index(owner.kind));
  }
  if (m.owner_references->size() > 1 || (m.owner_references->size() == 1 && !controller_owner(m))) other_owners_[k] = true;
  answer.garbage = is_orphaned_garbage(api, m);
  answer.finalizing = m.deletion_timestamp_ms &&
                      (has_finalizer(m, kOrphanFinalizer) || has_finalizer(m, kForegroundFinalizer));
  if (answer.garbage) {
    const OwnerReference& owner = m.owner_references->front();   // a garbage Pod goes with its owner's
    answer.work_object = SharedString(kind == Kind::Pod ? object_ref(owner.kind, m.namespace_, owner.name)
                                                        : object_ref(kind, m));
  }
  return answer.garbage || answer.finalizing;
}

std::size_t GarbageCollector::garbage_answers_computed() const {
  std::size_t computed = 0;
  for (const FollowedAnswers<ObjectAnswer>& answers : answers_) computed += answers.computed();
  return computed;
}

void GarbageCollector::apply(const ActorWork& work, StepContext& context) const {
  LoggedApi api(context, "gc");
  const ObjectRef ref = parse_work_object(work);
  if (work.what == kDeleteDependent) {
    api.remove(ref.kind, ref.namespace_, ref.name, Propagation::background);
    return;
  }
  if (work.what == kDeletePods) {
    // The Pods' kept answers, brought to this world, are its garbage Pods in store order: read
    // instead of asking every Pod whether its owners exist (issue 30: with 20 RayJobs, a walk of
    // some 60 Pods and their owners at each delete).
    follow(context.world().api);
    // A garbage Pod's answer names the owner whose Pods it is deleted with (compute_answer), the
    // work's object as enabled() listed it.
    std::vector<std::string> names;   // named first: each delete changes the store being walked
    for (const auto& [object, key_hash, answer] : answers_[static_cast<std::size_t>(kind_index(Kind::Pod))].kept()) {
      if (answer.garbage && answer.work_object == work.object) names.push_back(meta(*object).name);
    }
    for (const std::string& name : names) api.remove(Kind::Pod, ref.namespace_, name, Propagation::background);
    return;
  }
  if (work.what == kOrphanDependent) {
    // Remove every ownerReference to an owner that is being deleted with `orphan`.
    const ApiServer& truth = context.world().api;
    api.patch(ref.kind, ref.namespace_, ref.name, [&truth](Object& dependent) {
      auto& owners = meta(dependent).owner_references.edit();
      std::erase_if(owners, [&](const OwnerReference& owner) {
        const Object* found = truth.find(owner.kind, meta(dependent).namespace_, owner.name);
        return found && meta(*found).uid == owner.uid && meta(*found).deletion_timestamp_ms &&
               has_finalizer(meta(*found), kOrphanFinalizer);
      });
    });
    return;
  }
  assert(work.what == kRemoveFinalizer && "rjsim bug: unknown garbage collector work");
  api.patch(ref.kind, ref.namespace_, ref.name, [](Object& owner) {
    std::erase_if(meta(owner).finalizers.edit(), [](const std::string& finalizer) {
      return finalizer == kOrphanFinalizer || finalizer == kForegroundFinalizer;
    });
  });
}

}  // namespace rjsim::engine
