// parse_watch_stream on WatchEvent lines as the API server sends them (trace-formats.md §1c).
#include <doctest/doctest.h>

#include "trace/watch_stream.h"
#include "trace_test_support.h"

namespace rjsim::trace {
namespace watch_stream_test {
namespace {

using namespace testing;

TEST_CASE("import watch-stream: ADDED, MODIFIED, BOOKMARK and a 410 ERROR") {
  const json job = manifest("rayjob-shutdown.yaml");
  const std::string text =
      watch_line("ADDED", observed(job, "u1", "1319263")) +
      watch_line("MODIFIED", observed(job, "u1", "1319267", rayjob_status("Initializing"))) +
      R"({"type":"BOOKMARK","object":{"apiVersion":"ray.io/v1","kind":"RayJob","metadata":{"resourceVersion":"1319300"}}})"
      "\n"
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1319263 (1319400)","reason":"Expired","code":410}})json"
      "\n";
  const ParsedFile parsed = parse_watch_stream(text, "stream.jsonl");
  CHECK(parsed.bad.empty());
  REQUIRE(parsed.records.size() == 4);
  CHECK(parsed.records[1].object["status"]["jobDeploymentStatus"] == "Initializing");
  const Record& bookmark = parsed.records[2];
  CHECK(bookmark.type == "BOOKMARK");
  CHECK(bookmark.resource_version == "1319300");
  CHECK(bookmark.kind == "RayJob");
  CHECK(bookmark.uid.empty());
  CHECK(bookmark.object.is_null());
  CHECK_FALSE(bookmark.initial_events_end);
  const Record& error = parsed.records[3];
  CHECK(error.type == "ERROR");
  CHECK(error.line == 4);
  CHECK(error.code == 410);
  CHECK(error.reason == "Expired");
  CHECK(error.message == "too old resource version: 1319263 (1319400)");
  CHECK(error.resource_version.empty());
}

TEST_CASE("import watch-stream: the BOOKMARK that ends a streaming initial list is marked") {
  const ParsedFile parsed = parse_watch_stream(
      R"({"type":"BOOKMARK","object":{"kind":"RayJob","apiVersion":"ray.io/v1","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}})"
      "\n",
      "s.jsonl");
  REQUIRE(parsed.records.size() == 1);
  CHECK(parsed.records[0].initial_events_end);
}

TEST_CASE("import watch-stream: every line must be a watch event") {
  const json job = manifest("rayjob-shutdown.yaml");
  const std::string text = observed(job, "u1", "5").dump() + "\n" +   // an object without its envelope
                           R"({"type":"BOOKMARK","object":{"kind":"RayJob","metadata":{}}})" "\n" +
                           R"({"type":"ERROR","object":{"kind":"Status","reason":"Expired"}})" "\n" +
                           "not json\n" + watch_line("ADDED", observed(job, "u1", "6"));
  const ParsedFile parsed = parse_watch_stream(text, "s.jsonl");
  REQUIRE(parsed.bad.size() == 4);
  CHECK(parsed.bad[0].text() ==
        "s.jsonl:1: type: missing (this is an object without a watch event around it, as plain `kubectl get -w -o "
        "json` prints: use --format kubectl-watch)");
  CHECK(parsed.bad[1].text() == "s.jsonl:2: object.metadata.resourceVersion: missing");
  CHECK(parsed.bad[2].text() ==
        "s.jsonl:3: object.code: missing (an ERROR carries a Status with its HTTP code, such as 410)");
  CHECK(parsed.bad[3].text() == "s.jsonl:4: not JSON (column 2): syntax error while parsing value - invalid literal; last read: 'no'");
  REQUIRE(parsed.records.size() == 1);
  CHECK(parsed.records[0].resource_version == "6");
}

}  // namespace
}  // namespace watch_stream_test
}  // namespace rjsim::trace

