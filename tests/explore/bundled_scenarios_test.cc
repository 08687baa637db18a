// Every bundled scenario (scenarios/*.yaml) meets its expectations, and runs the same way twice:
// the same log hash from the same seed (DESIGN §1 "Determinism is the product").
#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/format.h>

#include "engine/scenario_loader.h"
#include "bundled_scenarios.h"
#include "explore/scenario_run.h"

namespace rjsim::explore {
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

TEST_CASE("every bundled scenario gives the same log hash when run twice") {
  for (const auto& file : bundled_scenarios()) {
    CAPTURE(file.string());
    const engine::Scenario scenario = engine::load_scenario(file.string());
    RunOptions options;
    options.keep_events = false;
    CHECK(run_scenario(scenario, options).log_hash == run_scenario(scenario, options).log_hash);
  }
}

}  // namespace
}  // namespace rjsim::explore
