#include "models/kuberay_1_7/submitter_job.h"

#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "engine/controller.h"
#include "models/kuberay_1_1/runtime_env.h"
#include "models/shared/go_yaml_json.h"

namespace rjsim::models::kuberay_1_7 {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using engine::Error;
using engine::ErrorCode;

namespace {

constexpr int kDefaultDashboardPort = 8265;                         // utils.DefaultDashboardPort
constexpr const char* kRayDashboardGCSHealthPath = "api/gcs_healthz";   // utils/constant.go:L335
constexpr int kRayDashboardGCSHealthCheckTimeoutSeconds = 10;          // utils/constant.go:L336

// Go's strconv.Quote for the ASCII text KubeRay puts through it. Copied a run at a time: the
// runtime env's JSON and the waiting message go through it for every submitter Job.
std::string go_quote(const std::string& text) {
  std::string quoted;
  quoted.reserve(text.size() + 8);
  quoted += '"';
  std::size_t from = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] != '"' && text[at] != '\\') continue;
    quoted.append(text, from, at - from);
    quoted += '\\';
    from = at;   // the quoted character starts the next run
  }
  quoted.append(text, from);
  quoted += '"';
  return quoted;
}

// Masterminds/semver ">= 2.6.0" for [v]MAJOR[.MINOR[.PATCH]][-pre][+build]; false when unparsable.
bool parse_at_least_2_6(std::string_view text, bool& ok) {
  ok = false;
  if (text.starts_with('v')) text.remove_prefix(1);
  if (const auto build = text.find('+'); build != std::string_view::npos) text = text.substr(0, build);
  bool prerelease = false;
  if (const auto pre = text.find('-'); pre != std::string_view::npos) {
    prerelease = true;
    text = text.substr(0, pre);
  }
  int parts[3] = {0, 0, 0};
  for (int i = 0; i < 3 && !text.empty(); ++i) {
    const auto dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), parts[i]);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size()) return false;
    text = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    if (dot != std::string_view::npos && text.empty()) return false;
  }
  ok = true;
  return !prerelease && std::tie(parts[0], parts[1], parts[2]) >= std::make_tuple(2, 6, 0);
}

// getMetadataJSONForSubmitCommand (JOB:L67-87).
Error metadata_json_for_submit_command(const engine::RayJob& rayjob, std::string& json) {
  if (rayjob.spec->ray_cluster_spec && !rayjob.spec->ray_cluster_spec->ray_version.empty()) {
    const std::string& version = rayjob.spec->ray_cluster_spec->ray_version;
    bool parsed = false;
    const bool at_least = parse_at_least_2_6(version, parsed);
    if (!parsed) {
      return Error(ErrorCode::other, fmt::format("failed to parse Ray version: {}: Invalid Semantic Version", version));
    }
    if (!at_least) return Error(ErrorCode::other, "the Ray version must be at least 2.6.0 to use the metadata field");
  }
  json = shared::go_json_marshal(nlohmann::json(rayjob.spec->metadata));   // json.Marshal: HTML-safe
  return {};
}

std::string trim_space(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\n\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\n\r") - first + 1);
}

}  // namespace

Error build_job_submit_command(const engine::RayJob& rayjob, const std::string& submission_mode,
                               bool sidecar_submitter_restart, std::vector<std::string>& cmd) {
  cmd.clear();
  std::string address;
  int port = kDefaultDashboardPort;
  if (submission_mode == "SidecarMode"sv) {                                              // JOB:L94-99
    address = fmt::format("http://127.0.0.1:{}", port);   // FindContainerPort: the default port
  } else if (submission_mode == "K8sJobMode"sv) {                                        // JOB:L100-105
    address = rayjob.status.dashboard_url;
    if (!address.starts_with("http://")) address = "http://" + address;
  } else {
    return Error(ErrorCode::other,
                 fmt::format("unsupported submission mode for job submit command: {}", submission_mode));
  }
  const std::string& job_id = rayjob.status.job_id;
  const std::vector<std::string> job_status_command = {"ray", "job", "status", "--address", address, job_id,
                                                       ">/dev/null", "2>&1"};
  const std::vector<std::string> job_submit_command = {"ray", "job", "submit", "--address", address};
  const std::vector<std::string> job_follow_command = {"ray", "job", "logs", "--address", address, "--follow", job_id};

  const std::string health_url = submission_mode == "SidecarMode"sv                        // JOB:L133-138
                                     ? fmt::format("http://localhost:{}/{}", port, kRayDashboardGCSHealthPath)
                                     : fmt::format("{}/{}", address, kRayDashboardGCSHealthPath);
  const std::string health_command = fmt::format(
      "python -c \"import urllib.request; r=urllib.request.urlopen('{}', timeout={}); exit(0 if b'success' in "
      "r.read() else 1)\"",
      health_url, kRayDashboardGCSHealthCheckTimeoutSeconds);
  cmd = {"until", health_command, ">/dev/null", "2>&1", ";", "do", "echo",                 // JOB:L145-149
         go_quote("Waiting for Ray Dashboard GCS to become healthy at " + address + " ..."), ";", "sleep", "2",
         ";", "done", ";"};

  const bool needs_status_check = submission_mode == "K8sJobMode"sv ||                     // JOB:L155
                                  (submission_mode == "SidecarMode"sv && sidecar_submitter_restart);
  if (needs_status_check) {
    cmd.insert(cmd.end(), {"if", "!"});
    cmd.insert(cmd.end(), job_status_command.begin(), job_status_command.end());
    cmd.insert(cmd.end(), {";", "then"});
  }
  cmd.insert(cmd.end(), job_submit_command.begin(), job_submit_command.end());
  if (needs_status_check) cmd.push_back("--no-wait");

  std::string runtime_env_json;                                                        // JOB:L172-178
  if (Error err = kuberay_1_1::runtime_env_command_json(rayjob.spec->runtime_env_yaml, runtime_env_json)) return err;
  if (!runtime_env_json.empty()) cmd.insert(cmd.end(), {"--runtime-env-json", go_quote(runtime_env_json)});
  if (!rayjob.spec->metadata.empty()) {                                                 // JOB:L180-186
    std::string json;
    if (Error err = metadata_json_for_submit_command(rayjob, json)) return err;
    cmd.insert(cmd.end(), {"--metadata-json", go_quote(json)});
  }
  if (!job_id.empty()) cmd.insert(cmd.end(), {"--submission-id", job_id});
  const engine::RayJobSpec& spec = rayjob.spec;
  if (spec.entrypoint_num_cpus && *spec.entrypoint_num_cpus > 0) {
    cmd.insert(cmd.end(), {"--entrypoint-num-cpus", fmt::format("{:f}", *spec.entrypoint_num_cpus)});
  }
  if (spec.entrypoint_num_gpus && *spec.entrypoint_num_gpus > 0) {
    cmd.insert(cmd.end(), {"--entrypoint-num-gpus", fmt::format("{:f}", *spec.entrypoint_num_gpus)});
  }
  if (!spec.entrypoint_resources.empty()) {
    cmd.insert(cmd.end(), {"--entrypoint-resources", go_quote(spec.entrypoint_resources)});
  }
  cmd.insert(cmd.end(), {"--", trim_space(spec.entrypoint), ";"});                    // JOB:L204
  if (needs_status_check) {
    cmd.insert(cmd.end(), {"fi", ";"});
    cmd.insert(cmd.end(), job_follow_command.begin(), job_follow_command.end());
  }
  return {};
}

engine::Container get_default_submitter_container(const engine::RayClusterSpec& cluster_spec) {
  const auto& head_containers = cluster_spec.head_group_spec.template_.containers;
  if (head_containers.empty()) {   // Containers[utils.RayContainerIndex] (JOB:L234)
    throw engine::ModelPanic("runtime error: index out of range [0] with length 0 "
                             "(HeadGroupSpec.Template.Spec.Containers; common/job.go:234)");
  }
  engine::Container container;
  container.name = kSubmitterContainerName;
  container.image = head_containers.front().image;
  return container;
}

engine::PodTemplate get_submitter_template(const engine::RayJobSpec& spec, const engine::RayClusterSpec& cluster_spec) {
  if (spec.submitter_pod_template) return *spec.submitter_pod_template;
  engine::PodTemplate submitter;
  submitter.containers.push_back(get_default_submitter_container(cluster_spec));
  submitter.restart_policy = "Never";
  return submitter;
}

Error configure_submitter_container(engine::Container& container, const engine::RayJob& rayjob,
                                    const std::string& submission_mode, bool sidecar_submitter_restart) {
  std::vector<std::string> job_command;
  if (Error err = build_job_submit_command(rayjob, submission_mode, sidecar_submitter_restart, job_command)) {
    return err;
  }
  if (container.command.empty() || submission_mode == "SidecarMode"sv) {
    container.command = {"/bin/bash", "-ce", "--"};   // utils.GetContainerCommand([]string{"e"})
    container.args = {fmt::format("{}", fmt::join(job_command, " "))};
  }
  container.env["PYTHONUNBUFFERED"] = "1";
  container.env["RAY_DASHBOARD_ADDRESS"] = rayjob.status.dashboard_url;
  container.env["RAY_JOB_SUBMISSION_ID"] = rayjob.status.job_id;
  return {};
}

}  // namespace rjsim::models::kuberay_1_7
