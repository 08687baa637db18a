// Drives one reconcile of a model against a hand-built world, for tests of each state and branch
// (STYLE.md "Tests of models drive the world to the state, reconcile once, and assert status,
// effects and result"). Objects are written straight to the API server and the caches synced,
// then the model runs once through the same ReconcileContext the Simulation uses.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "engine/ray_dashboard.h"
#include "engine/reconcile_context.h"
#include "engine/simulation.h"
#include "events/event.h"

namespace rjsim::testing {

class ModelHarness {
 public:
  explicit ModelHarness(engine::Controller& model, engine::DashboardBehaviour dashboard = {},
                        engine::RayBehaviour ray = {})
      : model_(model), world(engine::Simulation::initial_world(model)), ray_(std::move(dashboard), std::move(ray)) {}

  // Creates an object as the user would (or updates it when it exists), and syncs the caches.
  template <class T>
  const T& put(T object) {
    const engine::Object wanted = std::move(object);
    const engine::ObjectMeta& m = engine::meta(wanted);
    engine::Object written = wanted;
    if (const engine::Object* stored = world.api.find(engine::kind_of(wanted), m.namespace_, m.name)) {
      engine::meta(written).resource_version = engine::meta(*stored).resource_version;
      world.api.update(written, world.now_ms);
    } else {
      world.api.create(written, world.now_ms);   // the server drops .status on create
    }
    engine::Object with_status = wanted;
    engine::meta(with_status).resource_version = engine::meta(written).resource_version;
    world.api.update_status(with_status, world.now_ms);
    sync();
    return *world.api.find<T>(m.namespace_, m.name);
  }

  // Applies every pending watch event to the caches (a fault-free world between reconciles).
  void sync() {
    for (engine::CopyOnWrite<engine::Informer>& shared : world.process.informers) {
      engine::Informer& informer = shared.edit();
      informer.receive(world.api.watch_log(informer.kind()));
      while (informer.pending_events() > 0) informer.pop(world.api.watch_log(informer.kind()));
    }
  }

  // The fault-free choices, except that every cache read is as stale as faults.max_lag allows
  // (tests that set a lag want the model to see the old cache).
  class StalestReads final : public engine::Chooser {
   public:
    explicit StalestReads(engine::Chooser& otherwise) : otherwise_(otherwise) {}
    std::uint64_t choose(engine::ChoicePoint point, std::uint64_t options) override {
      return point == engine::ChoicePoint::cache_advance ? options - 1 : otherwise_.choose(point, options);
    }

   private:
    engine::Chooser& otherwise_;
  };

  // One reconcile of `name`: its result; its events in `events`. With faults.max_lag > 0 every
  // cache read is as stale as the lag allows.
  engine::ReconcileResult reconcile(const std::string& name, const std::string& namespace_ = "default") {
    engine::StepEvents step_events;
    // `events` gets the reconcile's events also when the model panics (throws).
    struct CopyEvents {
      const engine::StepEvents& from;
      std::vector<events::Event>& to;
      ~CopyEvents() { to.assign(from.view().begin(), from.view().end()); }
    } copy_events{step_events, events};
    std::int64_t seq = 0;
    engine::DefaultChooser fault_free(seed);
    StalestReads stalest(fault_free);
    engine::Chooser& chooser = faults.max_lag > 0 ? static_cast<engine::Chooser&>(stalest) : fault_free;
    const events::EventTypes every_type = events::EventTypes::all();
    engine::StepContext context(world, chooser, seq, step_events, every_type);
    engine::ReconcileContext clients_context(context, watches_, faults, &ray_, &operator_settings);
    engine::Clients clients{clients_context, clients_context, clients_context};
    return model_.reconcile(engine::Request{namespace_, name}, clients);
  }

  template <class T>
  const T* truth(const std::string& name, const std::string& namespace_ = "default") const {
    return world.api.find<T>(namespace_, name);
  }

  // Events of the last reconcile whose type is `type` (and, when given, object).
  std::vector<events::Event> events_of(std::string_view type, std::string_view object = {}) const {
    std::vector<events::Event> matching;
    std::copy_if(events.begin(), events.end(), std::back_inserter(matching), [&](const events::Event& e) {
      return e.type == type && (object.empty() || e.object == object);
    });
    return matching;
  }
  // Writes of the last reconcile (api.* events by the controller that changed something).
  std::vector<std::string> writes() const {
    std::vector<std::string> done;
    for (const events::Event& e : events) {
      if (!e.type.starts_with("api.") || e.actor != "controller") continue;
      const events::Value* outcome = e.find("outcome");
      const bool ok = outcome && std::get<std::string>(*outcome) == "ok";
      done.push_back(e.type.substr(4) + " " + e.object + (ok ? "" : " (failed)"));
    }
    return done;
  }

  engine::Controller& model_;   // first: the world is built from it
  engine::World world;
  engine::FaultBudget faults;
  engine::OperatorSettings operator_settings;   // world.operator: env and feature gates
  std::uint64_t seed = 1;
  std::vector<events::Event> events;
  engine::RayDashboard& ray() { return ray_; }

 private:
  engine::Watches watches_ = model_.watches();
  engine::RayDashboard ray_;
};

}  // namespace rjsim::testing
