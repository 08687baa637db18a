// Reactions take time (DESIGN §1.1): an actor's work is done no sooner than its latency's min
// after it became possible, virtual time may pass while it waits only under faults.latency, and
// never past its max; a crashed controller restarts within the operator-restart latency.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chooser.h"
#include "engine/controller.h"
#include "engine/garbage_collector.h"
#include "engine/simulation.h"
#include "idle_controller.h"
#include "lambda_controller.h"
#include "events/event.h"

namespace latency_test {
namespace {

using rjsim::engine::ApiServer;
using rjsim::engine::ChoicePoint;
using rjsim::engine::Chooser;
using rjsim::engine::Clients;
using rjsim::engine::Controller;
using rjsim::engine::FaultBudget;
using rjsim::engine::FifoBehaviour;
using rjsim::engine::GarbageCollector;
using rjsim::engine::Kind;
using rjsim::engine::Latency;
using rjsim::engine::meta;
using rjsim::engine::Object;
using rjsim::engine::OwnerReference;
using rjsim::engine::Propagation;
using rjsim::engine::QueueBehaviour;
using rjsim::engine::RayCluster;
using rjsim::engine::RayJob;
using rjsim::engine::ReconcileResult;
using rjsim::engine::ReleaseEnvironment;
using rjsim::engine::Request;
using rjsim::engine::RunEnd;
using rjsim::engine::Simulation;
using rjsim::engine::Step;
using rjsim::engine::StepContext;
using rjsim::engine::StepKind;
using rjsim::engine::StepOption;
using rjsim::engine::Watches;
using rjsim::testing::IdleController;
using rjsim::testing::LambdaController;
using rjsim::testing::modern_environment;
using rjsim::testing::named;

constexpr std::string_view kNamespace = "default";

// Picks the clock whenever it is offered, else the first step: the schedule that lets every
// reaction wait as long as it may.
class ClockFirstChooser final : public Chooser {
 public:
  std::uint64_t choose(ChoicePoint, std::uint64_t) override { return 0; }
  std::uint64_t choose_step(std::span<const StepOption> steps) override {
    const auto clock = std::find_if(steps.begin(), steps.end(),
                                    [](const StepOption& step) { return step.kind == StepKind::clock; });
    return clock == steps.end() ? 0 : static_cast<std::uint64_t>(clock - steps.begin());
  }
};

// A RayJob and a RayCluster it owns, in `simulation`'s API server at time 0.
void create_owner_and_dependent(Simulation& simulation) {
  ApiServer& api = simulation.mutable_world().api;
  Object owner = named<RayJob>("job");
  REQUIRE(!api.create(owner, 0).error);
  Object dependent = named<RayCluster>("cluster");
  OwnerReference ref;
  ref.kind = Kind::RayJob;
  ref.name = "job";
  ref.uid = meta(owner).uid;
  ref.controller = true;
  meta(dependent).owner_references.edit().push_back(ref);
  REQUIRE(!api.create(dependent, 0).error);
}

// Deletes the owner, then runs the steps that are not reactions (the informer's deliveries).
void delete_owner(Simulation& simulation) {
  simulation.run_as_step([](StepContext& context) {
    REQUIRE(!context.world().api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, 0).error);
  });
  while (true) {
    const std::vector<Step> steps = simulation.enabled_steps();
    if (steps.empty() || steps.front().kind == StepKind::actor || steps.front().kind == StepKind::clock) return;
    REQUIRE(simulation.step());
  }
}

// When the garbage collector deleted the dependent, if it did.
std::optional<std::int64_t> gc_delete_at(const rjsim::events::MemorySink& sink) {
  for (const rjsim::events::Event& event : sink.events) {
    if (event.type == "api.delete" && event.actor == "gc" && event.object == "RayCluster/default/cluster") {
      return event.at_ms;
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> clock_offer(const std::vector<Step>& steps) {
  for (const Step& step : steps) {
    if (step.kind == StepKind::clock) return step.clock_to_ms;
  }
  return std::nullopt;
}


// Lets time pass whenever it may, else runs anything before a delivery, and reads caches as
// stale as allowed: the schedule that holds watch deliveries longest.
class HoldDeliveriesChooser final : public Chooser {
 public:
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    return point == ChoicePoint::cache_advance ? options - 1 : 0;
  }
  std::uint64_t choose_step(std::span<const StepOption> steps) override {
    for (const StepKind preferred : {StepKind::clock, StepKind::timers, StepKind::notify, StepKind::reconcile}) {
      const auto found = std::find_if(steps.begin(), steps.end(),
                                      [&](const StepOption& step) { return step.kind == preferred; });
      if (found != steps.end()) return static_cast<std::uint64_t>(found - steps.begin());
    }
    return 0;
  }
};

// A controller that reads its RayJob's "version" label each reconcile and polls every `poll_ms`.
LambdaController label_reader(std::vector<std::string>& seen, std::int64_t poll_ms) {
  return LambdaController(
      [&seen, poll_ms](const Request& request, Clients& clients) {
        rjsim::engine::Error error;
        const Object* rayjob = clients.kube.read(Kind::RayJob, request.namespace_, request.name, error);
        seen.push_back(rayjob ? meta(*rayjob).labels->at("version") : "gone");
        return ReconcileResult::requeue_after(poll_ms);
      },
      modern_environment(), {});
}

// Writes the RayJob "job" with label version=`version` at the current virtual time.
void write_rayjob(Simulation& simulation, const std::string& version) {
  simulation.run_as_step([&](StepContext& context) {
    ApiServer& api = context.world().api;
    const std::int64_t now = context.world().now_ms;
    if (api.find(Kind::RayJob, kNamespace, "job") == nullptr) {
      Object rayjob = named<RayJob>("job");
      meta(rayjob).labels.edit()["version"] = version;
      REQUIRE(!api.create(rayjob, now).error);
      return;
    }
    REQUIRE(!api.patch(Kind::RayJob, kNamespace, "job", [&](Object& o) { meta(o).labels.edit()["version"] = version; }, now)
                 .error);
  });
}

// Runs steps until nothing but the clock (or nothing) is offered.
void settle(Simulation& simulation) {
  while (true) {
    const std::vector<Step> steps = simulation.enabled_steps();
    if (steps.empty() || clock_offer(steps)) return;
    REQUIRE(simulation.step());
  }
}

}  // namespace

TEST_SUITE("latency") {

TEST_CASE("without faults.latency a reaction comes at its min: at once by default, min later when set") {
  for (const std::int64_t min_ms : {std::int64_t{0}, std::int64_t{3'000}}) {
    CAPTURE(min_ms);
    IdleController controller;
    GarbageCollector gc(Latency{min_ms, 5'000});
    ClockFirstChooser chooser;   // even a schedule that would let time pass may not
    rjsim::events::MemorySink sink;
    Simulation simulation(Simulation::initial_world(controller), controller, {&gc}, chooser, sink);
    create_owner_and_dependent(simulation);
    delete_owner(simulation);

    CHECK(simulation.run() == RunEnd::quiescent);
    CHECK(gc_delete_at(sink) == min_ms);
  }
}

TEST_CASE("with faults.latency time may pass while a reaction waits, up to its max and no further") {
  IdleController controller;
  GarbageCollector gc(Latency{1'000, 2'000});
  ClockFirstChooser chooser;
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.latency = true;
  Simulation simulation(Simulation::initial_world(controller), controller, {&gc}, chooser, sink, faults);
  create_owner_and_dependent(simulation);
  delete_owner(simulation);

  // Before its min the work is not offered; the clock goes to the min.
  std::vector<Step> steps = simulation.enabled_steps();
  REQUIRE(steps.size() == 1);
  CHECK(clock_offer(steps) == 1'000);
  REQUIRE(simulation.step());
  // Between min and max: the work, and the clock up to the max.
  steps = simulation.enabled_steps();
  CHECK(steps.size() == 2);
  CHECK(steps.front().kind == StepKind::actor);
  CHECK(clock_offer(steps) == 2'000);
  REQUIRE(simulation.step());
  // At the max: the work alone; time may not pass it.
  steps = simulation.enabled_steps();
  REQUIRE(steps.size() == 1);
  CHECK(steps.front().kind == StepKind::actor);
  CHECK(simulation.run() == RunEnd::quiescent);
  CHECK(gc_delete_at(sink) == 2'000);
}

TEST_CASE("a reaction's wait starts when its work became possible, and ends when the work is gone") {
  IdleController controller;
  GarbageCollector gc(Latency{1'000, 1'000});
  ClockFirstChooser chooser;
  rjsim::events::MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {&gc}, chooser, sink);
  create_owner_and_dependent(simulation);
  simulation.run_as_step([](StepContext& context) { context.world().now_ms = 5'000; });
  delete_owner(simulation);   // at 5 s

  REQUIRE(simulation.step());   // the clock to 6 s
  CHECK(simulation.world().now_ms == 6'000);
  CHECK(simulation.world().reactions.size() == 1);
  CHECK(simulation.world().reactions.front().since_ms == 5'000);
  CHECK(simulation.run() == RunEnd::quiescent);
  CHECK(gc_delete_at(sink) == 6'000);
  CHECK(simulation.world().reactions.empty());
}

TEST_CASE("a crashed controller restarts within the operator-restart latency: at its min by default, "
          "at any time up to its max with faults.latency") {
  for (const bool latency : {false, true}) {
    CAPTURE(latency);
    IdleController controller;
    ClockFirstChooser chooser;
    rjsim::events::MemorySink sink;
    FaultBudget faults;
    faults.latency = latency;
    Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
    simulation.set_operator_restart(Latency{15'000, 60'000});
    simulation.inject_crash();

    CHECK(simulation.world().process.restart_at_ms == 15'000);
    CHECK(simulation.run() == RunEnd::quiescent);
    CHECK(simulation.world().process.up);
    const auto restart = std::find_if(sink.events.begin(), sink.events.end(),
                                      [](const auto& event) { return event.type == "process.restart"; });
    REQUIRE(restart != sink.events.end());
    CHECK(restart->at_ms == (latency ? 60'000 : 15'000));
  }
}


TEST_CASE("a held watch delivery waits no longer than world.latency.watch after its write: time may not pass it") {
  std::vector<std::string> seen;
  LambdaController controller = label_reader(seen, 10'000);
  HoldDeliveriesChooser chooser;
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.squash = true;
  faults.watch_latency_max_ms = 2'000;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
  write_rayjob(simulation, "1");
  settle(simulation);   // delivered (nothing else could run), reconciled, polling at 10 s
  REQUIRE(seen == std::vector<std::string>{"1"});

  write_rayjob(simulation, "2");   // at 0 s
  std::vector<Step> steps = simulation.enabled_steps();
  CHECK(clock_offer(steps) == 2'000);   // the poll at 10 s is further than the delivery may wait
  REQUIRE(simulation.step());
  CHECK(simulation.world().now_ms == 2'000);
  steps = simulation.enabled_steps();
  REQUIRE(steps.size() == 1);   // overdue: the delivery, and time stands still until it ran
  CHECK(steps.front().kind == StepKind::deliver);
}

TEST_CASE("a cache read may lag only events younger than world.latency.watch") {
  std::vector<std::string> seen;
  LambdaController controller = label_reader(seen, 2'000);
  HoldDeliveriesChooser chooser;   // reads as stale as allowed
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.max_lag = 1;
  faults.watch_latency_max_ms = 2'000;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
  write_rayjob(simulation, "1");
  settle(simulation);
  write_rayjob(simulation, "2");   // at 0 s; the poll comes at 2 s, when the event is overdue
  while (seen.size() < 2) REQUIRE(simulation.step());
  CHECK(simulation.world().now_ms == 2'000);
  CHECK(seen == std::vector<std::string>{"1", "2"});   // 2 s old at the read: overdue, so applied
  settle(simulation);   // the re-add its delivery queued; next poll at 4 s

  // An event 1 s old at the read may still be left out: the stale read the fault allows.
  simulation.run_as_step([](StepContext& context) { context.world().now_ms = 3'000; });
  write_rayjob(simulation, "3");
  const std::size_t before = seen.size();
  while (seen.size() == before) REQUIRE(simulation.step());
  CHECK(simulation.world().now_ms == 4'000);
  CHECK(seen.back() == "2");   // 1 s old at the read: the stale read the fault allows
}

}  // TEST_SUITE

}  // namespace latency_test
