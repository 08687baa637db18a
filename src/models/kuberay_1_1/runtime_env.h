// runtimeEnvYAML handling shared by validation, the HTTPMode request and the submitter command
// (utils/util.go UnmarshalRuntimeEnvYAML and common/job.go getRuntimeEnvJson at v1.1.0): the
// text must be YAML whose top level is a mapping (Go unmarshals it into map[string]interface{}).
#pragma once

#include <string>

#include "engine/error.h"

namespace rjsim::models::kuberay_1_1 {

// Converts runtimeEnvYAML to compact JSON; an error when it is not a YAML mapping.
engine::Error runtime_env_yaml_to_json(const std::string& runtime_env_yaml, std::string& json);

}  // namespace rjsim::models::kuberay_1_1
