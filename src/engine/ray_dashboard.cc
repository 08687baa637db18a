#include "engine/ray_dashboard.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "engine/key_index.h"
#include "engine/name_suffix.h"

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

constexpr std::string_view kHeadUp = "head-up";
constexpr std::string_view kHeadLost = "head-lost";
constexpr std::string_view kJobStatus = "job-status";

// ActorWork::index of a job-status step: the head and the job in one int.
constexpr int kJobsPerHead = 1 << 12;
int job_work_index(std::size_t head, std::size_t job) {
  assert(job < static_cast<std::size_t>(kJobsPerHead) && head < (1u << 18) &&
         "rjsim bug: a Ray job table outgrew the job-status work index");
  return static_cast<int>(head) * kJobsPerHead + static_cast<int>(job);
}

bool is_terminal(std::string_view status) {
  return status == "SUCCEEDED"sv || status == "FAILED"sv || status == "STOPPED"sv;
}

// The `message` Ray's job manager reports with each status (job_manager.py, summarized).
std::string_view message_for(std::string_view status) {
  if (status == "PENDING") return "Job has not started yet. It may be waiting for the runtime environment to be set up.";
  if (status == "RUNNING") return "Job is currently running.";
  if (status == "SUCCEEDED") return "Job finished successfully.";
  if (status == "FAILED") return "Job entrypoint command failed with exit code 1";
  if (status == "STOPPED") return "Job was intentionally stopped.";
  return "";
}

std::string cluster_ref(const RayHead& head) {
  return object_ref(Kind::RayCluster, head.cluster_namespace, head.cluster_name);
}

int live_head(const RayState& ray, std::string_view cluster_uid) {
  for (std::size_t i = 0; i < ray.heads.size(); ++i) {
    if (ray.heads[i]->cluster_uid == cluster_uid && !ray.heads[i]->table_lost) return static_cast<int>(i);
  }
  return -1;
}

// Whether a Pod of the head's cluster incarnation (by owner uid) with ray.io/node-type=head runs.
bool head_pod_runs(const World& world, const RayHead& head) {
  // The cluster's Pods from the owner index: a walk of every Pod grew with the RayJobs.
  for (const ObjectVersion* version : world.api.controlled_by(Kind::Pod, head.cluster_namespace, head.cluster_uid)) {
    const auto& pod = std::get<Pod>(**version);
    if (pod.status.phase == "Running"sv && node_type_is(pod, "head")) return true;
  }
  return false;
}

bool is_deleted(const EnvironmentState& environment, int head, int job) {
  return std::any_of(environment.deleted_ray_jobs.begin(), environment.deleted_ray_jobs.end(),
                     [&](const DeletedRayJob& d) { return d.head == head && d.job == job; });
}

// The record of `submission_id` in the head's table (the latest, deleted ones skipped), or -1.
int find_job(const World& world, int head, std::string_view submission_id) {
  const std::vector<RayJobRecord>& jobs = world.ray->heads[static_cast<std::size_t>(head)]->jobs;
  for (int i = static_cast<int>(jobs.size()) - 1; i >= 0; --i) {
    if (jobs[static_cast<std::size_t>(i)].submission_id == submission_id &&
        !is_deleted(*world.environment, head, i)) {
      return i;
    }
  }
  return -1;
}

// Where a Status.DashboardURL leads: "<service>.<namespace>.svc.cluster.local:<port>" (an
// http:// prefix, a shorter ".svc" or bare "<service>.<namespace>" host are accepted too).
struct Resolved {
  const RayCluster* cluster = nullptr;   // the head Service's controller owner, when it exists
  int head = -1;                         // its live head, when there is one
};

// Whether `text` is the port written in decimal (as the URL names it), without a string.
bool port_text_is(int port, std::string_view text) {
  std::array<char, 16> digits;
  const auto [end, error] = std::to_chars(digits.data(), digits.data() + digits.size(), port);
  return error == std::errc() && std::string_view(digits.data(), static_cast<std::size_t>(end - digits.data())) == text;
}

Resolved resolve(const World& world, std::string_view url) {
  Resolved resolved;
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.starts_with(scheme)) url.remove_prefix(scheme.size());
  }
  while (url.ends_with('/')) url.remove_suffix(1);
  std::string_view host = url, port;
  if (const auto colon = url.rfind(':'); colon != std::string_view::npos) {
    host = url.substr(0, colon);
    port = url.substr(colon + 1);
  }
  const auto dot = host.find('.');
  if (dot == std::string_view::npos) return resolved;
  const std::string_view service_name = host.substr(0, dot);
  std::string_view namespace_ = host.substr(dot + 1);
  namespace_ = namespace_.substr(0, namespace_.find('.'));
  const Service* service = world.api.find<Service>(namespace_, service_name);
  if (!service) return resolved;
  if (!port.empty()) {
    const bool serves_port = std::any_of(service->spec->ports.begin(), service->spec->ports.end(),
                                         [&](const ServicePort& p) { return port_text_is(p.port, port); });
    if (!serves_port) return resolved;
  }
  const OwnerReference* owner = controller_owner(service->metadata);
  if (!owner || owner->kind != Kind::RayCluster) return resolved;
  const RayCluster* cluster = world.api.find<RayCluster>(namespace_, owner->name);
  if (!cluster || cluster->metadata.uid != owner->uid) return resolved;
  resolved.cluster = cluster;
  resolved.head = live_head(world.ray, cluster->metadata.uid);
  return resolved;
}

bool in_outage(const DashboardBehaviour& behaviour, std::int64_t now_ms) {
  return std::any_of(behaviour.outages.begin(), behaviour.outages.end(), [&](const Outage& outage) {
    return outage.from_ms <= now_ms && now_ms < outage.from_ms + outage.for_ms;
  });
}

std::string_view to_string(DashboardCaller caller) {
  return caller == DashboardCaller::controller ? "controller" : "submitter";
}

DashboardResponse not_connected(std::string_view url, std::string_view why) {
  DashboardResponse response;
  response.connected = false;
  response.status = 0;
  response.json = false;
  response.text = fmt::format("dial tcp {}: connect: connection refused{}", url, why);
  return response;
}

DashboardResponse text_reply(int status, std::string text) {
  DashboardResponse response;
  response.status = status;
  response.json = false;
  response.text = std::move(text);
  return response;
}

// One endpoint call: resolves the URL, applies the outage rule, and logs a dashboard.<verb>
// event once the outcome is known.
class Call {
 public:
  // `event_type` is the call's event: "dashboard." and the verb. `url` must outlive the call.
  Call(StepContext& context, const DashboardBehaviour& behaviour, DashboardCaller caller,
       std::string_view event_type, std::string_view url)
      : context_(context), caller_(caller), event_type_(event_type), url_(url),
        resolved_(resolve(context.world(), url)) {
    if (caller == DashboardCaller::controller && in_outage(behaviour, context.now_ms())) {
      refused_ = "outage";
    } else if (resolved_.head < 0) {
      refused_ = "unreachable";
    }
  }

  // The refusal when the call reaches no head ("outage" or "unreachable"), else empty.
  std::string_view refused() const { return refused_; }
  DashboardResponse refusal() const {
    return not_connected(url_, refused_ == "outage"sv ? " (dashboard outage)" : "");
  }
  int head() const { return resolved_.head; }
  const RayHead& live_head() const { return *context_.world().ray->heads[static_cast<std::size_t>(resolved_.head)]; }
  // The live head, to change: the world's Ray state and that head become its own first
  // (copy_on_write.h).
  RayHead& live_head_to_change() {
    return context_.world().ray.edit().heads[static_cast<std::size_t>(resolved_.head)].edit();
  }
  std::string object() const {
    return resolved_.cluster ? object_ref(Kind::RayCluster, resolved_.cluster->metadata) : std::string();
  }

  void log(std::string_view submission_id, std::string_view outcome, const DashboardResponse& response,
           std::optional<bool> stopped = std::nullopt) {
    // Most calls' events are read by no one: their object is named only for those that are.
    const std::string cluster = context_.builds(event_type_) ? object() : std::string();
    EventBuilder event = context_.effect(event_type_, "dashboard", cluster);
    if (!event.kept()) return;
    event.with("caller", to_string(caller_))
        .with("url", url_)
        .with("submission_id", submission_id)
        .with("outcome", outcome)
        .with("status", response.connected ? response.status : 0);
    if (resolved_.head >= 0) {
      event.with("incarnation", live_head().incarnation);
    }
    if (stopped) event.with("stopped", *stopped);
  }

 private:
  StepContext& context_;
  DashboardCaller caller_;
  std::string_view event_type_;
  std::string_view url_;        // the caller's, which outlives the call
  Resolved resolved_;
  std::string_view refused_;    // a literal
};

void emit_job_status(StepContext& context, const RayHead& head, const RayJobRecord& job,
                     std::string_view from) {
  context.effect("ray.job_status", "ray", cluster_ref(head))
      .with("submission_id", job.submission_id)
      .with("from", from)
      .with("to", job.status)
      .with("incarnation", head.incarnation);
}

// The key submissions are counted under for `world.ray.results`: the RayJob (same namespace, API
// truth) whose status.jobId is the submission id, else the submission id itself.
std::string submission_counter_key(const World& world, std::string_view namespace_,
                                   std::string_view submission_id) {
  for (const Object& object : world.api.objects(Kind::RayJob)) {
    const auto& rayjob = std::get<RayJob>(object);
    if (rayjob.metadata.namespace_ == namespace_ && !submission_id.empty() &&
        rayjob.status.job_id == submission_id) {
      return key_of(rayjob.metadata);
    }
  }
  return std::string(submission_id);
}

// Counts one more submission under `key` and returns how many came before it.
int count_submission(RayState& ray, const std::string& key) {
  auto& counts = ray.submissions_per_rayjob;
  auto it = std::lower_bound(counts.begin(), counts.end(), key,
                             [](const std::pair<std::string, int>& entry, const std::string& k) {
                               return entry.first < k;
                             });
  if (it == counts.end() || it->first != key) it = counts.insert(it, {key, 0});
  return it->second++;
}

}  // namespace

// ---- endpoints ----

DashboardResponse RayDashboard::get_job_info(StepContext& context, DashboardCaller caller,
                                             std::string_view dashboard_url,
                                             std::string_view job_id) const {
  Call call(context, dashboard_, caller, "dashboard.get_job_info", dashboard_url);
  if (!call.refused().empty()) {
    DashboardResponse response = call.refusal();
    call.log(job_id, call.refused(), response);
    return response;
  }
  const int index = find_job(context.world(), call.head(), job_id);
  if (index < 0) {
    DashboardResponse response = text_reply(404, fmt::format(FMT_COMPILE("Job {} does not exist"), job_id));
    call.log(job_id, "not_found", response);
    return response;
  }
  const RayJobRecord& job = call.live_head().jobs[static_cast<std::size_t>(index)];
  DashboardResponse response;
  response.info.job_status = job.status;
  response.info.entrypoint = job.entrypoint;
  response.info.submission_id = job.submission_id;
  response.info.message = job.message;
  response.info.start_time_ms = job.start_time_ms;
  response.info.end_time_ms = job.end_time_ms;
  call.log(job_id, "ok", response);
  return response;
}

DashboardResponse RayDashboard::submit_job(StepContext& context, DashboardCaller caller,
                                           std::string_view dashboard_url,
                                           const SubmitJobRequest& request) const {
  Call call(context, dashboard_, caller, "dashboard.submit_job", dashboard_url);
  if (!call.refused().empty()) {
    DashboardResponse response = call.refusal();
    call.log(request.submission_id, call.refused(), response);
    return response;
  }
  std::string submission_id = request.submission_id;
  if (submission_id.empty()) {
    // Ray names the job itself: "raysubmit_" and a random suffix (job_manager.py generate_job_id).
    submission_id = "raysubmit_" + random_name_suffix(context, 5, "ray submission id");
  }
  if (find_job(context.world(), call.head(), submission_id) >= 0) {
    DashboardResponse response = text_reply(
        500, fmt::format("Traceback (most recent call last):\n"
                         "  File \"ray/dashboard/modules/job/job_head.py\", in submit_job\n"
                         "ValueError: Job with submission_id {} already exists. "
                         "Please use a different submission_id.",
                         submission_id));
    call.log(submission_id, "duplicate", response);
    return response;
  }
  World& world = context.world();
  const int earlier = count_submission(
      world.ray.edit(), submission_counter_key(world, call.live_head().cluster_namespace, submission_id));
  RayJobRecord job;
  job.submission_id = submission_id;
  job.entrypoint = request.entrypoint;
  job.status = "PENDING";
  job.result = ray_.results.empty()
                   ? "SUCCEEDED"
                   : ray_.results[std::min(static_cast<std::size_t>(earlier), ray_.results.size() - 1)];
  job.message = std::string(message_for("PENDING"));
  job.submitted_by = std::string(to_string(caller));
  job.submitted_at_ms = context.now_ms();
  job.next_change_at_ms = context.now_ms() + ray_.pending_for_ms;
  call.live_head_to_change().jobs.push_back(std::move(job));

  DashboardResponse response;
  response.submission_id = submission_id;
  call.log(submission_id, "ok", response);
  return response;
}

DashboardResponse RayDashboard::stop_job(StepContext& context, DashboardCaller caller,
                                         std::string_view dashboard_url,
                                         std::string_view job_id) const {
  Call call(context, dashboard_, caller, "dashboard.stop_job", dashboard_url);
  if (!call.refused().empty()) {
    DashboardResponse response = call.refusal();
    call.log(job_id, call.refused(), response);
    return response;
  }
  const int index = find_job(context.world(), call.head(), job_id);
  if (index < 0) {
    DashboardResponse response = text_reply(404, fmt::format(FMT_COMPILE("Job {} does not exist"), job_id));
    call.log(job_id, "not_found", response);
    return response;
  }
  const RayJobRecord& found = call.live_head().jobs[static_cast<std::size_t>(index)];
  DashboardResponse response;
  response.stopped = !is_terminal(found.status);
  call.log(job_id, "ok", response, response.stopped);
  if (response.stopped) {
    RayHead& head = call.live_head_to_change();
    RayJobRecord& job = head.jobs[static_cast<std::size_t>(index)];
    const std::string from = job.status;
    job.status = "STOPPED";
    job.message = std::string(message_for("STOPPED"));
    job.end_time_ms = context.now_ms();
    job.next_change_at_ms = 0;
    emit_job_status(context, head, job, from);
  }
  return response;
}

DashboardResponse RayDashboard::delete_job(StepContext& context, DashboardCaller caller,
                                           std::string_view dashboard_url,
                                           std::string_view job_id) const {
  Call call(context, dashboard_, caller, "dashboard.delete_job", dashboard_url);
  if (!call.refused().empty()) {
    DashboardResponse response = call.refusal();
    call.log(job_id, call.refused(), response);
    return response;
  }
  const int index = find_job(context.world(), call.head(), job_id);
  if (index < 0) {
    DashboardResponse response = text_reply(404, fmt::format(FMT_COMPILE("Job {} does not exist"), job_id));
    call.log(job_id, "not_found", response);
    return response;
  }
  const RayJobRecord& job = call.live_head().jobs[static_cast<std::size_t>(index)];
  if (!is_terminal(job.status)) {
    DashboardResponse response = text_reply(
        400, fmt::format("Attempted to delete job '{}', but it is in a non-terminal state {}.",
                         job_id, job.status));
    call.log(job_id, "not_terminal", response);
    return response;
  }
  context.world().environment.edit().deleted_ray_jobs.push_back({call.head(), index});
  DashboardResponse response;
  call.log(job_id, "ok", response);
  return response;
}

// ---- the actor ----

void RayDashboard::enabled(const World& world, std::vector<ActorWork>& out) const {
  const std::span<const FollowedAnswers<SharedString>::Entry> awaiting_head = clusters_awaiting_head(world);
  // A live head whose cluster (by uid) is gone from the API server loses its table once its Pod
  // has stopped too: a deleted head Pod runs until its kubelet stops it (pod_termination.h).
  for (const LiveHead& head : live_heads_) {
    if (head.lost) {
      out.push_back({kHeadLost, head.cluster_ref, head.index});
    }
  }
  // A ready cluster without a live head gets one once its head Pod is Ready.
  for (const auto& [object, key_hash, ref] : awaiting_head) {
    const auto& cluster = std::get<RayCluster>(*object);
    if (cluster.metadata.creation_timestamp_ms + head_ready_after_ms_ <= world.now_ms) {
      out.push_back({kHeadUp, ref, 0});
    }
  }
  // Jobs of live tables move on their timers.
  for (const PendingJob& job : pending_jobs(world)) {
    if (job.next_change_at_ms > world.now_ms) continue;
    out.push_back({kJobStatus, live_cluster_ref(job.head), job.work_index});
  }
}

const std::vector<RayDashboard::PendingJob>& RayDashboard::pending_jobs(const World& world) const {
  if (pending_jobs_ray_serial_ == world.ray.serial()) return pending_jobs_;
  pending_jobs_ray_serial_ = world.ray.serial();
  pending_jobs_.clear();
  const std::vector<CopyOnWrite<RayHead>>& heads = world.ray->heads;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (heads[i]->table_lost) continue;
    for (std::size_t j = 0; j < heads[i]->jobs.size(); ++j) {
      const RayJobRecord& job = heads[i]->jobs[j];
      if (!is_terminal(job.status)) pending_jobs_.push_back({static_cast<int>(i), job_work_index(i, j), job.next_change_at_ms});
    }
  }
  return pending_jobs_;
}

bool RayDashboard::head_comes_up(const RayCluster& cluster) const {
  return cluster.status->state == "ready"sv &&
         std::none_of(live_heads_.begin(), live_heads_.end(),
                      [&](const LiveHead& head) { return head.cluster_uid == cluster.metadata.uid; });
}

std::span<const FollowedAnswers<SharedString>::Entry> RayDashboard::clusters_awaiting_head(const World& world) const {
  // Whether a cluster awaits its head reads which heads are live: the clusters of the heads that
  // came or went are asked again, not every cluster.
  heads_come_or_gone_.clear();
  follow_live_heads(world, heads_come_or_gone_);
  awaiting_head_.follow(world.api, Kind::RayCluster, /*afresh=*/false, [&](const ObjectVersion& cluster, SharedString& ref) {
    if (!head_comes_up(std::get<RayCluster>(*cluster))) return false;
    ref = SharedString(object_ref(*cluster));
    return true;
  }, heads_come_or_gone_);
  return awaiting_head_.kept();
}

void RayDashboard::follow_live_heads(const World& world, std::vector<std::uint64_t>& come_or_gone) const {
  const std::optional<std::span<const WatchEvent>> cluster_events =
      live_heads_cluster_log_.advance(world.api.watch_log(Kind::RayCluster));
  const std::optional<std::span<const WatchEvent>> pod_events = live_heads_pod_log_.advance(world.api.watch_log(Kind::Pod));
  // Most changes of the Ray state are a job's, which leave the live heads as they were.
  if (live_heads_ray_serial_ != world.ray.serial() && !same_live_heads(world.ray->heads)) {
    take_live_heads(world, come_or_gone);
  }
  live_heads_ray_serial_ = world.ray.serial();
  // Most listings follow no write to a cluster, and a Pod's write matters only to a head whose
  // cluster is gone: then no head is asked again (with 20 RayJobs, walking the heads to find
  // that cost 1% of a step).
  const bool logs_continue = cluster_events && pod_events;
  if (logs_continue && cluster_events->empty() &&
      (pod_events->empty() ||
       std::none_of(live_heads_.begin(), live_heads_.end(), [](const LiveHead& head) { return head.cluster_gone; }))) {
    return;
  }
  for (LiveHead& head : live_heads_) {
    // Another run's logs, a write since to its cluster, or, for a head whose cluster is gone, to
    // a Pod: asked again (once).
    const bool asked_again =
        !cluster_events || !pod_events || (head.cluster_gone && !pod_events->empty()) ||
        std::any_of(cluster_events->begin(), cluster_events->end(),
                    [&](const WatchEvent& event) { return event.key_hash == head.cluster_key; });
    if (asked_again) ask_live_head(world, head);
  }
}

const SharedString& RayDashboard::live_cluster_ref(int index) const {
  const auto head = std::lower_bound(live_heads_.begin(), live_heads_.end(), index,
                                     [](const LiveHead& live, int wanted) { return live.index < wanted; });
  assert(head != live_heads_.end() && head->index == index && "rjsim bug: a pending job of a head that is not live");
  return head->cluster_ref;
}

void RayDashboard::take_live_heads(const World& world, std::vector<std::uint64_t>& come_or_gone) const {
  // A head that stays live keeps its entry (both lists are in the order of RayState::heads).
  std::vector<LiveHead>& before = live_heads_before_;
  before.swap(live_heads_);
  live_heads_.clear();
  std::size_t next_before = 0;
  const std::vector<CopyOnWrite<RayHead>>& heads = world.ray->heads;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (heads[i]->table_lost) continue;
    while (next_before < before.size() && before[next_before].index < static_cast<int>(i)) {
      come_or_gone.push_back(before[next_before++].cluster_key);   // lost its table
    }
    if (next_before < before.size() && before[next_before].index == static_cast<int>(i) &&
        before[next_before].cluster_uid == heads[i]->cluster_uid) {
      live_heads_.push_back(std::move(before[next_before++]));
      continue;
    }
    LiveHead& head = live_heads_.emplace_back();
    head.index = static_cast<int>(i);
    head.cluster_uid = heads[i]->cluster_uid;
    head.cluster_key = KeyIndex::hash_key(heads[i]->cluster_namespace, heads[i]->cluster_name);
    head.cluster_ref = SharedString(cluster_ref(*heads[i]));
    ask_live_head(world, head);
    come_or_gone.push_back(head.cluster_key);
  }
  for (; next_before < before.size(); ++next_before) come_or_gone.push_back(before[next_before].cluster_key);
}

bool RayDashboard::same_live_heads(const std::vector<CopyOnWrite<RayHead>>& heads) const {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (heads[i]->table_lost) continue;
    if (kept == live_heads_.size() || live_heads_[kept].index != static_cast<int>(i) ||
        live_heads_[kept].cluster_uid != heads[i]->cluster_uid) {
      return false;
    }
    ++kept;
  }
  return kept == live_heads_.size();
}

void RayDashboard::ask_live_head(const World& world, LiveHead& head) const {
  const RayHead& ray_head = *world.ray->heads[static_cast<std::size_t>(head.index)];
  const RayCluster* cluster = world.api.find<RayCluster>(ray_head.cluster_namespace, ray_head.cluster_name);
  head.cluster_gone = !cluster || cluster->metadata.uid != ray_head.cluster_uid;
  head.lost = head.cluster_gone && !head_pod_runs(world, ray_head);
}

std::optional<std::int64_t> RayDashboard::next_timer_ms(const World& world) const {
  std::optional<std::int64_t> next;
  for (const auto& [object, key_hash, answer] : clusters_awaiting_head(world)) {
    const std::int64_t at = meta(*object).creation_timestamp_ms + head_ready_after_ms_;
    if (at > world.now_ms && (!next || at < *next)) next = at;
  }
  for (const PendingJob& job : pending_jobs(world)) {
    const std::int64_t at = job.next_change_at_ms;
    if (at > world.now_ms && (!next || at < *next)) next = at;
  }
  return next;
}

void RayDashboard::apply(const ActorWork& work, StepContext& context) const {
  World& world = context.world();
  std::vector<CopyOnWrite<RayHead>>& heads = world.ray.edit().heads;
  if (work.what == kHeadLost) {
    RayHead& head = heads[static_cast<std::size_t>(work.index)].edit();
    assert(!head.table_lost && "rjsim bug: a lost head was lost again");
    head.table_lost = true;
    context.effect("ray.head_lost", "ray", cluster_ref(head))
        .with("cluster_uid", head.cluster_uid)
        .with("incarnation", head.incarnation)
        .with("jobs", static_cast<std::int64_t>(head.jobs.size()));
    return;
  }
  if (work.what == kHeadUp) {
    ObjectRef ref;
    [[maybe_unused]] const bool ok = parse_object_ref(work.object.str(), ref);
    assert(ok && "rjsim bug: a head-up work item names no cluster");
    const RayCluster* cluster = world.api.find<RayCluster>(ref.namespace_, ref.name);
    assert(cluster && "rjsim bug: a head came up for a cluster that is gone");
    int incarnation = 0;
    for (const CopyOnWrite<RayHead>& head : heads) {
      if (head->cluster_uid == cluster->metadata.uid) incarnation = std::max(incarnation, head->incarnation);
    }
    RayHead head;
    head.cluster_namespace = ref.namespace_;
    head.cluster_name = ref.name;
    head.cluster_uid = cluster->metadata.uid;
    head.incarnation = incarnation + 1;
    heads.push_back(std::move(head));
    context.effect("ray.head_up", "ray", work.object.str())
        .with("cluster_uid", heads.back()->cluster_uid)
        .with("incarnation", heads.back()->incarnation);
    return;
  }
  assert(work.what == kJobStatus && "rjsim bug: unknown Ray work");
  RayHead& head = heads[static_cast<std::size_t>(work.index / kJobsPerHead)].edit();
  RayJobRecord& job = head.jobs[static_cast<std::size_t>(work.index % kJobsPerHead)];
  const std::string from = job.status;
  if (job.status == "PENDING"sv) {
    job.status = "RUNNING";
    job.start_time_ms = context.now_ms();
    job.next_change_at_ms = context.now_ms() + ray_.runs_for_ms;
  } else {
    assert(job.status == "RUNNING"sv && "rjsim bug: a terminal Ray job changed status");
    job.status = job.result;
    job.end_time_ms = context.now_ms();
    job.next_change_at_ms = 0;
  }
  job.message = std::string(message_for(job.status));
  emit_job_status(context, head, job, from);
}

void RayDashboard::restart_head(StepContext& context, std::string_view cluster_namespace,
                                std::string_view cluster_name) const {
  World& world = context.world();
  const std::string ref = fmt::format("RayCluster/{}/{}", cluster_namespace, cluster_name);
  const RayCluster* cluster = world.api.find<RayCluster>(cluster_namespace, cluster_name);
  const int index = cluster ? live_head(world.ray, cluster->metadata.uid) : -1;
  if (index < 0) {
    context.effect("ray.head_restart", "ray", ref).with("restarted", false);
    return;
  }
  std::vector<CopyOnWrite<RayHead>>& heads = world.ray.edit().heads;
  RayHead& old_head = heads[static_cast<std::size_t>(index)].edit();
  old_head.table_lost = true;
  RayHead next;
  next.cluster_namespace = old_head.cluster_namespace;
  next.cluster_name = old_head.cluster_name;
  next.cluster_uid = old_head.cluster_uid;
  next.incarnation = old_head.incarnation + 1;
  const std::int64_t jobs_lost = static_cast<std::int64_t>(old_head.jobs.size());
  heads.push_back(std::move(next));
  const RayHead& head = *heads.back();
  context.effect("ray.head_restart", "ray", ref)
      .with("restarted", true)
      .with("cluster_uid", head.cluster_uid)
      .with("from_incarnation", head.incarnation - 1)
      .with("incarnation", head.incarnation)
      .with("jobs_lost", jobs_lost);
}

}  // namespace rjsim::engine
