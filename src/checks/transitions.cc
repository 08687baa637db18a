// Invariants over the persisted transitions alone (status.transition events): legal-transition,
// terminal-is-terminal, suspend-atomic, jobstatus-monotone; and no-model-panic, over
// reconcile.panic events. Each is judged at the step whose event it reads.
#include <algorithm>

#include <fmt/format.h>

#include "checks/judgements.h"

namespace rjsim::checks::judgements {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

// How far a jobStatus has got: "" < PENDING < RUNNING < SUCCEEDED | FAILED | STOPPED; -1 unknown.
int job_status_rank(std::string_view job_status) {
  if (job_status.empty()) return 0;
  if (job_status == "PENDING"sv) return 1;
  if (job_status == "RUNNING"sv) return 2;
  if (is_terminal_job_status(job_status)) return 3;
  return -1;
}

}  // namespace

void legal_transition(const StepView& view, Reporter& reporter) {
  const auto& table = *view.settings.transition_table;
  if (table.empty()) return;
  for (const PersistedTransition& t : view.facts.transitions) {
    if (t.from_deployment == t.to_deployment) continue;
    const bool legal = std::any_of(table.begin(), table.end(), [&](const auto& edge) {
      return edge.first == t.from_deployment && edge.second == t.to_deployment;
    });
    if (legal) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    reporter.report("legal-transition", rayjob.ref, t.at.seq,
                    fmt::format("{}: persisted jobDeploymentStatus {} -> {} at seq {}, which is not an "
                                "edge of the model's transition table",
                                rayjob.ref, show_status(t.from_deployment),
                                show_status(t.to_deployment), t.at.seq));
  }
}

void terminal_is_terminal(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    const bool from_terminal = t.from_deployment == "Complete"sv || t.from_deployment == "Failed"sv;
    if (!from_terminal || t.to_deployment == t.from_deployment || t.to_deployment == "Retrying"sv) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    reporter.report("terminal-is-terminal", rayjob.ref, t.at.seq,
                    fmt::format("{}: persisted {} after {} at seq {}; after Complete or Failed the only "
                                "next persisted jobDeploymentStatus is Retrying",
                                rayjob.ref, show_status(t.to_deployment), t.from_deployment, t.at.seq));
  }
}

void suspend_atomic(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (t.from_deployment != "Suspending"sv || t.to_deployment == "Suspending"sv ||
        t.to_deployment == "Suspended"sv) {
      continue;
    }
    const RayJobHistory& rayjob = rayjob_of(view, t);
    reporter.report("suspend-atomic", rayjob.ref, t.at.seq,
                    fmt::format("{}: persisted {} after Suspending at seq {}; once Suspending is persisted "
                                "the next persisted jobDeploymentStatus must be Suspended",
                                rayjob.ref, show_status(t.to_deployment), t.at.seq));
  }
}

void jobstatus_monotone(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    const int from = job_status_rank(t.from_job_status);
    const int to = job_status_rank(t.to_job_status);
    if (from < 0 || to < 0 || to >= from) continue;
    // The reset that begins an attempt, or the reset to "" that ends one (Suspended, Retrying).
    const bool attempt_reset =
        t.begins_attempt ||
        (t.to_job_status.empty() && (t.to_deployment == "Suspended"sv || t.to_deployment == "Retrying"sv));
    if (attempt_reset) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    const Attempt& attempt = rayjob.attempts[static_cast<std::size_t>(t.attempt)];
    reporter.report("jobstatus-monotone", rayjob.ref, t.at.seq,
                    fmt::format("{}: persisted jobStatus moved backwards {} -> {} at seq {} (jobDeploymentStatus "
                                "{} -> {}) within attempt {} begun at seq {}",
                                rayjob.ref, show_job_status(t.from_job_status),
                                show_job_status(t.to_job_status), t.at.seq, show_status(t.from_deployment),
                                show_status(t.to_deployment), t.attempt + 1, attempt.begun.seq));
  }
}

void no_model_panic(const StepView& view, Reporter& reporter) {
  for (const ModelPanic& panic : view.facts.panics) {
    reporter.report("no-model-panic", panic.rayjob, panic.at.seq,
                    fmt::format("{}: the reconcile at seq {} reached a state where the Go code panics: {} "
                                "(kuberay 1.0 and 1.1 crash the operator here; 1.7 recovers it as an error)",
                                panic.rayjob, panic.at.seq, panic.message));
  }
}

}  // namespace rjsim::checks::judgements
