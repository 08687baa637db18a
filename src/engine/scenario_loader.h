// Reads a scenario file (DESIGN §4) into a Scenario: every key of the format and its default,
// durations ("500ms", "3s", "2m", "1h", "1m30s"), RayJob and RayCluster manifests inline or from
// files relative to the scenario, actions in time order. This is the only place that reads YAML.
// Bad input throws ScenarioError, whose what() is one line naming the file, the line, the field,
// what was wrong and what would be right:
//   scenarios/x.yaml:12: world.rayCluster.readyAfter: "20" is not a duration (use 20s, 500ms, 2m)
// yaml_document_to_json lends the same YAML reading to the trace importer (src/trace).
// Unknown keys are errors at the scenario level; inside Kubernetes manifests they are ignored
// (object_json.h), as a manifest carries far more than rjsim models.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/scenario.h"

namespace rjsim::engine {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and parses the file at `path`; files the scenario names are resolved against the
// directory of `path`. Scenario::file is `path` as given.
Scenario load_scenario(const std::string& path);

// Parses scenario text. `file_for_messages` names the text in messages and becomes
// Scenario::file; `rayjobFile:` and `file:` entries are resolved against `base_dir`.
Scenario parse_scenario(std::string_view text, const std::string& file_for_messages,
                        const std::string& base_dir);

// A scenario duration: one or more <number><unit> with unit h, m, s or ms ("1m30s", "1.5s");
// false for anything else, a bare number included, and for what is not a whole number of ms.
bool parse_duration(std::string_view text, std::int64_t& ms);

// One YAML document as JSON, scalars resolved as in scenarios (YAML 1.2 core schema; quoted
// scalars stay strings). False on YAML that does not parse, a duplicate key or a non-scalar
// key; then `error` says what and `error_line` is its 1-based line within `text`.
bool yaml_document_to_json(std::string_view text, nlohmann::json& out, int& error_line, std::string& error);

}  // namespace rjsim::engine
