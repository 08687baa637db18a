// rjsim check as CI runs it (DESIGN §6, issue 4): JUnit XML, --jobs, golden files, failing runs
// stored for replay, and bad input. Each test writes small scenarios into a scratch directory and
// drives the whole command in-process through run_cli.
#include "cli/cli.h"
#include "cli/junit.h"
#include "cli/line_diff.h"
#include "store/database.h"

#include "cli_test_support.h"

#include "../store/store_test_support.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace check_test {
namespace {

using rjsim::store::testing::read_bytes;
using rjsim::store::testing::ScratchDirectory;

using rjsim::cli::testing::contains;
using rjsim::cli::testing::Result;

Result check(std::vector<std::string> args) {
  args.insert(args.begin(), "check");
  return rjsim::cli::testing::invoke(std::move(args));
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// An HTTPMode RayJob whose Ray job ends `ray_result` after `runs_for`; it expects Complete, so a
// FAILED result fails the scenario.
std::string scenario_yaml(const std::string& name, const std::string& ray_result, const std::string& runs_for = "30s") {
  return fmt::format(R"(apiVersion: rjsim/v1
kind: Scenario
name: {}
rayjob:
  apiVersion: ray.io/v1
  kind: RayJob
  metadata: {{name: rayjob-sample, namespace: default}}
  spec:
    entrypoint: python main.py
    submissionMode: HTTPMode
    shutdownAfterJobFinishes: true
    rayClusterSpec:
      rayVersion: "2.9.0"
      headGroupSpec:
        rayStartParams: {{}}
        template:
          spec:
            containers: [{{name: ray-head, image: "rayproject/ray:2.9.0"}}]
world:
  rayCluster: {{readyAfter: 20s}}
  ray: {{pendingFor: 2s, runsFor: {}, result: {}}}
expect:
  transitions: ["", Initializing, Running, Complete]
  final: {{jobDeploymentStatus: Complete}}
)",
                     name, runs_for, ray_result);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.flush());
}

nlohmann::json without_wall_times(const std::string& json_text) {
  nlohmann::json json = nlohmann::json::parse(json_text);
  for (auto& result : json["results"]) result.erase("wall_ms");
  return json;
}

const std::string first_unmet =
    R"(transitions.rayjob-sample: expected ["", Initializing, Running, Complete], got ["", Initializing, Running, Failed])";

}  // namespace

TEST_CASE("check --junit writes one testcase per scenario; a failure carries its reasons and the replay command") {
  ScratchDirectory scratch;
  std::filesystem::create_directory(scratch.file("s"));
  write_file(scratch.file("s/passing.yaml"), scenario_yaml("passing", "SUCCEEDED"));
  write_file(scratch.file("s/failing.yaml"), scenario_yaml("failing", "FAILED"));
  const std::string db = scratch.file("runs.db");

  const Result result = check({scratch.file("s"), "--junit", scratch.file("junit.xml"), "--db", db});
  CHECK(result.code == 1);
  const std::string xml = read_bytes(scratch.file("junit.xml"));
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ", 0) == 0);
  CHECK(contains(xml, R"(<testsuite name="rjsim check" tests="2" failures="1" errors="0" time=")"));
  CHECK(occurrences(xml, "<testcase ") == 2);
  const std::string classname = rjsim::cli::junit_classname(scratch.file("s/failing.yaml"));
  CHECK(contains(xml, fmt::format(R"(<testcase name="failing" classname="{}" file="{}" time=")", classname,
                                  scratch.file("s/failing.yaml"))));
  CHECK(contains(xml, fmt::format(R"(<testcase name="passing" classname="{}" file="{}" time=")", classname,
                                  scratch.file("s/passing.yaml"))));
  CHECK(occurrences(xml, "<failure ") == 1);
  CHECK(contains(xml, "<failure message=\"" + rjsim::cli::xml_attribute(first_unmet) + "\">" +
                          rjsim::cli::xml_text(first_unmet) + "\n"));
  CHECK(contains(xml, fmt::format("replay: rjsim replay {} --run 1</failure>", db)));
  // The failure sits in the failing testcase, which comes first (file order).
  CHECK(xml.find("<failure ") < xml.find("<testcase name=\"passing\""));
  CHECK(contains(xml, "<system-out>model kuberay-1.1, outcome pass, "));
  CHECK(xml.ends_with("  </testsuite>\n</testsuites>\n"));
}

TEST_CASE("JUnit text is XML-escaped: markup, quotes and control characters") {
  CHECK(rjsim::cli::xml_attribute("a<b & \"c\" 'd'>\n\te\x01") ==
        "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;&#10;&#9;e\xEF\xBF\xBD");
  CHECK(rjsim::cli::xml_text("x < y\ny & z\r") == "x &lt; y\ny &amp; z&#13;");
  CHECK(rjsim::cli::junit_classname("scenarios/v1.1/x.yaml") == "scenarios.v1_1");
  CHECK(rjsim::cli::junit_classname("./x.yaml") == "rjsim");
}

TEST_CASE("check --jobs 2 prints the same results in the same order as --jobs 1") {
  // The exploration acceptance: scenarios whose runs take from a millisecond to a second, so that
  // the two workers finish out of order. (tools/test runs the whole suite with --jobs besides.)
  const std::string bundled = std::string(RJSIM_SOURCE_DIR) + "/scenarios/explore";
  ScratchDirectory scratch;
  const Result one = check({bundled, "--jobs", "1", "--json", "--db", scratch.file("one.db")});
  const Result two = check({bundled, "--jobs", "2", "--json", "--db", scratch.file("two.db")});
  CHECK(one.code == 0);
  CHECK(two.code == one.code);
  const nlohmann::json sequential = without_wall_times(one.out);
  CHECK(sequential["total"].get<int>() >= 10);
  CHECK(without_wall_times(two.out).dump() == sequential.dump());
}

TEST_CASE("check --update-golden writes a golden file beside the scenario, which the next check matches") {
  ScratchDirectory scratch;
  write_file(scratch.file("passing.yaml"), scenario_yaml("passing", "SUCCEEDED"));
  const Result update = check({scratch.file("passing.yaml"), "--update-golden", "--json", "--db", ""});
  CHECK(update.code == 0);
  CHECK(nlohmann::json::parse(update.out)["results"][0]["golden"] == "written");

  const std::string golden = read_bytes(scratch.file("passing.golden.json"));
  CHECK(golden.rfind("{\n  \"scenario\": \"passing\",\n  \"controller\": \"kuberay-1.1\",\n  \"rayjobs\": {\n"
                     "    \"rayjob-sample\": {\n      \"transitions\": [\n        {\n          \"at_ms\": 0,\n"
                     "          \"from\": \"\",\n          \"to\": \"Initializing\",\n",
                     0) == 0);
  CHECK(contains(golden, "\"final\": {\n        \"exists\": true,\n        \"job_deployment_status\": \"Complete\","));
  for (const char* key : {"job_status", "reason", "job_id", "ray_cluster_name", "ray_clusters", "submitter_jobs",
                          "succeeded", "failed"}) {
    CHECK(contains(golden, fmt::format("\"{}\": ", key)));
  }
  CHECK(golden.back() == '\n');

  const Result again = check({scratch.path(), "--json", "--db", ""});   // the golden is no scenario
  CHECK(again.code == 0);
  const nlohmann::json json = nlohmann::json::parse(again.out);
  CHECK(json["total"] == 1);
  CHECK(json["results"][0]["golden"] == "match");
}

TEST_CASE("a scenario whose behaviour differs from its golden fails, showing the transition diff") {
  ScratchDirectory scratch;
  write_file(scratch.file("passing.yaml"), scenario_yaml("passing", "SUCCEEDED", "30s"));
  REQUIRE(check({scratch.path(), "--update-golden", "--db", ""}).code == 0);
  // The Ray job now runs 10 s longer: `expect` still holds, the golden does not.
  write_file(scratch.file("passing.yaml"), scenario_yaml("passing", "SUCCEEDED", "40s"));

  const Result result = check({scratch.path(), "--db", scratch.file("runs.db")});
  CHECK(result.code == 1);
  CHECK(contains(result.out, "FAIL"));
  CHECK(contains(result.out, fmt::format("  golden {}: the run differs from it\n",
                                         scratch.file("passing.golden.json"))));
  CHECK(contains(result.out, "    RayJob rayjob-sample transitions (- golden, + now):\n"));
  CHECK(contains(result.out, "Running -> Complete  jobStatus=SUCCEEDED\n"));
  CHECK(occurrences(result.out, "      - ") >= 1);
  CHECK(occurrences(result.out, "      + ") >= 1);
  CHECK(contains(result.out, "replay: rjsim replay "));

  const Result json = check({scratch.path(), "--json", "--db", ""});
  const nlohmann::json row = nlohmann::json::parse(json.out)["results"][0];
  CHECK(row["golden"] == "differs");
  CHECK(row["passed"] == false);
  CHECK(row["unmet"].empty());
  CHECK(row["run_id"].is_null());
}

TEST_CASE("a failing scenario is stored in --db and its replay command printed; passing ones are not stored") {
  ScratchDirectory scratch;
  write_file(scratch.file("failing.yaml"), scenario_yaml("failing", "FAILED"));
  write_file(scratch.file("passing.yaml"), scenario_yaml("passing", "SUCCEEDED"));
  const std::string db = scratch.file("runs.db");

  const Result text = check({scratch.path(), "--db", db});
  CHECK(text.code == 1);
  CHECK(contains(text.out, fmt::format("\nFAIL failing ({}, kuberay-1.1)\n  {}\n", scratch.file("failing.yaml"),
                                       first_unmet)));
  CHECK(contains(text.out, "  final.rayjob-sample.jobDeploymentStatus: expected Complete, got Failed\n"
                           "  replay: rjsim replay " + db + " --run 1\n"));
  CHECK(contains(text.out, "2 scenarios: 1 passed, 1 failed\n"));

  const Result json = check({scratch.path(), "--json", "--db", db});
  const nlohmann::json rows = nlohmann::json::parse(json.out)["results"];
  CHECK(rows[0]["scenario"] == "failing");
  CHECK(rows[0]["run_id"] == 2);
  CHECK(rows[0]["replay"] == fmt::format("rjsim replay {} --run 2", db));
  CHECK(rows[1]["run_id"].is_null());

  const rjsim::store::Database database = rjsim::store::Database::open_existing(db);
  const auto runs = database.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].scenario == "failing");
  CHECK(runs[1].log_hash == rows[0]["log_hash"].get<std::string>());
  CHECK(runs[1].outcome == rows[0]["outcome"].get<std::string>());
}

TEST_CASE("a bad scenario file in a directory exits 2, names every bad file, and writes nothing") {
  ScratchDirectory scratch;
  write_file(scratch.file("failing.yaml"), scenario_yaml("failing", "FAILED"));
  write_file(scratch.file("bad-key.yaml"), scenario_yaml("bad-key", "SUCCEEDED") + "colour: blue\n");
  write_file(scratch.file("not-yaml.yaml"), "name: [unclosed\n");

  const Result result = check({scratch.path(), "--junit", scratch.file("junit.xml"), "--db", scratch.file("runs.db")});
  CHECK(result.code == 2);
  CHECK(result.out.empty());
  CHECK(contains(result.err, scratch.file("bad-key.yaml") + ":"));
  CHECK(contains(result.err, "colour"));
  CHECK(contains(result.err, scratch.file("not-yaml.yaml") + ":"));
  CHECK(contains(result.err, "rjsim check: 2 of 3 scenario files are bad input; nothing was run or written\n"));
  CHECK_FALSE(std::filesystem::exists(scratch.file("junit.xml")));
  CHECK_FALSE(std::filesystem::exists(scratch.file("runs.db")));
}

TEST_CASE("time travel under a release whose restarts list consistently is bad input, for check and run") {
  ScratchDirectory scratch;
  const std::string yaml = scenario_yaml("travels", "SUCCEEDED") + "faults: {timeTravel: true}\n";
  write_file(scratch.file("v17.yaml"), yaml + "controller: kuberay-1.7\n");
  write_file(scratch.file("v11.yaml"), yaml + "controller: kuberay-1.1\n");

  const Result checked = check({scratch.path(), "--db", ""});
  CHECK(checked.code == 2);
  CHECK(contains(checked.err, scratch.file("v17.yaml") + ": faults.timeTravel: kuberay-1.7 cannot time-travel"));
  CHECK_FALSE(contains(checked.err, scratch.file("v11.yaml")));

  const Result run = rjsim::cli::testing::invoke({"run", scratch.file("v17.yaml"), "--db", ""});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "faults.timeTravel: kuberay-1.7 cannot time-travel"));
  CHECK(rjsim::cli::testing::invoke({"run", scratch.file("v11.yaml"), "--db", ""}).code == 0);
}

TEST_CASE("a --db file that is not an rjsim database, or a --junit path that cannot be written, is bad input") {
  ScratchDirectory scratch;
  write_file(scratch.file("failing.yaml"), scenario_yaml("failing", "FAILED"));
  write_file(scratch.file("notes.txt"), "not a database\n");
  const Result bad_db = check({scratch.file("failing.yaml"), "--db", scratch.file("notes.txt"), "--junit",
                               scratch.file("junit.xml")});
  CHECK(bad_db.code == 2);
  CHECK(contains(bad_db.err, scratch.file("notes.txt")));
  CHECK_FALSE(std::filesystem::exists(scratch.file("junit.xml")));
  CHECK(read_bytes(scratch.file("notes.txt")) == "not a database\n");

  const Result bad_junit =
      check({scratch.file("failing.yaml"), "--db", "", "--junit", scratch.file("no/such/dir/junit.xml")});
  CHECK(bad_junit.code == 2);
  CHECK(contains(bad_junit.err, "--junit: cannot write " + scratch.file("no/such/dir/junit.xml")));
}

TEST_CASE("a golden file that cannot be read is bad input naming the file and the key") {
  ScratchDirectory scratch;
  write_file(scratch.file("passing.yaml"), scenario_yaml("passing", "SUCCEEDED"));
  write_file(scratch.file("passing.golden.json"), R"({"scenario": "passing", "controller": "kuberay-1.1"})");
  const Result missing = check({scratch.path(), "--db", ""});
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, scratch.file("passing.golden.json") + ": rayjobs: is missing"));

  write_file(scratch.file("passing.golden.json"), "{");
  const Result not_json = check({scratch.path(), "--db", ""});
  CHECK(not_json.code == 2);
  CHECK(contains(not_json.err, scratch.file("passing.golden.json") + ": not JSON"));
}

TEST_CASE("two scenarios of one name in one directory, or a directory without scenarios, are bad input") {
  ScratchDirectory scratch;
  write_file(scratch.file("a.yaml"), scenario_yaml("same", "SUCCEEDED"));
  write_file(scratch.file("b.yaml"), scenario_yaml("same", "SUCCEEDED"));
  const Result clash = check({scratch.path(), "--update-golden", "--db", ""});
  CHECK(clash.code == 2);
  CHECK(contains(clash.err, "name: \"same\" is also the name of " + scratch.file("a.yaml")));
  CHECK_FALSE(std::filesystem::exists(scratch.file("same.golden.json")));

  std::filesystem::create_directory(scratch.file("empty"));
  const Result empty = check({scratch.file("empty"), "--db", ""});
  CHECK(empty.code == 2);
  CHECK(contains(empty.err, "no scenario files (*.yaml)"));
}

TEST_CASE("line_diff shows the differing region with one line of context") {
  using rjsim::cli::line_diff;
  CHECK(line_diff({"a", "b", "c"}, {"a", "b", "c"}).empty());
  CHECK(line_diff({"a", "b", "c", "d", "e"}, {"a", "b", "X", "d", "e"}) ==
        std::vector<std::string>{"  ...", "  b", "- c", "+ X", "  d", "  ..."});
  CHECK(line_diff({"a", "b"}, {"a", "b", "c"}) == std::vector<std::string>{"  ...", "  b", "+ c"});
  CHECK(line_diff({"a", "b", "c", "d", "e", "f", "g"}, {"A", "b", "c", "d", "e", "f", "G"}) ==
        std::vector<std::string>{"- a", "+ A", "  b", "  ...", "  f", "- g", "+ G"});
}

}  // namespace check_test
