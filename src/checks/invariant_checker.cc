#include "checks/invariant_checker.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace rjsim::checks {

InvariantChecker::InvariantChecker(const engine::InvariantSelection& selection,
                                   std::vector<std::pair<std::string, std::string>> transition_table,
                                   std::int64_t eventually_ms, std::int64_t cleanup_allowance_ms) {
  settings_.transition_table = std::move(transition_table);
  settings_.eventually_ms = eventually_ms;
  settings_.cleanup_allowance_ms = cleanup_allowance_ms;
  std::vector<const Invariant*> safety, liveness;
  for (const Invariant& invariant : invariants()) {
    if (!selection.includes(std::string(invariant.name))) continue;
    if (invariant.after_step) safety.push_back(&invariant);
    if (invariant.at_end) liveness.push_back(&invariant);
  }
  safety_ = std::move(safety);
  liveness_ = std::move(liveness);
}

void InvariantChecker::after_step(const engine::World& world, const engine::StepLog& step) {
  assert(!finished_ && "rjsim bug: a step observed after the checker finished");
  history_.apply_step(world, step, *facts_);
  if (facts_->empty()) return;   // a safety judgement judges what the step added (invariant.h)
  const StepView view{history_, *facts_, world, settings_};
  for (const Invariant* invariant : *safety_) invariant->after_step(view, reporter_);
}

void InvariantChecker::finish(const engine::World& world, engine::RunEnd end) {
  assert(!finished_ && "rjsim bug: the checker finished twice");
  finished_ = true;
  history_.catch_up(world);
  const EndView view{history_, world, end, settings_, std::max<std::int64_t>(history_.last_seq(), 0)};
  for (const Invariant* invariant : *liveness_) invariant->at_end(view, reporter_);
}

}  // namespace rjsim::checks
