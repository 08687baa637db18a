#include "models/kuberay_1_1/runtime_env.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/shared/go_yaml_json.h"

namespace rjsim::models::kuberay_1_1 {

engine::Error runtime_env_yaml_to_json(const std::string& runtime_env_yaml, std::string& json) {
  json.clear();
  if (runtime_env_yaml.empty()) return {};
  nlohmann::json value;
  if (engine::Error err = shared::yaml_to_json_value(runtime_env_yaml, value)) {
    return engine::Error(engine::ErrorCode::other,
                         fmt::format("failed to unmarshal RuntimeEnvYAML: {}: {}", runtime_env_yaml, err.message()));
  }
  if (value.is_null()) return {};
  if (!value.is_object()) {
    return engine::Error(engine::ErrorCode::other,
                         fmt::format("failed to unmarshal RuntimeEnvYAML: {}: error unmarshaling JSON: while decoding "
                                     "JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                                     runtime_env_yaml, shared::go_json_kind(value)));
  }
  json = shared::go_json_marshal(value);
  return {};
}

engine::Error runtime_env_command_json(const std::string& runtime_env_yaml, std::string& json) {
  json.clear();
  if (runtime_env_yaml.empty()) return {};
  return shared::yaml_to_json(runtime_env_yaml, json);
}

}  // namespace rjsim::models::kuberay_1_1
