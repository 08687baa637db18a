// The RayJob controller of KubeRay v1.7.0 (tag v1.7.0): ray-operator/controllers/ray/
// rayjob_controller.go ("RJC"), read beside it branch by branch. A switch on
// Status.JobDeploymentStatus with two status writes (validation failure, end of the switch), the
// New/Initializing/Waiting/Running/Suspending/Retrying/Suspended/Complete/Failed states, retry
// accounting (backoffLimit), deadlines, the deletion strategies, four submission modes and the
// RayJob head Service; in the environment that release ran in: controller-runtime v0.24.1 and
// client-go v0.36.0 (priority work queue, RealFIFO informers, workers that wait for the initial
// list's handlers, panics recovered as errors; kubernetes-semantics §0.1). It reads the operator's
// env and feature gates through Runtime (scenario `world.operator`). What it leaves out is listed
// in docs/models.md.
#pragma once

#include <string>

#include "engine/controller.h"

namespace rjsim::models::kuberay_1_7 {

inline constexpr std::string_view kModelName = "kuberay-1.7";
// Finding 001 (docs/findings/001-submitter-timeout-after-outage.md): v1.7.0 with one change, the
// submitter-finished timeout applied only after GetJobInfo, and only when Ray's answer is not
// terminal or Ray cannot be reached.
inline constexpr std::string_view kRayBeforeSubmitterTimeoutName = "kuberay-1.7+ray-before-submitter-timeout";

// Finding 002 (docs/findings/002-suspended-before-cluster-cached.md): v1.7.0 with one change,
// deleteClusterResources and deleteSubmitterJob confirm a cache NotFound with an uncached read
// (the manager's API reader) before they report the object deleted.
inline constexpr std::string_view kApiReaderConfirmsDeletionName = "kuberay-1.7+api-reader-confirms-deletion";

// Finding 003 (docs/findings/003-suspended-while-pods-run.md): v1.7.0 with one change, Suspending
// and Retrying persist their next state only once the API server holds no Pod of the RayCluster or
// of the submitter Job (an uncached List through the manager's API reader).
inline constexpr std::string_view kWaitForPodsDeletedName = "kuberay-1.7+wait-for-pods-deleted";

// The proposed fixes a variant of the model carries (none: v1.7.0 as released).
struct Fixes {
  bool ray_before_submitter_timeout = false;
  bool api_reader_confirms_deletion = false;
  bool wait_for_pods_deleted = false;
};

class RayJobReconciler final : public engine::Controller {
 public:
  RayJobReconciler() = default;
  explicit RayJobReconciler(Fixes fixes) : fixes_(fixes) {}
  std::string_view name() const override {
    if (fixes_.ray_before_submitter_timeout) return kRayBeforeSubmitterTimeoutName;
    if (fixes_.api_reader_confirms_deletion) return kApiReaderConfirmsDeletionName;
    if (fixes_.wait_for_pods_deleted) return kWaitForPodsDeletedName;
    return kModelName;
  }
  engine::ReleaseEnvironment environment() const override;
  const engine::Watches& watches() const override;
  engine::ReconcileResult reconcile(const engine::Request& request, engine::Clients& clients) override;
  // The persisted deploymentStatus edges of v1.7.0 (reference §1.13).
  std::vector<std::pair<std::string, std::string>> transition_table() const override;

 private:
  // The pass's copy of the cached RayJob (the Go gets it into a new RayJob). Kept only so that
  // its strings keep their storage from one pass to the next: each pass overwrites all of it
  // before it reads it, and returns at once when there is none to read.
  engine::RayJob rayjob_;
  Fixes fixes_;
};

}  // namespace rjsim::models::kuberay_1_7
