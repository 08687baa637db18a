// YAML to JSON as the operator's Go converts a RayJob's runtimeEnvYAML: sigs.k8s.io/yaml's
// YAMLToJSON, which decodes with go-yaml v2 and encodes with encoding/json. Plain scalars take
// go-yaml v2's types (resolve.go: null, YAML 1.1 booleans such as yes/off, ints in any base Go's
// strconv reads, floats, .inf/.nan); quoted scalars stay strings. The JSON is encoding/json's:
// keys sorted, <, > and & escaped as \u003c, \u003e, \u0026, floats in Go's shortest form (600.0
// is 600). Not reproduced: merge keys (<<) and timestamps as a type (they stay strings, as go-yaml
// v2 leaves them when decoding into interface{}). Pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/error.h"

namespace rjsim::models::shared {

// yaml.YAMLToJSON: any YAML document; an empty one (or only a comment) is "null".
engine::Error yaml_to_json(const std::string& yaml, std::string& json);

// The same, as a value (for a caller that checks its shape before encoding it).
engine::Error yaml_to_json_value(const std::string& yaml, nlohmann::json& value);

// json.Marshal of a value decoded as above.
std::string go_json_marshal(const nlohmann::json& value);

// The JSON type a Go UnmarshalTypeError names for `value` ("string", "bool", "array", "object",
// "number"), as in "json: cannot unmarshal array into Go value of type ...".
const char* go_json_kind(const nlohmann::json& value);

}  // namespace rjsim::models::shared
