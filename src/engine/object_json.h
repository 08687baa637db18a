// The Kubernetes JSON form of the typed objects of objects.h: camelCase field names, apiVersion
// and kind, resourceVersion as a string, times as RFC 3339 strings. to_json omits empty and unset
// optional fields the way Kubernetes' `omitempty` does (an empty status is omitted as a whole);
// object_from_json(to_json(x)) == x for every object (a container status keeps its exit code and
// finish time only with a state, as in Kubernetes). Reading ignores fields rjsim does not model
// (a real manifest carries resources, volumes, ports, ...) but rejects a known field of the wrong
// type with ObjectFormatError, which names the field by its JSON path. Merge patches (RFC 7386)
// go through this JSON form. Reference: kuberay-rayjob.md §1.2, §2.1; kubernetes-semantics §7.1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/objects.h"

namespace rjsim::engine {

// Virtual time 0 is 2026-01-01T00:00:00Z: a virtual millisecond count t is shown in JSON as the
// RFC 3339 time kVirtualEpochUnixMs + t ms after the Unix epoch. Whole seconds print as
// "2026-01-01T00:00:05Z" (Kubernetes' metav1.Time form); other times keep their milliseconds
// ("2026-01-01T00:00:05.250Z") so that the round trip is exact.

std::string format_timestamp(std::int64_t virtual_ms);
// Accepts RFC 3339 with a `Z` or numeric offset and any number of fraction digits (truncated to
// milliseconds). False when `text` is not such a time.
bool parse_timestamp(std::string_view text, std::int64_t& virtual_ms);

// A field of a manifest that does not fit its type: `path` is the field's JSON path
// ("spec.rayClusterSpec.workerGroupSpecs[0].replicas"), `message` says what was wrong and what
// would be right. what() is "path: message".
struct ObjectFormatError : std::runtime_error {
  ObjectFormatError(std::string path, std::string message);
  std::string path;
  std::string message;
};

// JSON paths as messages print them: keys joined with '.', list indices in brackets; a key that
// is not a plain identifier is quoted: metadata.labels["ray.io/cluster"].
std::string json_path_key(std::string_view parent, std::string_view key);
std::string json_path_index(std::string_view parent, std::size_t index);

// "ray.io/v1", "v1" or "batch/v1".
std::string_view api_version_of(Kind kind);

nlohmann::json to_json(const Object& object);
nlohmann::json to_json(const RayJob& rayjob);
nlohmann::json to_json(const RayCluster& raycluster);
nlohmann::json to_json(const Service& service);
nlohmann::json to_json(const Job& job);
nlohmann::json to_json(const Pod& pod);

// Reads an object of `kind`. apiVersion and kind may be absent; when present they must be the
// kind's. Missing fields take the defaults of objects.h; null counts as missing. Fields rjsim does
// not model are ignored; if `ignored_fields` is given, their JSON paths are appended to it.
// Throws ObjectFormatError.
Object object_from_json(const nlohmann::json& json, Kind kind,
                        std::vector<std::string>* ignored_fields = nullptr);
RayJob rayjob_from_json(const nlohmann::json& json, std::vector<std::string>* ignored_fields = nullptr);
RayCluster raycluster_from_json(const nlohmann::json& json,
                                std::vector<std::string>* ignored_fields = nullptr);
Service service_from_json(const nlohmann::json& json, std::vector<std::string>* ignored_fields = nullptr);
Job job_from_json(const nlohmann::json& json, std::vector<std::string>* ignored_fields = nullptr);
Pod pod_from_json(const nlohmann::json& json, std::vector<std::string>* ignored_fields = nullptr);

// RFC 7386 JSON merge patch: to_json, merge_patch, object_from_json. The object is unchanged when
// the result does not read back (ObjectFormatError, with the path of the offending field); a
// patch may not change the kind.
void apply_merge_patch(Object& object, const nlohmann::json& patch);

}  // namespace rjsim::engine
