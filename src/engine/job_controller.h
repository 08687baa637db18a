// The batch Job controller as far as KubeRay's submitter Jobs use it (kubernetes-semantics §4.2,
// simplified), acting on the API server's truth. For a Job that is not being deleted and has no
// Complete or Failed condition, with active/succeeded/failed counted from its Pods (controller
// ownerReference by uid) as the release's Kubernetes counts them (JobPodTracking):
//  - a succeeded Pod: two status writes in one step, SuccessCriteriaMet then Complete=True
//    (completionTime, lastTransitionTime now): the delayed terminal condition of 1.31+;
//  - failed > backoffLimit (nil: 6): FailureTarget then Failed=True, reason BackoffLimitExceeded,
//    in one step (nothing is left terminating with restartPolicy Never);
//  - counters that differ from status: one status write;
//  - no active Pod (and spec.suspend not true): create Pod "<job>-<5 random>" with label
//    job-name, a controller ownerReference to the Job and the template's containers, and write
//    status.active and startTime. After f failed Pods the replacement waits 10 s * 2^(f-1), capped
//    at 10 min, from the last failed Pod's finish time.
// With JobPodTracking::finalizers (trackJobStatusAndRemoveFinalizers) each Pod is created with the
// `batch.kubernetes.io/job-tracking` finalizer; status.succeeded and status.failed only grow: a Pod
// is counted once, when it is Succeeded, Failed, or being deleted (then as failed, isPodFailed),
// and its finalizer is removed in the same step, before the status write that counts it, so a
// deleted Pod stays in the API until then. The finalizers of Pods whose Job is gone, being
// deleted or finished are removed without counting (the orphan-Pod cleanup), one step per Job.
// With JobPodTracking::listed_pods the counters are recomputed from the Pods listed.
// Not modelled: completions/parallelism other than 1, activeDeadlineSeconds, podFailurePolicy,
// the interim status.uncountedTerminatedPods write (KubeRay never reads it), the Job
// controller's own queue and its 1 s batching (world.latency.jobController stands for both),
// restartPolicy OnFailure, and its in-memory backoff record (podBackoffStore): the failure backoff
// is measured from the failed Pods still in the API, so a failed Pod that is gone no longer delays
// the replacement.
// The Jobs it manages and the Pods that carry its finalizer are kept, found by following the Jobs'
// and the Pods' watch logs (followed_answers.h; issue 30): a listing looks at those, not at every
// Job and Pod. What a managed Job needs is kept with it, and worked out again only when the Job,
// one of its Pods (one it counted, or one that names it its controller now) or the backoff
// records changed; the clock only decides whether a Pod's creation is due.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/actor.h"
#include "engine/environment_state.h"
#include "engine/followed_answers.h"
#include "engine/shared_string.h"
#include "engine/watch_log_mark.h"

namespace rjsim::engine {

inline constexpr std::int64_t kJobPodFailureBackoffMs = 10'000;       // DefaultJobPodFailureBackOff
inline constexpr std::int64_t kJobMaxPodFailureBackoffMs = 600'000;   // MaxJobPodFailureBackOff
inline constexpr int kDefaultJobBackoffLimit = 6;
inline constexpr std::string_view kJobTrackingFinalizer = "batch.kubernetes.io/job-tracking";

// The Pods whose controller ownerReference is the Job with `job_uid`, oldest first (pointers into
// `api`, valid while it is unchanged). From the API server's owner index: a listing of every Job's
// work asks this of each Job.
std::vector<const Pod*> pods_of_job(const ApiServer& api, std::string_view namespace_,
                                    std::string_view job_uid);

// A condition of type `type` with status True.
bool has_true_condition(const Job& job, std::string_view type);

class JobController final : public Actor {
 public:
  explicit JobController(JobPodTracking tracking = JobPodTracking::listed_pods, Latency latency = {})
      : tracking_(tracking), latency_(latency) {}
  std::string_view name() const override { return "job-controller"; }
  ActorInputs inputs() const override { return ActorInputs::objects_of({Kind::Job, Kind::Pod}).and_clock(); }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

 private:
  // What a managed Job needs, from it, its Pods and its backoff record: work whatever the clock
  // says, or a Pod to create from a time on.
  struct JobAnswer {
    std::string_view work;             // complete, fail or sync-status; empty: none of them
    bool may_create_pod = false;
    std::int64_t create_at_ms = 0;
    std::vector<std::uint64_t> pods;   // the key hashes of the Pods it counted
    SharedString object;               // the Job's ref, for its work; made once, when it may have some
  };

  void release_orphans(const ActorWork& work, StepContext& context) const;
  // Brings the kept Jobs and Pods, and the Jobs' answers, up to `world`.
  void follow(const World& world) const;
  // Names, in jobs_named_, the kept Jobs whose Pods the Pod log wrote since the last listing (a
  // Pod one counted, or the Job a written Pod names its controller). False when that cannot be
  // told: another run's log.
  bool name_jobs_of_written_pods(const ApiServer& api) const;
  // Calls visit(pod) with the Pod `event` wrote: the version it announced, or, where the log keeps
  // no versions of its events (Pods no informer receives), the Pod as stored now, if any.
  template <class Visit>
  static void for_each_written_pod(const ApiServer& api, const WatchEvent& event, Visit visit);
  // Writes the answer for `job` and returns whether the Job is managed (kept).
  bool answer_for(const World& world, const Job& job, JobAnswer& answer) const;

  JobPodTracking tracking_;
  Latency latency_;
  // A Pod with the job-tracking finalizer: whether it is an orphan, and the key hash of the Job
  // that decides it (a write to that Job asks it again).
  struct TrackedPod {
    bool orphan = false;
    std::uint64_t job = 0;
  };
  // Names, in pods_named_, the kept Pods whose Job the Job log wrote since the last listing; false
  // when the log does not continue the one marked.
  bool name_pods_of_written_jobs(const ApiServer& api) const;

  mutable FollowedAnswers<JobAnswer> managed_jobs_;   // not being deleted, not finished
  mutable FollowedAnswers<TrackedPod> tracked_pods_;   // with the job-tracking finalizer (JobPodTracking::finalizers)
  mutable WatchLogMark pod_log_mark_;
  mutable WatchLogMark job_log_mark_;
  mutable std::vector<std::uint64_t> jobs_named_;
  mutable std::vector<std::uint64_t> pods_named_;
  mutable std::vector<JobBackoffRecord> backoffs_;   // the records the answers were worked out with
};

}  // namespace rjsim::engine
