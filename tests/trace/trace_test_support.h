// Helpers for the trace tests: objects built from KubeRay-shaped manifests (the project's own in
// tests/fixtures/kuberay; KubeRay's real samples for "KubeRay samples: ..." test cases, see
// kuberay_manifests.h), and the envelopes the recorders print around them (kubectl's watch
// output, audit events, raw watch streams).
#pragma once

#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "engine/scenario_loader.h"
#include "kuberay_manifests.h"

namespace rjsim::trace::testing {

using nlohmann::json;

// The first YAML document of a manifest of `set` (tests/fixtures/kuberay unless a
// "KubeRay samples: ..." test case passes kuberay_samples()), as text.
inline std::string manifest_text(const std::string& file, const rjsim::testing::ManifestSet& set = rjsim::testing::own_manifests()) {
  const std::string all = set.text(file);
  const std::size_t separator = all.find("\n---\n");
  return separator == std::string::npos ? all : all.substr(0, separator + 1);
}

inline json manifest(const std::string& file, const rjsim::testing::ManifestSet& set = rjsim::testing::own_manifests()) {
  json object;
  int line = 0;
  std::string error;
  REQUIRE_MESSAGE(engine::yaml_document_to_json(manifest_text(file, set), object, line, error), error);
  return object;
}

// The manifest as the API server would return it: namespace, uid and resourceVersion set, a
// managedFields entry (volatile metadata the importer drops), and `status` when given.
inline json observed(json object, const std::string& uid, const std::string& rv, json status = nullptr) {
  object["metadata"]["namespace"] = "default";
  object["metadata"]["uid"] = uid;
  object["metadata"]["resourceVersion"] = rv;
  object["metadata"]["managedFields"] = json::array({{{"manager", "kuberay-operator"}, {"operation", "Update"}}});
  if (!status.is_null()) object["status"] = status;
  return object;
}

// One compact watch event line, `type` before `object` as Go's json.Marshal writes it.
inline std::string watch_line(const std::string& type, const json& object) {
  return "{\"type\":\"" + type + "\",\"object\":" + object.dump() + "}\n";
}

inline json rayjob_status(const std::string& deployment, const std::string& job_status = "") {
  json status = {{"jobDeploymentStatus", deployment}};
  if (!job_status.empty()) status["jobStatus"] = job_status;
  return status;
}

}  // namespace rjsim::trace::testing
