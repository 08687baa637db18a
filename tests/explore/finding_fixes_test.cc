// The fix variants of docs/findings/ under every fault at once: the variant's own calls (an
// uncached read, say) must also stop, resume and crash like any client call, and the race its
// finding describes must stay gone while the release it fixes still shows it.
#include <doctest/doctest.h>

#include <filesystem>

#include "engine/scenario_loader.h"
#include "explore/explorer.h"

namespace rjsim::explore {
namespace finding_fixes_test {
namespace {

engine::Scenario finding(const std::string& name) {
  return engine::load_scenario((std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / "findings" / name).string());
}

// The finding's scenario with interleaved calls and a crash inside a reconcile on top of its faults.
engine::Scenario with_every_fault(engine::Scenario scenario) {
  scenario.faults.interleave_calls = true;
  scenario.faults.restarts = 1;
  scenario.faults.mid_reconcile = true;
  scenario.faults.latency = true;
  return scenario;
}

ExploreOptions every_invariant_in_400_targeted_runs() {
  ExploreOptions options;
  options.strategy = Strategy::targeted;
  options.runs = 400;
  options.all = true;
  options.shrink_runs = 0;
  return options;
}

bool found(const ExploreReport& report, const std::string& invariant) {
  for (const Finding& f : report.findings) {
    if (f.invariant == invariant) return true;
  }
  return false;
}

TEST_CASE("finding 002: the API reader's confirmation closes the race under every fault; v1.7.0 still shows it") {
  const ExploreOptions options = every_invariant_in_400_targeted_runs();
  const engine::Scenario fixed = with_every_fault(finding("002-suspended-before-cluster-cached-fixed.yaml"));
  const ExploreReport fixed_report = explore(fixed, options);
  CHECK_FALSE(found(fixed_report, "suspended-is-clean"));
  CHECK_FALSE(found(fixed_report, "no-leaked-cluster"));
  CHECK_FALSE(found(fixed_report, "single-cluster"));

  const engine::Scenario released = with_every_fault(finding("002-suspended-before-cluster-cached.yaml"));
  CHECK(found(explore(released, options), "suspended-is-clean"));
}

TEST_CASE("finding 003: waiting for the Pods closes the race under every fault; v1.7.0 still shows it") {
  const ExploreOptions options = every_invariant_in_400_targeted_runs();
  const ExploreReport fixed_report = explore(with_every_fault(finding("003-suspended-while-pods-run-fixed.yaml")), options);
  CHECK_FALSE(found(fixed_report, "suspended-means-released"));
  CHECK_FALSE(found(fixed_report, "one-execution-at-a-time"));

  const ExploreReport released_report = explore(with_every_fault(finding("003-suspended-while-pods-run.yaml")), options);
  CHECK(found(released_report, "suspended-means-released"));
  CHECK(found(released_report, "one-execution-at-a-time"));
}

}  // namespace
}  // namespace finding_fixes_test
}  // namespace rjsim::explore
