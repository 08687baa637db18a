#include "trace/trace_object.h"

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "engine/object_json.h"
#include "engine/objects.h"

namespace rjsim::trace {
namespace {

using nlohmann::json;

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// A string member: true and `out` set when present; false with `error` when missing or not a
// string.
bool string_member(const json& object, const char* key, const std::string& path, std::string& out,
                   std::string& error) {
  const json* value = member(object, key);
  if (value == nullptr) {
    error = fmt::format("{}: missing", engine::json_path_key(path, key));
    return false;
  }
  if (!value->is_string()) {
    error = fmt::format("{}: expected a string, got {}", engine::json_path_key(path, key), value->dump());
    return false;
  }
  out = value->get<std::string>();
  return true;
}

// "ray.io/v1alpha1" and "ray.io/v1" are one group; "v1" is the core group. An object without
// apiVersion is taken to be of the kind's group.
bool same_group(std::string_view api_version, std::string_view expected) {
  auto group = [](std::string_view version) {
    const std::size_t slash = version.find('/');
    return slash == std::string_view::npos ? std::string_view() : version.substr(0, slash);
  };
  return api_version.empty() || group(api_version) == group(expected);
}

void normalise_in_place(json& object) {
  if (!object.is_object()) return;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return;
  metadata->erase("managedFields");
  metadata->erase("selfLink");
  auto annotations = metadata->find("annotations");
  if (annotations != metadata->end() && annotations->is_object()) {
    annotations->erase("kubectl.kubernetes.io/last-applied-configuration");
    if (annotations->empty()) metadata->erase(annotations);
  }
}

// The typed reading of a modelled kind takes resourceVersion as a number and one version of each
// group; a trace keeps resourceVersion as text, and an older cluster serves ray.io/v1alpha1. So
// both are set aside while `object` is read (in place: a copy of the object would cost as much
// as the reading) and put back, whatever the reading did.
void check_typed(json& object, engine::Kind kind) {
  json& metadata = object["metadata"];
  std::optional<json> resource_version;
  std::optional<json> api_version;
  if (auto it = metadata.find("resourceVersion"); it != metadata.end()) {
    resource_version = std::move(*it);
    metadata.erase(it);
  }
  if (auto it = object.find("apiVersion"); it != object.end()) {
    api_version = std::move(*it);
    object.erase(it);
  }
  auto restore = [&] {
    if (resource_version) metadata["resourceVersion"] = std::move(*resource_version);
    if (api_version) object["apiVersion"] = std::move(*api_version);
  };
  try {
    (void)engine::object_from_json(object, kind);
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

}  // namespace

json normalise_object(json object) {
  normalise_in_place(object);
  return object;
}

bool read_object(json&& object, const std::string& where, Record& record, std::string& error) {
  if (!object.is_object()) {
    error = fmt::format("{}{}expected a Kubernetes object, got {}", where, where.empty() ? "" : ": ", object.dump());
    return false;
  }
  if (!string_member(object, "kind", where, record.kind, error)) return false;
  const json* metadata = member(object, "metadata");
  const std::string metadata_path = engine::json_path_key(where, "metadata");
  if (metadata == nullptr || !metadata->is_object()) {
    error = fmt::format("{}: missing", metadata_path);
    return false;
  }
  if (!string_member(*metadata, "name", metadata_path, record.name, error) ||
      !string_member(*metadata, "uid", metadata_path, record.uid, error) ||
      !string_member(*metadata, "resourceVersion", metadata_path, record.resource_version, error)) {
    return false;
  }
  if (const json* ns = member(*metadata, "namespace"); ns != nullptr && ns->is_string()) {
    record.namespace_ = ns->get<std::string>();
  }
  normalise_in_place(object);

  engine::Kind kind{};
  const json* api_version = member(object, "apiVersion");
  // Both branches string_view: with a "" literal on one side the conditional's type is a
  // temporary std::string, and the view would outlive it.
  const std::string_view api_version_text = api_version != nullptr && api_version->is_string()
                                                ? std::string_view(api_version->get_ref<const std::string&>())
                                                : std::string_view();
  if (engine::parse_kind(record.kind, kind) && same_group(api_version_text, engine::api_version_of(kind))) {
    try {
      check_typed(object, kind);
    } catch (const engine::ObjectFormatError& e) {
      // e.path is already a JSON path ("status.jobDeploymentStatus").
      error = fmt::format("{}{}{}: {}", where, where.empty() ? "" : ".", e.path, e.message);
      return false;
    }
  }
  record.object = std::move(object);
  return true;
}

bool read_watch_event(json&& event, Record& record, std::string& error) {
  if (!event.is_object()) {
    error = fmt::format("expected a watch event {{\"type\", \"object\"}}, got {}", event.dump());
    return false;
  }
  if (!string_member(event, "type", "", record.type, error)) return false;
  auto found = event.find("object");
  json* object = found == event.end() || found->is_null() ? nullptr : &*found;
  if (object == nullptr) {
    error = "object: missing";
    return false;
  }
  if (record.type == "ADDED" || record.type == "MODIFIED" || record.type == "DELETED") {
    return read_object(std::move(*object), "object", record, error);
  }
  if (record.type == "BOOKMARK") {
    const json* metadata = member(*object, "metadata");
    if (metadata == nullptr) {
      error = "object.metadata: missing (a BOOKMARK carries metadata.resourceVersion)";
      return false;
    }
    if (const json* kind = member(*object, "kind"); kind != nullptr && kind->is_string()) {
      record.kind = kind->get<std::string>();
    }
    if (const json* annotations = member(*metadata, "annotations"); annotations != nullptr) {
      const json* end = member(*annotations, "k8s.io/initial-events-end");
      record.initial_events_end = end != nullptr && *end == "true";
    }
    return string_member(*metadata, "resourceVersion", "object.metadata", record.resource_version, error);
  }
  if (record.type == "ERROR") {
    const json* code = member(*object, "code");
    if (code == nullptr || !code->is_number_integer()) {
      error = "object.code: missing (an ERROR carries a Status with its HTTP code, such as 410)";
      return false;
    }
    record.code = code->get<int>();
    if (const json* reason = member(*object, "reason"); reason != nullptr && reason->is_string()) {
      record.reason = reason->get<std::string>();
    }
    if (const json* message = member(*object, "message"); message != nullptr && message->is_string()) {
      record.message = message->get<std::string>();
    }
    return true;
  }
  error = fmt::format("type: \"{}\" is not a watch event type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR)",
                      record.type);
  return false;
}

std::string other_format_hint(const json& value, Format format) {
  if (!value.is_object()) return {};
  const json* kind = member(value, "kind");
  const json* api_version = member(value, "apiVersion");
  const bool audit = kind != nullptr && kind->is_string() && api_version != nullptr && api_version->is_string() &&
                     api_version->get<std::string>().starts_with("audit.k8s.io/");
  const bool watch_event = member(value, "object") != nullptr && member(value, "type") != nullptr;
  const bool object = !audit && kind != nullptr && member(value, "metadata") != nullptr;
  if (audit && format != Format::audit) return " (this is an audit Event: use --format audit)";
  if (watch_event && format == Format::audit) {
    return " (this is a watch event: use --format kubectl-watch or watch-stream)";
  }
  if (object && format != Format::kubectl_watch) {
    return " (this is an object without a watch event around it, as plain `kubectl get -w -o json` prints: "
           "use --format kubectl-watch)";
  }
  return {};
}

}  // namespace rjsim::trace
