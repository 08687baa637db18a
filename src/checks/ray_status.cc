// Invariants that hold the RayJob to what its Ray job did: status-mirrors-ray, outcome-follows-ray
// and terminal-only-when-job-done, judged at the step that persists Complete or Failed, and
// eventually-terminal, judged at the end of the run.
// The attempt's Ray job is History::ray_job_of: the latest submission of the attempt with the
// attempt's persisted status.jobId, in any head incarnation (World::ray keeps lost tables).
#include <fmt/format.h>

#include "checks/judgements.h"

namespace rjsim::checks::judgements {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

bool is_deadline(std::string_view reason) {
  return reason == "DeadlineExceeded"sv || reason == "PreRunningDeadlineExceeded"sv;
}

// A change into Complete or Failed that is not decided by a deadline.
bool finishes_on_ray(const PersistedTransition& t) {
  const bool finished = t.to_deployment == "Complete"sv || t.to_deployment == "Failed"sv;
  return finished && t.from_deployment != t.to_deployment && !is_deadline(t.reason);
}

// Complete goes with SUCCEEDED or STOPPED, Failed with FAILED.
bool deployment_agrees(std::string_view deployment, std::string_view ray_status) {
  return deployment == "Complete" ? (ray_status == "SUCCEEDED" || ray_status == "STOPPED") : ray_status == "FAILED";
}

std::string_view goes_with(std::string_view deployment) {
  return deployment == "Complete"sv ? "SUCCEEDED or STOPPED" : "FAILED";
}

}  // namespace

void status_mirrors_ray(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (!finishes_on_ray(t)) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    const RaySubmission* ray_job = view.history.ray_job_of(attempt_of(view, t));
    if (!ray_job || !ray_job->final) continue;
    const std::string& ray_status = ray_job->final_status;
    const bool agrees = deployment_agrees(t.to_deployment, ray_status);
    if (t.to_job_status == ray_status && agrees) continue;
    reporter.report("status-mirrors-ray", rayjob.ref, t.at.seq,
                    fmt::format("{}: {} was persisted at seq {} with jobStatus {} (reason \"{}\"), but its {} "
                                "ended {} at seq {}{}",
                                rayjob.ref, t.to_deployment, t.at.seq,
                                show_job_status(t.to_job_status), t.reason,
                                describe_ray_job(*ray_job), ray_status, ray_job->final->seq,
                                agrees ? "" : fmt::format("; {} goes with {}", t.to_deployment, goes_with(t.to_deployment))));
  }
}

void outcome_follows_ray(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (!finishes_on_ray(t)) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    const RaySubmission* ray_job = view.history.ray_job_of(attempt_of(view, t));
    if (!ray_job || !ray_job->final || deployment_agrees(t.to_deployment, ray_job->final_status)) continue;
    reporter.report("outcome-follows-ray", rayjob.ref, t.at.seq,
                    fmt::format("{}: {} was persisted at seq {} (reason \"{}\"), but its {} ended {} at seq {}; {} "
                                "goes with {}",
                                rayjob.ref, t.to_deployment, t.at.seq, t.reason, describe_ray_job(*ray_job),
                                ray_job->final_status, ray_job->final->seq, t.to_deployment,
                                goes_with(t.to_deployment)));
  }
}

void terminal_only_when_job_done(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    // A validation failure ends the attempt on the spec alone (kuberay-1.7 RJC validateRayJob).
    if (!finishes_on_ray(t) || t.reason == "ValidationFailed"sv) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    const RaySubmission* ray_job = view.history.ray_job_of(attempt_of(view, t));
    // Never submitted, ended, or unknown to every dashboard now (its head's table is gone).
    if (!ray_job || ray_job->final) continue;
    const engine::RayHead& head = *view.world.ray->heads[static_cast<std::size_t>(ray_job->head)];
    if (head.table_lost) continue;
    const std::string& status = head.jobs[static_cast<std::size_t>(ray_job->job)].status;
    reporter.report("terminal-only-when-job-done", rayjob.ref, t.at.seq,
                    fmt::format("{}: {} was persisted at seq {} (reason \"{}\", jobStatus {}) while its {} was still "
                                "{} on a live head",
                                rayjob.ref, t.to_deployment, t.at.seq, t.reason,
                                show_job_status(t.to_job_status),
                                describe_ray_job(*ray_job), status));
  }
}

void eventually_terminal(const EndView& view, Reporter& reporter) {
  const std::int64_t eventually_ms = view.settings.eventually_ms;
  for (const RayJobHistory& rayjob : view.history.rayjobs()) {
    for (std::size_t k = 0; k < rayjob.attempts.size(); ++k) {
      const Attempt& attempt = rayjob.attempts[k];
      const RaySubmission* ray_job = view.history.ray_job_of(attempt);
      if (!ray_job || !ray_job->final) continue;
      const std::int64_t deadline_ms = ray_job->final->at_ms + eventually_ms;
      if (attempt.finished && attempt.finished->at_ms <= deadline_ms) continue;
      if (view.world.now_ms < deadline_ms) continue;   // the run ended before the deadline
      // A user action from the attempt's start to the deadline, or the RayJob's deletion, excuses it.
      if (rayjob.interfered(attempt.begun.at_ms, deadline_ms)) continue;
      if (rayjob.gone && rayjob.gone->at_ms <= deadline_ms) continue;
      const std::string outcome =
          attempt.finished
              ? fmt::format("Complete or Failed was persisted only at seq {} ({} ms), after the {} ms limit "
                            "(deadline {} ms)",
                            attempt.finished->seq, attempt.finished->at_ms, eventually_ms, deadline_ms)
              : fmt::format("neither Complete nor Failed was persisted within {} ms (deadline {} ms)",
                            eventually_ms, deadline_ms);
      reporter.report("eventually-terminal", rayjob.ref, view.last_seq,
                      fmt::format("{}: its {} ended {} at {} ms (seq {}), but {}, in attempt {} (begun at seq {}) "
                                  "and without interference; judged at the end of the run (seq {}, {} ms)",
                                  rayjob.ref, describe_ray_job(*ray_job), ray_job->final_status, ray_job->final->at_ms,
                                  ray_job->final->seq, outcome, k + 1, attempt.begun.seq, view.last_seq,
                                  view.world.now_ms));
    }
  }
}

void submitter_finished_implies_terminal(const EndView& view, Reporter& reporter) {
  const std::int64_t eventually_ms = view.settings.eventually_ms;
  for (const RayJobHistory& rayjob : view.history.rayjobs()) {
    for (std::size_t k = 0; k < rayjob.attempts.size(); ++k) {
      const Attempt& attempt = rayjob.attempts[k];
      if (!attempt.submitter_finished) continue;
      const std::int64_t deadline_ms = attempt.submitter_finished->at_ms + eventually_ms;
      const auto by_deadline = [&](const std::optional<Moment>& at) { return at && at->at_ms <= deadline_ms; };
      if (by_deadline(attempt.finished) || by_deadline(attempt.retrying)) continue;
      if (view.world.now_ms < deadline_ms) continue;   // the run ended before the deadline
      if (rayjob.interfered(attempt.submitter_finished->at_ms, deadline_ms)) continue;
      if (rayjob.gone && rayjob.gone->at_ms <= deadline_ms) continue;
      reporter.report("submitter-finished-implies-terminal", rayjob.ref, view.last_seq,
                      fmt::format("{}: {} at seq {} ({} ms), but neither Complete, Failed nor Retrying was persisted "
                                  "within {} ms (deadline {} ms), in attempt {} (begun at seq {}) and without "
                                  "interference; it rests in {}; judged at the end of the run (seq {}, {} ms)",
                                  rayjob.ref, attempt.submitter_finished_how, attempt.submitter_finished->seq,
                                  attempt.submitter_finished->at_ms, eventually_ms, deadline_ms, k + 1,
                                  attempt.begun.seq, show_status(rayjob.deployment_status), view.last_seq,
                                  view.world.now_ms));
    }
  }
}

void terminal_after_submitter(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    // Decided from the Ray job's status: Complete, or Failed as AppFailed (the Job's own failure
    // is SubmissionFailed, the grace-period fallback and the timeouts have reasons of their own).
    const bool from_ray = t.reason.empty() || t.reason == "AppFailed"sv;
    if (!finishes_on_ray(t) || !from_ray) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    const auto* stored = view.world.api.find<engine::RayJob>(rayjob.namespace_, rayjob.name);
    if (!stored || !uses_submitter_job(*stored->spec)) continue;
    const Attempt& attempt = attempt_of(view, t);
    if (attempt.submitter_finished && attempt.submitter_finished->seq < t.at.seq) continue;
    reporter.report("terminal-after-submitter", rayjob.ref, t.at.seq,
                    fmt::format("{}: {} (reason \"{}\", jobStatus {}) was persisted at seq {} before its submitter "
                                "Job/{}/{} finished (no Complete or Failed condition yet)",
                                rayjob.ref, t.to_deployment, t.reason,
                                show_job_status(t.to_job_status), t.at.seq,
                                rayjob.namespace_, rayjob.name));
  }
}

}  // namespace rjsim::checks::judgements
