#include "engine/pod_termination.h"

#include <algorithm>
#include <cassert>

namespace rjsim::engine {

namespace {

constexpr std::string_view kStopPods = "stop-pods";

// A Pod deleted while it ran whose containers have not stopped yet (objects.h).
bool is_stopping(const Object& object) {
  const auto& pod = std::get<Pod>(object);
  return pod.metadata.deletion_timestamp_ms && !containers_stopped(pod);
}

// Who a stopping Pod's step is named by: its controller owner, else the Pod itself.
std::string group_of(const Object& object) {
  const ObjectMeta& m = meta(object);
  const OwnerReference* owner = controller_owner(m);
  return owner ? object_ref(owner->kind, m.namespace_, owner->name) : object_ref(object);
}

}  // namespace

void PodTermination::enabled(const World& world, std::vector<ActorWork>& out) const {
  // Most listings: no Pod is being deleted, and none is walked (with 20 RayJobs the walk read
  // every Pod's metadata at every Pod write).
  if (world.api.deleting(Kind::Pod) == 0) return;
  WorkOnce stops(out);
  for (const Object& object : world.api.objects(Kind::Pod)) {
    if (!is_stopping(object)) continue;
    stops.add(kStopPods, group_of(object));
  }
}

void PodTermination::apply(const ActorWork& work, StepContext& context) const {
  assert(work.what == kStopPods && "rjsim bug: unknown Pod termination work");
  std::vector<std::pair<std::string, std::string>> stopped;   // named first: each delete changes the store
  for (const Object& object : context.world().api.objects(Kind::Pod)) {
    if (is_stopping(object) && group_of(object) == work.object) {
      stopped.emplace_back(meta(object).namespace_, meta(object).name);
    }
  }
  LoggedApi api(context, std::string(name()));
  for (const auto& [namespace_, pod_name] : stopped) {
    api.remove(Kind::Pod, namespace_, pod_name, Propagation::background, /*grace_period_seconds=*/0);
  }
}

}  // namespace rjsim::engine
