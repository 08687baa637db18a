#include "checks/history.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "engine/key_index.h"
#include "engine/raycluster_controller.h"   // kSubmitterSidecarName

namespace rjsim::checks {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using engine::Kind;
using engine::World;
using events::Event;

namespace {

constexpr std::string_view kValidationFailed = "ValidationFailed";

bool body_bool(const Event& event, std::string_view key) {
  const events::Value* value = event.find(key);
  if (!value) return false;
  const auto* flag = std::get_if<bool>(value);
  return flag && *flag;
}

bool is_rayjob_ref(std::string_view ref) { return ref.starts_with("RayJob/"); }

// spec.suspend of the RayJob as of resourceVersion `rv` (its watch event), or of the stored
// RayJob when `rv` is 0 or not in the log.
bool suspend_as_read(const World& world, const RayJobHistory& rayjob, std::int64_t rv) {
  const std::vector<engine::WatchEvent>& log = world.api.watch_log(Kind::RayJob);
  const auto at = std::lower_bound(log.begin(), log.end(), rv, [](const engine::WatchEvent& event, std::int64_t wanted) {
    return event.resource_version < wanted;
  });
  if (rv != 0 && at != log.end() && at->resource_version == rv) {
    return std::get<engine::RayJob>(*at->object).spec->suspend;
  }
  const auto* stored = world.api.find<engine::RayJob>(rayjob.namespace_, rayjob.name);
  return stored && stored->spec->suspend;
}

// The RayJob uid an object's controller ownerReference points at, or "".
std::string_view rayjob_owner_uid(const engine::ObjectMeta& meta) {
  const engine::OwnerReference* owner = engine::controller_owner(meta);
  return owner && owner->kind == Kind::RayJob ? std::string_view(owner->uid) : std::string_view();
}

// The seq of the step's event that deleted `ref` from the API server, else `fallback`.
std::int64_t deletion_seq(std::span<const Event> step_events, std::string_view ref,
                          std::int64_t fallback) {
  for (const Event& event : step_events) {
    if (event.object == ref && event.type.starts_with("api.") &&
        event.text("watch") == "DELETED"sv) {
      return event.seq;
    }
  }
  return fallback;
}

// The seq of the step's ray.job_status event that moved `submission` to `status`, else `fallback`.
std::int64_t job_status_seq(std::span<const Event> step_events, const RaySubmission& submission,
                            std::string_view status, std::int64_t fallback) {
  for (const Event& event : step_events) {
    if (event.type == "ray.job_status"sv && event.object == submission.cluster &&
        event.text("submission_id") == submission.submission_id &&
        event.text("to") == status) {
      return event.seq;
    }
  }
  return fallback;
}

// True when refreshing `seen` from its stored RayJob would change nothing but what is due: its uid
// and persisted ids are the stored ones, and no ValidationFailed rest is being watched.
bool up_to_date(const RayJobHistory& seen, const engine::RayJob& stored) {
  const engine::RayJobStatus& status = stored.status;
  const Attempt& attempt = seen.attempts.back();
  return !seen.uid.empty() && seen.persisted_job_id == status.job_id &&
         seen.persisted_cluster_name == status.ray_cluster_name &&
         (status.job_id.empty() || attempt.job_id == status.job_id) &&
         (status.ray_cluster_name.empty() || attempt.ray_cluster_name == status.ray_cluster_name) &&
         !(seen.deployment_status == kValidationFailed && seen.validation_failed_on_spec);
}

}  // namespace

bool is_terminal_job_status(std::string_view status) {
  return status == "SUCCEEDED"sv || status == "FAILED"sv || status == "STOPPED"sv;
}

bool RayJobHistory::interfered(std::int64_t from_ms, std::int64_t to_ms) const {
  return std::any_of(interference.begin(), interference.end(), [&](const Interference& i) {
    return from_ms <= i.at.at_ms && i.at.at_ms <= to_ms;
  });
}

void StepFacts::clear() {
  first_seq = -1;
  last_seq = -1;
  at_ms = 0;
  transitions.clear();
  clusters_created.clear();
  submitted.clear();
  started.clear();
  finished.clear();
  panics.clear();
  deleted.clear();
}

bool StepFacts::empty() const {
  return transitions.empty() && clusters_created.empty() && submitted.empty() && started.empty() &&
         finished.empty() && panics.empty() && deleted.empty();
}

const RayJobHistory* History::find(std::string_view ref) const {
  const int index = find_index(ref);
  return index < 0 ? nullptr : &*rayjobs_[static_cast<std::size_t>(index)];
}

namespace {

// A cheap digest of a ref, to pass over the histories of other RayJobs without reading them: its
// length and its last eight bytes, where the refs of one scenario's RayJobs differ (rayjob-01,
// rayjob-02). Refs that share it are compared whole.
std::uint64_t ref_digest(std::string_view ref) {
  std::uint64_t tail = 0;
  const std::size_t bytes = std::min(ref.size(), sizeof tail);
  std::memcpy(&tail, ref.data() + ref.size() - bytes, bytes);
  return tail ^ (static_cast<std::uint64_t>(ref.size()) << 56);
}

}  // namespace

int History::find_index(std::string_view ref) const {
  const std::uint64_t digest = ref_digest(ref);
  int last = -1;
  for (std::size_t i = 0; i < rayjobs_.size(); ++i) {
    if (tracked_keys_[i].ref_digest != digest || rayjobs_[i]->ref != ref) continue;
    if (!rayjobs_[i]->gone) return static_cast<int>(i);
    last = static_cast<int>(i);
  }
  return last;
}

const RaySubmission* History::ray_job_of(const Attempt& attempt) const {
  for (auto it = attempt.submissions.rbegin(); it != attempt.submissions.rend(); ++it) {
    const RaySubmission& submission = (*submissions_)[static_cast<std::size_t>(*it)];
    if (attempt.job_id.empty() || submission.submission_id == attempt.job_id) return &submission;
  }
  return nullptr;
}

int History::track(const World& world, std::string_view ref, Moment at) {
  RayJobHistory rayjob;
  rayjob.ref = std::string(ref);
  engine::ObjectRef parsed;
  if (engine::parse_object_ref(ref, parsed)) {
    rayjob.namespace_ = parsed.namespace_;
    rayjob.name = parsed.name;
  }
  rayjob.key_hash = engine::KeyIndex::hash_key(rayjob.namespace_, rayjob.name);
  if (const auto* stored = world.api.find<engine::RayJob>(rayjob.namespace_, rayjob.name)) {
    rayjob.uid = stored->metadata.uid;
    rayjob.deployment_status = stored->status.job_deployment_status;
    rayjob.job_status = stored->status.job_status;
    rayjob.reason = stored->status.reason;
  }
  rayjob.deployment_since = at;
  Attempt first;
  first.begun = at;
  rayjob.attempts.push_back(std::move(first));
  tracked_keys_.push_back({ref_digest(ref), rayjob.key_hash});
  rayjobs_.push_back(std::move(rayjob));
  return static_cast<int>(rayjobs_.size()) - 1;
}

events::EventTypes History::reads() {
  // Built once: every run asks (exhaustive exploration makes thousands of short runs).
  static const events::EventTypes types =
      events::EventTypes::only({"status.transition", "reconcile.panic", "dashboard.submit_job", "api.", "action.patch",
                                "action.delete", "ray.job_status"})
          .about({"RayJob", "RayCluster"});   // writes of Pods, Services and Jobs: none
  return types;
}

void History::apply_step(const World& world, const engine::StepLog& step, StepFacts& facts) {
  const std::span<const Event> step_events = step.events;
  facts.clear();
  reconciling_->assign(step.reconciled);   // a stopped pass goes on in a later step (DESIGN §1.1)
  rayjob_write_rv_sent_ = 0;
  spec_snapshot_due_->clear();
  validation_entered_->clear();
  if (step.end_seq > step.first_seq) {
    facts.first_seq = step.first_seq;
    last_seq_ = step.end_seq - 1;
  }
  facts.last_seq = last_seq_;
  facts.at_ms = world.now_ms;

  for (const Event& event : step_events) {
    const std::string_view type = event.type;   // compares with a literal length first
    if (type == "status.transition"sv) {
      on_transition(world, event, facts);
    } else if (type == "reconcile.panic"sv) {
      facts.panics.push_back({{event.seq, event.at_ms}, event.object, event.text("message")});
    } else if (type == "dashboard.submit_job"sv) {
      if (event.text("outcome") == "ok"sv) on_submit(world, event, facts);
    } else if (type == "api.create"sv) {
      if (event.text("outcome") != "ok"sv) continue;
      if (is_rayjob_ref(event.object)) {
        const int known = find_index(event.object);
        if (known >= 0 && !rayjobs_[static_cast<std::size_t>(known)]->gone) {
          // A RayJob with this name was tracked: the new object replaces it.
          rayjobs_[static_cast<std::size_t>(known)].edit().gone = Moment{event.seq, event.at_ms};
        }
        track(world, event.object, {event.seq, event.at_ms});
        RayJobHistory& created = rayjobs_.back().edit();
        created.last_write_seq = event.seq;
        // A create stores no status: whatever the world shows came from later writes of this step.
        created.deployment_status.clear();
        created.job_status.clear();
        created.reason.clear();
      } else if (event.object.starts_with("RayCluster/") && event.actor == "controller"sv) {
        on_cluster_create(world, event, facts);
      }
    } else if (type.starts_with("api.")) {
      if (!is_rayjob_ref(event.object)) continue;
      const events::Value* sent = event.find("rv_sent");
      rayjob_write_rv_sent_ = sent ? event.integer("rv_sent") : 0;
      if (event.text("outcome") == "ok"sv && body_bool(event, "changed")) {
        const int index = find_index(event.object);
        if (index >= 0) rayjobs_[static_cast<std::size_t>(index)].edit().last_write_seq = event.seq;
      }
    } else if (type == "action.patch"sv || type == "action.delete"sv) {
      const int index = find_index(event.object);
      if (index >= 0) {
        rayjobs_[static_cast<std::size_t>(index)].edit().interference.push_back({{event.seq, event.at_ms}, std::string(type)});
      }
    }
  }

  // Submissions are found and followed in the Ray state, and every change to them (a submit, a
  // status, a head restart) is a change to it: a step that left it shared has none.
  if (followed_ray_.serial != world.ray.serial()) {
    discover_submissions(world, &facts);
    follow_submissions(world, step_events, &facts);
    followed_ray_.serial = world.ray.serial();
  }
  if (world.api.watch_log(Kind::Job).size() != job_log_size_ || world.api.watch_log(Kind::Pod).size() != pod_log_size_) {
    follow_submitters(world, {last_seq_, world.now_ms});
  }
  if (!rayjobs_scanned_ || world.api.watch_log(Kind::RayJob).size() != rayjob_log_size_ ||
      !spec_snapshot_due_->empty() || !validation_entered_->empty()) {
    refresh_rayjobs(world, step_events, &facts);
  }
}

void History::catch_up(const World& world) {
  StepFacts facts;
  facts.last_seq = last_seq_;
  facts.at_ms = world.now_ms;
  discover_submissions(world, &facts);
  follow_submissions(world, {}, &facts);
  refresh_rayjobs(world, {}, &facts);
}

void History::on_transition(const World& world, const Event& event, StepFacts& facts) {
  const Moment at{event.seq, event.at_ms};
  int index = find_index(event.object);
  if (index < 0 || rayjobs_[static_cast<std::size_t>(index)]->gone) index = track(world, event.object, at);
  RayJobHistory& rayjob = rayjobs_[static_cast<std::size_t>(index)].edit();

  PersistedTransition transition;
  transition.at = at;
  transition.rayjob = index;
  transition.from_deployment = event.text("from_deployment");
  transition.to_deployment = event.text("to_deployment");
  transition.from_job_status = event.text("from_job_status");
  transition.to_job_status = event.text("to_job_status");
  transition.reason = event.text("reason");
  const std::string& from = transition.from_deployment;
  const std::string& to = transition.to_deployment;

  // A persisted New after another status begins a new attempt (DESIGN §5); so does leaving
  // Suspended or Retrying for another status (kuberay-1.0 resumes Suspended -> Initializing:
  // it has no New).
  transition.begins_attempt = from != to && (to.empty() || from == "Suspended"sv || from == "Retrying"sv);
  if (transition.begins_attempt) {
    Attempt next;
    next.begun = at;
    next.begun_after = from;
    rayjob.attempts.push_back(std::move(next));
  }
  Attempt& attempt = rayjob.attempts.back();
  transition.attempt = rayjob.attempt_index();
  if (is_terminal_job_status(transition.to_job_status) && !attempt.terminal_job_status) {
    attempt.terminal_job_status = at;
    attempt.terminal_job_status_value = transition.to_job_status;
  }
  if (to != from && (to == "Complete"sv || to == "Failed"sv) && !attempt.finished) attempt.finished = at;
  if (to != from && to == "Retrying"sv && !attempt.retrying) attempt.retrying = at;
  if (to != from && to == "Suspended"sv) {
    if (!attempt.suspended) attempt.suspended = at;
    transition.suspend_read = suspend_as_read(world, rayjob, rayjob_write_rv_sent_);
  }
  if (to != from) rayjob.deployment_since = at;
  rayjob.deployment_status = to;
  rayjob.job_status = transition.to_job_status;
  rayjob.reason = transition.reason;
  if (to != kValidationFailed) {
    rayjob.valid_again.reset();
    rayjob.validation_failed_on_spec = false;
    spec_snapshot_due_->push_back(index);
  } else if (from != kValidationFailed) {
    validation_entered_->push_back(index);
  }
  facts.transitions.push_back(std::move(transition));
}

int History::rayjob_for_uid(const World& world, std::string_view uid) {
  if (uid.empty()) return -1;
  for (std::size_t i = rayjobs_.size(); i-- > 0;) {
    if (rayjobs_[i]->uid == uid) return static_cast<int>(i);
  }
  for (const engine::Object& object : world.api.objects(Kind::RayJob)) {
    const auto& rayjob = std::get<engine::RayJob>(object);
    if (rayjob.metadata.uid == uid) {
      return track(world, engine::object_ref(object), {last_seq_, world.now_ms});
    }
  }
  return -1;
}

void History::on_cluster_create(const World& world, const Event& event, StepFacts& facts) {
  engine::ObjectRef ref;
  if (!engine::parse_object_ref(event.object, ref)) return;
  int index = -1;
  std::string uid;
  if (const auto* cluster = world.api.find<engine::RayCluster>(ref.namespace_, ref.name)) {
    uid = cluster->metadata.uid;
    index = rayjob_for_uid(world, rayjob_owner_uid(cluster->metadata));
    if (index < 0) return;   // not owned by a RayJob: not created for one
  } else if (is_rayjob_ref(*reconciling_)) {
    index = find_index(*reconciling_);   // gone within its own step: credit the reconciled RayJob
  }
  if (index < 0) return;
  RayJobHistory& rayjob = rayjobs_[static_cast<std::size_t>(index)].edit();
  rayjob.attempts.back().clusters.push_back({ref.name, uid, event.seq});

  ClusterCreated created;
  created.at = {event.seq, event.at_ms};
  created.rayjob = index;
  created.attempt = rayjob.attempt_index();
  created.name = ref.name;
  created.uid = uid;
  created.name_persisted_before_step = rayjob.persisted_cluster_name;
  created.rayjob_written_earlier_in_step = facts.first_seq >= 0 && rayjob.last_write_seq >= facts.first_seq;
  facts.clusters_created.push_back(std::move(created));
}

void History::on_submit(const World& world, const Event& event, StepFacts& facts) {
  engine::ObjectRef cluster;
  if (!engine::parse_object_ref(event.object, cluster)) return;
  const std::string_view submission_id = event.text("submission_id");
  const std::int64_t incarnation = event.integer("incarnation");
  const std::vector<engine::CopyOnWrite<engine::RayHead>>& heads = world.ray->heads;
  for (std::size_t h = heads.size(); h-- > 0;) {
    const engine::RayHead& head = *heads[h];
    if (head.cluster_namespace != cluster.namespace_ || head.cluster_name != cluster.name ||
        head.incarnation != incarnation) {
      continue;
    }
    std::vector<std::vector<int>>& submission_of = submission_of_.edit();   // a submission: rare
    if (submission_of.size() <= h) submission_of.resize(h + 1);
    std::vector<int>& known = submission_of[h];
    if (known.size() < head.jobs.size()) known.resize(head.jobs.size(), -1);
    for (std::size_t j = head.jobs.size(); j-- > 0;) {
      if (head.jobs[j].submission_id == submission_id && known[j] < 0) {
        add_submission(world, static_cast<int>(h), static_cast<int>(j), {event.seq, event.at_ms}, &facts);
        return;
      }
    }
    return;
  }
}

int History::add_submission(const World& world, int head_index, int job_index, Moment at,
                            StepFacts* facts) {
  const engine::RayHead& head = *world.ray->heads[static_cast<std::size_t>(head_index)];
  const engine::RayJobRecord& record = head.jobs[static_cast<std::size_t>(job_index)];
  RaySubmission submission;
  submission.head = head_index;
  submission.job = job_index;
  submission.submission_id = record.submission_id;
  submission.cluster = "RayCluster/" + head.cluster_namespace + "/" + head.cluster_name;
  submission.incarnation = head.incarnation;
  submission.submitted_by = record.submitted_by;
  submission.submitted = at;
  submission.rayjob = attribute(world, head, record);
  const int index = static_cast<int>(submissions_->size());
  if (submission.rayjob >= 0) {
    RayJobHistory& rayjob = rayjobs_[static_cast<std::size_t>(submission.rayjob)].edit();
    submission.attempt = rayjob.attempt_index();
    rayjob.attempts.back().submissions.push_back(index);
  }
  submissions_.edit().push_back(std::move(submission));
  submission_of_.edit()[static_cast<std::size_t>(head_index)][static_cast<std::size_t>(job_index)] = index;
  open_submissions_.push_back(index);
  if (facts) facts->submitted.push_back(index);
  return index;
}

int History::attribute(const World& world, const engine::RayHead& head,
                       const engine::RayJobRecord& record) {
  const std::string& namespace_ = head.cluster_namespace;
  // A submitter pod: its Job, and the Job's controller, the RayJob.
  if (record.submitted_by.starts_with("submitter/")) {
    const std::string pod_name = record.submitted_by.substr(std::string_view("submitter/").size());
    if (const auto* pod = world.api.find<engine::Pod>(namespace_, pod_name)) {
      const engine::OwnerReference* owner = engine::controller_owner(pod->metadata);
      if (owner && owner->kind == Kind::Job) {
        const auto* job = world.api.find<engine::Job>(namespace_, owner->name);
        if (job && job->metadata.uid == owner->uid) {
          const int index = rayjob_for_uid(world, rayjob_owner_uid(job->metadata));
          if (index >= 0) return index;
        }
      }
    }
  }
  // The controller (HTTPMode): the RayJob it was reconciling.
  if (record.submitted_by == "controller"sv && is_rayjob_ref(*reconciling_)) {
    const int index = find_index(*reconciling_);
    if (index >= 0) return index;
  }
  // The RayJob whose persisted status.jobId is the submission id.
  for (const engine::Object& object : world.api.objects(Kind::RayJob)) {
    const auto& rayjob = std::get<engine::RayJob>(object);
    if (rayjob.metadata.namespace_ == namespace_ && !record.submission_id.empty() &&
        rayjob.status.job_id == record.submission_id) {
      const int index = rayjob_for_uid(world, rayjob.metadata.uid);
      if (index >= 0) return index;
    }
  }
  // The RayJob that owns the head's cluster.
  if (const auto* cluster = world.api.find<engine::RayCluster>(namespace_, head.cluster_name);
      cluster && cluster->metadata.uid == head.cluster_uid) {
    return rayjob_for_uid(world, rayjob_owner_uid(cluster->metadata));
  }
  return -1;
}

void History::discover_submissions(const World& world, StepFacts* facts) {
  const std::vector<engine::CopyOnWrite<engine::RayHead>>& heads = world.ray->heads;
  if (submission_of_->size() < heads.size()) submission_of_.edit().resize(heads.size());
  if (scanned_jobs_.size() < heads.size()) scanned_jobs_.resize(heads.size(), 0);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const std::size_t jobs = heads[h]->jobs.size();
    if (scanned_jobs_[h] >= jobs) continue;
    if ((*submission_of_)[h].size() < jobs) submission_of_.edit()[h].resize(jobs, -1);
    for (std::size_t j = scanned_jobs_[h]; j < jobs; ++j) {
      // Read again each time: add_submission may have given this history a copy of its own.
      if ((*submission_of_)[h][j] < 0) {
        add_submission(world, static_cast<int>(h), static_cast<int>(j), {facts->last_seq, world.now_ms}, facts);
      }
    }
    scanned_jobs_[h] = jobs;
  }
}

void History::follow_submissions(const World& world, std::span<const Event> step_events,
                                 StepFacts* facts) {
  const std::vector<engine::CopyOnWrite<engine::RayHead>>& heads = world.ray->heads;
  for (auto it = open_submissions_.begin(); it != open_submissions_.end();) {
    const auto index = static_cast<std::size_t>(*it);
    const RaySubmission& submission = (*submissions_)[index];
    const auto head = static_cast<std::size_t>(submission.head);
    const auto job = static_cast<std::size_t>(submission.job);
    if (head >= heads.size() || job >= heads[head]->jobs.size()) {
      ++it;   // not in this world (a world that is not the one the history followed)
      continue;
    }
    const engine::RayJobRecord& record = heads[head]->jobs[job];
    // Started: RUNNING now, or a start time (0 is a valid virtual time, so also the event). The
    // step's events are searched only for a submission not yet started (with 20 RayJobs, most are).
    if (!submission.started) {
      const std::int64_t running_seq = job_status_seq(step_events, submission, "RUNNING", -1);
      if (record.status == "RUNNING"sv || record.start_time_ms > 0 || running_seq >= 0) {
        // Edited only when it moves on: most steps leave the submissions shared.
        submissions_.edit()[index].started = Moment{running_seq >= 0 ? running_seq : facts->last_seq, record.start_time_ms};
        facts->started.push_back(*it);
      }
    }
    if (is_terminal_job_status(record.status)) {
      const std::int64_t final_seq = job_status_seq(step_events, (*submissions_)[index], record.status, facts->last_seq);
      RaySubmission& finished = submissions_.edit()[index];
      finished.final = Moment{final_seq, record.end_time_ms > 0 ? record.end_time_ms : world.now_ms};
      finished.final_status = record.status;
      facts->finished.push_back(*it);
      it = open_submissions_.erase(it);
    } else {
      ++it;
    }
  }
}

namespace {

// How the K8sJobMode submitter Job of `rayjob` finished ("" while it has not): a Complete or
// Failed condition that is True (the conditions KubeRay reads).
std::string submitter_job_finished(const World& world, const RayJobHistory& rayjob) {
  const auto* job = world.api.find<engine::Job>(rayjob.namespace_, rayjob.name);
  if (!job || rayjob_owner_uid(job->metadata) != rayjob.uid) return "";
  for (const engine::JobCondition& condition : job->status.conditions) {
    if ((condition.type == "Complete"sv || condition.type == "Failed"sv) && condition.status == "True"sv) {
      return fmt::format("its submitter Job/{}/{} has {}=True", rayjob.namespace_, rayjob.name, condition.type);
    }
  }
  return "";
}

// How the SidecarMode submitter of the cluster `cluster_name` finished for good ("" while it has
// not): the head Pod's submitter container terminated, with exit 0 or a restart policy that does
// not restart it (only OnFailure restarts a failed sidecar).
std::string sidecar_finished(const World& world, const std::string& namespace_, const std::string& cluster_name) {
  for (const engine::Object& object : world.api.objects(Kind::Pod)) {
    const auto& pod = std::get<engine::Pod>(object);
    const engine::StringMap& labels = *pod.metadata.labels;
    const auto cluster = labels.find(engine::kRayClusterLabel);
    if (pod.metadata.namespace_ != namespace_ || cluster == labels.end() || cluster->second != cluster_name ||
        !engine::node_type_is(pod, "head")) {
      continue;
    }
    for (const engine::ContainerStatus& status : pod.status.container_statuses) {
      if (status.name != engine::kSubmitterSidecarName || status.state != "terminated"sv) continue;
      const auto container = std::find_if(pod.spec->containers.begin(), pod.spec->containers.end(),
                                          [&](const engine::Container& c) { return c.name == status.name; });
      const bool restarts = container != pod.spec->containers.end() && container->restart_policy == "OnFailure"sv;
      if (status.exit_code.value_or(0) == 0 || !restarts) {
        return fmt::format("its submitter container in Pod/{}/{} exited {} for good", namespace_, pod.metadata.name,
                           status.exit_code.value_or(0));
      }
    }
  }
  return "";
}

}  // namespace

bool uses_submitter_job(const engine::RayJobSpec& spec) {
  return spec.submission_mode.empty() || spec.submission_mode == "K8sJobMode"sv;
}

void History::follow_submitters(const World& world, Moment now) {
  job_log_size_ = world.api.watch_log(Kind::Job).size();
  pod_log_size_ = world.api.watch_log(Kind::Pod).size();
  name_submitter_writes(world);
  const engine::WriteStamps& stamps = world.api.write_stamps();
  engine::CopyOnWrite<std::vector<SubmitterRead>>& reads = submitter_reads_.reads;
  for (std::size_t i = 0; i < rayjobs_.size(); ++i) {
    if (i < reads->size() && unnamed_read_holds((*reads)[i], tracked_keys_[i].key_hash)) {
      assert((rayjobs_[i]->gone || rayjobs_[i]->attempt().submitter_finished ||
              still_unfinished((*reads)[i], *rayjobs_[i], stamps, submitter_reads_)) &&
             "rjsim bug: a submitter read held by the names that still_unfinished would read again");
      continue;
    }
    const RayJobHistory& seen = *rayjobs_[i];
    if (seen.gone || seen.attempt().submitter_finished) continue;
    if (i < reads->size() && still_unfinished((*reads)[i], seen, stamps, submitter_reads_)) continue;
    if (reads->size() < rayjobs_.size()) reads.edit().resize(rayjobs_.size());
    SubmitterRead& read = reads.edit()[i];
    read = SubmitterRead{true, stamps.kind(Kind::RayJob), {}, SubmitterReads::nothing, !seen.uid.empty(),
                         seen.attempts.size(), {}};
    const auto* stored = world.api.find<engine::RayJob>(seen.namespace_, seen.name);
    if (!stored || stored->metadata.uid != seen.uid) continue;
    std::string how;
    if (uses_submitter_job(*stored->spec)) {
      read.reads = SubmitterReads::jobs;
      read.others_written = stamps.kind(Kind::Job);
      how = submitter_job_finished(world, seen);
    } else if (stored->spec->submission_mode == "SidecarMode"sv) {
      // The cluster's name too: the history learns it after this look (refresh_rayjobs).
      read.reads = SubmitterReads::pods;
      read.others_written = stamps.kind(Kind::Pod);
      read.cluster_name = seen.attempt().ray_cluster_name;
      if (!read.cluster_name.empty()) how = sidecar_finished(world, seen.namespace_, read.cluster_name);
    }
    if (how.empty()) continue;
    Attempt& attempt = rayjobs_[i].edit().attempts.back();
    attempt.submitter_finished = now;
    attempt.submitter_finished_how = std::move(how);
  }
}

void History::name_submitter_writes(const World& world) {
  SubmitterReadCache& cache = submitter_reads_;
  const auto rayjob_events = cache.rayjob_mark.advance(world.api.watch_log(Kind::RayJob));
  const auto job_events = cache.job_mark.advance(world.api.watch_log(Kind::Job));
  cache.named->clear();
  cache.named_known = rayjob_events && job_events;
  if (!cache.named_known) return;
  for (const engine::WatchEvent& event : *rayjob_events) cache.named->push_back(event.key_hash);
  for (const engine::WatchEvent& event : *job_events) cache.named->push_back(event.key_hash);
}

bool History::unnamed_read_holds(const SubmitterRead& read, std::uint64_t key_hash) const {
  const SubmitterReadCache& cache = submitter_reads_;
  return cache.named_known && read.taken && read.reads != SubmitterReads::pods &&
         std::find(cache.named->begin(), cache.named->end(), key_hash) == cache.named->end();
}

bool History::still_unfinished(const SubmitterRead& read, const RayJobHistory& seen,
                               const engine::WriteStamps& stamps, const SubmitterReadCache& cache) {
  if (!read.taken || read.uid_known != !seen.uid.empty() || read.attempts != seen.attempts.size()) return false;
  if (cache.named_known) {
    // The RayJob and its submitter Job share a key: a write to either names it.
    if (std::find(cache.named->begin(), cache.named->end(), seen.key_hash) != cache.named->end()) return false;
  } else if (!read.rayjobs_written.same_version(stamps.kind(Kind::RayJob))) {
    return false;
  }
  switch (read.reads) {
    case SubmitterReads::nothing: return true;
    case SubmitterReads::jobs: return cache.named_known || read.others_written.same_version(stamps.kind(Kind::Job));
    case SubmitterReads::pods:
      return read.others_written.same_version(stamps.kind(Kind::Pod)) &&
             read.cluster_name == seen.attempt().ray_cluster_name;
  }
  return false;
}

void History::refresh_rayjobs(const World& world, std::span<const Event> step_events, StepFacts* facts) {
  rayjobs_scanned_ = true;
  const std::vector<engine::WatchEvent>& log = world.api.watch_log(Kind::RayJob);
  rayjob_log_size_ = log.size();
  // Since the last refresh, every RayJob not named by the log is as it was then, when every
  // stored one was followed and every followed history up to date with its RayJob: only the
  // named ones, the histories tracked since and those due can change.
  const std::optional<std::span<const engine::WatchEvent>> events = rayjob_log_read_.mark.events_since(log);
  std::vector<std::uint64_t>& named = *rayjob_log_read_.named;
  named.clear();
  if (events) {
    for (const engine::WatchEvent& event : *events) named.push_back(event.key_hash);
  }
  const auto is_named = [&](std::uint64_t key_hash) { return std::find(named.begin(), named.end(), key_hash) != named.end(); };
  const std::size_t tracked_before = events ? rayjob_log_read_.histories : 0;
  const Moment now{facts->last_seq, world.now_ms};
  const std::span<const engine::ObjectVersion> stored_rayjobs = world.api.objects(Kind::RayJob);
  // Which stored RayJobs a tracked history follows (by place): every other one is new to it.
  // Following the log, only a named one can be new.
  std::vector<bool> followed(stored_rayjobs.size(), events.has_value());
  for (const std::uint64_t key_hash : named) {
    world.api.for_each_with_key_hash(Kind::RayJob, key_hash, [&](std::size_t place) { followed[place] = false; });
  }
  const auto due = [](const std::vector<int>& list, std::size_t index) {
    return std::find(list.begin(), list.end(), static_cast<int>(index)) != list.end();
  };
  for (std::size_t i = 0; i < rayjobs_.size(); ++i) {
    // Told by the keys beside the histories, so that a history not looked at is not read.
    if (i < tracked_before && !is_named(tracked_keys_[i].key_hash) && !due(*spec_snapshot_due_, i) &&
        !due(*validation_entered_, i)) {
      continue;
    }
    const RayJobHistory& seen = *rayjobs_[i];
    if (seen.gone) continue;
    const engine::ObjectVersion* version = world.api.find_version(Kind::RayJob, seen.namespace_, seen.name);
    const auto* stored = version ? &std::get<engine::RayJob>(**version) : nullptr;
    if (!stored || (!seen.uid.empty() && stored->metadata.uid != seen.uid)) {
      rayjobs_[i].edit().gone = Moment{deletion_seq(step_events, seen.ref, facts->last_seq), world.now_ms};
      facts->deleted.push_back(static_cast<int>(i));
      continue;
    }
    followed[static_cast<std::size_t>(version - stored_rayjobs.data())] = true;
    const bool snapshot_due =
        due(*spec_snapshot_due_, i) && (!seen.accepted_spec() || *seen.accepted_spec() != stored->spec);
    const bool validation_due = due(*validation_entered_, i);
    // Most refreshes change nothing: the history shared with a snapshot is then left shared.
    if (!snapshot_due && !validation_due && up_to_date(seen, *stored)) continue;

    RayJobHistory& rayjob = rayjobs_[i].edit();
    if (rayjob.uid.empty()) rayjob.uid = stored->metadata.uid;
    const engine::RayJobStatus& status = stored->status;
    rayjob.persisted_job_id = status.job_id;
    rayjob.persisted_cluster_name = status.ray_cluster_name;
    Attempt& attempt = rayjob.attempts.back();
    if (!status.job_id.empty()) attempt.job_id = status.job_id;
    if (!status.ray_cluster_name.empty()) attempt.ray_cluster_name = status.ray_cluster_name;

    if (snapshot_due) rayjob.accepted_version = *version;
    if (validation_due) {
      rayjob.validation_failed_on_spec = rayjob.accepted_spec() && stored->spec != *rayjob.accepted_spec();
    }
    if (rayjob.deployment_status == kValidationFailed && rayjob.validation_failed_on_spec) {
      if (stored->spec == *rayjob.accepted_spec()) {
        if (!rayjob.valid_again) rayjob.valid_again = now;
      } else {
        rayjob.valid_again.reset();
      }
    }
  }
  // RayJobs that reached the API server without an event this history saw. A history that is not
  // gone follows the RayJob of its name and uid (above), so no other has that uid.
  for (std::size_t place = 0; place < stored_rayjobs.size(); ++place) {
    if (followed[place]) continue;
    const engine::Object& object = *stored_rayjobs[place];
    const int index = track(world, engine::object_ref(object), now);
    RayJobHistory& rayjob = rayjobs_[static_cast<std::size_t>(index)].edit();
    const engine::RayJobStatus& status = std::get<engine::RayJob>(object).status;
    rayjob.persisted_job_id = status.job_id;
    rayjob.persisted_cluster_name = status.ray_cluster_name;
    rayjob.attempts.back().job_id = status.job_id;
    rayjob.attempts.back().ray_cluster_name = status.ray_cluster_name;
  }
  rayjob_log_read_.mark.take(log);
  rayjob_log_read_.histories = rayjobs_.size();
}

std::string describe_ray_job(const RaySubmission& submission) {
  return fmt::format("Ray job {} on {} (head incarnation {})", submission.submission_id, submission.cluster,
                     submission.incarnation);
}

}  // namespace rjsim::checks
