// rjsim explore and rjsim merge (DESIGN §6; issue 5): a violation found is shrunk, stored with its
// original (parent_run), and replays as identical; a clean search stores only its summary and the
// baseline; shard databases merge with their parent links intact.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "store/database.h"

#include "../store/store_test_support.h"

namespace rjsim::cli::testing {
namespace explore_command_test {
namespace {

using store::testing::ScratchDirectory;

std::string acceptance(const std::string& name) {
  return std::string(RJSIM_SOURCE_DIR) + "/scenarios/explore/" + name + ".yaml";
}

TEST_CASE("rjsim explore stores the counterexample and its shrunk form, which replays as identical") {
  ScratchDirectory dir;
  const std::string db = dir.file("explore.db");
  const Result found = invoke({"explore", acceptance("suspend-before-cluster-cached"), "--db", db, "--strategy", "pct"});
  INFO(found.out, found.err);
  REQUIRE(found.code == 1);
  CHECK(contains(found.out, "violation: suspended-is-clean"));
  CHECK(contains(found.out, "replay: rjsim replay " + db + " --run 4"));

  const store::Database database = store::Database::open_existing(db);
  const std::vector<store::RunInfo> runs = database.runs();
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].kind == "explore");                          // the summary
  CHECK(runs[1].kind == "run");                              // the fault-free baseline
  CHECK(runs[1].parent_run == std::optional<std::int64_t>(1));
  CHECK(runs[2].kind == "explore");                          // the counterexample
  CHECK(runs[2].outcome == std::optional<std::string>("violation"));
  CHECK(runs[3].kind == "shrink");
  CHECK(runs[3].parent_run == std::optional<std::int64_t>(3));
  CHECK(runs[3].outcome == std::optional<std::string>("violation"));

  CHECK(invoke({"replay", db, "--run", "3"}).code == 0);
  const Result replayed = invoke({"replay", db, "--run", "4"});
  CHECK(replayed.code == 0);
  CHECK(contains(replayed.out, "identical"));
}

TEST_CASE("rjsim explore --json has the DESIGN §6 fields; a clean search exits 0 and keeps no schedule") {
  ScratchDirectory dir;
  const std::string db = dir.file("clean.db");
  const Result clean = invoke({"explore", acceptance("stale-reads-are-harmless"), "--db", db, "--runs", "50", "--strategy", "pct", "--json"});
  INFO(clean.err);
  REQUIRE(clean.code == 0);
  const nlohmann::json summary = nlohmann::json::parse(clean.out);
  for (const char* field : {"strategy", "schedules", "steps", "distinct_states", "elapsed_s", "schedules_per_s",
                            "steps_per_s", "complete", "violations"}) {
    CAPTURE(field);
    CHECK(summary.contains(field));
  }
  CHECK(summary["schedules"] == 50);
  CHECK(summary["violations"].empty());
  CHECK(store::Database::open_existing(db).runs().size() == 2);   // summary and baseline

  const Result found = invoke({"explore", acceptance("suspend-before-cluster-cached"), "--db", "", "--json"});
  REQUIRE(found.code == 1);
  const nlohmann::json violation = nlohmann::json::parse(found.out)["violations"][0];
  CHECK(violation["invariant"] == "suspended-is-clean");
  CHECK(violation["shrunk_decisions"].get<std::int64_t>() <= violation["decisions"].get<std::int64_t>());
  CHECK(violation["run_id"].is_null());   // --db "": nothing stored
}

TEST_CASE("rjsim explore --strategy targeted says how many plans it made and which plan found the violation") {
  const Result found = invoke({"explore", acceptance("suspend-before-cluster-cached"), "--db", ""});
  INFO(found.out, found.err);
  REQUIRE(found.code == 1);
  CHECK(contains(found.out, "targeted plans 30 (schedules 0-29: "));
  CHECK(contains(found.out, "  plan:   held deliveries after api.create RayCluster/default/rayjob-sample-raycluster-"));

  const Result as_json = invoke({"explore", acceptance("suspend-before-cluster-cached"), "--db", "", "--json"});
  const nlohmann::json summary = nlohmann::json::parse(as_json.out);
  CHECK(summary["targeted_plans"] == 30);
  CHECK(summary["violations"][0]["plan"].get<std::string>().starts_with("held deliveries after api.create RayCluster/"));
  const nlohmann::json by_pct =
      nlohmann::json::parse(invoke({"explore", acceptance("suspend-before-cluster-cached"), "--db", "", "--strategy",
                                    "pct", "--json"})
                                .out);
  CHECK(by_pct["violations"][0]["plan"].is_null());
}

TEST_CASE("rjsim explore with an unknown strategy or a bad scenario exits 2") {
  CHECK(invoke({"explore", acceptance("stale-reads-are-harmless"), "--db", "", "--strategy", "bogus"}).code == 2);
  CHECK(invoke({"explore", "no-such-scenario.yaml", "--db", ""}).code == 2);
}

TEST_CASE("rjsim explore --order departures searches in rounds and says so; --order goes with exhaustive only") {
  const Result found = invoke({"explore", acceptance("suspend-before-cluster-cached"), "--db", "", "--strategy",
                               "exhaustive", "--order", "departures", "--runs", "40000"});
  INFO(found.out, found.err);
  REQUIRE(found.code == 1);
  CHECK(contains(found.out, "violation: suspended-is-clean"));
  CHECK(contains(found.out, "rounds 6, the last over schedules departing at most 8 times from the fault-free run"));

  const Result bounded = invoke({"explore", acceptance("suspend-resume-bounded"), "--db", "", "--strategy",
                                 "exhaustive", "--order", "departures", "--json"});
  REQUIRE(bounded.code == 0);
  const nlohmann::json summary = nlohmann::json::parse(bounded.out);
  CHECK(summary["complete"] == true);
  CHECK(summary["rounds"].get<std::int64_t>() > 1);
  CHECK(summary["departure_bound"].get<std::int64_t>() >= 8);
  const Result depth_first = invoke({"explore", acceptance("suspend-resume-bounded"), "--db", "", "--strategy",
                                     "exhaustive", "--json"});
  CHECK(nlohmann::json::parse(depth_first.out)["departure_bound"].is_null());

  const Result misplaced = invoke({"explore", acceptance("suspend-resume-bounded"), "--db", "", "--order", "departures"});
  CHECK(misplaced.code == 2);
  CHECK(contains(misplaced.err, "--order goes with --strategy exhaustive"));
  const Result misplaced_on_trace = invoke({"explore", "--from-trace", "no-such.db", "--order", "departures"});
  CHECK(misplaced_on_trace.code == 2);
  CHECK(contains(misplaced_on_trace.err, "--order goes with --strategy exhaustive"));
  CHECK(invoke({"explore", acceptance("suspend-resume-bounded"), "--db", "", "--strategy", "exhaustive", "--order",
                "sideways"}).code == 2);
}

TEST_CASE("rjsim merge combines shard databases and keeps each shrunk run pointing at its original") {
  ScratchDirectory dir;
  const std::string scenario = acceptance("suspend-before-cluster-cached");
  REQUIRE(invoke({"explore", scenario, "--db", dir.file("s0.db"), "--shard", "0/2", "--strategy", "pct"}).code == 1);
  REQUIRE(invoke({"explore", scenario, "--db", dir.file("s1.db"), "--shard", "1/2", "--strategy", "pct"}).code == 1);
  const Result merged = invoke({"merge", dir.file("all.db"), dir.file("s0.db"), dir.file("s1.db")});
  INFO(merged.err);
  REQUIRE(merged.code == 0);
  CHECK(contains(merged.out, "merged 8 runs from 2 databases"));
  const std::vector<store::RunInfo> runs = store::Database::open_existing(dir.file("all.db")).runs();
  REQUIRE(runs.size() == 8);
  CHECK(runs[7].kind == "shrink");
  CHECK(runs[7].parent_run == std::optional<std::int64_t>(runs[6].run_id));
  CHECK(runs[5].parent_run == std::optional<std::int64_t>(runs[4].run_id));
  CHECK(invoke({"replay", dir.file("all.db"), "--run", std::to_string(runs[7].run_id)}).code == 0);
  CHECK(invoke({"merge", dir.file("all.db"), dir.file("missing.db")}).code == 2);
}

}  // namespace
}  // namespace explore_command_test
}  // namespace rjsim::cli::testing

