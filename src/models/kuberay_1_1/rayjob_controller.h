// The RayJob controller of KubeRay v1.1.0 (tag v1.1.0, commit 8adc5387c):
// ray-operator/controllers/ray/rayjob_controller.go ("RJC"), read beside it branch by branch.
// A switch on Status.JobDeploymentStatus with one status write at the end of the pass
// (updateRayJobStatus, written only when JobStatus or JobDeploymentStatus changed), in the
// environment that release ran in: controller-runtime v0.16.3 and client-go v0.28.4, i.e. the
// legacy rate-limited work queue, DeltaFIFO informers, workers that start once the caches synced,
// and panics that kill the operator (kubernetes-semantics §0.1). Names follow the Go.
// What it leaves out is listed in docs/models.md.
#pragma once

#include <string>

#include "engine/controller.h"
#include "models/kuberay_1_1/dashboard_client.h"

namespace rjsim::models::kuberay_1_1 {

inline constexpr std::string_view kModelName = "kuberay-1.1";

class RayJobReconciler final : public engine::Controller {
 public:
  std::string_view name() const override { return kModelName; }
  engine::ReleaseEnvironment environment() const override;
  const engine::Watches& watches() const override;
  engine::ReconcileResult reconcile(const engine::Request& request, engine::Clients& clients) override;
  // The persisted deploymentStatus edges of v1.1.0 (reference §2.8).
  std::vector<std::pair<std::string, std::string>> transition_table() const override;

 private:
  // The pass's copy of the cached RayJob (the Go gets it into a new RayJob). Kept only so that
  // its strings keep their storage from one pass to the next: each pass overwrites all of it
  // before it reads it, and returns at once when there is none to read.
  engine::RayJob rayjob_;
};

// Helpers whose Go is the same at v1.1.0 and v1.7.0, so kuberay_1_7 uses them too (STYLE.md).
// updateStatusToSuspendingIfNeeded (RJC:L668-685 at v1.1.0, L1043-1060 at v1.7.0): only
// Initializing and Running may become Suspending.
bool update_status_to_suspending_if_needed(engine::RayJob& rayjob);

}  // namespace rjsim::models::kuberay_1_1
