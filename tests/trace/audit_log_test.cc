// parse_audit_log on audit.k8s.io/v1 Events at the three levels, EventList batches, and the
// requests that are not writes (trace-formats.md §1b).
#include <doctest/doctest.h>

#include <algorithm>

#include "trace/audit_log.h"
#include "trace_test_support.h"

namespace rjsim::trace {
namespace audit_log_test {
namespace {

using namespace testing;
using ordered = nlohmann::ordered_json;

constexpr const char* kOperator = "system:serviceaccount:default:kuberay-operator";
constexpr const char* kConflict =
    "Operation cannot be fulfilled on rayjobs.ray.io \"rayjob-sample\": the object has been modified; please "
    "apply your changes to the latest version and try again";

// An audit Event in the field order the log backend writes.
ordered audit_event(const std::string& level, const std::string& stage, const std::string& verb,
                    const std::string& id, const ordered& status, const std::string& subresource = "status",
                    const std::string& rv_sent = "1319303") {
  ordered ref = {{"resource", "rayjobs"}, {"namespace", "default"}, {"name", "rayjob-sample"},
                 {"uid", "u-job"},        {"apiGroup", "ray.io"},   {"apiVersion", "v1"}};
  if (!rv_sent.empty()) ref["resourceVersion"] = rv_sent;
  if (!subresource.empty()) ref["subresource"] = subresource;
  return {{"kind", "Event"},
          {"apiVersion", "audit.k8s.io/v1"},
          {"level", level},
          {"auditID", id},
          {"stage", stage},
          {"requestURI", "/apis/ray.io/v1/namespaces/default/rayjobs/rayjob-sample/status"},
          {"verb", verb},
          {"user", {{"username", kOperator}, {"groups", {"system:serviceaccounts"}}}},
          {"objectRef", ref},
          {"responseStatus", status},
          {"requestReceivedTimestamp", "2024-03-01T10:00:00.100000Z"},
          {"stageTimestamp", "2024-03-01T10:00:00.250000Z"}};
}

const ordered kOk = {{"metadata", json::object()}, {"code", 200}};
const ordered kConflictStatus = {{"metadata", json::object()}, {"status", "Failure"}, {"message", kConflict},
                                 {"reason", "Conflict"},
                                 {"details", {{"name", "rayjob-sample"}, {"group", "ray.io"}, {"kind", "rayjobs"}}},
                                 {"code", 409}};

TEST_CASE("import audit: writes at each level, a 409 Conflict, and what is not a write") {
  const json job = manifest("rayjob-sample.yaml");
  ordered full = audit_event("RequestResponse", "ResponseComplete", "update", "a-2", kOk);
  full["requestObject"] = observed(job, "u-job", "1319303", rayjob_status("Running"));
  full["responseObject"] = observed(job, "u-job", "1319447", rayjob_status("Running"));
  ordered conflict = audit_event("RequestResponse", "ResponseComplete", "update", "a-3", kConflictStatus);
  conflict["requestObject"] = observed(job, "u-job", "1319303", rayjob_status("Complete"));
  conflict["responseObject"] = kConflictStatus;
  ordered request_level = audit_event("Request", "ResponseComplete", "patch", "a-4", kOk, "", "");
  request_level["requestObject"] = {{"spec", {{"suspend", true}}}};
  const std::string text =
      audit_event("Metadata", "RequestReceived", "update", "a-1", kOk).dump() + "\n" +   // an early stage
      audit_event("Metadata", "ResponseComplete", "update", "a-1", kOk).dump() + "\n" + full.dump() + "\n" +
      conflict.dump() + "\n" + request_level.dump() + "\n" +
      audit_event("Metadata", "ResponseComplete", "get", "a-5", kOk, "", "").dump() + "\n" +
      audit_event("Metadata", "ResponseStarted", "watch", "a-6", kOk, "", "").dump() + "\n";
  const ParsedFile parsed = parse_audit_log(text, "audit.log");
  for (const BadRecord& bad : parsed.bad) INFO(bad.text());
  CHECK(parsed.bad.empty());
  CHECK(parsed.ignored == 3);
  REQUIRE(parsed.records.size() == 4);

  const Record& metadata = parsed.records[0];
  CHECK(metadata.line == 2);
  CHECK(metadata.type == "update_status");
  CHECK(metadata.code == 200);
  CHECK(metadata.level == "Metadata");
  CHECK(metadata.user == kOperator);
  CHECK(metadata.kind == "RayJob");
  CHECK(metadata.object.is_null());    // Metadata: no bodies
  CHECK(metadata.request.is_null());
  CHECK(metadata.rv_sent == "1319303");
  CHECK(metadata.resource_version.empty());
  CHECK(metadata.time == "2024-03-01T10:00:00.250000Z");
  REQUIRE(metadata.time_ms.has_value());

  const Record& response = parsed.records[1];
  CHECK(response.resource_version == "1319447");   // the new version is in responseObject
  CHECK(response.object["status"]["jobDeploymentStatus"] == "Running");
  CHECK_FALSE(response.object["metadata"].contains("managedFields"));
  CHECK(response.request["metadata"]["resourceVersion"] == "1319303");

  const Record& failed = parsed.records[2];
  CHECK(failed.code == 409);
  CHECK(failed.reason == "Conflict");
  CHECK(failed.message == kConflict);
  CHECK(failed.object.is_null());   // the response was a Status, not the object
  CHECK(failed.resource_version.empty());
  CHECK(failed.request["status"]["jobDeploymentStatus"] == "Complete");

  const Record& patch = parsed.records[3];
  CHECK(patch.type == "patch");
  CHECK(patch.request == json{{"spec", {{"suspend", true}}}});   // Request: the patch document
  CHECK(patch.object.is_null());
}

TEST_CASE("import audit: an EventList batch, and bad events named by line and item") {
  ordered list = {{"kind", "EventList"},
                  {"apiVersion", "audit.k8s.io/v1"},
                  {"metadata", json::object()},
                  {"items", {audit_event("Metadata", "ResponseComplete", "update", "b-1", kOk),
                             audit_event("Metadata", "ResponseComplete", "create", "b-2", kOk, "", "")}}};
  ordered no_code = audit_event("Metadata", "ResponseComplete", "update", "b-3", {{"metadata", json::object()}});
  ordered bad_level = audit_event("None", "ResponseComplete", "update", "b-4", kOk);
  ordered bad_item = list;
  bad_item["items"][1].erase("objectRef");
  const std::string text = list.dump(2) + "\n" + no_code.dump() + "\n" + bad_level.dump() + "\n" + bad_item.dump() + "\n";
  const ParsedFile parsed = parse_audit_log(text, "webhook.json");
  const int list_lines = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(list.dump(2).size()), '\n')) + 1;
  REQUIRE(parsed.bad.size() == 3);
  CHECK(parsed.bad[0].text() == "webhook.json:" + std::to_string(list_lines + 1) +
                                    ": responseStatus.code: missing (a completed request has its HTTP code)");
  CHECK(parsed.bad[1].text() == "webhook.json:" + std::to_string(list_lines + 2) +
                                    ": level: expected Metadata, Request or RequestResponse, got \"None\"");
  CHECK(parsed.bad[2].text() == "webhook.json:" + std::to_string(list_lines + 3) +
                                    ": items[1].objectRef: missing (a create names its object)");
  REQUIRE(parsed.records.size() == 3);
  CHECK(parsed.records[0].line == 1);
  CHECK(parsed.records[1].type == "create");
  CHECK(parsed.records[2].audit_id == "b-1");   // the good item of the bad list
}

TEST_CASE("import audit: resources map to kinds") {
  CHECK(kind_of_resource("rayjobs") == "RayJob");
  CHECK(kind_of_resource("rayclusters") == "RayCluster");
  CHECK(kind_of_resource("jobs") == "Job");
  CHECK(kind_of_resource("pods") == "Pod");
  CHECK(kind_of_resource("configmaps") == "configmaps");
}

}  // namespace
}  // namespace audit_log_test
}  // namespace rjsim::trace

