// The RayJob controller of KubeRay v1.0.0 (tag v1.0.0, commit 1add258fc):
// ray-operator/controllers/ray/rayjob_controller.go ("RJC"), read beside it step by step.
// No switch: every reconcile runs one pipeline, and Status.JobDeploymentStatus is a label that
// the step which last blocked or failed writes through updateState (the only status writer,
// which writes only when the (JobStatus, JobDeploymentStatus) pair changes). The environment is
// that release's: controller-runtime v0.11.1 and client-go v0.23.0, i.e. the legacy rate-limited
// work queue, DeltaFIFO informers, workers that start once the caches synced, and panics that
// kill the operator (kubernetes-semantics §0.1). Names follow the Go. What it leaves out is
// listed in docs/models.md.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/controller.h"

namespace rjsim::models::kuberay_1_0 {

inline constexpr std::string_view kModelName = "kuberay-1.0";

class RayJobReconciler final : public engine::Controller {
 public:
  std::string_view name() const override { return kModelName; }
  engine::ReleaseEnvironment environment() const override;
  const engine::Watches& watches() const override;
  engine::ReconcileResult reconcile(const engine::Request& request, engine::Clients& clients) override;
  // The persisted deploymentStatus edges of v1.0.0 (reference §3.6, §3.7).
  std::vector<std::pair<std::string, std::string>> transition_table() const override;

 private:
  // The pass's copy of the cached RayJob (the Go gets it into a new RayJob). Kept only so that
  // its strings keep their storage from one pass to the next: each pass overwrites all of it
  // before it reads it, and returns at once when there is none to read.
  engine::RayJob rayjob_;
};

}  // namespace rjsim::models::kuberay_1_0
