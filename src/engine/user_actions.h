// The user: fires the scenario's `actions` (DESIGN §4) at their virtual times, in file order, one
// action per step, each logged first as an input event (the stimulus) and then carried out
// through the API server or the Ray side, whose effects are logged as usual:
//  - patch        `action.patch`, then a JSON merge patch of the RayJob (no precondition, last
//                 writer wins: kubernetes-semantics §2.2 "Patch");
//  - delete       `action.delete`, then a delete of the RayJob with Background propagation;
//  - headRestart  `action.head_restart`, then RayDashboard::restart_head of the cluster named by
//                 the RayJob's status.rayClusterName (API truth);
//  - stopSubmitter `action.stop_submitter`, then `crictl stop` on each running submitter
//                 container of the RayJob (a Pod of its Job, or its cluster's head Pod in
//                 SidecarMode): SubmitterProcess::stop_requested, which the submitter actor, the
//                 container's kubelet, carries out (exit 137), so the kill is its effect.
// How many actions fired is World::environment.actions_fired.
#pragma once

#include <span>

#include "engine/actor.h"
#include "engine/ray_dashboard.h"
#include "engine/scenario.h"

namespace rjsim::engine {

class UserActions final : public Actor {
 public:
  // `actions` in time order (file order for equal times), as Scenario::actions holds them; they
  // must outlive the actor (the scenario does: runs share its actions instead of copying them).
  // `dashboard` null: a headRestart finds no head.
  UserActions(std::span<const Action> actions, const RayDashboard* dashboard)
      : actions_(actions), dashboard_(dashboard) {}

  std::string_view name() const override { return "user"; }
  ActorInputs inputs() const override {
    return ActorInputs::objects_of({Kind::RayJob}).and_clock().and_ray_and_environment();
  }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;

 private:
  const Action* next_action(const World& world) const;

  std::span<const Action> actions_;
  const RayDashboard* dashboard_;
};

}  // namespace rjsim::engine
