// Every bundled scenario (scenarios/*.yaml) meets its expectations, and runs the same way twice:
// the same log hash from the same seed (DESIGN §1 "Determinism is the product"). Exploration's
// fast path, which builds only the events the checks read, judges every one as a full run does.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <fmt/format.h>

#include "engine/chooser.h"
#include "engine/scenario_loader.h"
#include "bundled_scenarios.h"
#include "explore/scenario_run.h"

namespace rjsim::explore {
namespace bundled_scenarios_test {
namespace {

using testing::bundled_scenarios;

TEST_CASE("every bundled scenario meets its expectations in the fault-free run") {
  const auto files = bundled_scenarios();
  REQUIRE_FALSE(files.empty());
  for (const auto& file : files) {
    CAPTURE(file.string());
    const engine::Scenario scenario = engine::load_scenario(file.string());
    const RunReport report = run_scenario(scenario);
    for (const std::string& unmet : report.unmet) FAIL_CHECK(unmet);
  }
}

// Whether two runs of `scenario` with its faults (seed 3) give the same log hash.
bool faulty_run_repeats_its_log_hash(const engine::Scenario& scenario) {
  RunOptions faulty;
  faulty.faults = true;
  faulty.seed = 3;
  faulty.keep_events = false;
  return run_scenario(scenario, faulty).log_hash == run_scenario(scenario, faulty).log_hash;
}

TEST_CASE("every bench scenario meets its expectations, and a run with its faults repeats its log hash") {
  const auto files = testing::bench_scenarios();
  REQUIRE(files.size() >= 7);
  for (const auto& file : files) {
    CAPTURE(file.string());
    const engine::Scenario scenario = engine::load_scenario(file.string());
    for (const std::string& unmet : run_scenario(scenario).unmet) FAIL_CHECK(unmet);
    CHECK(faulty_run_repeats_its_log_hash(scenario));
  }
}

TEST_CASE("every profile-training scenario loads, and a run with its faults repeats its log hash") {
  const auto files = testing::training_scenarios();
  REQUIRE(files.size() >= 3);
  for (const auto& file : files) {
    CAPTURE(file.string());
    const engine::Scenario scenario = engine::load_scenario(file.string());
    CHECK(faulty_run_repeats_its_log_hash(scenario));
  }
}

TEST_CASE("every bundled scenario gives the same log hash when run twice") {
  for (const auto& file : bundled_scenarios()) {
    CAPTURE(file.string());
    const engine::Scenario scenario = engine::load_scenario(file.string());
    RunOptions options;
    options.keep_events = false;
    CHECK(run_scenario(scenario, options).log_hash == run_scenario(scenario, options).log_hash);
  }
}

// Asks for every event type, so that a run builds its whole log.
class ReadsEveryEvent final : public engine::StepObserver {
 public:
  void after_step(const engine::World&, const engine::StepLog&) override {}
};

// What the checks and the driver concluded from a run, as one comparable text.
std::string verdicts_of(const RunReport& report) {
  std::string text = fmt::format("{} {} steps {} ms {} events\n", report.outcome, report.steps,
                                 report.virtual_ms, report.events);
  for (const ViolationReport& violation : report.violations) {
    text += fmt::format("violation {} at {}: {}\n", violation.invariant, violation.seq, violation.message);
  }
  for (const Transition& transition : report.transitions) {
    text += fmt::format("transition {} {} {} -> {} {} {}\n", transition.seq, transition.rayjob, transition.from,
                        transition.to, transition.job_status, transition.reason);
  }
  return text;
}

// Calls `run` for every bundled scenario under each of the seeds 1 to 3 of a random walk within
// its fault budget, with the file and seed captured for a failure's message.
void for_each_seeded_scenario(const std::function<void(const engine::Scenario&, std::uint64_t seed)>& run) {
  for (const auto& file : bundled_scenarios()) {
    const engine::Scenario scenario = engine::load_scenario(file.string());
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      CAPTURE(file.string());
      CAPTURE(seed);
      run(scenario, seed);
    }
  }
}

TEST_CASE("exploration's fast path, building only the events the checks read, gives every verdict of a full run") {
  for_each_seeded_scenario([](const engine::Scenario& scenario, std::uint64_t seed) {
    engine::RandomChooser fast_chooser(seed), full_chooser(seed);
    RunOptions fast_options = exploration_run(fast_chooser);
    fast_options.keep_transitions = true;   // compared too
    const RunReport fast = run_scenario(scenario, fast_options);
    ReadsEveryEvent every_event;
    RunOptions full_options = exploration_run(full_chooser);
    full_options.keep_transitions = true;
    full_options.observers.push_back(&every_event);
    const RunReport full = run_scenario(scenario, full_options);
    CHECK(verdicts_of(fast) == verdicts_of(full));
  });
}

TEST_CASE("every actor reads only what it declares: a reused answer is what asking afresh gives") {
  for_each_seeded_scenario([](const engine::Scenario& scenario, std::uint64_t seed) {
    engine::RandomChooser chooser(seed);
    RunOptions options = exploration_run(chooser);
    options.check_reused_answers = true;
    CHECK_NOTHROW(run_scenario(scenario, options));
  });
}

TEST_CASE("a stopped pass going on where it waits gives the run that running it again from its start gives") {
  std::vector<std::filesystem::path> files = bundled_scenarios();
  for (const auto& file : testing::bench_scenarios()) files.push_back(file);
  int stopping = 0;
  for (const auto& file : files) {
    const engine::Scenario scenario = engine::load_scenario(file.string());
    if (!scenario.faults.interleave_calls && !scenario.faults.mid_reconcile) continue;   // no pass stops
    ++stopping;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      CAPTURE(file.string());
      CAPTURE(seed);
      RunOptions options;
      options.faults = true;
      options.seed = seed;
      options.keep_events = false;
      const RunReport going_on = run_scenario(scenario, options);
      options.rerun_stopped_passes = true;
      const RunReport rerun = run_scenario(scenario, options);
      CHECK(going_on.log_hash == rerun.log_hash);
      CHECK(verdicts_of(going_on) == verdicts_of(rerun));
    }
  }
  CHECK(stopping >= 7);   // the interleavings, the mid-reconcile crash, the all-faults bench scenarios
}

TEST_CASE("runs that start over on one runner's simulation give what runs on their own give") {
  for (const auto& file : bundled_scenarios()) {
    CAPTURE(file.string());
    const engine::Scenario scenario = engine::load_scenario(file.string());
    ScenarioRunner runner(scenario, "");
    // Seeds 1 to 6 in turn, each starting over where the last one (perhaps stopped at a
    // violation, numbered far, with transitions) ended.
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      CAPTURE(seed);
      engine::RandomChooser started_over(seed), on_its_own(seed);
      RunOptions options = exploration_run(started_over);
      options.stop_at_violation = true;
      options.keep_transitions = true;   // compared too
      const RunReport again = runner.run(options);
      options.chooser = &on_its_own;
      CHECK(verdicts_of(again) == verdicts_of(run_scenario(scenario, options)));
    }
  }
}

}  // namespace
}  // namespace bundled_scenarios_test
}  // namespace rjsim::explore

