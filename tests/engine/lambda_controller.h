// A controller whose reconcile is a lambda, for tests that need one precise behaviour.
#pragma once

#include <functional>
#include <utility>

#include "engine/controller.h"

namespace rjsim::testing {

class LambdaController final : public engine::Controller {
 public:
  using Body = std::function<engine::ReconcileResult(const engine::Request&, engine::Clients&)>;

  LambdaController(Body body, engine::ReleaseEnvironment environment = {},
                   std::vector<engine::Kind> owns = {engine::Kind::RayCluster})
      : body_(std::move(body)), environment_(environment) {
    watches_.owns = std::move(owns);
  }

  std::string_view name() const override { return "test-lambda"; }
  engine::ReleaseEnvironment environment() const override { return environment_; }
  const engine::Watches& watches() const override { return watches_; }
  engine::ReconcileResult reconcile(const engine::Request& request, engine::Clients& clients) override {
    ++reconciles;
    return body_(request, clients);
  }

  // The cache's label selectors (Watches::cache_selectors), set before the simulation is built.
  void select_in_cache(engine::Kind kind, engine::LabelSelector selector) {
    watches_.cache_selectors.emplace_back(kind, std::move(selector));
  }

  int reconciles = 0;

 private:
  Body body_;
  engine::ReleaseEnvironment environment_;
  engine::Watches watches_;
};

// The environment of KubeRay 1.7's release (priority queue, RealFIFO, panics recovered).
inline engine::ReleaseEnvironment modern_environment() {
  engine::ReleaseEnvironment environment;
  environment.queue = engine::QueueBehaviour::priority;
  environment.fifo = engine::FifoBehaviour::real_fifo;
  environment.workers_wait_for_handlers = true;
  environment.panic_kills_process = false;
  return environment;
}

}  // namespace rjsim::testing
