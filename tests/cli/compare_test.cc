// rjsim compare (DESIGN §6): the behaviour changelog between models. The pure part
// (cli/behaviour_changelog.h) is tested on hand-made run reports; the command on bundled scenarios.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/behaviour_changelog.h"
#include "cli_test_support.h"

namespace rjsim::cli::testing {
namespace compare_test {
namespace {

explore::RunReport report(std::vector<std::string> states, std::string job_status, std::string outcome = "pass") {
  explore::RunReport run;
  run.outcome = std::move(outcome);
  std::string from;
  for (const std::string& to : states) {
    run.transitions.push_back({0, 0, "demo", from, to, job_status, ""});
    from = to;
  }
  explore::FinalState& final_state = run.final["demo"];
  final_state.exists = true;
  final_state.job_deployment_status = from;
  final_state.job_status = std::move(job_status);
  final_state.job_id = "demo-abcde";
  return run;
}

const BehaviourDifference* find(const ScenarioComparison& comparison, const std::string& aspect) {
  for (const BehaviourDifference& difference : comparison.differences) {
    if (difference.aspect == aspect) return &difference;
  }
  return nullptr;
}

TEST_CASE("compare lists exactly the aspects in which the models differ") {
  const ScenarioComparison comparison = compare_behaviours(
      "s", "s.yaml",
      {behaviour_of("old", report({"Initializing", "Running", "Complete"}, "SUCCEEDED")),
       behaviour_of("new", report({"Initializing", "Running", "Failed"}, "SUCCEEDED"))});
  REQUIRE(comparison.differences.size() == 2);
  const BehaviourDifference* transitions = find(comparison, "transitions");
  REQUIRE(transitions != nullptr);
  CHECK(transitions->rayjob == "demo");
  CHECK(transitions->values ==
        std::vector<std::string>{"\"\" -> Initializing -> Running -> Complete", "\"\" -> Initializing -> Running -> Failed"});
  REQUIRE(find(comparison, "final.jobDeploymentStatus") != nullptr);
  CHECK(find(comparison, "final.jobStatus") == nullptr);
}

TEST_CASE("compare reads names as set or empty, so a new naming scheme is no difference") {
  explore::RunReport other = report({"Initializing"}, "");
  other.final["demo"].job_id = "demo-raycluster-xyz";
  const ScenarioComparison comparison =
      compare_behaviours("s", "s.yaml", {behaviour_of("a", report({"Initializing"}, "")), behaviour_of("b", other)});
  CHECK(comparison.differences.empty());
}

TEST_CASE("compare leaves out a counter that one release does not have") {
  explore::RunReport newer = report({"Initializing"}, "");
  newer.final["demo"].succeeded = 1;
  const ScenarioComparison comparison =
      compare_behaviours("s", "s.yaml", {behaviour_of("old", report({"Initializing"}, "")), behaviour_of("new", newer)});
  CHECK(comparison.differences.empty());
  explore::RunReport other = newer;
  other.final["demo"].succeeded = 2;
  CHECK(find(compare_behaviours("s", "s.yaml", {behaviour_of("a", newer), behaviour_of("b", other)}),
             "final.succeeded") != nullptr);
}

TEST_CASE("compare reports differing outcomes and invariants as aspects of the run") {
  explore::RunReport broken = report({"Initializing"}, "", "violation");
  broken.violations.push_back({7, "suspend-atomic", "m"});
  broken.violations.push_back({9, "suspend-atomic", "m"});
  const ScenarioComparison comparison =
      compare_behaviours("s", "s.yaml", {behaviour_of("a", broken), behaviour_of("b", report({"Initializing"}, ""))});
  const BehaviourDifference* violations = find(comparison, "violations");
  REQUIRE(violations != nullptr);
  CHECK(violations->rayjob.empty());
  CHECK(violations->values == std::vector<std::string>{"suspend-atomic", "none"});
  CHECK(find(comparison, "outcome") != nullptr);
}

TEST_CASE("compare lists per invariant the scenarios that break it under each model: the promises each release keeps") {
  explore::RunReport broken = report({"Initializing"}, "", "violation");
  broken.violations.push_back({7, "terminal-only-when-job-done", "m"});
  const ScenarioComparison first =
      compare_behaviours("s1", "s1.yaml", {behaviour_of("a", broken), behaviour_of("b", report({"Initializing"}, ""))});
  const ScenarioComparison second =
      compare_behaviours("s2", "s2.yaml", {behaviour_of("a", broken), behaviour_of("b", broken)});
  const std::vector<PromiseRecord> promises = promises_kept({"a", "b"}, {first, second});
  const auto row = std::find_if(promises.begin(), promises.end(),
                                [](const PromiseRecord& r) { return r.invariant == "terminal-only-when-job-done"; });
  REQUIRE(row != promises.end());
  CHECK(row->broken_in == std::vector<std::vector<std::string>>{{"s1", "s2"}, {"s2"}});
  CHECK(promises.front().invariant == "single-submission");   // every invariant, DESIGN §5 order
  CHECK(promises.front().broken_in == std::vector<std::vector<std::string>>{{}, {}});
  const std::string markdown = changelog_markdown({"a", "b"}, {first, second});
  CHECK(contains(markdown, "| `terminal-only-when-job-done` | broken in 2: s1, s2 | broken in 1: s2 |\n"));
  CHECK(contains(markdown, "| `single-submission` | kept | kept |\n"));
  CHECK(changelog_json({"a", "b"}, {first, second})["promises"]["terminal-only-when-job-done"]["b"] ==
        nlohmann::ordered_json::array({"s2"}));
}

TEST_CASE("the text changelog says 'same as' for a model that agrees with the one before") {
  const std::vector<std::string> models = {"a", "b", "c"};
  const ScenarioComparison differs =
      compare_behaviours("changed", "changed.yaml",
                         {behaviour_of("a", report({"Initializing"}, "")), behaviour_of("b", report({"Running"}, "")),
                          behaviour_of("c", report({"Running"}, ""))});
  const ScenarioComparison same = compare_behaviours(
      "kept", "kept.yaml", {behaviour_of("a", report({}, "")), behaviour_of("b", report({}, "")), behaviour_of("c", report({}, ""))});
  const std::string text = changelog_text(models, {differs, same});
  CHECK(contains(text, "changed  (changed.yaml)\n  demo transitions\n    a  \"\" -> Initializing\n    b  \"\" -> Running\n"
                       "    c  same as b\n"));
  CHECK(contains(text, "Same under every model (1): kept\n"));
  CHECK(contains(text, "2 scenarios: 1 differ, 1 same\n"));
}

TEST_CASE("the Markdown changelog is one table per differing scenario, pipes escaped") {
  explore::RunReport odd = report({"Initializing"}, "");
  odd.final["demo"].reason = "a|b";
  const ScenarioComparison comparison =
      compare_behaviours("s", "s.yaml", {behaviour_of("a", report({"Initializing"}, "")), behaviour_of("b", odd)});
  const std::string markdown = changelog_markdown({"a", "b"}, {comparison});
  CHECK(contains(markdown, "# Behaviour changelog: a → b\n"));
  CHECK(contains(markdown, "## s\n\n`s.yaml`\n\n| RayJob | aspect | a | b |\n|---|---|---|---|\n"));
  CHECK(contains(markdown, "| demo | final.reason | \"\" | a\\|b |\n"));
}

TEST_CASE("rjsim compare runs each scenario under each model and exits 0") {
  const std::string scenario = std::string(RJSIM_SOURCE_DIR) + "/scenarios/k8sjobmode-success.yaml";
  Result result = invoke({"compare", "--models", "kuberay-1.1,kuberay-1.1", scenario, "--json"});
  CHECK(result.code == 0);
  const nlohmann::json json = nlohmann::json::parse(result.out);
  CHECK(json["total"] == 1);
  CHECK(json["differ"] == 0);
  CHECK(json["scenarios"][0]["runs"]["kuberay-1.1"]["rayjobs"]["rayjob-sample"]["final"]["jobDeploymentStatus"] ==
        "Complete");
}

TEST_CASE("rjsim compare shows v1.0.0's deployment-status labels beside v1.1.0's states") {
  const std::string scenario = std::string(RJSIM_SOURCE_DIR) + "/scenarios/k8sjobmode-success.yaml";
  Result result = invoke({"compare", "--models", "kuberay-1.0,kuberay-1.1,kuberay-1.7", scenario});
  CHECK(result.code == 0);
  CHECK(contains(result.out, "  rayjob-sample transitions\n    kuberay-1.0  \"\" -> Initializing -> WaitForDashboard"));
  CHECK(contains(result.out, "    kuberay-1.1  \"\" -> Initializing -> Running -> Complete\n"));
  CHECK(contains(result.out, "1 scenario: 1 differ, 0 same\n"));
}

TEST_CASE("rjsim compare: a bad scenario file is bad input, exit 2, nothing run") {
  Result result = invoke({"compare", "--models", "kuberay-1.1,kuberay-1.1", "no/such/dir"});
  CHECK(result.code == 2);
  CHECK(contains(result.err, "no/such/dir: no such file or directory"));
}

}  // namespace
}  // namespace compare_test
}  // namespace rjsim::cli::testing

