// runtimeEnvYAML handling shared by validation, the HTTPMode request and the submitter command at
// v1.0.0, v1.1.0 and v1.7.0: the YAML is converted as Go converts it (models/shared/go_yaml_json.h:
// go-yaml v2's scalar types, encoding/json's text).
#pragma once

#include <string>

#include "engine/error.h"

namespace rjsim::models::kuberay_1_1 {

// UnmarshalRuntimeEnvYAML (utils/dashboard_httpclient.go): the text must decode into a
// map[string]interface{}: an error when it is YAML of another shape. `json` is the map as
// encoding/json writes it, or empty when the YAML holds no map (an empty document: a nil map).
engine::Error runtime_env_yaml_to_json(const std::string& runtime_env_yaml, std::string& json);

// getRuntimeEnvJson (common/job.go): yaml.YAMLToJSON of any YAML, for --runtime-env-json; empty
// when runtimeEnvYAML is, and "null" for a document that holds nothing (a comment, "~").
engine::Error runtime_env_command_json(const std::string& runtime_env_yaml, std::string& json);

}  // namespace rjsim::models::kuberay_1_1
