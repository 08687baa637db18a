// A controller that watches nothing and reconciles nothing, on the kuberay-1.7 queue and FIFO:
// enough to run a Simulation's actors, and `named`, an object of a kind with a name in the
// "default" namespace. For the tests of the actors and of time.
#pragma once

#include <string>
#include <string_view>

#include "engine/controller.h"
#include "engine/objects.h"
#include "lambda_controller.h"

namespace rjsim::testing {

class IdleController final : public engine::Controller {
 public:
  std::string_view name() const override { return "idle"; }
  engine::ReleaseEnvironment environment() const override { return modern_environment(); }
  const engine::Watches& watches() const override {
    static const engine::Watches none;
    return none;
  }
  engine::ReconcileResult reconcile(const engine::Request&, engine::Clients&) override {
    return engine::ReconcileResult::done();
  }
};

template <class T>
engine::Object named(std::string_view name, std::string_view namespace_ = "default") {
  T typed;
  typed.metadata.name = std::string(name);
  typed.metadata.namespace_ = std::string(namespace_);
  return typed;
}

}  // namespace rjsim::testing
