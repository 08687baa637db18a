// A reconcile is a sequence of client calls (DESIGN §1.1): with faults.interleaveCalls other steps
// run between two calls of one pass, a dashboard call occupies virtual time, and time.Now() after
// it is later; with restarts.midReconcile a crash lands after a call, before the next. A stopped
// pass goes on where it waits (pass_runner.h), or, in a world that holds it but is not where it
// waits, by replaying its calls' replies: either way its earlier calls take no effect twice.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chooser.h"
#include "engine/fingerprint.h"
#include "engine/ray_dashboard.h"
#include "engine/simulation.h"
#include "events/event.h"
#include "idle_controller.h"
#include "lambda_controller.h"

namespace interleave_test {
namespace {

using rjsim::engine::ChoicePoint;
using rjsim::engine::Chooser;
using rjsim::engine::Clients;
using rjsim::engine::DashboardBehaviour;
using rjsim::engine::DefaultChooser;
using rjsim::engine::Error;
using rjsim::engine::FaultBudget;
using rjsim::engine::Kind;
using rjsim::engine::meta;
using rjsim::engine::Object;
using rjsim::engine::RayBehaviour;
using rjsim::engine::RayDashboard;
using rjsim::engine::RayJob;
using rjsim::engine::ReconcileResult;
using rjsim::engine::Request;
using rjsim::engine::RunEnd;
using rjsim::engine::Service;
using rjsim::engine::Simulation;
using rjsim::engine::Step;
using rjsim::engine::StepContext;
using rjsim::engine::StepKind;
using rjsim::engine::StepOption;
using rjsim::events::MemorySink;
using rjsim::testing::LambdaController;
using rjsim::testing::modern_environment;
using rjsim::testing::named;

// Takes a crash offered beside a stopped pass's resume, else the first step; every other
// decision its first.
class CrashInsidePassChooser final : public Chooser {
 public:
  std::uint64_t choose(ChoicePoint, std::uint64_t) override { return 0; }
  std::uint64_t choose_step(std::span<const StepOption> steps) override {
    const auto is = [&](StepKind kind) {
      return std::find_if(steps.begin(), steps.end(), [&](const StepOption& step) { return step.kind == kind; });
    };
    if (is(StepKind::resume) == steps.end() || is(StepKind::crash) == steps.end()) return 0;
    return static_cast<std::uint64_t>(is(StepKind::crash) - steps.begin());
  }
};

// The last of each HTTP outcome: with the httpErrors budget, a timeout of a call that reads.
class LastHttpOutcomeChooser final : public Chooser {
 public:
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    return point == ChoicePoint::http_outcome ? options - 1 : 0;
  }
};

void create_rayjob(Simulation& simulation) {
  Object rayjob = named<RayJob>("job");
  REQUIRE(!simulation.mutable_world().api.create(rayjob, 0).error);
}

// Reads the RayJob, then labels it: the update carries the resourceVersion the read saw.
ReconcileResult read_then_label(const Request& request, Clients& clients) {
  RayJob rayjob;
  if (clients.kube.get(request.namespace_, request.name, rayjob)) return ReconcileResult::done();
  if (rayjob.metadata.labels->contains("seen")) return ReconcileResult::done();
  rayjob.metadata.labels.edit()["seen"] = "yes";
  return ReconcileResult::error(clients.kube.update(rayjob));
}

// A simulation of read_then_label with interleaveCalls, run up to the end of the first step of
// its first pass (deliveries first).
struct StoppedPass {
  LambdaController controller{read_then_label, modern_environment()};
  DefaultChooser chooser{1};
  MemorySink sink;
  Simulation simulation{Simulation::initial_world(controller), controller, {}, chooser, sink, interleaving()};

  StoppedPass() {
    create_rayjob(simulation);
    while (simulation.enabled_steps().front().kind != StepKind::reconcile) REQUIRE(simulation.step());
    REQUIRE(simulation.step());
  }
  static FaultBudget interleaving() {
    FaultBudget faults;
    faults.interleave_calls = true;
    return faults;
  }
};

std::vector<std::string> types_of(const MemorySink& sink, std::string_view prefix) {
  std::vector<std::string> types;
  for (const auto& event : sink.events) {
    if (event.type.starts_with(prefix)) types.push_back(event.type);
  }
  return types;
}

std::int64_t count(const MemorySink& sink, std::string_view type) {
  return std::count_if(sink.events.begin(), sink.events.end(), [&](const auto& event) { return event.type == type; });
}

}  // namespace

TEST_SUITE("interleaving") {

TEST_CASE("without faults a pass runs straight through: one step, no resume") {
  LambdaController controller(read_then_label, modern_environment());
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink);
  create_rayjob(simulation);
  CHECK(simulation.run() == RunEnd::quiescent);
  CHECK(count(sink, "reconcile.resume") == 0);
  CHECK(count(sink, "api.update") == 1);
}

TEST_CASE("with interleaveCalls a pass stops after each client call, and its calls take effect once") {
  StoppedPass stopped;   // the pass's first step: its read, then it stops
  Simulation& simulation = stopped.simulation;
  const MemorySink& sink = stopped.sink;
  REQUIRE(simulation.world().process.pass);
  CHECK(simulation.world().process.pass->replies.size() == 1);
  CHECK(simulation.enabled_steps().front().kind == StepKind::resume);
  // The worker takes no other key while its pass is stopped.
  for (const Step& step : simulation.enabled_steps()) CHECK(step.kind != StepKind::reconcile);

  CHECK(simulation.run() == RunEnd::quiescent);
  CHECK(!simulation.world().process.pass);
  CHECK(count(sink, "reconcile.resume") >= 1);
  CHECK(count(sink, "api.update") == 1);   // replaying the read did not run the update twice
  CHECK(meta(*simulation.world().api.find(Kind::RayJob, "default", "job")).labels->at("seen") == "yes");
}

TEST_CASE("a stopped pass goes on where it waits: its model starts once, however often it stops") {
  for (const bool rerun : {false, true}) {   // Simulation::rerun_stopped_passes
    CAPTURE(rerun);
    int starts = 0;
    LambdaController controller(
        [&starts](const Request& request, Clients& clients) {
          ++starts;
          return read_then_label(request, clients);
        },
        modern_environment());
    DefaultChooser chooser(1);
    MemorySink sink;
    Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink,
                          StoppedPass::interleaving());
    simulation.rerun_stopped_passes(rerun);
    create_rayjob(simulation);
    CHECK(simulation.run() == RunEnd::quiescent);
    const std::int64_t passes = count(sink, "reconcile.begin");
    const std::int64_t resumes = count(sink, "reconcile.resume");
    CHECK(resumes >= 2);   // after the read, after the update
    CHECK(starts == (rerun ? passes + resumes : passes));
    CHECK(count(sink, "api.update") == 1);
  }
}

TEST_CASE("a world started over at an earlier stop of the pass that waits runs that pass again from its start") {
  StoppedPass stopped;   // the pass waits after its read
  Simulation& simulation = stopped.simulation;
  const rjsim::engine::World after_read = simulation.world();
  // The resume: the update, then the pass waits after it.
  REQUIRE(simulation.step());
  REQUIRE(simulation.world().process.pass);
  REQUIRE(simulation.world().process.pass->replies.size() == 2);
  REQUIRE(count(stopped.sink, "api.update") == 1);

  // Back to the world after the read, where the update has not happened: the pass that waits
  // after its update is not this world's, which updates again.
  simulation.start_over(after_read, stopped.chooser);
  CHECK(simulation.run() == RunEnd::quiescent);
  CHECK(count(stopped.sink, "api.update") == 2);
  CHECK(meta(*simulation.world().api.find(Kind::RayJob, "default", "job")).labels->at("seen") == "yes");
}

// Reads the RayJob and lists its Pods through the API reader (uncached), then labels the RayJob
// with how many it found.
ReconcileResult read_and_list_from_api(const Request& request, Clients& clients) {
  RayJob rayjob;
  if (clients.kube.get_from_api(request.namespace_, request.name, rayjob)) return ReconcileResult::done();
  if (rayjob.metadata.labels->contains("pods")) return ReconcileResult::done();
  std::vector<Object> pods;
  if (Error err = clients.kube.list_from_api(Kind::Pod, request.namespace_, {{"app", "x"}}, pods)) {
    return ReconcileResult::error(err);
  }
  rayjob.metadata.labels.edit()["pods"] = std::to_string(pods.size());
  return ReconcileResult::error(clients.kube.update(rayjob));
}

TEST_CASE("the API reader's get and list stop and resume like cache reads, are made once, and skip the caches") {
  LambdaController controller(read_and_list_from_api, modern_environment());
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, StoppedPass::interleaving());
  create_rayjob(simulation);
  Object pod = named<rjsim::engine::Pod>("pod-a");   // no informer watches Pods: only the API server has it
  meta(pod).labels.edit()["app"] = "x";
  Object other = named<rjsim::engine::Pod>("pod-b");
  REQUIRE(!simulation.mutable_world().api.create(pod, 0).error);
  REQUIRE(!simulation.mutable_world().api.create(other, 0).error);
  CHECK(simulation.run() == RunEnd::quiescent);
  CHECK(count(sink, "reconcile.resume") >= 2);   // after the get, after the list
  CHECK(count(sink, "api.list") == 1);
  CHECK(count(sink, "cache.list") == 0);
  CHECK(meta(*simulation.world().api.find(Kind::RayJob, "default", "job")).labels->at("pods") == "1");
}

// Reads the RayJob, then (past the stop, when the pass stops after each call) names a Service
// from the chooser's random string, creates it, and panics.
ReconcileResult read_create_then_panic(const Request& request, Clients& clients) {
  RayJob rayjob;
  clients.kube.get(request.namespace_, request.name, rayjob);
  Object service = named<Service>(clients.runtime.random_string(5));
  const Error created = clients.kube.create(service);
  if (!created) throw rjsim::engine::ModelPanic("after the create");
  return ReconcileResult::error(created);
}

TEST_CASE("a stopped pass no world resumes drains: its calls after the stop touch nothing, and what it returns or raises is discarded") {
  for (const bool create_errors : {true, false}) {   // the model returns its error, or panics
    CAPTURE(create_errors);
    LambdaController controller(
        create_errors ? read_create_then_panic
                      : [](const Request& request, Clients& clients) {
                          RayJob rayjob;
                          clients.kube.get(request.namespace_, request.name, rayjob);
                          throw rjsim::engine::ModelPanic("after the read");
                          return ReconcileResult::done();
                        },
        modern_environment());
    DefaultChooser chooser(1);
    MemorySink sink;
    std::optional<Simulation> owner;
    Simulation& simulation = owner.emplace(Simulation::initial_world(controller), controller,
                                           std::vector<const rjsim::engine::Actor*>{}, chooser, sink,
                                           StoppedPass::interleaving());
    create_rayjob(simulation);
    while (simulation.enabled_steps().front().kind != StepKind::reconcile) REQUIRE(simulation.step());
    const std::int64_t resource_version = simulation.world().api.resource_version();
    REQUIRE(simulation.step());   // the read, then the stop

    REQUIRE(simulation.world().process.pass);
    CHECK(simulation.world().process.pass->replies.size() == 1);   // the read alone was kept
    CHECK(simulation.world().api.resource_version() == resource_version);
    CHECK(simulation.world().api.objects(Kind::Service).empty());
    CHECK(simulation.world().process.up);                      // the panic did not crash it
    CHECK(count(sink, "reconcile.panic") == 0);
    CHECK(count(sink, "reconcile.end") == 0);
    CHECK(count(sink, "api.create") == 0);
    CHECK(count(sink, "choice") == 0);                         // no random string was drawn
    // The pass waits in its read until its simulation ends, then drains: the model goes on to
    // its create (and its random string), which touch nothing, and nothing reaches the log.
    const std::size_t events = sink.events.size();
    owner.reset();
    CHECK(sink.events.size() == events);
  }
}

TEST_CASE("a write landing between a pass's read and its update makes the update a natural 409") {
  for (const bool interleave : {false, true}) {
    CAPTURE(interleave);
    LambdaController controller(read_then_label, modern_environment());
    DefaultChooser chooser(1);
    MemorySink sink;
    FaultBudget faults;
    faults.interleave_calls = interleave;
    Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
    create_rayjob(simulation);
    while (simulation.enabled_steps().front().kind != StepKind::reconcile) REQUIRE(simulation.step());
    REQUIRE(simulation.step());   // the pass: whole, or up to its read
    // Someone else's write, after the read.
    simulation.run_as_step([](StepContext& context) {
      Object rayjob = *context.world().api.find(Kind::RayJob, "default", "job");
      meta(rayjob).annotations.edit()["user"] = "edit";
      REQUIRE(!context.world().api.update(rayjob, context.now_ms()).error);
    });
    CHECK(simulation.run() == RunEnd::quiescent);

    const auto conflict = std::find_if(sink.events.begin(), sink.events.end(), [](const auto& event) {
      return event.type == "api.update" && event.actor == "controller" && event.text("outcome") != "ok";
    });
    // Atomic, the pass wrote before the edit; interleaved, its update carried the read's stale rv.
    CHECK((conflict != sink.events.end()) == interleave);
  }
}

TEST_CASE("a dashboard call occupies its latency, or the client's timeout, and time.Now() after it is later") {
  struct Case {
    bool interleave;
    bool timeout;
    std::int64_t now_after_call;
  };
  for (const Case c : {Case{false, false, 0}, Case{true, false, 7}, Case{true, true, 2'000}}) {
    CAPTURE(c.interleave);
    CAPTURE(c.timeout);
    std::vector<std::int64_t> nows;
    LambdaController controller(
        [&](const Request&, Clients& clients) {
          const std::int64_t before = clients.runtime.now_ms();
          clients.dashboard.get_job_info("head-svc.default.svc.cluster.local:8265", "job-id");
          nows.push_back(clients.runtime.now_ms() - before);
          return ReconcileResult::done();
        },
        modern_environment());
    DashboardBehaviour dashboard;
    dashboard.latency_ms = 7;
    RayDashboard ray(dashboard, RayBehaviour{});
    LastHttpOutcomeChooser chooser;
    MemorySink sink;
    FaultBudget faults;
    faults.interleave_calls = c.interleave;
    faults.http_errors = c.timeout ? 1 : 0;   // the chooser's last outcome: a timeout
    Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
    simulation.set_dashboard(&ray);
    create_rayjob(simulation);
    CHECK(simulation.run() == RunEnd::quiescent);
    REQUIRE(!nows.empty());
    CHECK(nows.back() == c.now_after_call);
    // Interleaved, the timeout is the pass's wait itself, not a hold of the worker after it.
    if (c.interleave) CHECK(simulation.world().process.worker_busy_until_ms == 0);
  }
}

TEST_CASE("restarts.midReconcile lets a crash land between two writes of one pass; without it, never inside one") {
  for (const bool mid_reconcile : {false, true}) {
    CAPTURE(mid_reconcile);
    LambdaController controller(
        [](const Request& request, Clients& clients) {
          for (const char* name : {"first", "second"}) {
            Service service;
            service.metadata.name = name;
            service.metadata.namespace_ = request.namespace_;
            if (Error err = clients.kube.create(service); err && !rjsim::engine::is_already_exists(err)) {
              return ReconcileResult::error(err);
            }
          }
          return ReconcileResult::done();
        },
        modern_environment(), {Kind::Service});
    CrashInsidePassChooser chooser;
    MemorySink sink;
    FaultBudget faults;
    faults.restarts = 1;
    faults.mid_reconcile = mid_reconcile;
    Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
    create_rayjob(simulation);
    // Run until a crash, or to the end.
    while (simulation.world().process.up && simulation.step()) {
    }
    const auto& api = simulation.world().api;
    CHECK(api.find(Kind::Service, "default", "first") != nullptr);
    if (mid_reconcile) {
      // The crash landed after the pass's first create, before its second.
      CHECK(!simulation.world().process.up);
      CHECK(api.find(Kind::Service, "default", "second") == nullptr);
      CHECK(!simulation.world().process.pass);   // the pass died with the process
      // The pass that waited is no world's any more (it drains, touching nothing); after the
      // restart a new pass makes the second Service.
      CHECK(simulation.run() == RunEnd::quiescent);
      CHECK(api.find(Kind::Service, "default", "second") != nullptr);
      CHECK(types_of(sink, "reconcile.begin").size() >= 2U);
      continue;
    } else {
      // No pass ever stopped: no crash could land inside one.
      CHECK(simulation.world().faults_used.restarts == 0);
      CHECK(api.find(Kind::Service, "default", "second") != nullptr);
    }
    CHECK(types_of(sink, "reconcile.begin").size() == 1U);
  }
}

TEST_CASE("a stopped pass is part of the world's fingerprint") {
  StoppedPass stopped;
  const Simulation& simulation = stopped.simulation;
  REQUIRE(simulation.world().process.pass);
  rjsim::engine::World other = simulation.world();
  CHECK(rjsim::engine::fingerprint(other) == rjsim::engine::fingerprint(simulation.world()));
  other.process.pass->replies.front().edit().error = Error(rjsim::engine::ErrorCode::not_found, "gone");
  // Changed in place, which the engine never does (it only appends): the running digest is reset.
  other.process.pass->replies_digest = {};
  CHECK(rjsim::engine::fingerprint(other) != rjsim::engine::fingerprint(simulation.world()));
}

TEST_CASE("a stopped pass's running digest, extended by a reply, is the digest taken afresh") {
  StoppedPass stopped;
  rjsim::engine::World world = stopped.simulation.world();
  REQUIRE(world.process.pass);
  const std::uint64_t before = rjsim::engine::fingerprint(world);   // the digest now covers every reply
  world.process.pass->replies.push_back(world.process.pass->replies.front());
  const std::uint64_t extended = rjsim::engine::fingerprint(world);
  rjsim::engine::World afresh = world;
  afresh.process.pass->replies_digest = {};
  CHECK(extended != before);
  CHECK(extended == rjsim::engine::fingerprint(afresh));
  CHECK(world.process.pass->replies_digest.replies == world.process.pass->replies.size());
}

}  // TEST_SUITE

}  // namespace interleave_test
