// The Ray side of the simulated cluster (kuberay-rayjob §0.4, DESIGN §1 "actors"): every
// RayCluster head runs a dashboard with a job table. A table belongs to one head incarnation: a
// head restart (scenario action headRestart) starts a new, empty one, and the old table is kept
// here only so that the checks can still judge what ran (`table_lost`). A submission id is unique
// per table (a duplicate gets HTTP 500 with a traceback text); an unknown id gets 404 text. A head
// whose RayCluster is gone keeps its table, and its jobs keep running, until its head Pod has
// stopped (a deleted Pod runs until its kubelet stops it: pod_termination.h); its dashboard is
// unreachable meanwhile, as the URL resolves through the cluster's Service to the cluster.
// Jobs move PENDING -> RUNNING -> their result on the timers of `world.ray`; the n-th submission
// of a RayJob (across all tables) takes the n-th entry of `world.ray.results` (the last repeats).
// The state is plain data in World::ray (ray_state.h); RayDashboard is behaviour only: the HTTP endpoints (for
// the controller through ReconcileContext, and for submitter pods) and an Actor for the timers.
// Its listing keeps the RayClusters that are ready and have no live head, found by following
// their watch log (followed_answers.h; issue 30), and looks at those and the live heads, not at
// every cluster; a change of which heads are live asks every cluster again. Whether each live
// head has lost its cluster is kept too, and asked again only for the heads whose cluster the
// RayCluster log names since, or, for a head whose cluster is gone (it reads the Pods), after any
// Pod write.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/actor.h"
#include "engine/dashboard_api.h"
#include "engine/followed_answers.h"
#include "engine/ray_state.h"
#include "engine/scenario_behaviour.h"
#include "engine/watch_log_mark.h"

namespace rjsim::engine {

// Who calls an endpoint: the operator's calls are subject to `world.dashboard.outages`.
enum class DashboardCaller : std::uint8_t { controller, submitter };

class RayDashboard final : public Actor {
 public:
  // `head_ready_after_ms`: from a cluster's creation until its head Pod is Ready
  // (RayClusterBehaviour::head_ready_ms); the head serves once that time has come and its
  // cluster's State is ready, which under v1.0.0's rule may come first.
  RayDashboard(DashboardBehaviour dashboard, RayBehaviour ray, std::int64_t head_ready_after_ms = 0)
      : dashboard_(std::move(dashboard)), ray_(std::move(ray)), head_ready_after_ms_(head_ready_after_ms) {}

  const DashboardBehaviour& behaviour() const { return dashboard_; }

  // The endpoints. Each logs a dashboard.* event with the call and its outcome.
  DashboardResponse get_job_info(StepContext& context, DashboardCaller caller,
                                 std::string_view dashboard_url, std::string_view job_id) const;
  DashboardResponse submit_job(StepContext& context, DashboardCaller caller,
                               std::string_view dashboard_url, const SubmitJobRequest& request) const;
  DashboardResponse stop_job(StepContext& context, DashboardCaller caller,
                             std::string_view dashboard_url, std::string_view job_id) const;
  DashboardResponse delete_job(StepContext& context, DashboardCaller caller,
                               std::string_view dashboard_url, std::string_view job_id) const;

  // Actor: job status changes on their timers; a head comes up when its cluster is ready and its
  // head Pod is Ready.
  std::string_view name() const override { return "ray"; }
  ActorInputs inputs() const override {
    return ActorInputs::objects_of({Kind::RayCluster, Kind::Pod}).and_clock().and_ray_and_environment();
  }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;

  // How many clusters were asked whether they await their head, since the dashboard was made
  // (for tests: a head that comes up asks its cluster only).
  std::size_t cluster_answers_computed() const { return awaiting_head_.computed(); }

  // A head restart of the cluster's live head: a new incarnation with an empty table.
  void restart_head(StepContext& context, std::string_view cluster_namespace,
                    std::string_view cluster_name) const;

 private:
  // A head with a live table, as the listing last found it.
  struct LiveHead {
    int index = 0;                  // in RayState::heads
    std::string cluster_uid;
    std::uint64_t cluster_key = 0;  // KeyIndex::hash_key of its cluster's namespace and name
    SharedString cluster_ref;       // its cluster's object ref, which its work names
    bool cluster_gone = false;      // no RayCluster of its name and uid: whether it is lost reads the Pods
    bool lost = false;              // its cluster gone and its head Pod stopped: kHeadLost is due
  };

  // Brings live_heads_ up to `world`, and appends to `come_or_gone` the cluster keys of the heads
  // that became live or lost their table since the last call (those clusters' head_comes_up may
  // have changed).
  void follow_live_heads(const World& world, std::vector<std::uint64_t>& come_or_gone) const;
  bool same_live_heads(const std::vector<CopyOnWrite<RayHead>>& heads) const;
  // Takes the live heads of `world`'s Ray state, keeping the entries of the heads that stay.
  void take_live_heads(const World& world, std::vector<std::uint64_t>& come_or_gone) const;
  void ask_live_head(const World& world, LiveHead& head) const;
  // The cluster ref of the live head at `index` in RayState::heads.
  const SharedString& live_cluster_ref(int index) const;
  // Whether the cluster is ready and no head of its uid has a live table (live_heads_).
  bool head_comes_up(const RayCluster& cluster) const;
  // The RayClusters head_comes_up() holds for, and the live heads, brought up to `world`.
  // Each answer is the cluster's object ref, which the work names.
  std::span<const FollowedAnswers<SharedString>::Entry> clusters_awaiting_head(const World& world) const;

  // A job of a live table that is not terminal: it moves at its next change.
  struct PendingJob {
    int head = 0;                       // its head's place in RayState::heads
    int work_index = 0;                 // job_work_index of its head and its place in the table
    std::int64_t next_change_at_ms = 0;
  };
  // The pending jobs of `world`'s Ray state, in the order of its heads and tables.
  const std::vector<PendingJob>& pending_jobs(const World& world) const;

  DashboardBehaviour dashboard_;
  RayBehaviour ray_;
  std::int64_t head_ready_after_ms_;
  // The clusters awaiting their head, as of live_heads_.
  mutable FollowedAnswers<SharedString> awaiting_head_;
  // The live heads, in the order of RayState::heads, as of the Ray state whose serial is
  // live_heads_ray_serial_ (copy_on_write.h) and of the RayCluster and Pod logs where the marks
  // stand (watch_log_mark.h). A cache, as awaiting_head_ is.
  mutable std::vector<LiveHead> live_heads_;
  mutable std::vector<LiveHead> live_heads_before_;   // take_live_heads()', kept for its buffer
  mutable std::uint64_t live_heads_ray_serial_ = 0;
  mutable WatchLogMark live_heads_cluster_log_;
  mutable WatchLogMark live_heads_pod_log_;
  mutable std::vector<std::uint64_t> heads_come_or_gone_;   // clusters_awaiting_head's buffer
  // The pending jobs of the Ray state whose serial is pending_jobs_ray_serial_ (copy_on_write.h: a
  // serial names one value). A cache, as awaiting_head_ is: a listing is asked again after any
  // write to a Pod or a RayCluster, most of which leave the Ray state as it was.
  mutable std::vector<PendingJob> pending_jobs_;
  mutable std::optional<std::uint64_t> pending_jobs_ray_serial_;
};

}  // namespace rjsim::engine
