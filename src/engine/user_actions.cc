#include "engine/user_actions.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

#include "engine/object_json.h"
#include "engine/raycluster_controller.h"
#include "engine/submitter.h"

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

// The work an action is (a constant: ActorWork::what).
std::string_view what_of(Action::Type type) {
  switch (type) {
    case Action::Type::patch: return "action.patch";
    case Action::Type::delete_: return "action.delete";
    case Action::Type::head_restart: return "action.head_restart";
    case Action::Type::stop_submitter: return "action.stop_submitter";
  }
  return "action.patch";
}

// The RayJob an action names, by name in any namespace (the first in namespace order); the only
// one when the action names none. Null when there is none.
const RayJob* target_of(const World& world, const Action& action) {
  for (const Object& object : world.api.objects(Kind::RayJob)) {
    const auto& rayjob = std::get<RayJob>(object);
    if (action.rayjob.empty() || rayjob.metadata.name == action.rayjob) return &rayjob;
  }
  return nullptr;
}

// Whether a Pod runs the submitter of the RayJob: a Pod of its submitter Job (named after the
// RayJob), or the head Pod of its cluster (SidecarMode), with the submitter container running.
bool runs_submitter_of(const Pod& pod, const RayJob& rayjob) {
  const OwnerReference* owner = controller_owner(pod.metadata);
  if (!owner || pod.metadata.namespace_ != rayjob.metadata.namespace_ || pod.status.phase != "Running"sv) return false;
  const bool sidecar = owner->kind == Kind::RayCluster && owner->name == rayjob.status.ray_cluster_name;
  if (!sidecar && !(owner->kind == Kind::Job && owner->name == rayjob.metadata.name)) return false;
  return std::any_of(pod.status.container_statuses.begin(), pod.status.container_statuses.end(),
                     [&](const ContainerStatus& c) {
                       return c.state == "running"sv && (!sidecar || c.name == kSubmitterSidecarName);
                     });
}

// `crictl stop` on the RayJob's running submitter containers: marks each Pod's current process;
// the submitter actor, their kubelet, kills it. How many it marked.
int stop_submitters(World& world, const RayJob& rayjob) {
  int stopped = 0;
  for (const Object& object : world.api.objects(Kind::Pod)) {
    const auto& pod = std::get<Pod>(object);
    const int process = runs_submitter_of(pod, rayjob) ? current_submitter_process(world, pod.metadata.uid) : -1;
    if (process < 0) continue;
    world.environment.edit().submitters[static_cast<std::size_t>(process)].stop_requested = true;
    ++stopped;
  }
  return stopped;
}

}  // namespace

const Action* UserActions::next_action(const World& world) const {
  const auto fired = static_cast<std::size_t>(world.environment->actions_fired);
  assert(fired <= actions_.size() && "rjsim bug: more actions fired than the scenario has");
  return fired < actions_.size() ? &actions_[fired] : nullptr;
}

void UserActions::enabled(const World& world, std::vector<ActorWork>& out) const {
  const Action* action = next_action(world);
  if (!action || action->at_ms > world.now_ms) return;
  const RayJob* rayjob = target_of(world, *action);
  out.push_back({what_of(action->type),
                 rayjob ? SharedString(object_ref(Kind::RayJob, rayjob->metadata)) : SharedString(),
                 world.environment->actions_fired});
}

std::optional<std::int64_t> UserActions::next_timer_ms(const World& world) const {
  const Action* action = next_action(world);
  if (!action || action->at_ms <= world.now_ms) return std::nullopt;
  return action->at_ms;
}

void UserActions::apply(const ActorWork&, StepContext& context) const {
  World& world = context.world();
  const Action* found = next_action(world);
  assert(found && found->at_ms <= world.now_ms && "rjsim bug: an action fired before its time");
  const Action& action = *found;
  ++world.environment.edit().actions_fired;

  const RayJob* target = target_of(world, action);
  const std::string name = target ? target->metadata.name : action.rayjob;
  const std::string namespace_ = target ? target->metadata.namespace_ : std::string("default");
  const std::string ref = fmt::format("RayJob/{}/{}", namespace_, name);
  LoggedApi api(context, "user");

  switch (action.type) {
    case Action::Type::patch: {
      context.emit(events::Origin::input, "action.patch", "user", ref)
          .with("rayjob", name)
          .with("patch", events::Value{events::RawJson{action.patch.dump()}});
      std::string invalid;
      api.patch(Kind::RayJob, namespace_, name, [&](Object& object) {
        try {
          apply_merge_patch(object, action.patch);
        } catch (const ObjectFormatError& error) {
          invalid = error.what();   // the object is left as it was: the server rejects the patch
        }
      });
      if (!invalid.empty()) context.effect("action.invalid", "user", ref).with("message", invalid);
      return;
    }
    case Action::Type::delete_:
      context.emit(events::Origin::input, "action.delete", "user", ref).with("rayjob", name);
      api.remove(Kind::RayJob, namespace_, name, Propagation::background);
      return;
    case Action::Type::head_restart: {
      const std::string cluster = target ? target->status.ray_cluster_name : std::string();
      context.emit(events::Origin::input, "action.head_restart", "user", ref)
          .with("rayjob", name)
          .with("ray_cluster", cluster);
      if (dashboard_ && !cluster.empty()) dashboard_->restart_head(context, namespace_, cluster);
      return;
    }
    case Action::Type::stop_submitter: {
      const int stopped = target ? stop_submitters(world, *target) : 0;
      context.emit(events::Origin::input, "action.stop_submitter", "user", ref)
          .with("rayjob", name)
          .with("containers", stopped);
      return;
    }
  }
}

}  // namespace rjsim::engine
