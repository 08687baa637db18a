// Invariants over what an attempt starts: single-submission, no-rerun-after-terminal and
// one-execution-at-a-time (the Ray jobs of World::ray, attributed to a RayJob and attempt when
// they were submitted) and single-cluster (the controller's RayCluster creates). Judged at the
// step that submits, starts or creates.
#include <algorithm>

#include <fmt/format.h>

#include "checks/judgements.h"

namespace rjsim::checks::judgements {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

void single_submission(const StepView& view, Reporter& reporter) {
  const History& history = view.history;
  const auto& submissions = history.submissions();
  auto attempt_of = [&](const RaySubmission& s) -> const Attempt& {
    return history.rayjobs()[static_cast<std::size_t>(s.rayjob)]->attempts[static_cast<std::size_t>(s.attempt)];
  };
  // A second submission id in the attempt.
  for (const int index : view.facts.submitted) {
    const RaySubmission& submission = submissions[static_cast<std::size_t>(index)];
    if (submission.rayjob < 0) continue;
    const Attempt& attempt = attempt_of(submission);
    const auto first = std::find_if(attempt.submissions.begin(), attempt.submissions.end(), [&](int other) {
      return submissions[static_cast<std::size_t>(other)].submission_id != submission.submission_id;
    });
    if (first == attempt.submissions.end()) continue;
    const RaySubmission& earlier = submissions[static_cast<std::size_t>(*first)];
    const std::string& ref = history.rayjobs()[static_cast<std::size_t>(submission.rayjob)]->ref;
    reporter.report("single-submission", ref, submission.submitted.seq,
                    fmt::format("{}: a second submission id reached a dashboard in attempt {} (begun at seq {}): "
                                "{} at seq {}, after {} at seq {}",
                                ref, submission.attempt + 1, attempt.begun.seq, describe_ray_job(submission),
                                submission.submitted.seq, describe_ray_job(earlier), earlier.submitted.seq));
  }
  // The attempt's submission started executing a second time (any head incarnation).
  for (const int index : view.facts.started) {
    const RaySubmission& submission = submissions[static_cast<std::size_t>(index)];
    if (submission.rayjob < 0) continue;
    const Attempt& attempt = attempt_of(submission);
    const auto first = std::find_if(attempt.submissions.begin(), attempt.submissions.end(), [&](int other) {
      const RaySubmission& s = submissions[static_cast<std::size_t>(other)];
      return other != index && s.started && s.started->seq <= submission.started->seq;
    });
    if (first == attempt.submissions.end()) continue;
    const RaySubmission& earlier = submissions[static_cast<std::size_t>(*first)];
    const std::string& ref = history.rayjobs()[static_cast<std::size_t>(submission.rayjob)]->ref;
    reporter.report("single-submission", ref, submission.started->seq,
                    fmt::format("{}: attempt {} (begun at seq {}) started executing a second time at seq {}: "
                                "{} reached RUNNING after {} had at seq {}",
                                ref, submission.attempt + 1, attempt.begun.seq, submission.started->seq,
                                describe_ray_job(submission), describe_ray_job(earlier), earlier.started->seq));
  }
}

void single_cluster(const StepView& view, Reporter& reporter) {
  for (const ClusterCreated& created : view.facts.clusters_created) {
    const RayJobHistory& rayjob = view.history.rayjobs()[static_cast<std::size_t>(created.rayjob)];
    const Attempt& attempt = rayjob.attempts[static_cast<std::size_t>(created.attempt)];
    const std::string cluster = fmt::format("RayCluster/{}/{}", rayjob.namespace_, created.name);
    if (attempt.clusters.size() > 1 && attempt.clusters.back().seq == created.at.seq) {
      const ClusterCreation& first = attempt.clusters.front();
      reporter.report("single-cluster", rayjob.ref, created.at.seq,
                      fmt::format("{}: a second RayCluster was created in attempt {} (begun at seq {}): {} at "
                                  "seq {}, after RayCluster/{}/{} at seq {}",
                                  rayjob.ref, created.attempt + 1, attempt.begun.seq, cluster, created.at.seq,
                                  rayjob.namespace_, first.name, first.seq));
      continue;
    }
    // The name must have been persisted in status.rayClusterName before the create: before this
    // step, or by a write of the RayJob earlier in this step (the value after the step).
    const bool persisted_before =
        (!created.name_persisted_before_step.empty() && created.name == created.name_persisted_before_step) ||
        (created.rayjob_written_earlier_in_step && created.name == rayjob.persisted_cluster_name);
    if (persisted_before) continue;
    reporter.report("single-cluster", rayjob.ref, created.at.seq,
                    fmt::format("{}: {} was created at seq {} under a name not persisted in "
                                "status.rayClusterName before the create (persisted: {})",
                                rayjob.ref, cluster, created.at.seq,
                                created.name_persisted_before_step.empty()
                                    ? std::string("none")
                                    : fmt::format("\"{}\"", created.name_persisted_before_step)));
  }
}

// The attempt whose terminal jobStatus forbids a submission in attempt `index`: that attempt or,
// when it and the ones before it began by resuming out of Suspended, an earlier one back to the
// last backoffLimit retry (DESIGN §5: only a retry starts clean). Null when none has one before
// `seq`.
const Attempt* terminal_before(const RayJobHistory& rayjob, std::size_t index, std::int64_t seq) {
  for (std::size_t k = index + 1; k-- > 0;) {
    const Attempt& attempt = rayjob.attempts[k];
    if (attempt.terminal_job_status && attempt.terminal_job_status->seq < seq) return &attempt;
    if (attempt.begun_after != "Suspended"sv) return nullptr;   // the first attempt, or a retry's
  }
  return nullptr;
}

void no_rerun_after_terminal(const StepView& view, Reporter& reporter) {
  const History& history = view.history;
  for (const int index : view.facts.submitted) {
    const RaySubmission& submission = history.submissions()[static_cast<std::size_t>(index)];
    if (submission.rayjob < 0) continue;
    const RayJobHistory& rayjob = history.rayjobs()[static_cast<std::size_t>(submission.rayjob)];
    const auto current = static_cast<std::size_t>(submission.attempt);
    const Attempt* terminal = terminal_before(rayjob, current, submission.submitted.seq);
    if (!terminal) continue;
    const auto terminal_index = static_cast<std::size_t>(terminal - rayjob.attempts.data());
    const std::string where =
        terminal_index == current
            ? fmt::format("in the same attempt {} (begun at seq {})", current + 1, terminal->begun.seq)
            : fmt::format("in attempt {} (begun at seq {}), which attempt {} only resumed out of Suspended",
                          terminal_index + 1, terminal->begun.seq, current + 1);
    reporter.report("no-rerun-after-terminal", rayjob.ref, submission.submitted.seq,
                    fmt::format("{}: {} was submitted at seq {} although jobStatus {} was persisted at seq {} {}; "
                                "only a backoffLimit retry may run the job again",
                                rayjob.ref, describe_ray_job(submission), submission.submitted.seq,
                                terminal->terminal_job_status_value, terminal->terminal_job_status->seq, where));
  }
}

// True when the submission's Ray job runs now: RUNNING in a table its head still serves.
bool runs_now(const engine::World& world, const RaySubmission& submission) {
  const engine::RayHead& head = *world.ray->heads[static_cast<std::size_t>(submission.head)];
  return !head.table_lost && head.jobs[static_cast<std::size_t>(submission.job)].status == "RUNNING"sv;
}

void one_execution_at_a_time(const StepView& view, Reporter& reporter) {
  const History& history = view.history;
  const auto& submissions = history.submissions();
  for (const int index : view.facts.started) {
    const RaySubmission& started = submissions[static_cast<std::size_t>(index)];
    if (started.rayjob < 0 || !runs_now(view.world, started)) continue;
    const auto other = std::find_if(submissions.begin(), submissions.end(), [&](const RaySubmission& s) {
      return &s != &started && s.rayjob == started.rayjob && runs_now(view.world, s);
    });
    if (other == submissions.end()) continue;
    const std::string& ref = history.rayjobs()[static_cast<std::size_t>(started.rayjob)]->ref;
    reporter.report("one-execution-at-a-time", ref, started.started->seq,
                    fmt::format("{}: {} (attempt {}) reached RUNNING at seq {} ({} ms) while {} (attempt {}, RUNNING "
                                "since seq {}) still ran: two executions of one RayJob at once",
                                ref, describe_ray_job(started), started.attempt + 1, started.started->seq,
                                started.started->at_ms, describe_ray_job(*other), other->attempt + 1,
                                other->started ? other->started->seq : std::int64_t{0}));
  }
}

}  // namespace rjsim::checks::judgements
