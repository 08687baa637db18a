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
// every cluster; a change of the Ray state asks every cluster again.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/actor.h"
#include "engine/dashboard_api.h"
#include "engine/followed_answers.h"
#include "engine/ray_state.h"
#include "engine/scenario_behaviour.h"

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

  // A head restart of the cluster's live head: a new incarnation with an empty table.
  void restart_head(StepContext& context, std::string_view cluster_namespace,
                    std::string_view cluster_name) const;

 private:
  // Whether the cluster is ready and no head of its uid has a live table.
  bool head_comes_up(const World& world, const RayCluster& cluster) const;
  // The RayClusters head_comes_up() holds for, brought up to `world`.
  std::span<const FollowedAnswers<bool>::Entry> clusters_awaiting_head(const World& world) const;

  DashboardBehaviour dashboard_;
  RayBehaviour ray_;
  std::int64_t head_ready_after_ms_;
  // The clusters awaiting their head, as of ray_state_ (shares compared, copy_on_write.h).
  mutable FollowedAnswers<bool> awaiting_head_;
  mutable CopyOnWrite<RayState> ray_state_;
};

}  // namespace rjsim::engine
