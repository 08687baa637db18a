#include "models/kuberay_1_1/runtime_env.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace rjsim::models::kuberay_1_1 {

namespace {

nlohmann::json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& entry : node) object[entry.first.as<std::string>()] = to_json(entry.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const auto& item : node) array.push_back(to_json(item));
      return array;
    }
    case YAML::NodeType::Scalar:
      return node.as<std::string>();
    default:
      return nullptr;
  }
}

}  // namespace

engine::Error runtime_env_yaml_to_json(const std::string& runtime_env_yaml, std::string& json) {
  json.clear();
  if (runtime_env_yaml.empty()) return {};
  try {
    const YAML::Node node = YAML::Load(runtime_env_yaml);
    if (node.IsNull()) return {};
    if (!node.IsMap()) {
      return engine::Error(engine::ErrorCode::other,
                           fmt::format("failed to unmarshal RuntimeEnvYAML: {}: cannot unmarshal "
                                       "into map[string]interface {{}}",
                                       runtime_env_yaml));
    }
    json = to_json(node).dump();
    return {};
  } catch (const YAML::Exception& e) {
    return engine::Error(engine::ErrorCode::other,
                         fmt::format("failed to unmarshal RuntimeEnvYAML: {}: {}", runtime_env_yaml, e.what()));
  }
}

}  // namespace rjsim::models::kuberay_1_1
