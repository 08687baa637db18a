// The checks of a run (DESIGN §5): a StepObserver that folds every step into a History and
// judges the selected safety invariants after it, and judges the liveness ones when told the run
// ended (finish). It reads events and the World and never changes them. It keeps the first
// violation of each invariant per RayJob. A plain value: exploration can copy it with the world.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "checks/history.h"
#include "checks/invariant.h"
#include "engine/scenario.h"
#include "engine/simulation.h"

namespace rjsim::checks {

class InvariantChecker final : public engine::StepObserver {
 public:
  // `transition_table`: Controller::transition_table() of the model under test;
  // `eventually_ms`: the scenario's limits.eventually.
  InvariantChecker(const engine::InvariantSelection& selection,
                   std::vector<std::pair<std::string, std::string>> transition_table,
                   std::int64_t eventually_ms, std::int64_t cleanup_allowance_ms = kCleanupAllowanceMs);

  // The event types every checker reads (the same for all: a driver may ask before it has one).
  static events::EventTypes types_read() { return History::reads(); }
  // StepObserver: folds the step in and judges the selected safety invariants.
  events::EventTypes reads() const override { return types_read(); }
  void after_step(const engine::World& world, const engine::StepLog& step) override;
  // Judges the selected liveness invariants on the final world; `end` says how the run ended
  // (no-stuck-state is judged only on a quiescent end). Call once, after the last step.
  void finish(const engine::World& world, engine::RunEnd end);

  // In the order found; end-of-run violations after every step's.
  const std::vector<Violation>& violations() const { return reporter_.violations(); }
  bool finished() const { return finished_; }
  const History& history() const { return history_; }
  const Settings& settings() const { return settings_; }

 private:
  Settings settings_;
  // Chosen once, and shared by the checker's copies (exploration copies it with every snapshot).
  engine::CopyOnWrite<std::vector<const Invariant*>> safety_;     // selected, with an after-step judgement
  engine::CopyOnWrite<std::vector<const Invariant*>> liveness_;   // selected, with an end-of-run judgement
  History history_;
  Scratch<StepFacts> facts_;   // what the step being judged added
  Reporter reporter_;
  bool finished_ = false;
};

}  // namespace rjsim::checks
