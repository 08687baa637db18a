// Replay (explore/replay.h): a recorded run driven again from its inputs gives the same events;
// a recording that differs from what the code does now is reported at its first differing event,
// with the RayJob transition that changed.
#include <doctest/doctest.h>

#include <algorithm>

#include "bundled_scenarios.h"
#include "engine/scenario_loader.h"
#include "explore/replay.h"
#include "explore/scenario_run.h"
#include "test_files.h"

namespace rjsim::explore {
namespace replay_test {
namespace {

using events::Event;

// Runs the scenario file and keeps what a store would hold of the run.
RecordedRun record(const std::filesystem::path& file, RunOptions options = {}) {
  const engine::Scenario scenario = engine::load_scenario(file.string());
  options.keep_events = true;
  RunReport report = run_scenario(scenario, options);
  RecordedRun recorded;
  recorded.run_id = 1;
  recorded.source = "test run";
  recorded.scenario_text = rjsim::testing::read_bytes(file);
  recorded.controller = report.controller;
  recorded.events = std::move(report.event_log);
  return recorded;
}

std::filesystem::path scenario_file(const char* name) {
  return std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / name;
}

// The index of the first event of `type` at or after `from`.
std::size_t find_event(const RecordedRun& recorded, std::string_view type, std::size_t from = 0) {
  for (std::size_t i = from; i < recorded.events.size(); ++i) {
    if (recorded.events[i].type == type) return i;
  }
  FAIL("no ", type, " event in the recording");
  return 0;
}

void set_string(Event& event, std::string_view key, std::string value) {
  for (events::Field& field : event.body) {
    if (field.key == key) field.value = std::move(value);
  }
}

TEST_CASE("every bundled scenario replays as identical, with the recorded log hash") {
  for (const auto& file : testing::bundled_scenarios()) {
    CAPTURE(file.string());
    const RecordedRun recorded = record(file);
    const ReplayReport report = replay_run(recorded);
    CHECK(report.identical);
    CHECK_FALSE(report.first_difference.has_value());
    CHECK(report.run.events == static_cast<std::int64_t>(recorded.events.size()));
    events::LogHasher hasher;
    for (const Event& event : recorded.events) hasher.add(event);
    CHECK(report.run.log_hash == hasher.hex());
  }
}

TEST_CASE("a run drawn within the fault budget replays as identical from its recorded choices") {
  RunOptions faulty;
  faulty.faults = true;
  faulty.seed = 11;
  const RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"), faulty);
  const ReplayReport report = replay_run(recorded);
  CHECK(report.identical);
  CHECK_FALSE(report.decisions_diverged);
}

TEST_CASE("runs whose passes stop between client calls replay as identical: resumes, mid-pass crashes, waits") {
  for (const char* name : {"interleavings/v17-user-edit-during-slow-get-job-info.yaml",
                           "interleavings/v10-crash-between-cluster-delete-and-suspended.yaml"}) {
    for (const std::uint64_t seed : {1U, 7U, 278U}) {
      CAPTURE(std::string(name));
      CAPTURE(seed);
      RunOptions faulty;
      faulty.faults = true;
      faulty.seed = seed;
      const RecordedRun recorded = record(scenario_file(name), faulty);
      // The run stopped between calls, unless (midReconcile) a crash came before the first pass.
      const bool stopped = std::any_of(recorded.events.begin(), recorded.events.end(),
                                       [](const Event& event) { return event.type == "reconcile.resume"; });
      const bool crashed = std::any_of(recorded.events.begin(), recorded.events.end(),
                                       [](const Event& event) { return event.type == "process.crash"; });
      CHECK((stopped || crashed));
      const ReplayReport report = replay_run(recorded);
      CHECK(report.identical);
      CHECK_FALSE(report.decisions_diverged);
    }
  }
}

TEST_CASE("replay follows the recorded decisions, not the seed") {
  RunOptions faulty;
  faulty.faults = true;
  faulty.seed = 3;
  RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"), faulty);
  // Make the first step decision pick another alternative: the replay must take it (its own
  // choice event then equals the recording), so the first difference comes later, in an effect.
  const std::size_t choice = find_event(recorded, "choice");
  Event& decision = recorded.events[choice];
  std::int64_t options = 0;
  std::int64_t picked = 0;
  for (const events::Field& field : decision.body) {
    if (field.key == "options") options = std::get<std::int64_t>(field.value);
    if (field.key == "picked") picked = std::get<std::int64_t>(field.value);
  }
  for (events::Field& field : decision.body) {
    if (field.key == "picked") field.value = (picked + 1) % options;
  }
  const ReplayReport report = replay_run(recorded);
  REQUIRE(report.first_difference.has_value());
  CHECK(report.first_difference->seq > decision.seq);
}

TEST_CASE("a recorded effect that the code no longer produces is the first difference") {
  RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"));
  const std::size_t create = find_event(recorded, "api.create", 2);
  recorded.events[create].actor = "someone-else";
  const ReplayReport report = replay_run(recorded);
  CHECK_FALSE(report.identical);
  REQUIRE(report.first_difference.has_value());
  CHECK(report.first_difference->seq == recorded.events[create].seq);
  REQUIRE(report.first_difference->recorded.has_value());
  REQUIRE(report.first_difference->replayed.has_value());
  CHECK(report.first_difference->recorded->actor == "someone-else");
  CHECK(report.first_difference->replayed->actor != "someone-else");
  CHECK(report.transition_changes.empty());
}

TEST_CASE("a changed persisted transition is named with its RayJob and position") {
  RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"));
  const std::size_t first = find_event(recorded, "status.transition");
  const std::size_t second = find_event(recorded, "status.transition", first + 1);
  set_string(recorded.events[second], "to_deployment", "Failed");
  const ReplayReport report = replay_run(recorded);
  REQUIRE(report.first_difference.has_value());
  CHECK(report.first_difference->seq == recorded.events[second].seq);
  REQUIRE(report.transition_changes.size() == 1);
  const TransitionChange& change = report.transition_changes.front();
  CHECK(change.rayjob == "rayjob-sample");
  CHECK(change.index == 1);
  REQUIRE(change.recorded.has_value());
  REQUIRE(change.replayed.has_value());
  CHECK(change.recorded->to == "Failed");
  CHECK(change.replayed->to != "Failed");
}

TEST_CASE("a recording that ends early differs where the replay goes on") {
  RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"));
  const std::size_t kept = recorded.events.size() - 5;
  recorded.events.resize(kept);
  const ReplayReport report = replay_run(recorded);
  REQUIRE(report.first_difference.has_value());
  CHECK(report.first_difference->seq == static_cast<std::int64_t>(kept));
  CHECK_FALSE(report.first_difference->recorded.has_value());
  CHECK(report.first_difference->replayed.has_value());
}

TEST_CASE("a recording with events the replay does not produce differs where the replay ends") {
  RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"));
  Event extra = recorded.events.back();
  extra.seq += 1;
  recorded.events.push_back(extra);
  const ReplayReport report = replay_run(recorded);
  REQUIRE(report.first_difference.has_value());
  CHECK(report.first_difference->seq == extra.seq);
  CHECK(report.first_difference->recorded.has_value());
  CHECK_FALSE(report.first_difference->replayed.has_value());
}

TEST_CASE("a run without a run.start header cannot be replayed") {
  RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"));
  recorded.events.erase(recorded.events.begin());
  CHECK_THROWS_AS(replay_run(recorded), NotReplayable);
}

TEST_CASE("the log opens with run.start and logs each violation after the step that broke it") {
  const RecordedRun recorded = record(scenario_file("head-restart-while-running.yaml"));
  REQUIRE_FALSE(recorded.events.empty());
  const Event& header = recorded.events.front();
  CHECK(header.type == "run.start");
  CHECK(header.origin == events::Origin::input);
  REQUIRE(header.find("faults") != nullptr);
  CHECK(std::get<bool>(*header.find("faults")) == false);
  const std::size_t verdict = find_event(recorded, "invariant.violated");
  const Event& violated = recorded.events[verdict];
  CHECK(violated.origin == events::Origin::effect);
  CHECK(violated.object == "RayJob/default/rayjob-sample");
  REQUIRE(violated.find("step_seq") != nullptr);
  CHECK(std::get<std::int64_t>(*violated.find("step_seq")) < violated.seq);
}

// Keeps the Pod watch log of the last step.
class PodLogRecorder final : public engine::StepObserver {
 public:
  events::EventTypes reads() const override { return events::EventTypes::none(); }
  void after_step(const engine::World& world, const engine::StepLog&) override {
    log = world.api.watch_log(engine::Kind::Pod);
  }
  // How many events carry the Pod they announced (not the empty placeholder version).
  std::size_t with_objects() const {
    return static_cast<std::size_t>(std::count_if(log.begin(), log.end(), [](const engine::WatchEvent& event) {
      return std::holds_alternative<engine::Pod>(*event.object);
    }));
  }
  std::vector<engine::WatchEvent> log;
};

TEST_CASE("a kind no informer watches keeps revisions only, unless the run is replayed for its logs") {
  SUBCASE("kuberay-1.1 watches no Pods: its Pod log keeps resourceVersions, not Pods") {
    PodLogRecorder pods;
    RunOptions options;
    options.observers = {&pods};
    run_scenario(engine::load_scenario(scenario_file("suspend-in-running-then-resume.yaml").string()), options);
    REQUIRE_FALSE(pods.log.empty());
    CHECK(pods.with_objects() == 0);
    CHECK(std::is_sorted(pods.log.begin(), pods.log.end(), [](const auto& a, const auto& b) {
      return a.resource_version < b.resource_version;
    }));

    PodLogRecorder replayed;   // what kubectl export reads
    replay_run(record(scenario_file("suspend-in-running-then-resume.yaml")), {}, {&replayed});
    CHECK(replayed.log.size() == pods.log.size());
    CHECK(replayed.with_objects() == replayed.log.size());
  }
  SUBCASE("kuberay-1.7 watches Pods by node type: its Pod log keeps every Pod its informer receives, no other") {
    PodLogRecorder pods;
    RunOptions options;
    options.observers = {&pods};
    run_scenario(engine::load_scenario(scenario_file("kuberay-1.7/delete-while-running.yaml").string()), options);
    REQUIRE_FALSE(pods.log.empty());
    const auto sent = static_cast<std::size_t>(
        std::count_if(pods.log.begin(), pods.log.end(), [](const engine::WatchEvent& event) { return event.sent; }));
    CHECK(sent > 0);
    CHECK(sent < pods.log.size());   // the submitter Pod's events: not sent, not kept
    CHECK(pods.with_objects() == sent);
    for (const engine::WatchEvent& event : pods.log) CHECK(std::holds_alternative<engine::Pod>(*event.object) == event.sent);
  }
}

}  // namespace
}  // namespace replay_test
}  // namespace rjsim::explore

