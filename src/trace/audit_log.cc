#include "trace/audit_log.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "engine/object_json.h"
#include "trace/json_values.h"
#include "trace/trace_object.h"

namespace rjsim::trace {
namespace {

using nlohmann::json;

std::string string_or_empty(const json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool is_write(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete";
}

enum class Outcome { write, ignored, bad };

// One audit Event; `where` prefixes field names in messages ("" or "items[3].").
Outcome read_event(const json& event, const std::string& where, Record& record, std::string& error) {
  auto fail = [&](std::string message) {
    error = where + std::move(message);
    return Outcome::bad;
  };
  if (!event.is_object()) return fail(fmt::format("expected an audit Event object, got {}", event.dump()));
  if (string_or_empty(event, "kind") != "Event") {
    return fail(fmt::format("kind: expected Event (audit.k8s.io/v1), got {}", event.value("kind", json()).dump()));
  }
  record.level = string_or_empty(event, "level");
  if (record.level != "Metadata" && record.level != "Request" && record.level != "RequestResponse") {
    return fail(fmt::format("level: expected Metadata, Request or RequestResponse, got {}",
                            event.value("level", json()).dump()));
  }
  const std::string stage = string_or_empty(event, "stage");
  if (stage.empty()) return fail("stage: missing");
  record.verb = string_or_empty(event, "verb");
  if (record.verb.empty()) return fail("verb: missing");
  if ((stage != "ResponseComplete" && stage != "Panic") || !is_write(record.verb)) return Outcome::ignored;

  record.audit_id = string_or_empty(event, "auditID");
  if (record.audit_id.empty()) return fail("auditID: missing");
  const json& object_ref = event.value("objectRef", json());
  if (!object_ref.is_object()) return fail(fmt::format("objectRef: missing (a {} names its object)", record.verb));
  const std::string resource = string_or_empty(object_ref, "resource");
  if (resource.empty()) return fail("objectRef.resource: missing");
  record.kind = kind_of_resource(resource);
  record.namespace_ = string_or_empty(object_ref, "namespace");
  record.name = string_or_empty(object_ref, "name");
  record.uid = string_or_empty(object_ref, "uid");
  record.rv_sent = string_or_empty(object_ref, "resourceVersion");
  record.subresource = string_or_empty(object_ref, "subresource");
  record.type = record.verb;
  if (record.subresource == "status" && (record.verb == "update" || record.verb == "patch")) record.type += "_status";

  const json& status = event.value("responseStatus", json());
  if (!status.is_object() || !status.contains("code") || !status["code"].is_number_integer()) {
    return fail("responseStatus.code: missing (a completed request has its HTTP code)");
  }
  record.code = status["code"].get<int>();
  record.reason = string_or_empty(status, "reason");
  record.message = string_or_empty(status, "message");
  record.user = string_or_empty(event.value("user", json()), "username");
  record.time = string_or_empty(event, "stageTimestamp");
  if (!record.time.empty()) {
    std::int64_t ms = 0;
    if (!engine::parse_timestamp(record.time, ms)) {
      return fail(fmt::format("stageTimestamp: \"{}\" is not an RFC 3339 time", record.time));
    }
    record.time_ms = ms;
  }

  if (record.level != "Metadata") {
    if (auto it = event.find("requestObject"); it != event.end() && !it->is_null()) {
      record.request = normalise_object(*it);
    }
  }
  const bool succeeded = record.code >= 200 && record.code < 300;
  if (record.level == "RequestResponse" && succeeded) {
    auto it = event.find("responseObject");
    if (it != event.end() && it->is_object() && string_or_empty(*it, "kind") != "Status") {
      Record stored;
      if (!read_object(json(*it), "responseObject", stored, error)) {
        error = where + error;
        return Outcome::bad;
      }
      record.object = std::move(stored.object);
      record.resource_version = std::move(stored.resource_version);
      if (record.name.empty()) record.name = std::move(stored.name);
      if (record.uid.empty()) record.uid = std::move(stored.uid);
      if (record.namespace_.empty()) record.namespace_ = std::move(stored.namespace_);
      record.kind = std::move(stored.kind);
    }
  }
  // A create with generateName names its object only in the response (RequestResponse).
  if (record.name.empty() && record.verb != "create") return fail("objectRef.name: missing");
  return Outcome::write;
}

void add_event(const json& event, const std::string& where, int line, const std::string& file,
               ParsedFile& parsed) {
  Record record;
  record.file = file;
  record.line = line;
  std::string error;
  switch (read_event(event, where, record, error)) {
    case Outcome::write: parsed.keep(std::move(record)); break;
    case Outcome::ignored: ++parsed.ignored; break;
    case Outcome::bad:
      parsed.bad.push_back(BadRecord{file, line, error + other_format_hint(event, Format::audit)});
      break;
  }
}

}  // namespace

std::string kind_of_resource(std::string_view resource) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kinds = {{
      {"rayjobs", "RayJob"}, {"rayclusters", "RayCluster"}, {"services", "Service"}, {"jobs", "Job"}, {"pods", "Pod"},
  }};
  for (const auto& [name, kind] : kinds) {
    if (resource == name) return std::string(kind);
  }
  return std::string(resource);
}

ParsedFile parse_audit_log(std::string_view text, const std::string& file, RecordHook on_record) {
  ParsedFile parsed;
  parsed.on_record = std::move(on_record);
  for_each_json_value(text, [&](const JsonValue& value) {
    if (!value.error.empty()) {
      parsed.bad.push_back(BadRecord{file, value.line, value.error});
      return;
    }
    if (string_or_empty(value.value, "kind") == "EventList") {
      const json& items = value.value.value("items", json());
      if (!items.is_array()) {
        parsed.bad.push_back(BadRecord{file, value.line, "items: an EventList holds a list of audit Events"});
        return;
      }
      for (std::size_t i = 0; i < items.size(); ++i) {
        add_event(items[i], fmt::format("items[{}].", i), value.line, file, parsed);
      }
    } else {
      add_event(value.value, "", value.line, file, parsed);
    }
  });
  return parsed;
}

}  // namespace rjsim::trace
