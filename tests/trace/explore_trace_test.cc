// `rjsim explore --from-trace` (DESIGN §6; docs/traces.md "Exploring around a trace"): a bundled
// scenario's run written out as kubectl watches and imported is the recording; exploring around it
// finds the race the model is known for, stores a counterexample that replays; a clean run's trace
// finds nothing; what is not a trace, and a SCENARIO with --from-trace, are bad input.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "../cli/cli_test_support.h"
#include "../store/store_test_support.h"
#include "recorded_watches.h"
#include "store/database.h"
#include "trace/explore_trace.h"

namespace rjsim::trace {
namespace explore_trace_test {
namespace {

using namespace testing;
using cli::testing::contains;
using cli::testing::invoke;
using cli::testing::Result;
using store::testing::ScratchDirectory;
using store::testing::write_bytes;

// The run of a bundled scenario as kubectl watches of RayJobs, RayClusters and Jobs, imported
// into `db` (one trace run).
void import_watches(const ScratchDirectory& dir, const std::string& db, const std::string& scenario,
                    const std::string& controller = "") {
  RecordedScenario recorded = record_bundled(scenario, controller);
  std::vector<std::string> args = {"import"};
  for (const auto& [kind, file] : {std::pair{engine::Kind::RayJob, "rayjobs.json"},
                                   std::pair{engine::Kind::RayCluster, "rayclusters.json"},
                                   std::pair{engine::Kind::Job, "jobs.json"}}) {
    write_bytes(dir.file(file), recorded.watches.kubectl_watch(kind));
    args.push_back(dir.file(file));
  }
  for (const char* arg : {"--format", "kubectl-watch", "--db"}) args.emplace_back(arg);
  args.push_back(db);
  const Result imported = invoke(args);
  REQUIRE_MESSAGE(imported.code == 0, imported.err);
}

TEST_CASE("explore --from-trace: the derived scenario gets the default budget, named after the trace run") {
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  const TraceExploration exploration = trace_exploration(trace_of(recorded, Watched::rayjobs_and_clusters), 4, "");
  CHECK(exploration.default_faults);
  CHECK(exploration.scenario.name == "from-trace-4");
  CHECK(exploration.scenario.has_faults);
  CHECK(exploration.scenario.faults.max_lag == 1);
  CHECK(exploration.scenario.faults.squash);
  CHECK(exploration.scenario.faults.restarts == 1);
  CHECK(exploration.scenario.faults.conflicts == 0);
  CHECK(contains(exploration.scenario.text, "\"faults\""));
  CHECK(exploration.scenario.controller == "kuberay-1.1");
  CHECK(exploration.conform.alignment.differs == 0);
  const std::vector<std::string>& assumed = exploration.conform.derived.assumptions;
  CHECK(std::none_of(assumed.begin(), assumed.end(), [](const std::string& l) { return contains(l, "no faults"); }));
  CHECK(contains(assumed.at(exploration.conform.derived.faults_assumption),
                 "faults {staleReads: {maxLag: 1}, squash: true, restarts: {max: 1, midReconcile: true}}: the --from-trace default"));
}

TEST_CASE("explore --from-trace: a given budget replaces the default; a bad one names --faults") {
  RecordedScenario recorded = record_bundled("k8sjobmode-success");
  const std::vector<events::Event> events = trace_of(recorded, Watched::rayjobs);
  const TraceExploration given =
      trace_exploration(events, 1, "kuberay-1.7", {{"conflicts", {{"max", 2}}}, {"restarts", {{"max", 2}}}});
  CHECK_FALSE(given.default_faults);
  CHECK(given.scenario.controller == "kuberay-1.7");
  CHECK(given.scenario.faults.conflicts == 2);
  CHECK(given.scenario.faults.restarts == 2);
  CHECK(given.scenario.faults.max_lag == 0);
  CHECK(contains(given.conform.derived.assumptions.at(given.conform.derived.faults_assumption),
                 "faults {conflicts: {max: 2}, restarts: {max: 2}}: given with --faults"));
  CHECK_THROWS_WITH_AS(trace_exploration(events, 1, "", {{"staleRead", true}}), doctest::Contains("--faults: "),
                       ConformError);
}

TEST_CASE("rjsim explore --from-trace finds kuberay-1.0's recreated cluster in a recorded run and stores a replayable "
          "counterexample") {
  ScratchDirectory dir;
  const std::string db = dir.file("t.db");
  import_watches(dir, db, "explore/cluster-recreated-after-success-1-0");

  const Result found = invoke({"explore", "--from-trace", db});
  INFO(found.out, found.err);
  REQUIRE(found.code == 1);
  CHECK(contains(found.out, fmt::format("explore --from-trace: trace run 1 (trace-kubectl-watch) in {}, RayJob "
                                        "rayjob-sample\n",
                                        db)));
  CHECK(contains(found.out, "model: kuberay-1.0 (jobDeploymentStatus WaitForDashboard"));
  CHECK(contains(found.out, "  - faults {staleReads: {maxLag: 1}, squash: true, restarts: {max: 1, midReconcile: true}}: the --from-trace "
                            "default"));
  CHECK(contains(found.out, "fault-free run: agrees with all"));
  CHECK(contains(found.out, "explore from-trace-1 under kuberay-1.0: strategy targeted\n"));
  CHECK(contains(found.out, "violation: single-cluster"));
  CHECK(contains(found.out, "replay: rjsim replay " + db + " --run 5"));

  const store::Database database = store::Database::open_existing(db);
  const std::vector<store::RunInfo> runs = database.runs();
  REQUIRE(runs.size() == 5);
  CHECK(runs[0].kind == "trace");
  CHECK(runs[1].kind == "explore");   // the summary
  CHECK(runs[2].kind == "run");       // the fault-free baseline
  CHECK(runs[3].kind == "explore");   // the counterexample
  CHECK(runs[4].kind == "shrink");
  CHECK(runs[4].parent_run == std::optional<std::int64_t>(4));
  CHECK(runs[4].scenario == "from-trace-1");
  CHECK(runs[4].controller == "kuberay-1.0");
  CHECK(contains(runs[4].scenario_text, "\"staleReads\""));

  const Result replayed = invoke({"replay", db, "--run", "5"});
  CHECK(replayed.code == 0);
  CHECK(contains(replayed.out, "identical"));
  CHECK(invoke({"replay", db, "--run", "4"}).code == 0);
}

TEST_CASE("rjsim explore --from-trace of a clean kuberay-1.7 run finds nothing; --json names the trace and the "
          "assumptions") {
  ScratchDirectory dir;
  const std::string db = dir.file("t.db");
  import_watches(dir, db, "k8sjobmode-success", "kuberay-1.7");

  const Result clean = invoke({"explore", "--from-trace", db, "--db", dir.file("out.db"), "--json"});
  INFO(clean.out, clean.err);
  REQUIRE(clean.code == 0);
  const json summary = json::parse(clean.out);
  for (const char* field : {"strategy", "schedules", "steps", "distinct_states", "elapsed_s", "schedules_per_s",
                            "steps_per_s", "complete", "violations", "trace_run_id", "controller_why", "assumptions"}) {
    CAPTURE(field);
    CHECK(summary.contains(field));
  }
  CHECK(summary["strategy"] == "targeted");
  CHECK(summary["violations"].empty());
  CHECK(summary["trace_run_id"] == 1);
  CHECK(summary["controller"] == "kuberay-1.7");
  CHECK(contains(summary["controller_why"].get<std::string>(), "after v1.1.0"));
  CHECK(summary["faults"] == default_trace_faults());
  CHECK(summary["fault_free_agreed"] == summary["recorded_transitions"]);
  // --db elsewhere: the trace's database is left as it was.
  CHECK(store::Database::open_existing(db).runs().size() == 1);
  CHECK(store::Database::open_existing(dir.file("out.db")).runs().size() == 2);   // summary and baseline
}

TEST_CASE("rjsim explore --from-trace: what is not a trace, and a SCENARIO beside it, exit 2") {
  ScratchDirectory dir;
  const std::string db = dir.file("t.db");
  SUBCASE("a run that is not a trace") {
    REQUIRE(invoke({"run", cli::testing::bundled_scenario("k8sjobmode-success"), "--db", db}).code == 0);
    const Result named = invoke({"explore", "--from-trace", db, "--run", "1"});
    CHECK(named.code == 2);
    CHECK(contains(named.err, "run 1 is a run run of scenario k8sjobmode-success, not a trace"));
    const Result last = invoke({"explore", "--from-trace", db});
    CHECK(last.code == 2);
    CHECK(contains(last.err, "holds no trace run"));
    CHECK(store::Database::open_existing(db).runs().size() == 1);
  }
  SUBCASE("a SCENARIO and --from-trace") {
    const Result both = invoke({"explore", cli::testing::bundled_scenario("k8sjobmode-success"), "--from-trace", db});
    CHECK(both.code == 2);
    CHECK(contains(both.err, "give either a SCENARIO or --from-trace DB, not both"));
  }
  SUBCASE("neither, and the --from-trace flags without it") {
    CHECK(contains(invoke({"explore"}).err, "a SCENARIO is required"));
    const Result run = invoke({"explore", cli::testing::bundled_scenario("k8sjobmode-success"), "--run", "2"});
    CHECK(run.code == 2);
    CHECK(contains(run.err, "--run goes with --from-trace DB"));
    const Result rayjob = invoke({"explore", cli::testing::bundled_scenario("k8sjobmode-success"), "--rayjob", "x"});
    CHECK(rayjob.code == 2);
    CHECK(contains(rayjob.err, "--rayjob goes with --from-trace DB"));
  }
  SUBCASE("--rayjob naming no RayJob of the trace") {
    import_watches(dir, db, "k8sjobmode-success");
    const Result other = invoke({"explore", "--from-trace", db, "--rayjob", "other"});
    CHECK(other.code == 2);
    CHECK(contains(other.err, "--rayjob: the trace holds no RayJob \"other\" (it holds default/rayjob-sample)"));
  }
  SUBCASE("a budget that is not a faults: block") {
    import_watches(dir, db, "k8sjobmode-success");
    const Result not_yaml = invoke({"explore", "--from-trace", db, "--faults", "[1, 2"});
    CHECK(not_yaml.code == 2);
    CHECK(contains(not_yaml.err, "--faults: "));
    const Result unknown = invoke({"explore", "--from-trace", db, "--faults", "{staleRead: {maxLag: 1}}"});
    CHECK(unknown.code == 2);
    CHECK(contains(unknown.err, "--faults: faults"));
    CHECK(contains(unknown.err, "staleRead"));
  }
}

}  // namespace
}  // namespace explore_trace_test
}  // namespace rjsim::trace

