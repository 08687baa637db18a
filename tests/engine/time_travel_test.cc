// Time travel (DESIGN §1.1, kubernetes-semantics §1.7, §7.2 item 9): a restarted controller's
// first list may be served from an older revision, up to faults.timeTravel.maxRewind events of a
// kind back; the deliveries that bring the cache back to where the dead process had got to are
// not urgent, so a reconcile can read the rewound cache whether or not stale reads are allowed.
#include <doctest/doctest.h>

#include <algorithm>
#include <span>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/chooser.h"
#include "engine/simulation.h"
#include "events/event.h"
#include "idle_controller.h"

namespace time_travel_test {
namespace {

using rjsim::engine::ChoicePoint;
using rjsim::engine::Chooser;
using rjsim::engine::FaultBudget;
using rjsim::engine::Informer;
using rjsim::engine::Kind;
using rjsim::engine::meta;
using rjsim::engine::Object;
using rjsim::engine::RayJob;
using rjsim::engine::RunEnd;
using rjsim::engine::Simulation;
using rjsim::engine::Step;
using rjsim::engine::StepContext;
using rjsim::engine::StepKind;
using rjsim::testing::IdleController;
using rjsim::testing::named;

// The fault-free answer everywhere, except that a relist takes the oldest revision offered;
// remembers how many revisions each relist offered.
class OldestRelistChooser final : public Chooser {
 public:
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    if (point == ChoicePoint::step && last_step) return options - 1;
    if (point != ChoicePoint::relist_point) return 0;
    relist_options.push_back(options);
    return options - 1;
  }
  std::vector<std::uint64_t> relist_options;
  bool last_step = false;   // run the last step listed (a reconcile before the deliveries)
};

// A RayJob created and then changed `changes` times, every event delivered.
void create_and_change(Simulation& simulation, int changes) {
  simulation.run_as_step([](StepContext& context) {
    Object rayjob = named<RayJob>("job");
    REQUIRE(!context.world().api.create(rayjob, 0).error);
  });
  for (int change = 0; change < changes; ++change) {
    simulation.run_as_step([change](StepContext& context) {
      const auto outcome = context.world().api.patch_status(
          Kind::RayJob, "default", "job",
          [change](Object& object) { std::get<RayJob>(object).status.message = "change " + std::to_string(change); },
          0);
      REQUIRE(!outcome.error);
    });
  }
  const RunEnd end = simulation.run();
  REQUIRE((end == RunEnd::quiescent || end == RunEnd::time_limit));
}

const Informer& rayjob_informer(const Simulation& simulation) {
  const Informer* informer = simulation.world().informer(Kind::RayJob);
  REQUIRE(informer != nullptr);
  return *informer;
}

bool has_step(const std::vector<Step>& steps, StepKind kind) {
  return std::any_of(steps.begin(), steps.end(), [kind](const Step& step) { return step.kind == kind; });
}

// Crashes the controller and runs up to and including its restart.
void crash_and_restart(Simulation& simulation) {
  simulation.inject_crash();
  while (simulation.world().process.incarnation == 1) REQUIRE(simulation.step());
}

}  // namespace

TEST_SUITE("time_travel") {

TEST_CASE("a relist after a restart is offered the head and at most maxRewind older revisions") {
  for (const int max_rewind : {1, 3}) {
    CAPTURE(max_rewind);
    IdleController controller;
    OldestRelistChooser chooser;
    rjsim::events::MemorySink sink;
    FaultBudget faults;
    faults.max_rewind = max_rewind;
    Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
    create_and_change(simulation, 5);
    crash_and_restart(simulation);
    REQUIRE(!chooser.relist_options.empty());
    CHECK(chooser.relist_options.front() == static_cast<std::uint64_t>(1 + max_rewind));
  }
}

TEST_CASE("without stale reads, a reconcile may still read a rewound cache: its catch-up is not urgent") {
  IdleController controller;
  OldestRelistChooser chooser;
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.max_rewind = 2;
  REQUIRE_FALSE(faults.deliveries_may_wait());
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
  create_and_change(simulation, 3);
  const std::int64_t head = simulation.world().api.resource_version();
  crash_and_restart(simulation);

  const Informer& informer = rayjob_informer(simulation);
  CHECK(informer.last_sync_resource_version() < head);
  CHECK(informer.catching_up());
  const std::vector<Step> steps = simulation.enabled_steps();
  CHECK(has_step(steps, StepKind::deliver));
  CHECK(has_step(steps, StepKind::reconcile));   // beside the delivery, not after it

  // Once caught up, deliveries are urgent again.
  while (rayjob_informer(simulation).catching_up()) {
    REQUIRE(simulation.step());   // the fault-free order delivers first
  }
  CHECK(rayjob_informer(simulation).last_sync_resource_version() == head);
}

TEST_CASE("time does not pass while an informer catches up after time travel") {
  // Reconciles ask to run again in 5 s: a timer the clock could go to.
  rjsim::testing::LambdaController controller(
      [](const rjsim::engine::Request&, rjsim::engine::Clients&) {
        return rjsim::engine::ReconcileResult::requeue_after(5'000);
      },
      rjsim::engine::ReleaseEnvironment{}, {});
  OldestRelistChooser chooser;
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.max_rewind = 2;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults,
                        rjsim::engine::Limits{.steps = 1'000, .time_ms = 20'000});
  create_and_change(simulation, 3);
  crash_and_restart(simulation);
  // Run the reconciles before the informer catches up: then its deliveries alone are left, with
  // the reconcile's 5 s timer pending, and the clock is still not offered.
  chooser.last_step = true;
  int steps_run = 0;
  while (simulation.enabled_steps().size() > 1 && steps_run < 20) {
    REQUIRE(simulation.step());
    ++steps_run;
  }
  REQUIRE(rayjob_informer(simulation).catching_up());
  const std::vector<Step> steps = simulation.enabled_steps();
  REQUIRE(steps.size() == 1);
  CHECK(steps.front().kind == StepKind::deliver);
  CHECK(simulation.world().process.queue.next_timer_ms().has_value());
  CHECK(controller.reconciles > 0);
}

TEST_CASE("rewinding k events leaves out the last k; rewinding every event of a kind lists none of its objects") {
  // A log of three events at revisions 4, 7 and 9; the dead process had seen up to 9.
  std::vector<rjsim::engine::WatchEvent> log(3);
  log[0].resource_version = 4;
  log[1].resource_version = 7;
  log[2].resource_version = 9;
  using rjsim::engine::relist_points;
  CHECK(relist_points(log, 12, 9, 3) == std::vector<std::int64_t>{12, 8, 6, 3});
  CHECK(relist_points(log, 12, 9, 1) == std::vector<std::int64_t>{12, 8});
  // The kind changed after the dead process's cursor: the cursor itself is a point of its own.
  CHECK(relist_points(log, 12, 7, 2) == std::vector<std::int64_t>{12, 7, 6, 3});

  IdleController controller;
  OldestRelistChooser chooser;
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.max_rewind = 3;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
  create_and_change(simulation, 1);   // two events: the oldest point is before the RayJob existed
  crash_and_restart(simulation);
  CHECK(chooser.relist_options.front() == 3);
  CHECK(rayjob_informer(simulation).cached().empty());
  CHECK(rayjob_informer(simulation).catching_up());
}

TEST_CASE("without stale reads, a reconcile reads the rewound object, not the head, until its catch-up is applied") {
  // The reconcile reads the RayJob and records the status message it saw.
  std::vector<std::string> seen;
  rjsim::testing::LambdaController controller(
      [&seen](const rjsim::engine::Request& request, rjsim::engine::Clients& clients) {
        rjsim::engine::Error error;
        const Object* cached = clients.kube.read(Kind::RayJob, request.namespace_, request.name, error);
        seen.push_back(cached ? std::get<RayJob>(*cached).status.message : "<not found>");
        return rjsim::engine::ReconcileResult::done();
      },
      rjsim::engine::ReleaseEnvironment{}, {});
  // Relists rewind the most, reads leave every catch-up event unapplied, reconciles run first.
  class HoldingChooser final : public Chooser {
   public:
    std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
      if (point == ChoicePoint::relist_point || point == ChoicePoint::cache_advance) return options - 1;
      return 0;
    }
    std::uint64_t choose_step(std::span<const rjsim::engine::StepOption> steps) override {
      for (std::size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].kind == StepKind::reconcile || steps[i].kind == StepKind::notify) return i;
      }
      return 0;
    }
  } chooser;
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.max_rewind = 2;
  REQUIRE(faults.max_lag == 0);
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults,
                        rjsim::engine::Limits{.steps = 1'000, .time_ms = 60'000});
  create_and_change(simulation, 3);   // messages "change 0" .. "change 2"
  REQUIRE(!seen.empty());
  CHECK(seen.back() == "change 2");
  seen.clear();
  crash_and_restart(simulation);
  while (seen.empty()) REQUIRE(simulation.step());
  CHECK(seen.front() == "change 0");   // two events back: without "change 1" and "change 2"
}

TEST_CASE("a relist at the head is not time travel: deliveries after it stay urgent") {
  IdleController controller;
  rjsim::engine::DefaultChooser chooser(1);   // relists at the head
  rjsim::events::MemorySink sink;
  FaultBudget faults;
  faults.max_rewind = 2;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
  create_and_change(simulation, 3);
  crash_and_restart(simulation);
  CHECK_FALSE(rayjob_informer(simulation).catching_up());
}

}  // TEST_SUITE

}  // namespace time_travel_test
