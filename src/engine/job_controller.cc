#include "engine/job_controller.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "engine/key_index.h"
#include "engine/name_suffix.h"

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

constexpr std::string_view kComplete = "complete";
constexpr std::string_view kFail = "fail";
constexpr std::string_view kSyncStatus = "sync-status";
constexpr std::string_view kCreatePod = "create-pod";
constexpr std::string_view kReleaseOrphans = "release-orphan-pods";

// A kind's uids are "uid-<kind>-<n>" from one counter per kind: shorter is older.
bool uid_less(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

// When a failed Pod finished (getFinishedTime): its containers' latest finishedAt, else when its
// deletion was asked for (the deletion timestamp less the grace period).
std::int64_t finished_at_ms(const Pod& pod) {
  std::int64_t at = 0;
  for (const ContainerStatus& status : pod.status.container_statuses) {
    if (status.finished_at_ms) at = std::max(at, *status.finished_at_ms);
  }
  if (at == 0 && pod.metadata.deletion_timestamp_ms) {
    at = *pod.metadata.deletion_timestamp_ms - pod.metadata.deletion_grace_period_seconds.value_or(0) * 1000;
  }
  return at;
}

// What the Job's Pods say, and where its status stands.
struct JobView {
  const Job* job = nullptr;
  int active = 0, succeeded = 0, failed = 0;
  std::int64_t last_failure_ms = 0;
  std::vector<std::string> to_release;   // Pods counted now: their tracking finalizer goes

  int backoff_limit() const { return job->spec->backoff_limit.value_or(kDefaultJobBackoffLimit); }
  bool counters_differ() const {
    return job->status.active != active || job->status.succeeded != succeeded ||
           job->status.failed != failed;
  }
  // When a new Pod may be created (after the failure backoff).
  std::int64_t create_at_ms() const {
    if (failed == 0) return 0;
    std::int64_t delay = kJobPodFailureBackoffMs;
    for (int i = 1; i < failed && delay < kJobMaxPodFailureBackoffMs; ++i) delay *= 2;
    return last_failure_ms + std::min(delay, kJobMaxPodFailureBackoffMs);
  }
  bool may_create_pod() const {
    return active == 0 && succeeded == 0 && failed <= backoff_limit() && !job->spec->suspend.value_or(false);
  }
};

// Jobs the controller still manages: not being deleted, not finished.
bool is_managed(const Job& job) {
  return !job.metadata.deletion_timestamp_ms && !has_true_condition(job, "Complete") &&
         !has_true_condition(job, "Failed");
}

bool is_tracked(const Pod& pod) { return has_finalizer(pod.metadata, kJobTrackingFinalizer); }

// Counted from the Pods alone: a Pod deleted before it was seen is forgotten (Kubernetes 1.23).
JobView view_from_listed_pods(const Job& job, std::span<const Pod* const> pods) {
  JobView view;
  view.job = &job;
  for (const Pod* pod : pods) {
    if (pod->status.phase == "Succeeded"sv) {
      ++view.succeeded;
    } else if (pod->status.phase == "Failed"sv) {
      ++view.failed;
      view.last_failure_ms = std::max(view.last_failure_ms, finished_at_ms(*pod));
    } else if (!pod->metadata.deletion_timestamp_ms) {
      ++view.active;
    }
  }
  return view;
}

// The backoff record of the Job with `job_uid`, if it has one.
const JobBackoffRecord* backoff_record(const EnvironmentState& environment, std::string_view job_uid) {
  for (const JobBackoffRecord& record : environment.job_backoffs) {
    if (record.job_uid == job_uid) return &record;
  }
  return nullptr;
}

// The status counters plus the Pods still holding the finalizer that have finished or are being
// deleted (trackJobStatusAndRemoveFinalizers; a Pod being deleted that did not succeed counts as
// failed, isPodFailed).
JobView view_from_finalizers(const World& world, const Job& job, std::span<const Pod* const> pods) {
  JobView view;
  view.job = &job;
  view.succeeded = job.status.succeeded;
  view.failed = job.status.failed;
  if (const JobBackoffRecord* record = backoff_record(*world.environment, job.metadata.uid)) {
    view.last_failure_ms = record->last_failure_ms;
  }
  for (const Pod* pod : pods) {
    const bool succeeded = pod->status.phase == "Succeeded"sv;
    const bool failed = !succeeded && (pod->status.phase == "Failed"sv || pod->metadata.deletion_timestamp_ms);
    if (failed) view.last_failure_ms = std::max(view.last_failure_ms, finished_at_ms(*pod));
    if (!succeeded && !failed) {
      ++view.active;
      continue;
    }
    if (!is_tracked(*pod)) continue;   // counted already
    ++(succeeded ? view.succeeded : view.failed);
    view.to_release.push_back(pod->metadata.name);
  }
  return view;
}

// The Job as the release's controller sees it, from `pods`: its Pods (pods_of_job).
JobView view_with_pods(const World& world, const Job& job, JobPodTracking tracking, std::span<const Pod* const> pods) {
  return tracking == JobPodTracking::finalizers ? view_from_finalizers(world, job, pods)
                                                : view_from_listed_pods(job, pods);
}

JobView view_of(const World& world, const Job& job, JobPodTracking tracking) {
  return view_with_pods(world, job, tracking, pods_of_job(world.api, job.metadata.namespace_, job.metadata.uid));
}

// Remembers the Job's last failure once its Pods are counted (JobPodTracking::finalizers).
void record_backoff(StepContext& context, const JobView& view) {
  const std::string& uid = view.job->metadata.uid;
  const JobBackoffRecord* record = backoff_record(*context.world().environment, uid);
  if (view.last_failure_ms == 0 || (record && record->last_failure_ms == view.last_failure_ms)) return;
  std::vector<JobBackoffRecord>& records = context.world().environment.edit().job_backoffs;
  const auto it = std::find_if(records.begin(), records.end(),
                               [&](const JobBackoffRecord& each) { return each.job_uid == uid; });
  if (it == records.end()) {
    records.push_back({uid, view.last_failure_ms});
  } else {
    it->last_failure_ms = view.last_failure_ms;
  }
}

// A tracked Pod the Job controller no longer counts: its Job is gone (by uid), being deleted or
// finished, or it has no Job owner left (orphaned by the garbage collector).
bool is_orphan(const ApiServer& api, const Pod& pod) {
  if (!is_tracked(pod)) return false;
  const OwnerReference* owner = controller_owner(pod.metadata);
  if (!owner || owner->kind != Kind::Job) return true;
  const Job* job = api.find<Job>(pod.metadata.namespace_, owner->name);
  return !job || job->metadata.uid != owner->uid || !is_managed(*job);
}

// Who an orphan's step is named by: its Job, else the Pod itself.
std::string orphan_group(const Pod& pod) {
  const OwnerReference* owner = controller_owner(pod.metadata);
  return owner && owner->kind == Kind::Job ? object_ref(Kind::Job, pod.metadata.namespace_, owner->name)
                                           : object_ref(Kind::Pod, pod.metadata.namespace_, pod.metadata.name);
}

// The work for one Job now, if any.
std::string_view work_for(const JobView& view, std::int64_t now_ms) {
  if (view.succeeded > 0) return kComplete;
  if (view.failed > view.backoff_limit()) return kFail;
  if (view.counters_differ()) return kSyncStatus;
  if (view.may_create_pod() && view.create_at_ms() <= now_ms) return kCreatePod;
  return {};
}

void remove_tracking_finalizer(LoggedApi& api, const std::string& namespace_, const std::string& pod_name) {
  api.patch(Kind::Pod, namespace_, pod_name, [](Object& object) {
    std::erase(meta(object).finalizers.edit(), std::string(kJobTrackingFinalizer));
  });
}

JobCondition condition(std::string type, std::string reason, std::string message, std::int64_t now_ms) {
  return JobCondition{std::move(type), "True", std::move(reason), std::move(message), now_ms};
}

// The Job that controls `pod`, if one does.
const OwnerReference* job_owner(const Pod& pod) {
  const OwnerReference* owner = controller_owner(pod.metadata);
  return owner && owner->kind == Kind::Job ? owner : nullptr;
}

bool older(const Pod* a, const Pod* b) {
  if (a->metadata.creation_timestamp_ms != b->metadata.creation_timestamp_ms) {
    return a->metadata.creation_timestamp_ms < b->metadata.creation_timestamp_ms;
  }
  return uid_less(a->metadata.uid, b->metadata.uid);
}

}  // namespace

std::vector<const Pod*> pods_of_job(const ApiServer& api, std::string_view namespace_,
                                    std::string_view job_uid) {
  std::vector<const Pod*> pods;
  for (const ObjectVersion* version : api.controlled_by(Kind::Pod, namespace_, job_uid)) {
    const auto& pod = std::get<Pod>(**version);
    if (job_owner(pod)) pods.push_back(&pod);   // a Job's uid, not another kind's
  }
  std::sort(pods.begin(), pods.end(), older);
  return pods;
}

bool has_true_condition(const Job& job, std::string_view type) {
  return std::any_of(job.status.conditions.begin(), job.status.conditions.end(),
                     [&](const JobCondition& c) { return c.type == type && c.status == "True"sv; });
}

void JobController::enabled(const World& world, std::vector<ActorWork>& out) const {
  follow(world);
  for (const auto& [object, key_hash, answer] : managed_jobs_.kept()) {
    // work_for(), with the clock's part left to now.
    std::string_view what = answer.work;
    if (what.empty() && answer.may_create_pod && answer.create_at_ms <= world.now_ms) what = kCreatePod;
    if (!what.empty()) out.push_back({what, answer.object, 0});
  }
  if (tracking_ != JobPodTracking::finalizers) return;
  WorkOnce releases(out);
  for (const auto& [object, key_hash, tracked] : tracked_pods_.kept()) {
    if (tracked.orphan) releases.add(kReleaseOrphans, orphan_group(std::get<Pod>(*object)));
  }
}

std::optional<std::int64_t> JobController::next_timer_ms(const World& world) const {
  follow(world);
  std::optional<std::int64_t> next;
  for (const auto& [object, key_hash, answer] : managed_jobs_.kept()) {
    if (!answer.may_create_pod) continue;
    const std::int64_t at = answer.create_at_ms;
    if (at > world.now_ms && (!next || at < *next)) next = at;
  }
  return next;
}

bool JobController::answer_for(const World& world, const Job& job, JobAnswer& answer) const {
  if (!is_managed(job)) return false;
  const std::vector<const Pod*> pods = pods_of_job(world.api, job.metadata.namespace_, job.metadata.uid);
  const JobView view = view_with_pods(world, job, tracking_, pods);
  answer.work = work_for(view, std::numeric_limits<std::int64_t>::min());   // no Pod creation is due before all time
  answer.may_create_pod = view.may_create_pod();
  answer.create_at_ms = view.create_at_ms();
  for (const Pod* pod : pods) answer.pods.push_back(KeyIndex::hash_key(pod->metadata.namespace_, pod->metadata.name));
  if (!answer.work.empty() || answer.may_create_pod) answer.object = SharedString(object_ref(Kind::Job, job.metadata));
  return true;
}

template <class Visit>
void JobController::for_each_written_pod(const ApiServer& api, const WatchEvent& event, Visit visit) {
  if (api.keeps_object(Kind::Pod, event)) {
    visit(std::get<Pod>(*event.object));
    return;
  }
  // The log dropped it (a Pod no informer receives): the Pod as stored now, if it still is, and
  // any other of its key's hash written since (naming one Job too many costs a recount only). A
  // Job the Pod left since is named through the Pods its answer counted; a gone Pod counts nowhere.
  const std::span<const ObjectVersion> pods = api.objects(Kind::Pod);
  api.for_each_with_key_hash(Kind::Pod, event.key_hash, [&](std::size_t place) {
    const Pod& candidate = std::get<Pod>(*pods[place]);
    if (candidate.metadata.resource_version >= event.resource_version) visit(candidate);
  });
}

bool JobController::name_jobs_of_written_pods(const ApiServer& api) const {
  const std::optional<std::span<const WatchEvent>> events = pod_log_mark_.advance(api.watch_log(Kind::Pod));
  jobs_named_.clear();
  if (!events) return false;
  if (events->empty()) return true;
  for (const WatchEvent& event : *events) {
    for (const auto& [job, key_hash, answer] : managed_jobs_.kept()) {
      if (std::find(answer.pods.begin(), answer.pods.end(), event.key_hash) != answer.pods.end()) {
        jobs_named_.push_back(key_hash);
      }
    }
    for_each_written_pod(api, event, [&](const Pod& pod) {
      if (const OwnerReference* owner = job_owner(pod)) {
        jobs_named_.push_back(KeyIndex::hash_key(pod.metadata.namespace_, owner->name));
      }
    });
  }
  return true;
}

void JobController::follow(const World& world) const {
  const ApiServer& api = world.api;
  bool afresh = !name_jobs_of_written_pods(api);
  if (tracking_ == JobPodTracking::finalizers && world.environment->job_backoffs != backoffs_) {
    backoffs_ = world.environment->job_backoffs;
    afresh = true;
  }
  managed_jobs_.follow(
      api, Kind::Job, afresh,
      [&](const ObjectVersion& job, JobAnswer& kept) { return answer_for(world, std::get<Job>(*job), kept); },
      jobs_named_);
  if (tracking_ != JobPodTracking::finalizers) return;
  const bool pods_afresh = !name_pods_of_written_jobs(api);
  tracked_pods_.follow(
      api, Kind::Pod, pods_afresh,
      [&](const ObjectVersion& version, TrackedPod& tracked) {
        const Pod& pod = std::get<Pod>(*version);
        if (!is_tracked(pod)) return false;
        tracked.orphan = is_orphan(api, pod);
        if (const OwnerReference* owner = job_owner(pod)) tracked.job = KeyIndex::hash_key(pod.metadata.namespace_, owner->name);
        return true;
      },
      pods_named_);
}

bool JobController::name_pods_of_written_jobs(const ApiServer& api) const {
  const std::optional<std::span<const WatchEvent>> events = job_log_mark_.advance(api.watch_log(Kind::Job));
  pods_named_.clear();
  if (!events) return false;
  for (const WatchEvent& event : *events) {
    for (const auto& [pod, key_hash, tracked] : tracked_pods_.kept()) {
      if (tracked.job == event.key_hash) pods_named_.push_back(key_hash);
    }
  }
  return true;
}

void JobController::apply(const ActorWork& work, StepContext& context) const {
  if (work.what == kReleaseOrphans) {
    release_orphans(work, context);
    return;
  }
  ObjectRef ref;
  [[maybe_unused]] const bool ok = parse_object_ref(work.object.str(), ref);
  assert(ok && ref.kind == Kind::Job && "rjsim bug: Job controller work names no Job");
  const Job* found = context.world().api.find<Job>(ref.namespace_, ref.name);
  assert(found && "rjsim bug: Job controller work for a Job that is gone");
  const Job job = *found;   // a copy: the writes below move the stored object
  const JobView view = view_of(context.world(), job, tracking_);
  const std::int64_t now = context.now_ms();
  LoggedApi api(context, std::string(name()));
  // Counted Pods lose their finalizer before the status write that counts them
  // (flushUncountedAndRemoveFinalizers), and before a terminal condition (kubernetes#119159).
  for (const std::string& pod_name : view.to_release) remove_tracking_finalizer(api, ref.namespace_, pod_name);
  if (!view.to_release.empty()) record_backoff(context, view);

  auto write_status = [&](const std::function<void(JobStatus&)>& edit) {
    api.patch_status(Kind::Job, ref.namespace_, ref.name, [&](Object& object) {
      JobStatus& status = std::get<Job>(object).status;
      status.active = view.active;
      status.succeeded = view.succeeded;
      status.failed = view.failed;
      edit(status);
    });
  };

  if (work.what == kComplete) {
    // Write 1 adds the interim condition, write 2 the terminal one (§4.2, delayTerminalCondition).
    const std::string message = "Reached expected number of succeeded pods";
    write_status([&](JobStatus& status) {
      status.conditions.push_back(condition("SuccessCriteriaMet", "CompletionsReached", message, now));
    });
    write_status([&](JobStatus& status) {
      status.conditions.push_back(condition("Complete", "CompletionsReached", message, now));
      status.completion_time_ms = now;
    });
    return;
  }
  if (work.what == kFail) {
    const std::string message = "Job has reached the specified backoff limit";
    write_status([&](JobStatus& status) {
      status.conditions.push_back(condition("FailureTarget", "BackoffLimitExceeded", message, now));
    });
    write_status([&](JobStatus& status) {
      status.conditions.push_back(condition("Failed", "BackoffLimitExceeded", message, now));
    });
    return;
  }
  if (work.what == kSyncStatus) {
    write_status([](JobStatus&) {});
    return;
  }
  assert(work.what == kCreatePod && "rjsim bug: unknown Job controller work");
  Pod pod;
  pod.metadata.name = fmt::format(
      "{}-{}", job.metadata.name,
      random_name_suffix(context, 5, fmt::format("Pod name of {}", work.object.str())));
  pod.metadata.namespace_ = ref.namespace_;
  pod.metadata.labels = job.spec->template_.labels;
  pod.metadata.labels.edit()["job-name"] = job.metadata.name;
  pod.metadata.labels.edit()["batch.kubernetes.io/job-name"] = job.metadata.name;
  pod.metadata.annotations = job.spec->template_.annotations;
  pod.metadata.owner_references.edit().push_back(
      OwnerReference{"batch/v1", Kind::Job, job.metadata.name, job.metadata.uid, true, true});
  pod.spec.edit().containers = job.spec->template_.containers;
  pod.spec.edit().restart_policy = job.spec->template_.restart_policy;
  if (tracking_ == JobPodTracking::finalizers) pod.metadata.finalizers.edit().emplace_back(kJobTrackingFinalizer);
  // No status: the server drops it on create; the Pod is Pending until the kubelet starts it.
  Object object = std::move(pod);
  if (api.create(object).error) return;   // a taken name: the next step draws another suffix
  write_status([&](JobStatus& status) {
    status.active = view.active + 1;
    if (!status.start_time_ms) status.start_time_ms = now;
  });
}

void JobController::release_orphans(const ActorWork& work, StepContext& context) const {
  std::vector<std::pair<std::string, std::string>> orphans;   // named first: each patch changes the store
  for (const Object& object : context.world().api.objects(Kind::Pod)) {
    const auto& pod = std::get<Pod>(object);
    if (is_orphan(context.world().api, pod) && orphan_group(pod) == work.object) {
      orphans.emplace_back(pod.metadata.namespace_, pod.metadata.name);
    }
  }
  LoggedApi api(context, std::string(name()));
  for (const auto& [namespace_, pod_name] : orphans) remove_tracking_finalizer(api, namespace_, pod_name);
}

}  // namespace rjsim::engine
