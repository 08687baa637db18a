// The RayCluster controller as the RayJob controller sees it (DESIGN §1 actors; kuberay-rayjob
// §2.6), acting on the API server's truth, one write per step:
//  - each RayCluster gets its head Service "<cluster>-head-svc" (or
//    spec.headGroupSpec.headServiceName), controller-owned by the cluster, with the port
//    {dashboard, 8265}; it is created once no Service of that name exists (an old cluster's
//    Service waits for the garbage collector);
//  - every RayCluster gets one head Pod "<cluster>-head" at once (labels ray.io/cluster,
//    ray.io/node-type=head, ray.io/group=headgroup, controller-owned by the cluster) with the head
//    template's containers, never re-created (a SidecarMode cluster is annotated
//    ray.io/disable-provisioned-head-restart; the submitter actor runs its sidecar), and one Pod
//    "<cluster>-<group>-worker-<i>" per replica of each worker group (ray.io/node-type=worker),
//    all created in one step at readyAfter: before then no worker Pod is listed, the case reference §2.6 names
//    ("a cluster whose worker Pods have not been created yet can already be ready"). KubeRay names
//    workers with a random suffix; an index keeps the names free of decisions;
//  - the status is written (one status patch) whenever what the release's calculateStatus makes of
//    the cluster's Pods and head Service differs from the stored status in a field the release
//    compares (raycluster_status.h: worker counts, endpoints, head Pod and Service, v1.7.0's
//    conditions); status.state becomes "ready" when the release's rule holds for the Pods as the
//    API lists them (RayClusterReadiness): v1.0.0 every listed Pod Running, v1.1.0 every listed Pod
//    Running with PodReady True, v1.7.0 that for desired workers + 1 Pods. No status is written
//    before the head Service exists (KubeRay's updateHeadInfo fails) or once the cluster is being
//    deleted. The kubelet moves the Pods along world.rayCluster's timeline (kubelet.h);
//  - with `world.rayCluster.deletionTakes` > 0 each cluster carries the finalizer
//    "rjsim.dev/lingering-deletion" from when it is first seen, removed once
//    deletionTimestamp + deletionTakes has passed: a deleted cluster lingers that long.
// The listing (enabled, next_timer_ms) is computed per cluster and kept: a step computes again
// only the answers of the clusters whose objects it changed (issue 30), and the listing is the
// same as a walk of every cluster would give, in the same order. When the RayCluster, Service
// and Pod logs continue those of the last listing and no cluster came or went, a listing looks
// only at the answers the writes since name (the cluster, its head Service, its Pods, a Pod it
// looked up by name) or whose time window the clock left: with twenty clusters a step that
// writes one Pod checks one answer, not twenty.
// Deliberate omissions: State never becomes unhealthy or failed and never leaves ready (the RayJob
// controllers read only State, and only before DashboardURL is known); it becomes suspended only
// for a suspended cluster without Pods, and the controller deletes no Pods for a suspension
// (suspended worker groups keep theirs too); a Pod that goes is not re-created.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/actor.h"
#include "engine/object_version.h"
#include "engine/scenario_behaviour.h"
#include "engine/watch_log_mark.h"

namespace rjsim::engine {

inline constexpr std::string_view kLingeringDeletionFinalizer = "rjsim.dev/lingering-deletion";
inline constexpr int kDashboardPort = 8265;
inline constexpr std::string_view kSubmitterSidecarName = "ray-job-submitter";

// Whether the cluster's head template carries the RayJob submitter sidecar (SidecarMode).
bool has_submitter_sidecar(const RayCluster& cluster);

// The name of a cluster's head Service (KubeRay GenerateHeadServiceName).
std::string head_service_name(const RayCluster& cluster);

class RayClusterController final : public Actor {
 public:
  RayClusterController(RayClusterBehaviour behaviour, RayClusterReadiness readiness, Latency latency = {})
      : behaviour_(behaviour), readiness_(readiness), latency_(latency) {}

  std::string_view name() const override { return "raycluster-controller"; }
  ActorInputs inputs() const override {
    return ActorInputs::objects_of({Kind::RayCluster, Kind::Service, Kind::Pod}).and_clock();
  }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

  // How many clusters' answers were computed rather than kept, since the controller was made
  // (for tests: a change to one cluster recomputes that one only).
  std::size_t cluster_answers_computed() const { return cluster_answers_computed_; }
  // How many kept answers listings looked at (for tests: a write to one cluster looks at that
  // one only).
  std::size_t cluster_answers_checked() const { return cluster_answers_checked_; }

 private:
  // One cluster's share of enabled() and next_timer_ms(), and what it was computed from: it
  // holds while the cluster's version, its head Service (or its absence), the Pods labelled with
  // its name and, when it saw a Pod missing by name, which Pods exist are those it was computed
  // for, and the clock stays within [valid_from_ms, valid_until_ms), between the cluster's own
  // timers. Each part is compared by identity (write_stamps.h), which holds across runs.
  struct ClusterAnswer {
    ObjectVersion cluster;
    std::uint64_t key_hash = 0;                  // KeyIndex::hash_key of the cluster
    std::string head_service_name;
    std::uint64_t head_service_key_hash = 0;     // KeyIndex::hash_key of its head Service
    std::optional<ObjectVersion> head_service;   // none: missing
    ObjectVersion services_stamp;                // the last Service write when computed
    std::uint64_t pod_group = 0;                 // the hash of (namespace, name) its Pods' stamp is under
    std::optional<ObjectVersion> pods_stamp;     // the last write of its Pods (none: never written)
    bool reads_pod_absence = false;              // a Pod looked up by name was missing or not its own
    ObjectVersion pod_existence_stamp;           // the last Pod create or delete it holds after
    std::vector<std::uint64_t> looked_up_pods;   // the key hashes of the Pods it looked up by name
    std::int64_t valid_from_ms = 0;
    std::int64_t valid_until_ms = 0;
    SharedString ref;                            // the cluster's object ref, which its work names
    std::vector<ActorWork> work;
    std::vector<std::int64_t> timers_ms;         // what next_timer_ms considers for it
  };

  // What a listing reads of one kept answer to tell whether the writes since the last listing or
  // the clock name it (follow_writes), and whether it lists anything: the answers' keys side by
  // side, so that a listing that checks none touches little memory.
  struct ListedCluster {
    std::uint64_t key_hash = 0;
    std::uint64_t head_service_key_hash = 0;
    std::uint64_t pod_group = 0;
    std::int64_t valid_from_ms = 0;
    std::int64_t valid_until_ms = 0;
    bool reads_pod_absence = false;
    bool has_work = false;
    bool has_timers = false;
  };

  // Brings the kept answers up to `world`, and listed_ with them (enabled and next_timer_ms both
  // start with it): only the answers the writes since the last listing name, when the logs
  // continue (follow_writes, after follow_clusters_come_or_gone when clusters came or went);
  // every cluster's otherwise.
  void follow(const World& world) const;
  // The kept answers and listed_ brought to the store's clusters, in its order, when
  // `cluster_events` (those since the last listing) created or deleted some: the answers of the
  // clusters gone become spares, a new cluster gets one valid at no time, which follow_writes
  // then computes, and every other cluster keeps its own.
  void follow_clusters_come_or_gone(const World& world, std::span<const WatchEvent> cluster_events) const;
  // The place in listed_ of the cluster `m` whose key hashes to `key_hash`, or listed_.size().
  std::size_t listed_place(std::uint64_t key_hash, const ObjectMeta& m) const;
  // The answers of the clusters the writes since the last listing name (its cluster, head Service
  // or Pods written, or a Pod it looked up by name created or deleted) or whose time window `now`
  // left, computed again. `pods_followed_through`: the write serial the Pod log was followed to.
  void follow_writes(const World& world, std::span<const WatchEvent> cluster_events,
                     std::span<const WatchEvent> service_events, std::uint64_t pods_followed_through) const;
  // Every cluster's answer checked (answer_for), in the API server's order.
  void check_every_cluster(const World& world) const;
  // listed_ and the clock bounds, from the first `clusters` kept answers.
  void note_listing(std::size_t clusters) const;

  // The cluster's answer for `world`: kept when it still holds, else computed. `place`: where the
  // cluster stands in the API server's list, where its answer is looked for first.
  const ClusterAnswer& answer_for(const World& world, const ObjectVersion& cluster, std::size_t place) const;
  // The kept answer for `cluster`'s name moved to `place` (a new one when none is kept).
  ClusterAnswer& answer_slot(const ObjectVersion& cluster, std::size_t place) const;
  // Whether `answer` holds for `world`; a Service write that left its head Service alone, or a
  // Pod create or delete that named none of the Pods it looked up, moves its stamp on, so that
  // the next listing need not look again.
  bool still_holds(ClusterAnswer& answer, const World& world) const;
  // Reads the Pod creates and deletes since the last listing (pods_come_or_gone_), when the Pod
  // log continues the one the last listing read; called at the start of each listing.
  void follow_pod_existence(const World& world) const;
  // Whether the Pod creates and deletes since the last listing are known and name none of the
  // Pods `answer` looked up by name.
  bool pod_existence_kept(const ClusterAnswer& answer) const;
  void compute_answer(const World& world, const ObjectVersion& cluster, ClusterAnswer& answer) const;
  // When the cluster's worker Pods are due: readyAfter after its creation.
  std::int64_t workers_due_at_ms(const ObjectMeta& cluster) const {
    return cluster.creation_timestamp_ms + behaviour_.ready_after_ms;
  }
  // The work of a cluster not being deleted, appended to answer.work.
  void add_live_cluster_work(const World& world, const ObjectVersion& version, ClusterAnswer& answer) const;

  // The first worker Pod of the cluster not created yet: (group index, replica index). With an
  // `answer`, notes in it each Pod it looked up (note_pod_lookup).
  std::optional<std::pair<int, int>> missing_worker(const World& world, const RayCluster& cluster,
                                                    ClusterAnswer* answer = nullptr) const;
  // `pods`: the cluster's Pods as the API lists them.
  bool pods_ready(const std::vector<const Pod*>& pods, const RayCluster& cluster) const;
  // Whether the release's RayCluster controller would write the cluster's status now: what its
  // calculateStatus makes differs from the stored status in what that release compares
  // (raycluster_status.h). Asked of every cluster at every listing, so nothing is built.
  // `head_service`: the cluster's head Service as the listing found it, or null.
  bool status_due(const RayCluster& cluster, const Service* head_service, const std::vector<const Pod*>& pods) const;

  // status_due with a memo: the answer for these versions of the cluster, its head Service and
  // its Pods when the memo has them, else computed and remembered.
  // `head_service`: the cluster's head Service as the API server holds it (not null).
  bool status_due_memoized(const ObjectVersion& cluster, const ObjectVersion* head_service,
                           const std::vector<const ObjectVersion*>& pods) const;

  RayClusterBehaviour behaviour_;
  RayClusterReadiness readiness_;
  Latency latency_;
  // What status_due answered, per cluster, for the versions it was asked about. A pure function's
  // cache, not state: the versions are immutable and held here, so the same versions always give
  // the same answer, and a listing of 20 clusters asks again only of those a step changed. An
  // actor belongs to one runner, which one thread uses (explore::ScenarioRunner).
  struct StatusMemo {
    ObjectVersion cluster;
    std::optional<ObjectVersion> head_service;
    std::vector<ObjectVersion> pods;
    bool due = false;
  };
  mutable std::vector<StatusMemo> status_memo_;
  // Beside each entry, KeyIndex::hash_key of its cluster's namespace and name.
  mutable std::vector<std::uint64_t> status_memo_key_hashes_;
  mutable std::size_t status_memo_oldest_ = 0;   // once full, the entry the next new cluster overwrites
  // The place of the entry of the cluster `m` whose key hashes to `key_hash`, or the memo's size.
  std::size_t status_memo_find(std::uint64_t key_hash, const ObjectMeta& m) const;
  // The place a cluster new to the memo goes in: a new entry, or the oldest once full.
  std::size_t status_memo_place() const;
  // Whether `memo` was computed from these very versions.
  static bool same_inputs(const StatusMemo& memo, const ObjectVersion& cluster, const ObjectVersion* head_service,
                          const std::vector<const ObjectVersion*>& pods);
  // The clusters' answers, one per cluster name, kept in the order of the last listing (a cache
  // as status_memo_ is: each answer holds what it was computed from).
  // Each answer on the heap, so that a cluster that comes or goes moves pointers, not answers.
  mutable std::vector<std::unique_ptr<ClusterAnswer>> cluster_answers_;
  // Where the last listing stopped in the Pod log, and the key hashes of the Pods created or
  // deleted since, when the log continued (pod_existence_followed_). Every listing checks every
  // kept answer against the creates and deletes since the one before (follow_writes names those
  // that looked such a Pod up; check_every_cluster asks still_holds), so the events after the
  // mark are every create and delete a kept answer has not been checked against.
  mutable WatchLogMark pod_log_mark_;
  mutable std::vector<std::uint64_t> pods_come_or_gone_;
  mutable bool pod_existence_followed_ = false;
  // Where the last listing stopped in the RayCluster and Service logs.
  mutable WatchLogMark cluster_log_mark_;
  mutable WatchLogMark service_log_mark_;
  // The first listed_.size() kept answers are those of the clusters of the last listing's world,
  // in its order (when listing_kept_), and listed_ holds their keys: valid while the logs continue
  // that world's.
  mutable bool listing_kept_ = false;
  mutable std::vector<ListedCluster> listed_;
  mutable std::int64_t latest_valid_from_ms_ = 0;     // over listed_: the clock may stay in
  mutable std::int64_t earliest_valid_until_ms_ = 0;  // [latest from, earliest until) unchecked
  mutable std::vector<char> due_;                     // follow_writes' buffer: the answers named
  mutable std::vector<std::size_t> created_places_;   // follow_clusters_come_or_gone's buffer
  mutable std::string ref_scratch_;                   // compute_answer's buffer for a cluster's ref
  mutable std::size_t cluster_answers_computed_ = 0;
  mutable std::size_t cluster_answers_checked_ = 0;
};

}  // namespace rjsim::engine
