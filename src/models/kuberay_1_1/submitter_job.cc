#include "models/kuberay_1_1/submitter_job.h"

#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/controller.h"
#include "models/kuberay_1_1/runtime_env.h"
#include "models/shared/go_yaml_json.h"

namespace rjsim::models::kuberay_1_1 {

using engine::Error;
using engine::ErrorCode;

namespace {

// GetBaseRayJobCommand (JOB:L35-41).
std::vector<std::string> base_ray_job_command(std::string address) {
  if (!address.starts_with("http://")) address = "http://" + address;
  return {"ray", "job", "submit", "--address", address};
}

struct Version {
  int major = 0, minor = 0, patch = 0;
  bool prerelease = false;
};

// Masterminds/semver NewVersion, as far as Ray versions go: [v]MAJOR[.MINOR[.PATCH]][-pre][+build].
bool parse_version(std::string_view text, Version& version) {
  if (text.starts_with('v')) text.remove_prefix(1);
  const auto build = text.find('+');
  if (build != std::string_view::npos) text = text.substr(0, build);
  const auto pre = text.find('-');
  if (pre != std::string_view::npos) {
    version.prerelease = true;
    text = text.substr(0, pre);
  }
  int* parts[] = {&version.major, &version.minor, &version.patch};
  for (int i = 0; i < 3; ++i) {
    const auto dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    if (part.empty()) return false;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), *parts[i]);
    if (ec != std::errc() || end != part.data() + part.size()) return false;
    if (dot == std::string_view::npos) return true;
    text = text.substr(dot + 1);
  }
  return text.empty();
}

// GetMetadataJson (JOB:L44-60): `--metadata-json` needs Ray >= 2.6.0.
Error metadata_json(const engine::StringMap& metadata, const std::string& ray_version, std::string& json) {
  Version version;
  if (!parse_version(ray_version, version)) {
    return Error(ErrorCode::other, fmt::format("failed to parse Ray version: {}: Invalid Semantic Version",
                                               ray_version));
  }
  const bool at_least_2_6 = !version.prerelease &&
                            std::tie(version.major, version.minor, version.patch) >= std::make_tuple(2, 6, 0);
  if (!at_least_2_6) {
    return Error(ErrorCode::other, "the Ray version must be at least 2.6.0 to use the metadata field");
  }
  json = shared::go_json_marshal(nlohmann::json(metadata));   // json.Marshal: HTML-safe, keys sorted
  return {};
}

std::string go_float(double value) { return fmt::format("{:f}", value); }   // fmt.Sprintf("%f")

}  // namespace

// google/shlex's Split (shlex.go, scanStream): a word ends at unquoted space; '...' keeps every
// character; in "..." a backslash keeps the character after it, whatever it is, and drops itself;
// outside quotes too; a # where a word would start begins a comment that ends at the newline.
Error shlex_split(const std::string& text, std::vector<std::string>& words) {
  enum class State { start, in_word, escaping, escaping_quoted, quoting_escaping, quoting, comment };
  words.clear();
  std::string word;
  State state = State::start;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    switch (state) {
      case State::start:
        if (space) break;
        if (c == '"') {
          state = State::quoting_escaping;
        } else if (c == '\'') {
          state = State::quoting;
        } else if (c == '\\') {
          state = State::escaping;
        } else if (c == '#') {
          state = State::comment;
        } else {
          word += c;
          state = State::in_word;
        }
        break;
      case State::in_word:
        if (space) {
          words.push_back(std::move(word));
          word.clear();
          state = State::start;
        } else if (c == '"') {
          state = State::quoting_escaping;
        } else if (c == '\'') {
          state = State::quoting;
        } else if (c == '\\') {
          state = State::escaping;
        } else {
          word += c;   // a # inside a word is a character
        }
        break;
      case State::escaping:
        word += c;
        state = State::in_word;
        break;
      case State::escaping_quoted:
        word += c;
        state = State::quoting_escaping;
        break;
      case State::quoting_escaping:
        if (c == '"') {
          state = State::in_word;
        } else if (c == '\\') {
          state = State::escaping_quoted;
        } else {
          word += c;
        }
        break;
      case State::quoting:
        if (c == '\'') state = State::in_word; else word += c;
        break;
      case State::comment:
        if (c == '\n') state = State::start;
        break;
    }
  }
  switch (state) {
    case State::escaping:
    case State::escaping_quoted: return Error(ErrorCode::other, "EOF found after escape character");
    case State::quoting_escaping:
    case State::quoting: return Error(ErrorCode::other, "EOF found when expecting closing quote");
    case State::in_word: words.push_back(std::move(word)); break;
    case State::start:
    case State::comment: break;
  }
  return {};
}

Error get_k8s_job_command(const engine::RayJob& rayjob, std::vector<std::string>& command) {
  const engine::RayJobSpec& spec = rayjob.spec;
  command = base_ray_job_command(rayjob.status.dashboard_url);                       // JOB:L74
  std::string runtime_env_json;
  if (Error err = runtime_env_command_json(spec.runtime_env_yaml, runtime_env_json)) return err;   // JOB:L76
  if (!runtime_env_json.empty()) {
    command.insert(command.end(), {"--runtime-env-json", runtime_env_json});
  }
  if (!spec.metadata.empty()) {                                                      // JOB:L84-90
    if (!spec.ray_cluster_spec) {
      throw engine::ModelPanic("runtime error: invalid memory address or nil pointer dereference "
                               "(Spec.RayClusterSpec.RayVersion with a ClusterSelector; common/job.go:85)");
    }
    std::string json;
    if (Error err = metadata_json(spec.metadata, spec.ray_cluster_spec->ray_version, json)) return err;
    command.insert(command.end(), {"--metadata-json", json});
  }
  if (!rayjob.status.job_id.empty()) command.insert(command.end(), {"--submission-id", rayjob.status.job_id});
  if (spec.entrypoint_num_cpus && *spec.entrypoint_num_cpus > 0) {
    command.insert(command.end(), {"--entrypoint-num-cpus", go_float(*spec.entrypoint_num_cpus)});
  }
  if (spec.entrypoint_num_gpus && *spec.entrypoint_num_gpus > 0) {
    command.insert(command.end(), {"--entrypoint-num-gpus", go_float(*spec.entrypoint_num_gpus)});
  }
  if (!spec.entrypoint_resources.empty()) {
    command.insert(command.end(), {"--entrypoint-resources", spec.entrypoint_resources});
  }
  command.push_back("--");                                                            // JOB:L110
  std::vector<std::string> entrypoint;
  if (Error err = shlex_split(spec.entrypoint, entrypoint)) return err;               // JOB:L112
  command.insert(command.end(), entrypoint.begin(), entrypoint.end());
  return {};
}

engine::PodTemplate get_default_submitter_template(const engine::RayCluster& cluster) {
  const auto& head_containers = cluster.spec->head_group_spec.template_.containers;
  if (head_containers.empty()) {   // Containers[utils.RayContainerIndex] (JOB:L128)
    throw engine::ModelPanic("runtime error: index out of range [0] with length 0 "
                             "(HeadGroupSpec.Template.Spec.Containers; common/job.go:128)");
  }
  engine::PodTemplate submitter;
  engine::Container container;
  container.name = "ray-job-submitter";
  container.image = head_containers.front().image;
  submitter.containers.push_back(std::move(container));
  submitter.restart_policy = "Never";
  return submitter;
}

}  // namespace rjsim::models::kuberay_1_1
