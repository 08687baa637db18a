// The judgements behind invariants() (invariant.cc), one pair per invariant, defined in the
// file of their group. Internal to src/checks: users go through invariants() or the checker.
#pragma once

#include "checks/invariant.h"

namespace rjsim::checks::judgements {

// The RayJob a persisted transition belongs to, and the attempt it belongs to.
inline const RayJobHistory& rayjob_of(const StepView& view, const PersistedTransition& transition) {
  return view.history.rayjobs()[static_cast<std::size_t>(transition.rayjob)];
}
inline const Attempt& attempt_of(const StepView& view, const PersistedTransition& transition) {
  return rayjob_of(view, transition).attempts[static_cast<std::size_t>(transition.attempt)];
}

// transitions.cc
void legal_transition(const StepView& view, Reporter& reporter);
void terminal_is_terminal(const StepView& view, Reporter& reporter);
void suspend_atomic(const StepView& view, Reporter& reporter);
void jobstatus_monotone(const StepView& view, Reporter& reporter);
void no_model_panic(const StepView& view, Reporter& reporter);

// cleanup.cc
void suspended_is_clean(const StepView& view, Reporter& reporter);
void retry_is_clean(const StepView& view, Reporter& reporter);
void no_leaked_cluster(const EndView& view, Reporter& reporter);

// submissions.cc
void single_submission(const StepView& view, Reporter& reporter);
void single_cluster(const StepView& view, Reporter& reporter);
void no_rerun_after_terminal(const StepView& view, Reporter& reporter);
void one_execution_at_a_time(const StepView& view, Reporter& reporter);

// ray_status.cc
void status_mirrors_ray(const StepView& view, Reporter& reporter);
void outcome_follows_ray(const StepView& view, Reporter& reporter);
void terminal_only_when_job_done(const StepView& view, Reporter& reporter);
void submitter_finished_implies_terminal(const EndView& view, Reporter& reporter);
void terminal_after_submitter(const StepView& view, Reporter& reporter);
void eventually_terminal(const EndView& view, Reporter& reporter);

// suspension.cc
void suspended_only_when_requested(const StepView& view, Reporter& reporter);
void suspended_means_released(const StepView& view, Reporter& reporter);

// progress.cc
void no_stuck_state(const EndView& view, Reporter& reporter);
void validation_recoverable_step(const StepView& view, Reporter& reporter);
void validation_recoverable_end(const EndView& view, Reporter& reporter);

}  // namespace rjsim::checks::judgements
