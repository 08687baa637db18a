// `rjsim show --format kubectl-watch` (trace/kubectl_watch_export.h): the lines kubectl prints
// for a watch (Go's json.Marshal of a WatchEvent), the export of a simulated run and of a trace
// run, and the round trip run → export → import → conform over every bundled scenario.
#include <doctest/doctest.h>

#include <algorithm>

#include "../cli/cli_test_support.h"
#include "../cli/recorded_runs.h"
#include "../explore/bundled_scenarios.h"
#include "../store/store_test_support.h"
#include "trace/kubectl_watch_export.h"
#include "trace_test_support.h"

namespace rjsim::trace {
namespace kubectl_watch_export_test {
namespace {

using namespace testing;
using cli::testing::contains;
using cli::testing::invoke;
using cli::testing::Result;
using store::testing::ScratchDirectory;
using store::testing::write_bytes;

int count_lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// Runs `scenario` into `db` and exports its RayJob watch; the run is run 1 of the database.
std::string exported_rayjob_watch(const std::string& scenario, const std::string& db) {
  const Result run = invoke({"run", scenario, "--db", db});
  REQUIRE_MESSAGE(run.code <= 1, run.err);
  const Result show = invoke({"show", db, "--run", "1", "--format", "kubectl-watch"});
  REQUIRE_MESSAGE(show.code == 0, show.err);
  CHECK(show.err.empty());   // the run replays identically
  return show.out;
}

// `rjsim conform` of `scenario`'s run, exported as the watches of `kinds` (one file each, as
// kubectl records them), imported into the same database.
Result conform_round_trip(const std::string& scenario, const ScratchDirectory& dir,
                          const std::vector<std::string>& kinds = {"RayJob"}) {
  const std::string db = dir.file("round-trip.db");
  std::filesystem::remove(db);
  const std::string rayjobs = exported_rayjob_watch(scenario, db);
  std::vector<std::string> import = {"import"};
  for (const std::string& kind : kinds) {
    const std::string file = dir.file(kind + ".json");
    if (kind == "RayJob") {
      write_bytes(file, rayjobs);
    } else {
      const Result show = invoke({"show", db, "--run", "1", "--format", "kubectl-watch", "--kind", kind});
      REQUIRE_MESSAGE(show.code == 0, show.err);
      write_bytes(file, show.out);
    }
    import.push_back(file);
  }
  for (const char* argument : {"--format", "kubectl-watch", "--db"}) import.emplace_back(argument);
  import.push_back(db);
  const Result imported = invoke(import);
  REQUIRE_MESSAGE(imported.code == 0, imported.err);
  return invoke({"conform", db, "--run", "2"});
}

// Every bundled scenario's round trip through the watches of `kinds` agrees with its model.
void check_every_round_trip(const std::vector<std::string>& kinds) {
  ScratchDirectory dir;
  const std::filesystem::path root = std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios";
  for (const std::filesystem::path& file : explore::testing::bundled_scenarios()) {
    const std::string name = std::filesystem::relative(file, root).replace_extension().string();
    CAPTURE(name);
    const Result conform = conform_round_trip(file.string(), dir, kinds);
    CHECK_MESSAGE(conform.code == 0, conform.out, conform.err);
  }
}

}  // namespace

TEST_CASE("kubectl watch line: type before object, keys sorted, compact, <>& escaped as Go's json.Marshal does") {
  const json object = {{"kind", "RayJob"},
                       {"apiVersion", "ray.io/v1"},
                       {"spec", {{"entrypoint", "python a.py && echo <done>"}}},
                       {"metadata", {{"name", "x"}, {"annotations", {{"note", "line\u2028break"}}}}}};
  CHECK(kubectl_watch_line("MODIFIED", object) ==
        "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\",\"metadata\":"
        "{\"annotations\":{\"note\":\"line\\u2028break\"},\"name\":\"x\"},\"spec\":{\"entrypoint\":"
        "\"python a.py \\u0026\\u0026 echo \\u003cdone\\u003e\"}}}\n");
}

TEST_CASE("show --format kubectl-watch: one line per change of the RayJob, ADDED first, DELETED last when it was deleted") {
  ScratchDirectory dir;
  const std::string db = dir.file("runs.db");
  const std::string text = exported_rayjob_watch(cli::testing::bundled_scenario("kuberay-1.0/delete-while-running"), db);
  REQUIRE(count_lines(text) >= 3);
  CHECK(text.starts_with("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\""));
  const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
  CHECK(last.starts_with("{\"type\":\"DELETED\""));
  CHECK(contains(last, "\"deletionTimestamp\""));

  SUBCASE("--kind RayCluster writes the cluster's watch instead") {
    const Result show = invoke({"show", db, "--format", "kubectl-watch", "--kind", "RayCluster"});
    REQUIRE(show.code == 0);
    CHECK(show.out.starts_with("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\""));
  }
  SUBCASE("a trace run is written back as it was imported") {
    write_bytes(dir.file("rayjobs.json"), text);
    REQUIRE(invoke({"import", dir.file("rayjobs.json"), "--format", "kubectl-watch", "--db", db}).code == 0);
    const Result again = invoke({"show", db, "--run", "2", "--format", "kubectl-watch"});
    REQUIRE(again.code == 0);
    CHECK(again.out == text);
  }
  SUBCASE("an unknown kind, or --kind with another format, is a usage error") {
    const Result unknown = invoke({"show", db, "--format", "kubectl-watch", "--kind", "Deployment"});
    CHECK(unknown.code == 2);
    CHECK(contains(unknown.err, "--kind"));
    const Result text = invoke({"show", db, "--kind", "RayCluster"});
    CHECK(text.code == 2);
    CHECK(contains(text.err, "--kind applies to --format kubectl-watch only"));
  }
}

TEST_CASE("round trip: every bundled scenario, run, exported as a RayJob watch, imported and conformed, agrees") {
  check_every_round_trip({"RayJob"});
}

TEST_CASE("round trip: every bundled scenario, exported as RayJob, RayCluster, Job and Pod watches, agrees") {
  check_every_round_trip({"RayJob", "RayCluster", "Job", "Pod"});
}

}  // namespace kubectl_watch_export_test
}  // namespace rjsim::trace

