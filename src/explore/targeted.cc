#include "explore/targeted.h"

#include <fmt/format.h>

namespace rjsim::explore {

using engine::ChoicePoint;
using engine::StepKind;
using engine::StepOption;

namespace {

// How long a stale-read or hold plan lasts: until the controller has reconciled this many times
// on what it got (enough for a user action in between and a requeued pass to act on it), and at
// most kWindow step decisions. Counting reconciles, not steps, keeps the stall short in virtual
// time too: an error backoff does not stretch it to minutes.
constexpr std::int64_t kReconciles = 3;
constexpr std::int64_t kWindow = 48;
// How many step decisions a crash plan waits for the crash to be offered.
constexpr std::int64_t kCrashWait = 4;

bool changed_something(const events::Event& event) {
  const events::Value* changed = event.find("changed");
  return changed && std::holds_alternative<bool>(*changed) && std::get<bool>(*changed);
}

// A write of the environment (kubelet, submitter, Job controller, garbage collector, user): where
// an outage may begin, so that the controller misses what it changed for as long as it can.
bool is_environment_write(const events::Event& event) {
  return event.actor != "controller" && event.type.starts_with("api.") && event.type != "api.reply_lost" &&
         changed_something(event);
}

bool is_target(const events::Event& event) {
  if (event.actor != "controller" && !(event.type.starts_with("dashboard.") && event.find("caller") != nullptr)) {
    return false;
  }
  if (event.type.starts_with("api.") && event.type != "api.reply_lost") return changed_something(event);
  if (event.type == "dashboard.submit_job" || event.type == "dashboard.stop_job" || event.type == "dashboard.delete_job") {
    return event.text("caller") == "controller";
  }
  return false;
}

}  // namespace

std::string_view to_string(TargetedPlan::Action action) {
  switch (action) {
    case TargetedPlan::Action::crash_after: return "crash after";
    case TargetedPlan::Action::outage_after: return "repeated crashes after";
    case TargetedPlan::Action::stale_read_after: return "stale reads after";
    case TargetedPlan::Action::hold_after: return "held deliveries after";
    case TargetedPlan::Action::slow_after: return "slow reactions after";
  }
  return "plan";
}

std::vector<TargetedPlan> targeted_plans(const std::vector<events::Event>& baseline, const engine::FaultBudget& budget) {
  std::vector<TargetedPlan> plans;
  std::int64_t step_decisions = 0;
  for (const events::Event& event : baseline) {
    if (event.type == "choice") {
      if (event.text("point") == "step") ++step_decisions;
      continue;
    }
    if (budget.restarts > 1 && is_environment_write(event)) {
      plans.push_back({TargetedPlan::Action::outage_after, step_decisions, engine::Kind::RayJob,
                       fmt::format("{} {} by {}", event.type, event.object, event.actor)});
    }
    if (!is_target(event)) continue;
    const std::string about = fmt::format("{} {}", event.type, event.object);
    engine::ObjectRef ref;
    const bool has_kind = engine::parse_object_ref(event.object, ref);
    if (budget.restarts > 0) plans.push_back({TargetedPlan::Action::crash_after, step_decisions, ref.kind, about});
    if (budget.max_lag > 0) plans.push_back({TargetedPlan::Action::stale_read_after, step_decisions, ref.kind, about});
    if (budget.deliveries_may_wait() && has_kind) {
      plans.push_back({TargetedPlan::Action::hold_after, step_decisions, ref.kind, about});
    }
    if (budget.latency) plans.push_back({TargetedPlan::Action::slow_after, step_decisions, ref.kind, about});
  }
  return plans;
}

// A stale-read plan holds every delivery (a read can only lag behind events not yet applied);
// a hold plan only those of the written object's kind.
bool Targeted::held(const StepOption& step) const {
  if (step.kind != StepKind::deliver) return false;
  return plan_.action == TargetedPlan::Action::stale_read_after || step.detail == static_cast<std::uint8_t>(plan_.held_kind);
}

bool Targeted::active() const {
  return step_decisions_ >= plan_.step_decision && step_decisions_ < plan_.step_decision + kWindow &&
         reconciles_ < kReconciles;
}

std::uint64_t Targeted::choose(ChoicePoint point, std::uint64_t options) {
  if (point == ChoicePoint::name_suffix) return names_.choose(point, options);
  // While deliveries are held, reads see the held state too (the budget still bounds the lag).
  const bool holds = plan_.action == TargetedPlan::Action::stale_read_after || plan_.action == TargetedPlan::Action::hold_after;
  if (point == ChoicePoint::cache_advance && holds && active()) {
    return options - 1;
  }
  return 0;
}

std::uint64_t Targeted::choose_step(std::span<const StepOption> steps) {
  const std::int64_t decision = step_decisions_;
  const std::uint64_t picked = pick_step(steps, decision);
  ++step_decisions_;
  return picked;
}

std::uint64_t Targeted::pick_step(std::span<const StepOption> steps, std::int64_t decision) {
  if (decision < plan_.step_decision) return 0;
  switch (plan_.action) {
    case TargetedPlan::Action::crash_after:
      if (crashed_ || decision >= plan_.step_decision + kCrashWait) return 0;
      return crash_if_offered(steps);
    case TargetedPlan::Action::outage_after:
      // Once crashed, every crash offered (the simulation offers none beyond the budget).
      if (!crashed_ && decision >= plan_.step_decision + kCrashWait) return 0;
      return crash_if_offered(steps);
    case TargetedPlan::Action::slow_after:
      return active() ? slowest(steps) : 0;
    case TargetedPlan::Action::hold_after:
    case TargetedPlan::Action::stale_read_after:
      if (!active()) return 0;
      for (std::size_t i = 0; i < steps.size(); ++i) {
        if (held(steps[i]) || steps[i].kind == StepKind::crash) continue;
        if (steps[i].kind == StepKind::reconcile) ++reconciles_;
        return i;
      }
      return 0;
  }
  return 0;
}

// The crash step when one is offered (and the plan has crashed), else the fault-free step.
std::uint64_t Targeted::crash_if_offered(std::span<const StepOption> steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind == StepKind::crash) {
      crashed_ = true;
      return i;
    }
  }
  return 0;
}

// The environment's reactions wait as long as they may: the clock when it is offered (only
// while nothing but waiting reactions can run), else the first step that is no actor's work, so
// that the controller runs first. Counts the reconciles, as the other windowed plans do.
std::uint64_t Targeted::slowest(std::span<const StepOption> steps) {
  std::size_t picked = steps.size();
  for (std::size_t i = 0; i < steps.size() && picked == steps.size(); ++i) {
    if (steps[i].kind == StepKind::clock) picked = i;
  }
  for (std::size_t i = 0; i < steps.size() && picked == steps.size(); ++i) {
    if (steps[i].kind != StepKind::actor && steps[i].kind != StepKind::crash) picked = i;
  }
  if (picked == steps.size()) picked = 0;
  if (steps[picked].kind == StepKind::reconcile) ++reconciles_;
  return picked;
}

RunReport fault_free_with_budget(const engine::Scenario& scenario, const std::string& controller) {
  engine::DefaultChooser fault_free(scenario.seed);
  RunOptions run;
  run.controller = controller;
  run.faults = true;
  run.chooser = &fault_free;
  run.hash_log = false;
  return run_scenario(scenario, run);
}

}  // namespace rjsim::explore
