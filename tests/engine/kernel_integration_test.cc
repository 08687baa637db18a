// The kernel end to end: a small controller (the toy of src/models/toy) driven through a
// create, a conflicting update, a requeue and a squash; the run stored in SQLite, read back, and
// its events asserted.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "engine/garbage_collector.h"
#include "engine/simulation.h"
#include "models/toy/toy_controller.h"
#include "store/database.h"
#include "store/run_writer.h"

namespace rjsim::engine {
namespace kernel_integration_test {
namespace {

using events::Event;

// Index of the first event after `from` that satisfies `match`; fails the test when none does.
template <class Match>
std::size_t find_after(const std::vector<Event>& events, std::size_t from, Match match,
                       const char* what) {
  for (std::size_t i = from; i < events.size(); ++i) {
    if (match(events[i])) return i;
  }
  FAIL("no event after seq ", from, ": ", what);
  return events.size();
}

std::string string_field(const Event& event, std::string_view key) {
  const events::Value* value = event.find(key);
  return value && std::holds_alternative<std::string>(*value) ? std::get<std::string>(*value) : "";
}

TEST_CASE("the kernel runs a controller through create, conflict, requeue and squash, and stores it") {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("rjsim-kernel-integration-test-" + std::to_string(::getpid()) + ".db");   // shards run at once
  std::filesystem::remove(path);

  models::toy::ToyController controller;
  models::toy::ToyClusterReadiness readiness(10'000);
  GarbageCollector gc;
  DefaultChooser chooser(1);
  events::MemorySink memory;
  events::LogHasher hasher;
  class HashSink final : public events::EventSink {
   public:
    explicit HashSink(events::LogHasher& hasher) : hasher_(hasher) {}
    void emit(const Event& event) override { hasher_.add(event); }
   private:
    events::LogHasher& hasher_;
  } hash_sink(hasher);

  store::Database database = store::Database::open(path.string());
  store::RunWriter writer = database.begin_run(
      store::RunHeader{std::nullopt, "run", "kernel-toy", "(built in)", "kernel-toy", 1});
  events::TeeSink sink({&memory, &writer, &hash_sink});

  Simulation simulation(Simulation::initial_world(controller), controller, {&readiness, &gc}, chooser, sink);
  simulation.run_as_step([](StepContext& context) {
    Object rayjob = models::toy::toy_rayjob("demo");
    LoggedApi(context, "user").create(rayjob);
  });
  const RunEnd end = simulation.run();
  CHECK(end == RunEnd::quiescent);
  const std::int64_t run_id = writer.commit(store::RunSummary{
      "pass", simulation.world().steps, simulation.world().now_ms, hasher.hex()});

  const std::vector<Event>& events = memory.events;
  // create: the user's RayJob, then the controller's own metadata update ...
  std::size_t at = find_after(events, 0, [](const Event& e) {
    return e.type == "api.create" && e.object == "RayJob/default/demo" && string_field(e, "outcome") == "ok";
  }, "the RayJob created");
  at = find_after(events, at, [](const Event& e) {
    return e.type == "api.update" && e.actor == "controller" && string_field(e, "outcome") == "ok";
  }, "the controller's label update");
  // ... a conflicting update: its status write still carries the rv read before the update ...
  at = find_after(events, at, [](const Event& e) {
    return e.type == "api.update_status" && string_field(e, "outcome") == "Conflict";
  }, "a 409 Conflict");
  at = find_after(events, at, [](const Event& e) { return e.type == "queue.backoff"; },
                  "the error retried with backoff");
  // ... Initializing persisted on the next pass, then the cluster created with two writes in one
  // reconcile whose two events squash into one pending key ...
  at = find_after(events, at, [](const Event& e) {
    return e.type == "status.transition" && string_field(e, "to_deployment") == "Initializing";
  }, "Initializing persisted");
  at = find_after(events, at, [](const Event& e) {
    return e.type == "api.create" && e.object.starts_with("RayCluster/default/demo-");
  }, "the RayCluster created");
  at = find_after(events, at, [](const Event& e) { return e.type == "queue.requeue_after"; },
                  "RequeueAfter 3s while the cluster is not ready");
  at = find_after(events, at, [](const Event& e) { return e.type == "queue.squash"; },
                  "the second event for the key squashed");
  // ... and time passes until the cluster is ready and Running is persisted.
  at = find_after(events, at, [](const Event& e) { return e.type == "clock.advance"; }, "the clock advanced");
  at = find_after(events, at, [](const Event& e) {
    return e.type == "status.transition" && string_field(e, "to_deployment") == "Running";
  }, "Running persisted");
  CHECK(events[at].at_ms >= 10'000);

  // Read back: the same events, in seq order, and the derived rows.
  store::Database reopened = store::Database::open_existing(path.string());
  store::EventReader reader = reopened.events(run_id);
  std::vector<Event> stored;
  Event event;
  while (reader.next(event)) stored.push_back(event);
  CHECK(stored == events);
  const std::optional<store::RunInfo> info = reopened.run(run_id);
  REQUIRE(info.has_value());
  CHECK(info->log_hash == hasher.hex());
  CHECK(info->steps == simulation.world().steps);
  const std::vector<store::Transition> transitions = reopened.transitions(run_id);
  REQUIRE(transitions.size() == 2);
  CHECK(transitions[0].from_deployment == "");
  CHECK(transitions[0].to_deployment == "Initializing");
  CHECK(transitions[1].to_deployment == "Running");
  CHECK(transitions[1].rayjob == "RayJob/default/demo");
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

}  // namespace
}  // namespace kernel_integration_test
}  // namespace rjsim::engine

