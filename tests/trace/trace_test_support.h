// Helpers for the trace tests: objects built from the real KubeRay manifests in
// $RJSIM_SHARED_DIR/trace-samples/kuberay (read in place, never copied), and the envelopes the
// recorders print around them (trace-formats.md §1a-§1c).
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/scenario_loader.h"

namespace rjsim::trace::testing {

using nlohmann::json;

// $RJSIM_SHARED_DIR (meson test and tools/test set it), or ../shared when run from the repo root.
inline std::filesystem::path samples_dir() {
  const char* shared = std::getenv("RJSIM_SHARED_DIR");
  const std::filesystem::path root = shared != nullptr ? std::filesystem::path(shared) : std::filesystem::path("../shared");
  const std::filesystem::path samples = root / "trace-samples" / "kuberay";
  REQUIRE_MESSAGE(std::filesystem::is_directory(samples),
                  "no KubeRay samples at " << samples.string() << ": set RJSIM_SHARED_DIR (see tests/meson.build)");
  return samples;
}

// The first YAML document of a sample manifest, as text.
inline std::string manifest_text(const std::string& name) {
  std::ifstream in(samples_dir() / name);
  REQUIRE_MESSAGE(in.good(), "cannot read sample " << name);
  std::ostringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  const std::size_t separator = all.find("\n---\n");
  return separator == std::string::npos ? all : all.substr(0, separator + 1);
}

inline json manifest(const std::string& name) {
  json object;
  int line = 0;
  std::string error;
  REQUIRE_MESSAGE(engine::yaml_document_to_json(manifest_text(name), object, line, error), error);
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
