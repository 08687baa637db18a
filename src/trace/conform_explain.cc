#include "trace/conform_explain.h"

#include <algorithm>

#include <fmt/format.h>

#include "explore/strategies.h"

namespace rjsim::trace {
namespace {

// Runs one schedule; true (and `explanation` filled in) when every recorded transition agrees.
bool agrees_under(const TraceExploration& exploration, engine::Chooser& chooser, std::uint64_t seed,
                  Explanation& explanation) {
  explore::RunOptions run = explore::exploration_run(chooser);
  run.seed = seed;
  run.keep_transitions = true;   // aligned with the trace's
  ++explanation.schedules;
  Alignment alignment = align_run(exploration.conform.derived, explore::run_scenario(exploration.scenario, run));
  if (alignment.differs > 0 || alignment.details.empty()) return false;
  explanation.found = true;
  explanation.alignment = std::move(alignment);
  return true;
}

int explanation_rank(explore::TargetedPlan::Action action) {
  switch (action) {
    case explore::TargetedPlan::Action::slow_after: return 0;
    case explore::TargetedPlan::Action::stale_read_after:
    case explore::TargetedPlan::Action::hold_after: return 1;
    default: return 2;   // crashes and outages
  }
}

}  // namespace

std::vector<explore::TargetedPlan> in_explanation_order(std::vector<explore::TargetedPlan> plans) {
  std::stable_sort(plans.begin(), plans.end(), [](const explore::TargetedPlan& a, const explore::TargetedPlan& b) {
    return explanation_rank(a.action) < explanation_rank(b.action);
  });
  return plans;
}

Explanation explain_difference(const TraceExploration& exploration) {
  Explanation explanation;
  const std::uint64_t seed = exploration.scenario.seed;
  // The targeted plans go where the fault-free run wrote; PCT spreads its change points over its steps.
  const explore::RunReport fault_free = explore::fault_free_with_budget(exploration.scenario, "");
  explanation.pct_expected_steps = fault_free.steps;
  const std::vector<explore::TargetedPlan> plans =
      in_explanation_order(explore::targeted_plans(fault_free.event_log, exploration.scenario.faults));
  explanation.targeted_plans = static_cast<std::int64_t>(plans.size());
  for (const explore::TargetedPlan& plan : plans) {
    explore::Targeted targeted(plan, seed);
    if (agrees_under(exploration, targeted, seed, explanation)) {
      explanation.plan = plan;
      explanation.how = fmt::format("{} {}", explore::to_string(plan.action), plan.about);
      return explanation;
    }
  }
  for (std::int64_t index = 0; index < kExplainPctSchedules; ++index) {
    const std::uint64_t pct_seed = explore::schedule_seed(seed, index);
    explore::Pct pct(pct_seed, kExplainPctDepth, explanation.pct_expected_steps);
    if (agrees_under(exploration, pct, pct_seed, explanation)) {
      explanation.pct_index = index;
      explanation.pct_seed = pct_seed;
      explanation.how = fmt::format("PCT schedule {} (depth {}, seed {})", index, kExplainPctDepth, pct_seed);
      return explanation;
    }
  }
  return explanation;
}

ExplanationRun explanation_run(const TraceExploration& exploration, const Explanation& explanation) {
  ExplanationRun out;
  std::uint64_t seed = exploration.scenario.seed;
  if (explanation.plan) {
    out.chooser = std::make_unique<explore::Targeted>(*explanation.plan, seed);
  } else {
    seed = explanation.pct_seed;
    out.chooser = std::make_unique<explore::Pct>(seed, kExplainPctDepth, explanation.pct_expected_steps);
  }
  out.options = explore::exploration_run(*out.chooser);
  out.options.seed = seed;
  out.options.keep_events = true;
  out.options.hash_log = true;
  out.options.keep_transitions = true;
  return out;
}

}  // namespace rjsim::trace
