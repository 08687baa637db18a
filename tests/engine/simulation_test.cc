// The scheduler and the controller process: squash, follow-up reconciles, requeue timers per
// release, restart, panics, the fault budgets and determinism (kubernetes-semantics §2.4, §2.7,
// §3, §7.2, §7.3).
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>

#include "engine/garbage_collector.h"
#include "engine/simulation.h"
#include "models/toy/toy_controller.h"
#include "lambda_controller.h"

namespace rjsim::engine {
namespace simulation_test {
namespace {

using events::Event;
using events::MemorySink;
using testing::LambdaController;

void create_rayjob(Simulation& simulation, const std::string& name = "demo") {
  simulation.run_as_step([&](StepContext& context) {
    Object rayjob = models::toy::toy_rayjob(name);
    LoggedApi(context, "user").create(rayjob);
  });
}

std::size_t count(const std::vector<Event>& events, std::string_view type) {
  return static_cast<std::size_t>(std::count_if(
      events.begin(), events.end(), [&](const Event& e) { return e.type == type; }));
}

std::int64_t int_field(const Event& event, std::string_view key) {
  const events::Value* value = event.find(key);
  REQUIRE(value != nullptr);
  return std::get<std::int64_t>(*value);
}

// Does `apply` at a fixed virtual time, once.
class TimedAction final : public Actor {
 public:
  TimedAction(std::int64_t at_ms, std::function<void(StepContext&)> apply)
      : at_ms_(at_ms), apply_(std::move(apply)) {}
  std::string_view name() const override { return "user"; }
  void enabled(const World& world, std::vector<ActorWork>& out) const override {
    if (!done_ && world.now_ms >= at_ms_) out.push_back({"act", {}, 0});
  }
  std::optional<std::int64_t> next_timer_ms(const World& world) const override {
    if (done_ || world.now_ms >= at_ms_) return std::nullopt;
    return at_ms_;
  }
  void apply(const ActorWork&, StepContext& context) const override {
    done_ = true;
    apply_(context);
  }

 private:
  std::int64_t at_ms_;
  std::function<void(StepContext&)> apply_;
  mutable bool done_ = false;
};

void patch_message(StepContext& context, const std::string& message) {
  LoggedApi(context, "user").patch(Kind::RayJob, "default", "demo", [&](Object& object) {
    std::get<RayJob>(object).spec.edit().entrypoint = message;
  });
}

TEST_CASE("three events while a key is queued give one reconcile") {
  LambdaController controller([](const Request&, Clients&) { return ReconcileResult::done(); });
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink);
  simulation.run_as_step([](StepContext& context) {
    Object rayjob = models::toy::toy_rayjob("demo");
    LoggedApi(context, "user").create(rayjob);
    patch_message(context, "python a.py");
    patch_message(context, "python b.py");
  });
  simulation.run();
  CHECK(controller.reconciles == 1);
  CHECK(count(sink.events, "queue.add") == 1);
  CHECK(count(sink.events, "queue.squash") == 2);
}

TEST_CASE("a kind cached through a label selector gets no delivery step for an object it does not select") {
  LambdaController controller([](const Request&, Clients&) { return ReconcileResult::done(); });
  controller.select_in_cache(Kind::Pod, LabelSelector{std::string(kRayNodeTypeLabel), {"head"}});
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink);
  CHECK(simulation.world().api.watch_selector(Kind::Pod) == LabelSelector{std::string(kRayNodeTypeLabel), {"head"}});
  auto create_pod = [&](std::string name, std::string node_type) {
    simulation.run_as_step([&](StepContext& context) {
      Pod pod;
      pod.metadata.name = name;
      pod.metadata.namespace_ = "default";
      if (!node_type.empty()) pod.metadata.labels.edit()[std::string(kRayNodeTypeLabel)] = node_type;
      Object object = pod;
      LoggedApi(context, "user").create(object);
    });
  };
  auto delivers_pods = [&] {
    const std::vector<Step> steps = simulation.enabled_steps();
    return std::any_of(steps.begin(), steps.end(), [](const Step& step) {
      return step.kind == StepKind::deliver && step.informer_kind == Kind::Pod;
    });
  };

  create_pod("submitter", "");
  CHECK_FALSE(delivers_pods());
  create_pod("head", "head");
  CHECK(delivers_pods());
  simulation.run();
  CHECK(count(sink.events, "watch.deliver") == 1);
  CHECK(simulation.world().informer(Kind::Pod)->cached().size() == 1);
}

TEST_CASE("an event during a reconcile gives exactly one more reconcile, after it") {
  LambdaController controller([](const Request& request, Clients& clients) {
    RayJob rayjob;
    REQUIRE_FALSE(clients.kube.get(request.namespace_, request.name, rayjob));
    if (rayjob.status.message.empty()) {
      rayjob.status.message = "seen";
      REQUIRE_FALSE(clients.kube.update_status(rayjob));
      // This read applies the write's watch event: its handler adds the key being processed.
      REQUIRE_FALSE(clients.kube.get(request.namespace_, request.name, rayjob));
      CHECK(rayjob.status.message == "seen");
    }
    return ReconcileResult::done();
  });
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink);
  create_rayjob(simulation);
  simulation.run();
  CHECK(controller.reconciles == 2);
  const auto deferred = std::find_if(sink.events.begin(), sink.events.end(), [](const Event& e) {
    return e.type == "queue.add" && e.find("deferred") != nullptr;
  });
  CHECK(deferred != sink.events.end());
}

// Reconciles in the first 3.5 s when the model always asks for RequeueAfter 3 s and an event
// arrives at 1 s: the legacy queue still fires the first timer (at 3 s), the priority queue lets
// the event absorb it (§3.2, §3.4).
int reconciles_with_requeue_and_event(ReleaseEnvironment environment) {
  LambdaController controller([](const Request&, Clients&) { return ReconcileResult::requeue_after(3'000); },
                              environment);
  TimedAction patch_at_1s(1'000, [](StepContext& context) { patch_message(context, "python c.py"); });
  DefaultChooser chooser(1);
  MemorySink sink;
  Limits limits;
  limits.time_ms = 3'500;
  Simulation simulation(Simulation::initial_world(controller), controller, {&patch_at_1s}, chooser,
                        sink, {}, limits);
  create_rayjob(simulation);
  CHECK(simulation.run() == RunEnd::time_limit);
  return controller.reconciles;
}

TEST_CASE("a RequeueAfter timer still fires after an event in the legacy queue") {
  CHECK(reconciles_with_requeue_and_event(ReleaseEnvironment{}) == 3);
}

TEST_CASE("an event absorbs a pending RequeueAfter timer in the priority queue") {
  CHECK(reconciles_with_requeue_and_event(testing::modern_environment()) == 2);
}

// The events of 100 ms of one RayJob under `controller`.
std::vector<Event> first_100_ms(LambdaController& controller) {
  DefaultChooser chooser(1);
  MemorySink sink;
  Limits limits;
  limits.time_ms = 100;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, {}, limits);
  create_rayjob(simulation);
  simulation.run();
  return sink.events;
}

std::vector<std::int64_t> backoff_delays(const std::vector<Event>& events) {
  std::vector<std::int64_t> delays;
  for (const Event& event : events) {
    if (event.type == "queue.backoff") delays.push_back(int_field(event, "delay_ms"));
  }
  return delays;
}

TEST_CASE("an error retries with exponential backoff, ignoring RequeueAfter") {
  LambdaController controller([](const Request&, Clients&) {
    return ReconcileResult::error(Error(ErrorCode::other, "boom"), 3'000);
  });
  const std::vector<std::int64_t> delays = backoff_delays(first_100_ms(controller));
  REQUIRE(delays.size() >= 4);
  CHECK(delays[0] == 5);
  CHECK(delays[1] == 10);
  CHECK(delays[2] == 20);
  CHECK(delays[3] == 40);
}

TEST_CASE("Requeue: true is a rate-limited re-add that keeps the failure count, unlike RequeueAfter") {
  // KubeRay 1.0's ctrl.Result{Requeue: true} (reference §6.1 correction 19): the delay doubles
  // from pass to pass, because nothing calls Forget; an error before it counts too.
  int passes = 0;
  LambdaController controller([&passes](const Request&, Clients&) {
    return ++passes == 1 ? ReconcileResult::error(Error(ErrorCode::other, "boom"))
                         : ReconcileResult::requeue_rate_limited();
  });
  const std::vector<Event> events = first_100_ms(controller);
  const std::vector<std::int64_t> delays = backoff_delays(events);
  std::vector<std::string> results;
  for (const Event& event : events) {
    if (event.type == "reconcile.end") results.push_back(std::get<std::string>(*event.find("result")));
  }
  REQUIRE(delays.size() >= 3);
  CHECK(delays[0] == 5);
  CHECK(delays[1] == 10);
  CHECK(delays[2] == 20);
  REQUIRE(results.size() >= 2);
  CHECK(results[0] == "error");
  CHECK(results[1] == "requeue");
  CHECK(count(events, "queue.requeue_after") == 0);
}

// Every dashboard call times out (the third HTTP outcome), within a budget of `timeouts`.
class TimeoutChooser final : public Chooser {
 public:
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    return point == ChoicePoint::http_outcome && options >= 3 ? 2 : 0;
  }
};

// When each reconcile of two RayJobs began, when one GetJobInfo per pass times out.
std::vector<std::int64_t> reconcile_times_with_timeouts(std::int64_t client_timeout_ms) {
  ReleaseEnvironment environment;
  environment.dashboard_timeout_ms = client_timeout_ms;
  LambdaController controller(
      [](const Request&, Clients& clients) {
        clients.dashboard.get_job_info("demo-head-svc.default.svc.cluster.local:8265", "id");
        return ReconcileResult::done();
      },
      environment);
  TimeoutChooser chooser;
  MemorySink sink;
  FaultBudget faults;
  faults.http_errors = 2;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults, {});
  create_rayjob(simulation, "first");
  create_rayjob(simulation, "second");
  simulation.run();
  std::vector<std::int64_t> begins;
  for (const Event& event : sink.events) {
    if (event.type == "reconcile.begin") begins.push_back(event.at_ms);
  }
  return begins;
}

TEST_CASE("a timed-out dashboard call holds the single worker for the release's client timeout") {
  // v1.0.0's client waits 120 s (reference §3.5), v1.1.0's 2 s: the other RayJob waits that long.
  CHECK(reconcile_times_with_timeouts(120'000) == std::vector<std::int64_t>{0, 120'000});
  CHECK(reconcile_times_with_timeouts(2'000) == std::vector<std::int64_t>{0, 2'000});
}

struct ToyRun {
  std::vector<Event> events;
  World world;
  RunEnd end;
};

ToyRun run_toy(Chooser& chooser, FaultBudget faults = {}, ReleaseEnvironment environment = {},
               std::function<void(Simulation&)> after = {}) {
  models::toy::ToyController controller(environment);
  models::toy::ToyClusterReadiness readiness;
  GarbageCollector gc;
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {&readiness, &gc}, chooser,
                        sink, faults);
  create_rayjob(simulation);
  RunEnd end = simulation.run();
  if (after) {
    after(simulation);
    end = simulation.run();
  }
  return {sink.events, simulation.world(), end};
}

TEST_CASE("the fault-free run reads every cache at the head of its kind's log") {
  DefaultChooser chooser(1);
  const ToyRun run = run_toy(chooser);
  CHECK(run.end == RunEnd::quiescent);
  std::size_t reads = 0;
  for (const Event& event : run.events) {
    if (event.type != "cache.read") continue;
    ++reads;
    CHECK(int_field(event, "lag") == 0);
    if (std::get<bool>(*event.find("found"))) {
      CHECK(int_field(event, "rv_seen") == int_field(event, "rv_latest"));
    }
  }
  CHECK(reads > 3);
  const RayJob* rayjob = run.world.api.find<RayJob>("default", "demo");
  REQUIRE(rayjob != nullptr);
  CHECK(rayjob->status.job_deployment_status == "Running");
}

TEST_CASE("a restart re-lists every kind and enqueues each RayJob and each dependent's owner") {
  for (const ReleaseEnvironment& environment : {ReleaseEnvironment{}, testing::modern_environment()}) {
    DefaultChooser chooser(1);
    const ToyRun run = run_toy(chooser, {}, environment, [](Simulation& s) { s.inject_crash(); });
    const auto restart = std::find_if(run.events.begin(), run.events.end(),
                                      [](const Event& e) { return e.type == "process.restart"; });
    REQUIRE(restart != run.events.end());
    std::vector<std::string> relisted, initial_adds;
    bool reconciled_again = false;
    for (auto it = restart; it != run.events.end(); ++it) {
      if (it->type == "informer.relist") relisted.push_back(it->actor);
      if ((it->type == "queue.add" || it->type == "queue.squash") &&
          std::get<std::string>(*it->find("cause")) == "initial-list") {
        initial_adds.push_back(std::get<std::string>(*it->find("key")));
      }
      if (it->type == "reconcile.begin" && int_field(*it, "incarnation") == 2) reconciled_again = true;
    }
    CHECK(relisted == std::vector<std::string>{"informer/RayJob", "informer/RayCluster"});
    CHECK(initial_adds == std::vector<std::string>{"default/demo", "default/demo"});
    CHECK(reconciled_again);
    CHECK(run.world.process.incarnation == 2);
    CHECK(restart->at_ms >= 15'000);   // the old leader's lease runs out first
  }
}

TEST_CASE("a panic kills a legacy process and is an error in a modern one") {
  auto panicking = [](const Request&, Clients&) -> ReconcileResult { throw ModelPanic("nil pointer"); };
  for (bool legacy : {true, false}) {
    LambdaController controller(panicking, legacy ? ReleaseEnvironment{} : testing::modern_environment());
    DefaultChooser chooser(1);
    MemorySink sink;
    Limits limits;
    limits.time_ms = 50;
    Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, {}, limits);
    create_rayjob(simulation);
    simulation.run();
    CHECK(count(sink.events, "reconcile.panic") >= 1);
    CHECK((count(sink.events, "process.crash") >= 1) == legacy);
    CHECK((count(sink.events, "queue.backoff") >= 1) == !legacy);
  }
}

TEST_CASE("the same seed gives the same events, a different seed a different order") {
  FaultBudget faults;
  faults.squash = true;
  RandomChooser first(7), again(7), other(8);
  const ToyRun a = run_toy(first, faults);
  const ToyRun b = run_toy(again, faults);
  const ToyRun c = run_toy(other, faults);
  CHECK(a.events == b.events);
  auto steps_taken = [](const std::vector<Event>& events) {
    std::vector<std::string> order;
    for (const Event& e : events) {
      if (e.type != "choice" || !e.find("step")) continue;
      order.push_back(std::get<std::string>(*e.find("step")));
    }
    return order;
  };
  CHECK(steps_taken(a.events) != steps_taken(c.events));
}

// A sink that keeps only the types it says it reads.
class SomeTypesSink final : public events::EventSink {
 public:
  explicit SomeTypesSink(events::EventTypes reads) : reads_(std::move(reads)) {}
  void emit(const Event& event) override { events.push_back(event); }
  events::EventTypes reads() const override { return reads_; }
  std::vector<Event> events;

 private:
  events::EventTypes reads_;
};

// Keeps the seq range of each step and the events it was shown.
class StepRanges final : public StepObserver {
 public:
  explicit StepRanges(events::EventTypes reads) : reads_(std::move(reads)) {}
  events::EventTypes reads() const override { return reads_; }
  void after_step(const World&, const StepLog& step) override {
    ranges.push_back({step.first_seq, step.end_seq});
    shown.insert(shown.end(), step.events.begin(), step.events.end());
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  std::vector<Event> shown;

 private:
  events::EventTypes reads_;
};

TEST_CASE("an event no reader reads is not built but takes its seq, so the others keep theirs") {
  FaultBudget faults;
  faults.squash = true;
  auto run = [&](events::EventSink& sink, StepRanges& ranges) {
    models::toy::ToyController controller;
    models::toy::ToyClusterReadiness readiness;
    GarbageCollector gc;
    RandomChooser chooser(7);
    Simulation simulation(Simulation::initial_world(controller), controller, {&readiness, &gc}, chooser,
                          sink, faults);
    simulation.add_observer(&ranges);
    create_rayjob(simulation);
    CHECK(simulation.run() == RunEnd::quiescent);
    return simulation.events_emitted();
  };
  MemorySink every_event;
  StepRanges full_ranges(events::EventTypes::none());
  const std::int64_t emitted = run(every_event, full_ranges);
  SomeTypesSink writes(events::EventTypes::only({"api."}));
  StepRanges few_ranges(events::EventTypes::only({"status.transition"}));
  CHECK(run(writes, few_ranges) == emitted);

  auto of_types = [&](std::initializer_list<std::string_view> types) {
    const events::EventTypes wanted = events::EventTypes::only(types);
    std::vector<Event> kept;
    for (const Event& event : every_event.events) {
      if (wanted.contains(event.type)) kept.push_back(event);
    }
    return kept;
  };
  REQUIRE(of_types({"status.transition"}).size() > 0);
  // What any reader reads is built, with the seq, time and body of the full log, and both
  // readers get it; the rest is not.
  const std::vector<Event> read = of_types({"api.", "status.transition"});
  CHECK(read.size() < every_event.events.size());
  CHECK(writes.events == read);
  CHECK(few_ranges.shown == read);
  CHECK(few_ranges.ranges == full_ranges.ranges);   // the steps keep their seq ranges
  CHECK(static_cast<std::int64_t>(every_event.events.size()) == emitted);
}

// Counts the times it is asked what it could do; it offers "ready" from 1 s of virtual time on
// (and names that time as its timer unless told not to), "head" once a Ray head exists and
// "acted" once a user action fired, and declares `inputs` as what it reads.
class CountingActor final : public Actor {
 public:
  explicit CountingActor(ActorInputs inputs, bool names_its_timer = true)
      : inputs_(inputs), names_its_timer_(names_its_timer) {}
  std::string_view name() const override { return "counting"; }
  ActorInputs inputs() const override { return inputs_; }
  void enabled(const World& world, std::vector<ActorWork>& out) const override {
    ++asked;
    if (world.now_ms >= 1'000) out.push_back({"ready", {}, 0});
    if (!world.ray->heads.empty()) out.push_back({"head", {}, 0});
    if (world.environment->actions_fired > 0) out.push_back({"acted", {}, 0});
  }
  std::optional<std::int64_t> next_timer_ms(const World& world) const override {
    if (names_its_timer_ && world.now_ms < 1'000) return 1'000;
    return std::nullopt;
  }
  void apply(const ActorWork&, StepContext&) const override {}
  mutable int asked = 0;

 private:
  ActorInputs inputs_;
  bool names_its_timer_;
};

bool offers(const std::vector<Step>& steps, std::string_view what) {
  return std::any_of(steps.begin(), steps.end(),
                     [&](const Step& step) { return step.kind == StepKind::actor && step.work.what == what; });
}
bool offers_ready(const std::vector<Step>& steps) { return offers(steps, "ready"); }

TEST_CASE("an actor is asked again only when what it declares it reads changes") {
  const ActorInputs rayjobs = ActorInputs::objects_of({Kind::RayJob});
  const ActorInputs pods = ActorInputs::objects_of({Kind::Pod});
  for (const ActorInputs inputs : {rayjobs, rayjobs.and_clock(), rayjobs.and_clock().and_ray_and_environment(),
                                   pods.and_clock(), ActorInputs{}}) {
    CAPTURE(inputs.whole_world);
    CAPTURE(inputs.objects.contains(Kind::RayJob));
    CAPTURE(inputs.clock);
    CAPTURE(inputs.ray_and_environment);
    models::toy::ToyController controller;
    CountingActor actor(inputs);
    DefaultChooser chooser(1);
    MemorySink sink;
    FaultBudget faults;
    faults.squash = true;   // deliveries may wait, so that the actors are asked beside them
    Simulation simulation(Simulation::initial_world(controller), controller, {&actor}, chooser, sink, faults);
    create_rayjob(simulation);
    const bool every_time = inputs.whole_world;

    CHECK_FALSE(offers_ready(simulation.enabled_steps()));
    CHECK_FALSE(offers_ready(simulation.enabled_steps()));
    CHECK(actor.asked == (every_time ? 2 : 1));   // nothing changed in between

    simulation.run_as_step([](StepContext& context) { context.world().now_ms = 1'000; });
    const bool reads_clock = inputs.clock || every_time;
    const int before_clock = actor.asked;
    const bool ready = offers_ready(simulation.enabled_steps());
    CHECK(actor.asked == before_clock + (reads_clock ? 1 : 0));
    CHECK(ready == reads_clock);   // an actor that says it ignores the clock is believed

    // A write changes one kind's objects: only their readers are asked again.
    const bool reads_rayjobs = inputs.objects.contains(Kind::RayJob) || every_time;
    const int before_write = actor.asked;
    simulation.run_as_step([](StepContext& context) { patch_message(context, "changed"); });
    simulation.enabled_steps();
    CHECK(actor.asked == before_write + (reads_rayjobs ? 1 : 0));

    // The Ray and environment state change without a write to the API server.
    const bool reads_environment = inputs.ray_and_environment || every_time;
    const int before_ray = actor.asked;
    simulation.run_as_step([](StepContext& context) { context.world().ray.edit().heads.emplace_back(); });
    CHECK(offers(simulation.enabled_steps(), "head") == reads_environment);
    CHECK(actor.asked == before_ray + (reads_environment ? 1 : 0));
    const int before_environment = actor.asked;
    simulation.run_as_step([](StepContext& context) { ++context.world().environment.edit().actions_fired; });
    CHECK(offers(simulation.enabled_steps(), "acted") == reads_environment);
    CHECK(actor.asked == before_environment + (reads_environment ? 1 : 0));

    const int before_set_up = actor.asked;
    simulation.mutable_world();   // set-up may change anything: answers are dropped
    simulation.enabled_steps();
    CHECK(actor.asked == before_set_up + 1);
  }
}

TEST_CASE("a clock reader's answers hold until its timer") {
  models::toy::ToyController controller;
  CountingActor actor(ActorInputs::objects_of({Kind::RayJob}).and_clock());
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {&actor}, chooser, sink, FaultBudget{});
  // Nothing else can run, so the listing offers the clock and asks the actor for its timer.
  const std::vector<Step> at_start = simulation.enabled_steps();
  REQUIRE(at_start.size() == 1);
  CHECK(at_start.front().kind == StepKind::clock);
  CHECK(at_start.front().clock_to_ms == 1'000);
  CHECK(actor.asked == 1);

  simulation.run_as_step([](StepContext& context) { context.world().now_ms = 500; });
  CHECK_FALSE(offers_ready(simulation.enabled_steps()));
  CHECK(actor.asked == 1);   // before its timer: the answers hold

  simulation.run_as_step([](StepContext& context) { context.world().now_ms = 1'000; });
  CHECK(offers_ready(simulation.enabled_steps()));
  CHECK(actor.asked == 2);   // its timer came: asked again
}

TEST_CASE("remembered actor answers serve a later simulation of a world that shares what they read") {
  models::toy::ToyController controller;
  CountingActor actor(ActorInputs::objects_of({Kind::RayJob}).and_clock());
  DefaultChooser chooser(1);
  MemorySink sink;
  FaultBudget faults;
  faults.squash = true;   // deliveries may wait, so that the actor is asked beside them
  ActorAnswers answers;
  World world = Simulation::initial_world(controller);
  {
    Simulation first(world, controller, {&actor}, chooser, sink, faults);
    first.remember_answers_in(answers);
    create_rayjob(first);
    first.enabled_steps();
    world = first.world();
  }
  CHECK(actor.asked == 1);

  Simulation again(world, controller, {&actor}, chooser, sink, faults);   // a copy of the world it answered for
  again.remember_answers_in(answers);
  again.enabled_steps();
  CHECK(actor.asked == 1);

  // The same resourceVersion and clock, reached another way: other objects, so asked again.
  World other = Simulation::initial_world(controller);
  {
    Simulation elsewhere(other, controller, {&actor}, chooser, sink, faults);
    create_rayjob(elsewhere, "other");
    other = elsewhere.world();
  }
  CHECK(other.api.resource_version() == world.api.resource_version());
  CHECK(other.now_ms == world.now_ms);
  const int before = actor.asked;
  Simulation branch(other, controller, {&actor}, chooser, sink, faults);
  branch.remember_answers_in(answers);
  branch.enabled_steps();
  CHECK(actor.asked == before + 1);

  CountingActor renamed_inputs(ActorInputs::objects_of({Kind::Pod}));
  Simulation other_actors(world, controller, {&renamed_inputs}, chooser, sink, faults);
  other_actors.remember_answers_in(answers);   // answers for other actors are dropped
  other_actors.enabled_steps();
  CHECK(renamed_inputs.asked == 1);
}

TEST_CASE("checking reused answers finds an actor that reads more than it declares") {
  // It reads the clock: it must say so, and name the time its work comes due.
  for (const bool declares_clock : {true, false}) {
    for (const bool names_its_timer : {true, false}) {
      CAPTURE(declares_clock);
      CAPTURE(names_its_timer);
      models::toy::ToyController controller;
      const ActorInputs rayjobs = ActorInputs::objects_of({Kind::RayJob});
      CountingActor actor(declares_clock ? rayjobs.and_clock() : rayjobs, names_its_timer);
      DefaultChooser chooser(1);
      MemorySink sink;
      Simulation simulation(Simulation::initial_world(controller), controller, {&actor}, chooser, sink,
                            FaultBudget{});
      simulation.check_reused_answers(true);
      simulation.enabled_steps();   // nothing else can run: its timer is asked too
      simulation.run_as_step([](StepContext& context) { context.world().now_ms = 1'000; });
      if (declares_clock && names_its_timer) {
        CHECK_NOTHROW(simulation.enabled_steps());
      } else {
        CHECK_THROWS_WITH_AS(simulation.enabled_steps(), doctest::Contains("actor counting answered differently"),
                             std::logic_error);
      }
    }
  }
}

TEST_CASE("stale reads never lag their kind's log by more than maxLag events") {
  FaultBudget faults;
  faults.max_lag = 2;
  faults.squash = true;
  bool saw_lag = false;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RandomChooser chooser(seed);
    for (const Event& event : run_toy(chooser, faults).events) {
      if (event.type != "cache.read") continue;
      CHECK(int_field(event, "lag") <= 2);
      saw_lag = saw_lag || int_field(event, "lag") > 0;
    }
  }
  CHECK(saw_lag);   // the bound is reached, not just respected by never lagging
}

TEST_CASE("injected write faults stay within their budget and are logged as such") {
  FaultBudget faults;
  faults.conflicts = 1;
  faults.write_failures = 1;
  bool saw_injection = false;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RandomChooser chooser(seed);
    const ToyRun run = run_toy(chooser, faults);
    int conflicts = 0, failures = 0;
    for (const Event& event : run.events) {
      if (const events::Value* injected = event.find("injected")) {
        const auto& what = std::get<std::string>(*injected);
        (what == "conflict" ? conflicts : failures) += 1;
      }
      if (event.type == "api.reply_lost") ++failures;
    }
    CHECK(conflicts <= 1);
    CHECK(failures <= 1);
    CHECK(run.world.faults_used.conflicts == conflicts);
    saw_injection = saw_injection || conflicts + failures > 0;
  }
  CHECK(saw_injection);
}

// Picks the last write outcome offered (with only writeFailures allowed: applied, reply lost).
class ReplyLostChooser final : public Chooser {
 public:
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    return point == ChoicePoint::write_outcome ? options - 1 : 0;
  }
};

TEST_CASE("a write whose reply was lost leaves the caller's object as it was sent") {
  RayJob sent, after_write;
  Error write_error;
  LambdaController controller([&](const Request& request, Clients& clients) {
    RayJob rayjob;
    REQUIRE_FALSE(clients.kube.get(request.namespace_, request.name, rayjob));
    if (!rayjob.status.message.empty()) return ReconcileResult::done();
    rayjob.status.message = "sent";
    sent = rayjob;
    write_error = clients.kube.update_status(rayjob);
    after_write = rayjob;
    return ReconcileResult::done();
  });
  ReplyLostChooser chooser;
  MemorySink sink;
  FaultBudget faults;
  faults.write_failures = 1;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink, faults);
  create_rayjob(simulation);
  simulation.run();
  CHECK(write_error.code() == ErrorCode::timeout);
  CHECK(after_write == sent);   // the server's reply (a new resourceVersion) never reached it
  const RayJob* stored = simulation.world().api.find<RayJob>("default", "demo");
  REQUIRE(stored != nullptr);
  CHECK(stored->status.message == "sent");   // but the write happened
  CHECK(stored->metadata.resource_version > sent.metadata.resource_version);
}

TEST_CASE("a model reads the operator's env and feature gates that the simulation was given") {
  std::optional<std::string> timeout, unset;
  bool gate_set = false, gate_default = false;
  LambdaController controller([&](const Request&, Clients& clients) {
    timeout = clients.runtime.operator_env("RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS");
    unset = clients.runtime.operator_env("DELETE_RAYJOB_CR_AFTER_JOB_FINISHES");
    gate_set = clients.runtime.feature_gate("RayJobDeletionPolicy", true);
    gate_default = clients.runtime.feature_gate("SidecarSubmitterRestart", true);
    return ReconcileResult::done();
  });
  OperatorSettings settings;
  settings.env["RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS"] = "60";
  settings.feature_gates["RayJobDeletionPolicy"] = false;
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {}, chooser, sink);
  simulation.set_operator_settings(&settings);
  create_rayjob(simulation);
  simulation.run();
  REQUIRE(controller.reconciles == 1);
  CHECK(timeout == "60");
  CHECK_FALSE(unset.has_value());
  CHECK_FALSE(gate_set);
  CHECK(gate_default);   // a gate the settings do not name keeps the release's default
}

}  // namespace
}  // namespace simulation_test
}  // namespace rjsim::engine

