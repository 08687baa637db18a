// rjsim hunt (issue 32): a campaign over several scenarios groups what it finds by invariant and
// symptom, stores each distinct finding's counterexample and shrunk run, and refuses a scenario
// it cannot explore.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/scenario_files.h"
#include "cli_test_support.h"
#include "engine/scenario_loader.h"
#include "store/database.h"

#include "../store/store_test_support.h"

namespace rjsim::cli::testing {
namespace hunt_test {
namespace {

using store::testing::ScratchDirectory;

std::string scenario(const std::string& path) { return std::string(RJSIM_SOURCE_DIR) + "/" + path; }

TEST_CASE("rjsim hunt groups one race found in two scenarios into one finding and stores its runs") {
  ScratchDirectory dir;
  const std::string db = dir.file("hunt.db");
  // Both scenarios suspend a RayJob right after its RayCluster is created: the same race.
  const Result hunt = invoke({"hunt", scenario("scenarios/explore/v17-suspend-before-cluster-cached.yaml"),
                              scenario("scenarios/explore/suspend-before-cluster-cached.yaml"), "--time", "10m",
                              "--explorations", "2", "--slice-runs", "100", "--shrink-runs", "100", "--jobs",
                              "1", "--db", db, "--json"});
  INFO(hunt.err);
  REQUIRE(hunt.code == 1);
  const nlohmann::json report = nlohmann::json::parse(hunt.out);
  CHECK(report["explorations"] == 2);   // round 0: the targeted plans of each scenario
  CHECK(report["levelling"].size() == 10);
  const nlohmann::json& findings = report["findings"];
  REQUIRE(findings.size() == report["distinct_findings"].get<std::size_t>());
  std::set<std::string> keys;
  bool clean_found_in_both = false;
  for (const nlohmann::json& finding : findings) {
    const std::string invariant = finding["invariant"];
    const std::string symptom = finding["symptom"];
    CAPTURE(invariant);
    CHECK(keys.insert(invariant + "\n" + symptom).second);   // distinct by invariant and symptom
    CHECK(!finding["message"].get<std::string>().empty());
    if (invariant == "suspended-is-clean" && finding["scenarios"].size() == 2) clean_found_in_both = true;
  }
  CHECK(clean_found_in_both);

  const store::Database database = store::Database::open_existing(db);
  const std::vector<store::RunInfo> runs = database.runs();
  CHECK(runs.size() == 2 * findings.size());   // each finding: its counterexample and the shrunk run
  const std::int64_t shrunk = findings[0]["shrunk_run_id"];
  const Result replayed = invoke({"replay", db, "--run", std::to_string(shrunk)});
  CHECK(replayed.code == 0);
  CHECK(contains(replayed.out, "identical"));
}

TEST_CASE("a finding of a hunt's exhaustive slice is found again by the command it prints") {
  // Round 1 searches exhaustively by departures for a time; its finding names the run count
  // that reaches it, so that the search it prints stops there and not after a time.
  const std::string file = scenario("tools/hunt/corpus/suspend-resume.yaml");
  const Result hunt = invoke({"hunt", file, "--explorations", "2", "--slice-runs", "50", "--shrink-runs", "20",
                              "--exhaustive-time", "3s", "--jobs", "1", "--db", "", "--json"});
  INFO(hunt.err);
  REQUIRE(hunt.code == 1);
  std::string again;
  std::string invariant;
  const nlohmann::json report = nlohmann::json::parse(hunt.out);
  for (const nlohmann::json& finding : report["findings"]) {
    const std::string command = finding["find_again"];
    if (command.find("--strategy exhaustive") == std::string::npos) continue;
    again = command;
    invariant = finding["invariant"];
    break;
  }
  REQUIRE(!again.empty());
  CHECK(contains(again, "--order departures --runs "));
  std::vector<std::string> arguments;
  std::istringstream words(again.substr(std::string("rjsim ").size()));
  for (std::string word; words >> word;) arguments.push_back(word);
  arguments.insert(arguments.end(), {"--db", "", "--json"});
  const Result found = invoke(arguments);
  REQUIRE(found.code == 1);
  bool same_invariant = false;
  const nlohmann::json explored = nlohmann::json::parse(found.out);
  for (const nlohmann::json& violation : explored["violations"]) {
    same_invariant = same_invariant || violation["invariant"] == invariant;
  }
  CHECK(same_invariant);
}

TEST_CASE("the hunt corpus: every scenario loads, runs KubeRay v1.7.0 and has every fault on") {
  const std::vector<std::string> files = scenario_files({scenario("tools/hunt/corpus")});
  CHECK(files.size() >= 14);
  for (const std::string& file : files) {
    CAPTURE(file);
    const engine::Scenario loaded = engine::load_scenario(file);
    CHECK(loaded.controller == "kuberay-1.7");
    CHECK(loaded.has_faults);
    CHECK(loaded.faults.squash);
    CHECK(loaded.faults.restarts > 0);
    CHECK(loaded.faults.mid_reconcile);
    CHECK(loaded.faults.max_lag > 0);
    CHECK(loaded.faults.conflicts > 0);
    CHECK(loaded.faults.write_failures > 0);
    CHECK(loaded.faults.http_errors > 0);
    CHECK(loaded.faults.latency);
    CHECK(loaded.faults.interleave_calls);
  }
}

TEST_CASE("rjsim hunt refuses a scenario without faults, naming it, before it searches") {
  ScratchDirectory dir;
  const Result refused = invoke({"hunt", scenario("scenarios/kuberay-1.7/k8sjobmode-success.yaml"), "--time", "1s",
                                 "--db", dir.file("hunt.db")});
  CHECK(refused.code == 2);
  CHECK(contains(refused.err, "k8sjobmode-success.yaml: the scenario has no faults: block"));
}

}  // namespace
}  // namespace hunt_test
}  // namespace rjsim::cli::testing
