// `rjsim import` end to end: what is stored (one trace run, events in resourceVersion order,
// transitions), exit 2 with FILE:LINE and nothing written, --skip-bad, --json (DESIGN §6).
#include <doctest/doctest.h>

#include <filesystem>

#include <fmt/format.h>

#include "../cli/cli_test_support.h"
#include "../store/store_test_support.h"
#include "store/database.h"
#include "trace/import.h"
#include "trace_test_support.h"

namespace rjsim::trace {
namespace import_command_test {
namespace {

using namespace testing;
using cli::testing::contains;
using cli::testing::invoke;
using cli::testing::Result;
using store::testing::ScratchDirectory;
using store::testing::write_bytes;

std::vector<events::Event> stored_events(const std::string& db, std::int64_t run_id) {
  store::Database database = store::Database::open_existing(db);
  std::vector<events::Event> out;
  store::EventReader reader = database.events(run_id);
  events::Event event;
  while (reader.next(event)) out.push_back(event);
  return out;
}

std::string body_of(const events::Event& event) { return events::body_json(event); }

// Two kubectl watches side by side, one per kind, whose events interleave by resourceVersion.
struct TwoWatches {
  ScratchDirectory dir;
  std::string rayjobs = dir.file("rayjobs.json");
  std::string rayclusters = dir.file("rayclusters.json");
  std::string db = dir.file("t.db");
  TwoWatches() {
    const json job = manifest("rayjob-sample.yaml");
    const json cluster = manifest("raycluster-sample.yaml");
    write_bytes(rayjobs, watch_line("ADDED", observed(job, "u-job", "100")) +
                             watch_line("MODIFIED", observed(job, "u-job", "101", rayjob_status("Initializing"))) +
                             watch_line("MODIFIED", observed(job, "u-job", "110", rayjob_status("Running", "RUNNING"))) +
                             watch_line("MODIFIED", observed(job, "u-job", "130", rayjob_status("Complete", "SUCCEEDED"))));
    write_bytes(rayclusters, watch_line("ADDED", observed(cluster, "u-rc", "102")) +
                                 watch_line("MODIFIED", observed(cluster, "u-rc", "108", json{{"state", "ready"}})) +
                                 watch_line("DELETED", observed(cluster, "u-rc", "131")));
  }
};

TEST_CASE("import: two kubectl watch files become one trace run in resourceVersion order") {
  TwoWatches w;
  Result result = invoke({"import", w.rayjobs, w.rayclusters, "--format", "kubectl-watch", "--db", w.db});
  INFO(result.err);
  REQUIRE(result.code == 0);
  CHECK(contains(result.out, "imported 7 records of 2 objects from 2 files (kubectl-watch): 11 events\n"));
  CHECK(contains(result.out, "stored as run 1 (kind trace)"));

  store::Database database = store::Database::open_existing(w.db);
  const std::vector<store::RunInfo> runs = database.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].kind == "trace");
  CHECK(runs[0].scenario == "trace-kubectl-watch");
  CHECK(contains(runs[0].scenario_text, "rayclusters.json"));

  std::vector<std::string> observed_rvs;
  std::vector<events::Event> events = stored_events(w.db, 1);
  REQUIRE(!events.empty());
  CHECK(events[0].type == "trace.import");
  CHECK(events[0].origin == events::Origin::input);
  CHECK(contains(body_of(events[0]), "\"format\":\"kubectl-watch\""));
  for (const events::Event& event : events) {
    if (event.type != "watch.observed") continue;
    CHECK(event.origin == events::Origin::input);
    observed_rvs.push_back(std::get<std::string>(*event.find("rv")));
  }
  CHECK(observed_rvs == std::vector<std::string>{"100", "101", "102", "108", "110", "130", "131"});
  const events::Event& deleted = events[events.size() - 1];
  CHECK(deleted.type == "watch.observed");
  CHECK(deleted.actor == "watch/RayCluster");
  CHECK(deleted.object == "RayCluster/default/raycluster-kuberay");
  CHECK(contains(body_of(deleted), "\"watch\":\"DELETED\""));
  CHECK(contains(body_of(deleted), "\"source\":\"" + w.rayclusters + ":3\""));
  CHECK_FALSE(contains(body_of(deleted), "managedFields"));

  const std::vector<store::Transition> transitions = database.transitions(1);
  REQUIRE(transitions.size() == 3);
  CHECK(transitions[0].rayjob == "RayJob/default/rayjob-sample");
  CHECK(transitions[0].from_deployment.empty());
  CHECK(transitions[0].to_deployment == "Initializing");
  CHECK(transitions[1].to_deployment == "Running");
  CHECK(transitions[2].to_deployment == "Complete");
  CHECK(transitions[2].to_job_status == "SUCCEEDED");
}

TEST_CASE("import --json prints run_id, format, files, events, objects, skipped") {
  TwoWatches w;
  invoke({"import", w.rayjobs, "--format", "kubectl-watch", "--db", w.db});   // run 1
  Result result = invoke({"import", w.rayjobs, w.rayclusters, "--format", "kubectl-watch", "--db", w.db, "--json"});
  INFO(result.err);
  REQUIRE(result.code == 0);
  const json out = json::parse(result.out);
  CHECK(out["run_id"] == 2);
  CHECK(out["format"] == "kubectl-watch");
  CHECK(out["files"] == 2);
  CHECK(out["events"] == 1 + 7 + 3);   // trace.import, the observations, three transitions
  CHECK(out["objects"] == 2);
  CHECK(out["skipped"] == 0);
  CHECK(stored_events(w.db, 2).size() == 11);
}

TEST_CASE("import: a malformed line is FILE:LINE, exit 2, and nothing is written") {
  TwoWatches w;
  write_bytes(w.rayclusters, store::testing::read_bytes(w.rayclusters) + "{\"type\":\"MODIFIED\",\"object\":\n");
  Result result = invoke({"import", w.rayjobs, w.rayclusters, "--format", "kubectl-watch", "--db", w.db});
  CHECK(result.code == 2);
  CHECK(result.out.empty());
  CHECK(result.err == "rjsim import: " + w.rayclusters +
                          ":4: not JSON (column 29): syntax error while parsing value - unexpected end of input; "
                          "expected '[', '{', or a literal\n"
                          "nothing was imported (--skip-bad skips the records that do not read)\n");
  CHECK_FALSE(std::filesystem::exists(w.db));

  // An existing database is left as it was.
  REQUIRE(invoke({"import", w.rayjobs, "--format", "kubectl-watch", "--db", w.db}).code == 0);
  const std::string before = store::testing::read_bytes(w.db);
  CHECK(invoke({"import", w.rayjobs, w.rayclusters, "--format", "kubectl-watch", "--db", w.db}).code == 2);
  CHECK(store::testing::read_bytes(w.db) == before);
}

TEST_CASE("import --skip-bad counts the bad records and imports the rest") {
  TwoWatches w;
  write_bytes(w.rayclusters, "garbage\n" + store::testing::read_bytes(w.rayclusters) + "{\"type\":\"MODIFIED\"}\n");
  Result result = invoke(
      {"import", w.rayjobs, w.rayclusters, "--format", "kubectl-watch", "--db", w.db, "--skip-bad", "--json"});
  INFO(result.err);
  REQUIRE(result.code == 0);
  const json out = json::parse(result.out);
  CHECK(out["skipped"] == 2);
  CHECK(out["events"] == 11);
  CHECK(contains(result.err, "skipped " + w.rayclusters + ":1: not JSON"));
  CHECK(contains(result.err, "skipped " + w.rayclusters + ":5: object: missing"));
}

TEST_CASE("import: in every format a malformed line is FILE:LINE and exit 2; --skip-bad counts it") {
  const json job = observed(manifest("rayjob-sample.yaml"), "u-job", "100");
  const json audit = {{"kind", "Event"}, {"apiVersion", "audit.k8s.io/v1"}, {"level", "Metadata"},
                      {"auditID", "a1"}, {"stage", "ResponseComplete"}, {"verb", "create"},
                      {"objectRef", {{"resource", "rayjobs"}, {"namespace", "default"}, {"name", "rayjob-sample"}}},
                      {"responseStatus", {{"code", 201}}}};
  struct Case {
    std::string format;
    std::string good;
  };
  for (const Case& c : {Case{"kubectl-watch", watch_line("ADDED", job)}, Case{"watch-stream", watch_line("ADDED", job)},
                        Case{"audit", audit.dump() + "\n"}}) {
    INFO("format: ", c.format);
    ScratchDirectory dir;
    const std::string file = dir.file("trace.log");
    write_bytes(file, c.good + "\n{\"kind\": \n" + c.good);
    Result result = invoke({"import", file, "--format", c.format, "--db", dir.file("t.db")});
    CHECK(result.code == 2);
    CHECK(result.err.rfind("rjsim import: " + file + ":3: not JSON (column 10): ", 0) == 0);
    CHECK_FALSE(std::filesystem::exists(dir.file("t.db")));

    result = invoke({"import", file, "--format", c.format, "--db", dir.file("t.db"), "--skip-bad", "--json"});
    INFO(result.err);
    REQUIRE(result.code == 0);
    const json out = json::parse(result.out);
    CHECK(out["skipped"] == 1);
    CHECK(out["format"] == c.format);
    CHECK(out["objects"] == 1);
    CHECK(out["records"] == 1);   // the second sight of the same state (or auditID) is kept once
    CHECK(out["duplicates"] == 1);
  }
}

TEST_CASE("import: a file of another format says which --format fits") {
  ScratchDirectory dir;
  const std::string file = dir.file("w.json");
  write_bytes(file, watch_line("ADDED", observed(manifest("rayjob-sample.yaml"), "u", "1")));
  Result result = invoke({"import", file, "--format", "audit", "--db", dir.file("t.db")});
  CHECK(result.code == 2);
  CHECK(contains(result.err, file + ":1: kind: expected Event (audit.k8s.io/v1), got null (this is a watch event: use "
                                    "--format kubectl-watch or watch-stream)\n"));
}

TEST_CASE("import: a file that cannot be read is bad input") {
  ScratchDirectory dir;
  Result result = invoke({"import", dir.file("missing.log"), "--format", "audit", "--db", dir.file("t.db")});
  CHECK(result.code == 2);
  CHECK(contains(result.err, "missing.log: cannot read the trace file"));
  CHECK_FALSE(std::filesystem::exists(dir.file("t.db")));
}

TEST_CASE("import watch-stream: BOOKMARK and ERROR 410 are stored as their own events") {
  ScratchDirectory dir;
  const json job = manifest("rayjob-use-existing-raycluster.yaml");
  const std::string stream = dir.file("stream.jsonl");
  write_bytes(stream,
              watch_line("ADDED", observed(job, "u1", "20")) +
                  R"({"type":"BOOKMARK","object":{"kind":"RayJob","apiVersion":"ray.io/v1","metadata":{"resourceVersion":"25"}}})"
                  "\n"
                  R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 20 (30)","reason":"Expired","code":410}})json"
                  "\n" +
                  watch_line("ADDED", observed(job, "u1", "31", rayjob_status("Running"))));
  Result result = invoke({"import", stream, "--format", "watch-stream", "--db", dir.file("t.db"), "--json"});
  INFO(result.err);
  REQUIRE(result.code == 0);
  std::vector<std::string> types;
  for (const events::Event& event : stored_events(dir.file("t.db"), 1)) types.push_back(event.type);
  CHECK(types == std::vector<std::string>{"trace.import", "watch.observed", "watch.bookmark", "watch.error",
                                          "watch.observed", "status.transition"});
  const events::Event error = stored_events(dir.file("t.db"), 1)[3];
  CHECK(body_of(error) == "{\"code\":410,\"reason\":\"Expired\",\"message\":\"too old resource version: 20 (30)\","
                          "\"source\":\"" + stream + ":3\"}");
  CHECK(json::parse(result.out)["objects"] == 1);
}

TEST_CASE("import audit: writes become api events with their response codes, 409 included") {
  ScratchDirectory dir;
  const json job = manifest("rayjob-sample.yaml");
  auto event = [&](const std::string& id, int code, const std::string& stamp, json response) {
    json e = {{"kind", "Event"}, {"apiVersion", "audit.k8s.io/v1"}, {"level", "RequestResponse"},
              {"auditID", id}, {"stage", "ResponseComplete"}, {"verb", "update"},
              {"user", {{"username", "system:serviceaccount:ray:kuberay-operator"}}},
              {"objectRef", {{"resource", "rayjobs"}, {"namespace", "default"}, {"name", "rayjob-sample"},
                             {"uid", "u-job"}, {"apiGroup", "ray.io"}, {"resourceVersion", "200"},
                             {"subresource", "status"}}},
              {"responseStatus", code == 200 ? json{{"code", 200}}
                                             : json{{"status", "Failure"}, {"reason", "Conflict"},
                                                    {"message", "the object has been modified"}, {"code", 409}}},
              {"requestObject", observed(job, "u-job", "200", rayjob_status("Running"))},
              {"stageTimestamp", stamp}};
    if (!response.is_null()) e["responseObject"] = response;
    return e.dump() + "\n";
  };
  const std::string log = dir.file("audit.log");
  write_bytes(log, event("a1", 200, "2024-03-01T10:00:01.000000Z", observed(job, "u-job", "201", rayjob_status("Running"))) +
                       event("a2", 409, "2024-03-01T10:00:01.500000Z", nullptr) +
                       event("a3", 200, "2024-03-01T10:00:02.250000Z",
                             observed(job, "u-job", "205", rayjob_status("Complete", "SUCCEEDED"))));
  Result result = invoke({"import", log, "--format", "audit", "--db", dir.file("t.db"), "--json"});
  INFO(result.err);
  REQUIRE(result.code == 0);
  const std::vector<events::Event> events = stored_events(dir.file("t.db"), 1);
  std::vector<std::string> writes;
  for (const events::Event& e : events) {
    if (e.type != "api.update_status") continue;
    CHECK(e.actor == "system:serviceaccount:ray:kuberay-operator");
    CHECK(e.object == "RayJob/default/rayjob-sample");
    writes.push_back(std::get<std::string>(*e.find("outcome")) + " " +
                     std::to_string(std::get<std::int64_t>(*e.find("code"))) + " at " + std::to_string(e.at_ms));
  }
  CHECK(writes == std::vector<std::string>{"ok 200 at 0", "Conflict 409 at 500", "ok 200 at 1250"});
  CHECK(contains(body_of(events[1]), "\"rv_sent\":\"200\""));
  CHECK(contains(body_of(events[1]), "\"rv_after\":\"201\""));
  CHECK(contains(body_of(events[2]), "\"message\":\"the object has been modified\""));
  store::Database database = store::Database::open_existing(dir.file("t.db"));
  // The first write seen already had Running: the log starts there, so no transition into it.
  const std::vector<store::Transition> transitions = database.transitions(1);
  REQUIRE(transitions.size() == 1);
  CHECK(transitions[0].from_deployment == "Running");
  CHECK(transitions[0].to_deployment == "Complete");
  CHECK(transitions[0].to_job_status == "SUCCEEDED");
}

TEST_CASE("import build_trace: an audit object counts once, named with and without its uid") {
  auto write = [](const std::string& id, const std::string& verb, const std::string& uid) {
    json ref = {{"resource", "rayjobs"}, {"namespace", "default"}, {"name", "demo"}};
    if (!uid.empty()) ref["uid"] = uid;
    return json{{"kind", "Event"}, {"apiVersion", "audit.k8s.io/v1"}, {"level", "Metadata"}, {"auditID", id},
                {"stage", "ResponseComplete"}, {"verb", verb}, {"objectRef", ref},
                {"responseStatus", {{"code", 200}}}}
               .dump() + "\n";
  };
  const Trace trace = build_trace(
      Format::audit, {TraceInput{"a.log", write("1", "create", "") + write("2", "update", "u1") + write("3", "delete", "u1")}},
      false);
  CHECK(trace.records == 3);
  CHECK(trace.objects == 1);
  REQUIRE(trace.events.size() == 4);
  CHECK(trace.events[1].type == "api.create");
  CHECK(trace.events[3].type == "api.delete");
  CHECK(trace.events[3].object == "RayJob/default/demo");
}

TEST_CASE("import build_trace: an object's body is exactly what nlohmann's dump() writes of it") {
  // A kind rjsim does not model, so nothing about its fields is checked: escapes, UTF-8, control
  // characters, floats, big and negative integers, nested arrays, keys out of order.
  const json object = json::parse(R"({"kind": "ConfigMap", "apiVersion": "v1",
      "metadata": {"name": "cm", "namespace": "default", "uid": "u-cm", "resourceVersion": "7",
                   "annotations": {"z": "last", "a\"quote": "tab\there\nline \\ \u0001 \u001f \u007f"}},
      "data": {"é": "naïve — 日本 🎉", "empty": "", "float": 1.5, "exp": 1e21, "tiny": -2.5e-7, "whole": 3.0,
               "big": 18446744073709551615, "neg": -9223372036854775808,
               "list": [[], {}, [1, [true, false, null]]]}})");
  const Trace trace =
      build_trace(Format::kubectl_watch, {TraceInput{"cm.json", watch_line("ADDED", object)}}, false);
  REQUIRE(trace.events.size() == 2);
  const events::Value* body = trace.events[1].find("object");
  REQUIRE(body != nullptr);
  CHECK(std::get<events::RawJson>(*body).text == object.dump());
}

TEST_CASE("import build_trace: a large file parses in pieces, its records and errors at their lines in the file") {
  // 6,000 ConfigMap states of about 1 KB: several MiB, cut into pieces parsed on threads.
  const std::string padding(900, 'x');
  std::string text;
  for (int i = 1; i <= 6000; ++i) {
    const json object = {{"kind", "ConfigMap"},
                         {"apiVersion", "v1"},
                         {"metadata", {{"name", "cm"}, {"namespace", "default"}, {"uid", "u-cm"},
                                       {"resourceVersion", std::to_string(i)}}},
                         {"data", {{"n", std::to_string(i)}, {"padding", padding}}}};
    text += watch_line(i == 1 ? "ADDED" : "MODIFIED", object);
  }
  REQUIRE(text.size() > (std::size_t{4} << 20));
  const Trace trace = build_trace(Format::kubectl_watch, {TraceInput{"big.json", text}}, false);
  REQUIRE(trace.events.size() == 6001);
  for (int line : {1, 2999, 3000, 6000}) {
    CAPTURE(line);
    const events::Event& event = trace.events[static_cast<std::size_t>(line)];
    CHECK(std::get<std::string>(*event.find("source")) == fmt::format("big.json:{}", line));
    CHECK(std::get<std::string>(*event.find("rv")) == std::to_string(line));
  }

  SUBCASE("a bad line deep in the file is named by its line in the file") {
    const std::size_t line_4500 = [&] {
      std::size_t at = 0;
      for (int i = 1; i < 4500; ++i) at = text.find('\n', at) + 1;
      return at;
    }();
    std::string bad = text;
    bad.insert(line_4500, "{\"type\": \"MODIFIED\", \"object\": \n");   // unterminated: runs into the next line
    try {
      (void)build_trace(Format::kubectl_watch, {TraceInput{"big.json", bad}}, false);
      FAIL("a malformed line was imported");
    } catch (const TraceError& e) {
      CHECK(contains(e.what(), "big.json:4500"));
    }
  }
}

}  // namespace
}  // namespace import_command_test
}  // namespace rjsim::trace

