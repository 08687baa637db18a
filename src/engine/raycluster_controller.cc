#include "engine/raycluster_controller.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "engine/key_index.h"
#include "engine/label_index.h"
#include "engine/raycluster_status.h"

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

constexpr std::string_view kAddFinalizer = "add-finalizer";
constexpr std::string_view kCreateHeadService = "create-head-service";
constexpr std::string_view kCreateHeadPod = "create-head-pod";
constexpr std::string_view kCreateWorkerPod = "create-worker-pods";
constexpr std::string_view kStatus = "status";
constexpr std::string_view kRemoveFinalizer = "remove-finalizer";

std::string head_pod_name(const ObjectMeta& cluster) { return cluster.name + "-head"; }

std::string worker_pod_name(const ObjectMeta& cluster, const WorkerGroupSpec& group, int replica) {
  // Appended, not formatted: every listing names each cluster's workers to look them up.
  constexpr std::string_view kWorker = "-worker-";
  const std::string number = std::to_string(replica);
  std::string name;
  name.reserve(cluster.name.size() + 1 + group.group_name.size() + kWorker.size() + number.size());
  name.append(cluster.name).append("-").append(group.group_name).append(kWorker).append(number);
  return name;
}

// The Pods of a cluster as the RayCluster controller lists them, by the ray.io/cluster label, in
// the API server's order (valid while it is unchanged).
std::vector<const ObjectVersion*> pod_versions_of(const ApiServer& api, const ObjectMeta& cluster) {
  return api.labelled(Kind::Pod, cluster.namespace_, kRayClusterLabel, cluster.name);
}

std::vector<const Pod*> pods_of(const std::vector<const ObjectVersion*>& versions) {
  std::vector<const Pod*> pods;
  pods.reserve(versions.size());
  for (const ObjectVersion* version : versions) pods.push_back(&std::get<Pod>(**version));
  return pods;
}

// A worker group's Pod template; one Ray container when the template has none (a RayCluster made
// in a test: the CRD requires a template, and a real Pod needs a container).
PodTemplate worker_template(const WorkerGroupSpec& group) {
  PodTemplate template_ = group.template_;
  if (template_.containers.empty()) template_.containers.emplace_back().name = "ray-worker";
  return template_;
}

Pod pod_for(const RayCluster& cluster, std::string name, std::string_view node_type, std::string_view group,
            const PodTemplate& template_) {
  Pod pod;
  pod.metadata.name = std::move(name);
  pod.metadata.namespace_ = cluster.metadata.namespace_;
  pod.metadata.labels = StringMap{{std::string(kRayClusterLabel), cluster.metadata.name},
                                  {std::string(kRayNodeTypeLabel), std::string(node_type)},
                                  {"ray.io/group", std::string(group)}};
  pod.metadata.owner_references.edit().push_back(
      OwnerReference{"ray.io/v1", Kind::RayCluster, cluster.metadata.name, cluster.metadata.uid, true, true});
  pod.spec.edit().containers = template_.containers;
  pod.spec.edit().restart_policy = template_.restart_policy;
  return pod;
}

// Whether `pod` exists and carries the cluster's label: then its existence is part of what the
// cluster's Pods' write stamp follows (write_stamps.h).
bool is_own_pod(const Pod* pod, const ObjectMeta& cluster) {
  if (!pod) return false;
  const auto label = pod->metadata.labels->find(kRayClusterLabel);
  return label != pod->metadata.labels->end() && label->second == cluster.name;
}

// `answer` looked the Pod `name` up and found `pod`: its answer reads the Pod's existence, and
// when the Pod is not the cluster's own, no stamp of the cluster's Pods follows that.
template <class Answer>
void note_pod_lookup(Answer& answer, const ObjectMeta& cluster, std::string_view name, const Pod* pod) {
  answer.looked_up_pods.push_back(KeyIndex::hash_key(cluster.namespace_, name));
  if (!is_own_pod(pod, cluster)) answer.reads_pod_absence = true;
}

}  // namespace

bool has_submitter_sidecar(const RayCluster& cluster) {
  const auto& containers = cluster.spec->head_group_spec.template_.containers;
  return std::any_of(containers.begin(), containers.end(),
                     [](const Container& c) { return c.name == kSubmitterSidecarName; });
}

std::string head_service_name(const RayCluster& cluster) {
  const auto& custom = cluster.spec->head_group_spec.head_service_name;
  if (custom && !custom->empty()) return *custom;
  return cluster.metadata.name + "-head-svc";
}

std::optional<std::pair<int, int>> RayClusterController::missing_worker(const World& world, const RayCluster& cluster,
                                                                       ClusterAnswer* answer) const {
  const auto& groups = cluster.spec->worker_group_specs;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (int i = 0; i < expected_worker_pods(groups[g], readiness_); ++i) {
      const std::string name = worker_pod_name(cluster.metadata, groups[g], i);
      const Pod* pod = world.api.find<Pod>(cluster.metadata.namespace_, name);
      if (answer) note_pod_lookup(*answer, cluster.metadata, name, pod);
      if (!pod) return std::pair<int, int>{static_cast<int>(g), i};
    }
  }
  return std::nullopt;
}

bool RayClusterController::status_due(const RayCluster& cluster, const Service* head_service,
                                      const std::vector<const Pod*>& pods) const {
  // updateHeadInfo fails without a head Service: no status is written.
  return head_service &&
         raycluster_status_would_change(cluster, pods, *head_service, pods_ready(pods, cluster), readiness_);
}

// The release's rule over the Pods the API lists (reference §3.5, §2.6, §1.12).
bool RayClusterController::pods_ready(const std::vector<const Pod*>& pods, const RayCluster& cluster) const {
  if (pods.empty()) return false;
  const auto running = [](const Pod* pod) { return pod->status.phase == "Running"sv; };
  // A PodReady condition that is present must be True.
  const auto ready = [&](const Pod* pod) { return running(pod) && pod->status.ready.value_or(true); };
  switch (readiness_) {
    case RayClusterReadiness::all_pods_running: return std::all_of(pods.begin(), pods.end(), running);
    case RayClusterReadiness::listed_pods_ready: return std::all_of(pods.begin(), pods.end(), ready);
    case RayClusterReadiness::desired_pods_ready:
      return static_cast<int>(pods.size()) == desired_worker_replicas(cluster, readiness_) + 1 && std::all_of(pods.begin(), pods.end(), ready);
  }
  return false;
}

// More clusters than a scenario has (twenty-rayjobs has 20), few enough to search linearly.
constexpr std::size_t kStatusMemoClusters = 64;

namespace {

// More clusters than most scenarios have (twenty-rayjobs has 20), few enough to search
// linearly; a listing of more keeps one answer per cluster all the same.
constexpr std::size_t kKeptClusterAnswers = 64;

bool same_key(const ObjectMeta& a, const ObjectMeta& b) { return a.name == b.name && a.namespace_ == b.namespace_; }

bool same_cluster_name(const ObjectVersion& a, const ObjectVersion& b) { return same_key(meta(*a), meta(*b)); }

}  // namespace

bool RayClusterController::status_due_memoized(const ObjectVersion& cluster_version,
                                               const ObjectVersion* head_service,
                                               const std::vector<const ObjectVersion*>& pods) const {
  const auto& cluster = std::get<RayCluster>(*cluster_version);
  // One entry per cluster name: only the entry of this name can hold this version. Runs name
  // their clusters differently, so the memo holds many names; their key hashes are searched, not
  // their names, and those sit apart from the entries: a search reads 8 of them a cache line.
  const std::uint64_t key_hash = KeyIndex::hash_key(cluster.metadata.namespace_, cluster.metadata.name);
  std::size_t place = status_memo_find(key_hash, cluster.metadata);
  const bool found = place < status_memo_.size();
  if (found && same_inputs(status_memo_[place], cluster_version, head_service, pods)) return status_memo_[place].due;

  if (!found) place = status_memo_place();
  StatusMemo& memo = status_memo_[place];
  status_memo_key_hashes_[place] = key_hash;
  memo.cluster = cluster_version;
  memo.head_service = head_service ? std::optional<ObjectVersion>(*head_service) : std::nullopt;
  memo.pods.clear();
  for (const ObjectVersion* pod : pods) memo.pods.push_back(*pod);
  memo.due = status_due(cluster, head_service ? &std::get<Service>(**head_service) : nullptr, pods_of(pods));
  return memo.due;
}

std::size_t RayClusterController::status_memo_find(std::uint64_t key_hash, const ObjectMeta& m) const {
  for (std::size_t place = 0; place < status_memo_key_hashes_.size(); ++place) {
    if (status_memo_key_hashes_[place] != key_hash) continue;
    if (same_key(std::get<RayCluster>(*status_memo_[place].cluster).metadata, m)) return place;
  }
  return status_memo_key_hashes_.size();
}

std::size_t RayClusterController::status_memo_place() const {
  if (status_memo_.size() < kStatusMemoClusters) {
    status_memo_.emplace_back();
    status_memo_key_hashes_.push_back(0);
    return status_memo_.size() - 1;
  }
  // Runs that name their clusters differently would grow it without end: the oldest entry is
  // overwritten in place (erasing the front moved every other entry at each new cluster).
  const std::size_t oldest = status_memo_oldest_;
  status_memo_oldest_ = (status_memo_oldest_ + 1) % kStatusMemoClusters;
  return oldest;
}

bool RayClusterController::same_inputs(const StatusMemo& memo, const ObjectVersion& cluster_version,
                                       const ObjectVersion* head_service,
                                       const std::vector<const ObjectVersion*>& pods) {
  if (!memo.cluster.same_version(cluster_version) || memo.pods.size() != pods.size()) return false;
  if (memo.head_service.has_value() != (head_service != nullptr)) return false;
  if (head_service && !memo.head_service->same_version(*head_service)) return false;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!memo.pods[i].same_version(*pods[i])) return false;
  }
  return true;
}

void RayClusterController::enabled(const World& world, std::vector<ActorWork>& out) const {
  follow(world);
  for (std::size_t place = 0; place < listed_.size(); ++place) {
    if (!listed_[place].has_work) continue;
    const std::vector<ActorWork>& work = cluster_answers_[place]->work;
    out.insert(out.end(), work.begin(), work.end());
  }
}

std::optional<std::int64_t> RayClusterController::next_timer_ms(const World& world) const {
  follow(world);
  EarliestTimer timer(world.now_ms);
  for (std::size_t place = 0; place < listed_.size(); ++place) {
    if (!listed_[place].has_timers) continue;
    for (const std::int64_t at_ms : cluster_answers_[place]->timers_ms) timer.consider(at_ms);
  }
  return timer.next_ms();
}

void RayClusterController::follow(const World& world) const {
  const std::optional<std::span<const WatchEvent>> cluster_events =
      cluster_log_mark_.advance(world.api.watch_log(Kind::RayCluster));
  const std::optional<std::span<const WatchEvent>> service_events =
      service_log_mark_.advance(world.api.watch_log(Kind::Service));
  const std::uint64_t pods_followed_through = pod_log_mark_.last_serial();   // before follow_pod_existence moves it
  follow_pod_existence(world);
  const auto came_or_went = [](const WatchEvent& event) { return event.type != WatchType::Modified; };
  const bool logs_continue = listing_kept_ && cluster_events && service_events && pod_existence_followed_;
  if (logs_continue && std::any_of(cluster_events->begin(), cluster_events->end(), came_or_went)) {
    follow_clusters_come_or_gone(world, *cluster_events);
  }
  if (logs_continue && listed_.size() == world.api.objects(Kind::RayCluster).size()) {
    follow_writes(world, *cluster_events, *service_events, pods_followed_through);
  } else {
    check_every_cluster(world);
  }
}

void RayClusterController::follow_clusters_come_or_gone(const World& world,
                                                        std::span<const WatchEvent> cluster_events) const {
  // The events name the clusters that came or went: the others keep their answers and their
  // order (issue 30: with 20 RayJobs, each of a run's 40 creates and deletes checked every
  // cluster's answer again). First the clusters gone, whose answers stay as spares...
  const std::span<const ObjectVersion> clusters = world.api.objects(Kind::RayCluster);
  for (const WatchEvent& event : cluster_events) {
    if (event.type != WatchType::Deleted) continue;
    const ObjectMeta& m = meta(*event.object);
    if (world.api.find_version(Kind::RayCluster, m.namespace_, m.name)) continue;   // created again since
    const std::size_t place = listed_place(event.key_hash, m);
    if (place == listed_.size()) continue;   // not listed: created since the last listing
    std::unique_ptr<ClusterAnswer> answer = std::move(cluster_answers_[place]);
    cluster_answers_.erase(cluster_answers_.begin() + static_cast<std::ptrdiff_t>(place));
    cluster_answers_.push_back(std::move(answer));
    listed_.erase(listed_.begin() + static_cast<std::ptrdiff_t>(place));
  }
  // ...then those created, each at its place in the store, in the store's order, so that the
  // listing before it is the store's already.
  std::vector<std::size_t>& created = created_places_;
  created.clear();
  for (const WatchEvent& event : cluster_events) {
    if (event.type != WatchType::Added) continue;
    const ObjectMeta& m = meta(*event.object);
    const ObjectVersion* stored = world.api.find_version(Kind::RayCluster, m.namespace_, m.name);
    if (!stored || listed_place(event.key_hash, m) < listed_.size()) continue;   // gone again, or deleted and created
    created.push_back(static_cast<std::size_t>(stored - clusters.data()));
  }
  std::sort(created.begin(), created.end());
  created.erase(std::unique(created.begin(), created.end()), created.end());
  for (const std::size_t place : created) {
    if (place > listed_.size()) {   // the listing was not the store's: kept no more
      cluster_answers_.clear();
      listed_.clear();
      return;
    }
    // An answer valid at no time, so that follow_writes computes it.
    const ObjectMeta& m = meta(*clusters[place]);
    cluster_answers_.insert(cluster_answers_.begin() + static_cast<std::ptrdiff_t>(place),
                            std::make_unique<ClusterAnswer>());
    listed_.insert(listed_.begin() + static_cast<std::ptrdiff_t>(place),
                   ListedCluster{.key_hash = KeyIndex::hash_key(m.namespace_, m.name),
                                 .valid_from_ms = std::numeric_limits<std::int64_t>::max(),
                                 .valid_until_ms = std::numeric_limits<std::int64_t>::min()});
  }
  latest_valid_from_ms_ = std::numeric_limits<std::int64_t>::max();   // the new answers are named by time
  if (cluster_answers_.size() > std::max(kKeptClusterAnswers, listed_.size())) {
    cluster_answers_.resize(std::max(kKeptClusterAnswers, listed_.size()));   // spares past the bound
  }
}

std::size_t RayClusterController::listed_place(std::uint64_t key_hash, const ObjectMeta& m) const {
  for (std::size_t place = 0; place < listed_.size(); ++place) {
    if (listed_[place].key_hash == key_hash && same_key(meta(*cluster_answers_[place]->cluster), m)) return place;
  }
  return listed_.size();
}

void RayClusterController::follow_writes(const World& world, std::span<const WatchEvent> cluster_events,
                                         std::span<const WatchEvent> service_events,
                                         std::uint64_t pods_followed_through) const {
  due_.assign(listed_.size(), 0);
  bool any_due = false;
  const auto name = [&](auto&& names) {
    for (std::size_t place = 0; place < listed_.size(); ++place) {
      if (!due_[place] && names(listed_[place], place)) due_[place] = any_due = true;
    }
  };
  for (const WatchEvent& event : cluster_events) {
    name([&](const ListedCluster& listed, std::size_t) { return listed.key_hash == event.key_hash; });
  }
  for (const WatchEvent& event : service_events) {
    name([&](const ListedCluster& listed, std::size_t) { return listed.head_service_key_hash == event.key_hash; });
  }
  world.api.write_stamps().for_each_group_written_after(pods_followed_through, [&](std::uint64_t group) {
    name([&](const ListedCluster& listed, std::size_t) { return listed.pod_group == group; });
  });
  if (!pods_come_or_gone_.empty()) {
    name([&](const ListedCluster& listed, std::size_t place) {
      return listed.reads_pod_absence && !pod_existence_kept(*cluster_answers_[place]);
    });
  }
  const std::int64_t now = world.now_ms;
  if (now < latest_valid_from_ms_ || now >= earliest_valid_until_ms_) {
    name([&](const ListedCluster& listed, std::size_t) {
      return now < listed.valid_from_ms || now >= listed.valid_until_ms;
    });
  }
  if (!any_due) return;
  const std::span<const ObjectVersion> clusters = world.api.objects(Kind::RayCluster);
  for (std::size_t place = 0; place < listed_.size(); ++place) {
    if (!due_[place]) continue;
    ++cluster_answers_checked_;
    compute_answer(world, clusters[place], *cluster_answers_[place]);
  }
  note_listing(listed_.size());
}

void RayClusterController::check_every_cluster(const World& world) const {
  const std::span<const ObjectVersion> clusters = world.api.objects(Kind::RayCluster);
  for (std::size_t place = 0; place < clusters.size(); ++place) {
    ++cluster_answers_checked_;
    (void)answer_for(world, clusters[place], place);
  }
  note_listing(clusters.size());
}

void RayClusterController::note_listing(std::size_t clusters) const {
  listed_.resize(clusters);
  latest_valid_from_ms_ = std::numeric_limits<std::int64_t>::min();
  earliest_valid_until_ms_ = std::numeric_limits<std::int64_t>::max();
  for (std::size_t place = 0; place < clusters; ++place) {
    const ClusterAnswer& answer = *cluster_answers_[place];
    listed_[place] = ListedCluster{answer.key_hash,        answer.head_service_key_hash, answer.pod_group,
                                   answer.valid_from_ms,   answer.valid_until_ms,        answer.reads_pod_absence,
                                   !answer.work.empty(),   !answer.timers_ms.empty()};
    latest_valid_from_ms_ = std::max(latest_valid_from_ms_, answer.valid_from_ms);
    earliest_valid_until_ms_ = std::min(earliest_valid_until_ms_, answer.valid_until_ms);
  }
  listing_kept_ = true;
}

const RayClusterController::ClusterAnswer& RayClusterController::answer_for(const World& world,
                                                                           const ObjectVersion& cluster,
                                                                           std::size_t place) const {
  ClusterAnswer& answer = answer_slot(cluster, place);
  if (!answer.cluster.same_version(cluster) || !still_holds(answer, world)) compute_answer(world, cluster, answer);
  return answer;
}

RayClusterController::ClusterAnswer& RayClusterController::answer_slot(const ObjectVersion& cluster,
                                                                     std::size_t place) const {
  std::vector<std::unique_ptr<ClusterAnswer>>& kept = cluster_answers_;
  // Most listings find each cluster where the last one did, and most of those the same version.
  if (place < kept.size() && (kept[place]->cluster.same_version(cluster) || same_cluster_name(kept[place]->cluster, cluster))) {
    return *kept[place];
  }
  auto found = std::find_if(kept.begin(), kept.end(), [&](const auto& a) { return a->cluster.same_version(cluster); });
  if (found == kept.end()) {
    found = std::find_if(kept.begin(), kept.end(), [&](const auto& a) { return same_cluster_name(a->cluster, cluster); });
  }
  if (found == kept.end()) {
    // Runs that name their clusters differently would grow it without end: past the bound, the
    // last answer's slot is reused, unless this listing has more clusters than the bound (its
    // places before this one hold answers it needs).
    if (kept.size() < kKeptClusterAnswers || place >= kept.size()) kept.push_back(std::make_unique<ClusterAnswer>());
    found = kept.end() - 1;
  }
  if (place >= kept.size()) return **found;
  std::swap(*found, kept[place]);
  return *kept[place];
}

void RayClusterController::follow_pod_existence(const World& world) const {
  const std::optional<std::span<const WatchEvent>> events = pod_log_mark_.advance(world.api.watch_log(Kind::Pod));
  pod_existence_followed_ = events.has_value();
  pods_come_or_gone_.clear();
  if (events) {
    for (const WatchEvent& event : *events) {
      if (event.type != WatchType::Modified) pods_come_or_gone_.push_back(event.key_hash);
    }
  }
}

bool RayClusterController::pod_existence_kept(const ClusterAnswer& answer) const {
  if (!pod_existence_followed_) return false;
  return std::none_of(answer.looked_up_pods.begin(), answer.looked_up_pods.end(), [&](std::uint64_t pod) {
    return std::find(pods_come_or_gone_.begin(), pods_come_or_gone_.end(), pod) != pods_come_or_gone_.end();
  });
}

bool RayClusterController::still_holds(ClusterAnswer& answer, const World& world) const {
  if (world.now_ms < answer.valid_from_ms || world.now_ms >= answer.valid_until_ms) return false;
  const WriteStamps& stamps = world.api.write_stamps();
  const ObjectVersion* pods = stamps.pod_group(answer.pod_group);
  if ((pods != nullptr) != answer.pods_stamp.has_value() || (pods && !answer.pods_stamp->same_version(*pods))) return false;
  if (answer.reads_pod_absence && !answer.pod_existence_stamp.same_version(stamps.existence(Kind::Pod))) {
    if (!pod_existence_kept(answer)) return false;
    answer.pod_existence_stamp = stamps.existence(Kind::Pod);
  }
  if (answer.services_stamp.same_version(stamps.kind(Kind::Service))) return true;
  // A Service was written: the answer holds if it was not the cluster's head Service.
  const ObjectMeta& m = std::get<RayCluster>(*answer.cluster).metadata;
  const ObjectVersion* head_service = world.api.find_version(Kind::Service, m.namespace_, answer.head_service_name);
  if ((head_service != nullptr) != answer.head_service.has_value()) return false;
  if (head_service && !answer.head_service->same_version(*head_service)) return false;
  answer.services_stamp = stamps.kind(Kind::Service);
  return true;
}

void RayClusterController::compute_answer(const World& world, const ObjectVersion& version, ClusterAnswer& answer) const {
  ++cluster_answers_computed_;
  const auto& cluster = std::get<RayCluster>(*version);
  const ObjectMeta& m = cluster.metadata;
  const WriteStamps& stamps = world.api.write_stamps();
  answer.cluster = version;
  answer.key_hash = KeyIndex::hash_key(m.namespace_, m.name);
  answer.head_service_name = head_service_name(cluster);
  answer.head_service_key_hash = KeyIndex::hash_key(m.namespace_, answer.head_service_name);
  const ObjectVersion* head_service = world.api.find_version(Kind::Service, m.namespace_, answer.head_service_name);
  answer.head_service = head_service ? std::optional<ObjectVersion>(*head_service) : std::nullopt;
  answer.services_stamp = stamps.kind(Kind::Service);
  answer.pod_group = LabelIndex::hash_value(m.namespace_, m.name);
  const ObjectVersion* pods = stamps.pod_group(answer.pod_group);
  answer.pods_stamp = pods ? std::optional<ObjectVersion>(*pods) : std::nullopt;
  answer.reads_pod_absence = false;
  answer.pod_existence_stamp = stamps.existence(Kind::Pod);
  answer.looked_up_pods.clear();
  answer.work.clear();
  answer.timers_ms.clear();
  // The ref its work names, made again only when the answer's slot held another cluster.
  assign_object_ref(ref_scratch_, Kind::RayCluster, m.namespace_, m.name);
  if (answer.ref.str() != ref_scratch_) answer.ref = SharedString(ref_scratch_);

  // The times at which the cluster's work changes by the clock alone: readyAfter after its
  // creation (its workers), deletionTakes after its deletion (the finalizer).
  const std::int64_t workers_due_ms = workers_due_at_ms(m);
  const std::optional<std::int64_t> deletion_done_ms =
      m.deletion_timestamp_ms ? std::optional<std::int64_t>(*m.deletion_timestamp_ms + behaviour_.deletion_takes_ms)
                              : std::nullopt;
  answer.valid_from_ms = std::numeric_limits<std::int64_t>::min();
  answer.valid_until_ms = std::numeric_limits<std::int64_t>::max();
  for (const std::optional<std::int64_t> at_ms : {std::optional<std::int64_t>(workers_due_ms), deletion_done_ms}) {
    if (!at_ms) continue;
    if (*at_ms <= world.now_ms) answer.valid_from_ms = std::max(answer.valid_from_ms, *at_ms);
    if (*at_ms > world.now_ms) answer.valid_until_ms = std::min(answer.valid_until_ms, *at_ms);
  }

  const bool has_ours = has_finalizer(m, kLingeringDeletionFinalizer);
  if (behaviour_.deletion_takes_ms > 0 && !m.deletion_timestamp_ms && !has_ours) {
    answer.work.push_back({kAddFinalizer, answer.ref, 0});
  }
  if (!m.deletion_timestamp_ms) add_live_cluster_work(world, version, answer);
  if (deletion_done_ms && has_ours) {
    if (*deletion_done_ms <= world.now_ms) answer.work.push_back({kRemoveFinalizer, answer.ref, 0});
    answer.timers_ms.push_back(*deletion_done_ms);
  }
}

void RayClusterController::add_live_cluster_work(const World& world, const ObjectVersion& version,
                                                 ClusterAnswer& answer) const {
  const auto& cluster = std::get<RayCluster>(*version);
  const ObjectMeta& m = cluster.metadata;
  // The head Service and the head Pod in one step when both are missing, as one pass of
  // KubeRay's reconcile makes them; a lone missing head Pod (an old cluster's went late) alone.
  if (!answer.head_service) {
    answer.work.push_back({kCreateHeadService, answer.ref, 0});
  } else {
    const std::string head_name = head_pod_name(m);
    const Pod* head = world.api.find<Pod>(m.namespace_, head_name);
    note_pod_lookup(answer, m, head_name, head);
    if (!head) answer.work.push_back({kCreateHeadPod, answer.ref, 0});
  }
  const std::int64_t workers_due_ms = workers_due_at_ms(m);
  if (missing_worker(world, cluster, &answer)) {
    if (workers_due_ms <= world.now_ms) {
      answer.work.push_back({kCreateWorkerPod, answer.ref, 0});
    }
    answer.timers_ms.push_back(workers_due_ms);
  }
  if (answer.head_service && status_due_memoized(version, &*answer.head_service, pod_versions_of(world.api, m))) {
    answer.work.push_back({kStatus, answer.ref, 0});
  }
}

void RayClusterController::apply(const ActorWork& work, StepContext& context) const {
  ObjectRef ref;
  [[maybe_unused]] const bool ok = parse_object_ref(work.object.str(), ref);
  assert(ok && ref.kind == Kind::RayCluster && "rjsim bug: RayCluster work names no cluster");
  LoggedApi api(context, std::string(name()));

  if (work.what == kAddFinalizer) {
    api.patch(Kind::RayCluster, ref.namespace_, ref.name, [](Object& object) {
      meta(object).finalizers.edit().emplace_back(kLingeringDeletionFinalizer);
    });
    return;
  }
  if (work.what == kRemoveFinalizer) {
    api.patch(Kind::RayCluster, ref.namespace_, ref.name, [](Object& object) {
      std::erase(meta(object).finalizers.edit(), std::string(kLingeringDeletionFinalizer));
    });
    return;
  }
  if (work.what == kStatus) {
    const World& world = context.world();
    const RayCluster* cluster = world.api.find<RayCluster>(ref.namespace_, ref.name);
    assert(cluster && "rjsim bug: a status for a cluster that is gone");
    const std::vector<const Pod*> pods = pods_of(pod_versions_of(world.api, cluster->metadata));
    const Service* head_service = world.api.find<Service>(ref.namespace_, head_service_name(*cluster));
    assert(head_service && "rjsim bug: a status write without a head Service");
    RayClusterStatus status = calculate_raycluster_status(*cluster, pods, *head_service, pods_ready(pods, *cluster),
                                                          readiness_, world.now_ms);
    assert(raycluster_status_changed(cluster->status, status, readiness_) && "rjsim bug: a status write not due");
    api.patch_status(Kind::RayCluster, ref.namespace_, ref.name,
                     [&](Object& object) { std::get<RayCluster>(object).status = std::move(status); });
    return;
  }
  if (work.what == kCreateHeadPod || work.what == kCreateWorkerPod) {
    const RayCluster* cluster = context.world().api.find<RayCluster>(ref.namespace_, ref.name);
    assert(cluster && "rjsim bug: a Pod for a cluster that is gone");
    if (work.what == kCreateHeadPod) {
      Object head = pod_for(*cluster, head_pod_name(cluster->metadata), "head", "headgroup",
                            cluster->spec->head_group_spec.template_);
      api.create(head);
      return;
    }
    // Every missing worker Pod in this step, a create each, as one pass of KubeRay's reconcilePods
    // makes them (a step per Pod would multiply the orders exhaustive search tells apart).
    const RayCluster copy = *cluster;   // the creates below change the store `cluster` points into
    while (const std::optional<std::pair<int, int>> missing = missing_worker(context.world(), copy)) {
      const WorkerGroupSpec& group = copy.spec->worker_group_specs[static_cast<std::size_t>(missing->first)];
      Object pod = pod_for(copy, worker_pod_name(copy.metadata, group, missing->second), "worker", group.group_name,
                           worker_template(group));
      api.create(pod);
    }
    return;
  }
  assert(work.what == kCreateHeadService && "rjsim bug: unknown RayCluster controller work");
  const RayCluster* cluster = context.world().api.find<RayCluster>(ref.namespace_, ref.name);
  assert(cluster && "rjsim bug: a head Service for a cluster that is gone");
  Service service;
  service.metadata.name = head_service_name(*cluster);
  service.metadata.namespace_ = ref.namespace_;
  service.metadata.labels = StringMap{{std::string(kRayClusterLabel), ref.name}, {std::string(kRayNodeTypeLabel), "head"}};
  service.metadata.owner_references.edit().push_back(
      OwnerReference{"ray.io/v1", Kind::RayCluster, ref.name, cluster->metadata.uid, true, true});
  service.spec.edit().selector = {{std::string(kRayClusterLabel), ref.name}, {std::string(kRayNodeTypeLabel), "head"}};
  service.spec.edit().ports.push_back(ServicePort{"dashboard", kDashboardPort});
  const RayCluster copy = *cluster;   // the create below changes the store `cluster` points into
  Object object = std::move(service);
  api.create(object);
  if (!context.world().api.find<Pod>(ref.namespace_, head_pod_name(copy.metadata))) {
    Object head = pod_for(copy, head_pod_name(copy.metadata), "head", "headgroup", copy.spec->head_group_spec.template_);
    api.create(head);
  }
}

}  // namespace rjsim::engine
