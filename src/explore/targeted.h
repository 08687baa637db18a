// Targeted exploration (Sieve's three patterns, kubernetes-semantics §5; issue 5): from the
// fault-free run, every write the controller made and every side effect it caused on Ray is a
// place where a controller is known to go wrong if the world is not what it believes. For each,
// one plan:
//   crash_after      the controller crashes right after it (the next step where a crash is
//                    offered): the successor must not redo or forget it;
//   outage_after     (after a write of the environment: the kubelet, the submitter, the Job
//                    controller, the garbage collector, the user) the controller crashes, and each
//                    successor crashes again as soon as it is up, while the budget allows
//                    (restarts >= 2): the longest outage right after the world changed, for checks
//                    that count time (v1.7.0's 30 s submitter-finished timeout outlasts two
//                    restarts of 15 s);
//   stale_read_after for a while deliveries wait and every cache read is as stale as the budget
//                    allows: the controller acts on state from before its own write;
//   hold_after       deliveries of the written object's kind are held for a while, so that what
//                    follows coalesces and the intermediate state is never observed.
// A plan is positioned by step decisions (the index of the `step` choice), which the fault-free
// run under the same budget takes identically up to the plan's point. Plans the budget does
// not allow (no restarts, no lag, no squash) are not made.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/chooser.h"
#include "engine/objects.h"
#include "engine/scenario.h"
#include "engine/simulation.h"
#include "events/event.h"
#include "explore/scenario_run.h"

namespace rjsim::explore {

struct TargetedPlan {
  enum class Action : std::uint8_t { crash_after, outage_after, stale_read_after, hold_after, slow_after };
  Action action = Action::crash_after;
  std::int64_t step_decision = 0;        // the plan starts at this step decision
  engine::Kind held_kind = engine::Kind::RayJob;   // hold_after: whose deliveries wait
  std::string about;                     // the write or side effect, e.g. "api.create RayCluster/default/x"
};

std::string_view to_string(TargetedPlan::Action action);

// The plans for a fault-free run's events (recorded with the fault budget on, so that its step
// decisions are logged), in the order of the events they follow.
std::vector<TargetedPlan> targeted_plans(const std::vector<events::Event>& baseline, const engine::FaultBudget& budget);

// The fault-free run of `scenario` under `controller` (empty: the scenario's) with the scenario's
// fault budget on, its events kept: what targeted_plans reads.
RunReport fault_free_with_budget(const engine::Scenario& scenario, const std::string& controller);

// Runs the fault-free schedule except for one plan.
class Targeted final : public engine::Chooser {
 public:
  Targeted(TargetedPlan plan, std::uint64_t seed) : plan_(std::move(plan)), names_(seed) {}
  std::uint64_t choose(engine::ChoicePoint point, std::uint64_t options) override;
  std::uint64_t choose_step(std::span<const engine::StepOption> steps) override;

 private:
  bool active() const;
  bool held(const engine::StepOption& step) const;
  std::uint64_t pick_step(std::span<const engine::StepOption> steps, std::int64_t decision);
  std::uint64_t crash_if_offered(std::span<const engine::StepOption> steps);
  std::uint64_t slowest(std::span<const engine::StepOption> steps);

  TargetedPlan plan_;
  engine::DefaultChooser names_;   // name suffixes as in the fault-free run
  std::int64_t step_decisions_ = 0;
  std::int64_t reconciles_ = 0;   // reconciles picked while the plan held deliveries
  bool crashed_ = false;
};

}  // namespace rjsim::explore
