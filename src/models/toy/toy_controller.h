// A toy controller and its one-actor environment, for the kernel's demo and integration tests:
// not a KubeRay release. For each RayJob it persists a cluster name with a random suffix and
// Initializing, creates one RayCluster it owns, waits (RequeueAfter 3 s) until the cluster is
// ready, and persists Running. Its first status write deliberately uses the copy it read before
// its own metadata update, so that it meets a 409 Conflict the way KubeRay's early bugs did; its
// cluster create and status write in one reconcile give two events for one key (a squash).
#pragma once

#include "engine/actor.h"
#include "engine/controller.h"

namespace rjsim::models::toy {

inline constexpr const char* kSeenLabel = "toy.rjsim.dev/seen";

class ToyController final : public engine::Controller {
 public:
  explicit ToyController(engine::ReleaseEnvironment environment = {}) : environment_(environment) {}

  std::string_view name() const override { return "kernel-toy"; }
  engine::ReleaseEnvironment environment() const override { return environment_; }
  const engine::Watches& watches() const override;
  engine::ReconcileResult reconcile(const engine::Request& request, engine::Clients& clients) override;

 private:
  engine::ReconcileResult reconcile_new(engine::RayJob& rayjob, engine::Clients& clients);
  engine::ReconcileResult reconcile_initializing(engine::RayJob& rayjob, engine::Clients& clients);

  engine::ReleaseEnvironment environment_;
};

// Marks each RayCluster ready `ready_after_ms` after its creation (one status write each).
class ToyClusterReadiness final : public engine::Actor {
 public:
  explicit ToyClusterReadiness(std::int64_t ready_after_ms = 10'000) : ready_after_ms_(ready_after_ms) {}

  std::string_view name() const override { return "raycluster-controller"; }
  void enabled(const engine::World& world, std::vector<engine::ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const engine::World& world) const override;
  void apply(const engine::ActorWork& work, engine::StepContext& context) const override;

 private:
  std::int64_t ready_after_ms_;
};

// A RayJob for the toy: name and namespace, nothing else.
engine::RayJob toy_rayjob(std::string name, std::string namespace_ = "default");

}  // namespace rjsim::models::toy
