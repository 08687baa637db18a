#include "models/kuberay_1_1/dashboard_client.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/kuberay_1_1/runtime_env.h"
#include "models/shared/go_yaml_json.h"
#include "models/shared/kuberay_1_0_1_1.h"

namespace rjsim::models::kuberay_1_1 {

using engine::DashboardResponse;
using engine::Error;
using engine::ErrorCode;
using shared::go_json_kind;
using shared::is_job_terminal;
using shared::transport_error;


Error RayDashboardClient::get_job_info(std::string_view job_id, engine::RayJobInfo& out) {
  DashboardResponse response = api_.get_job_info(dashboard_url_, job_id);
  if (!response.connected) return transport_error(response);
  if (response.status == 404) {   // DASH:L242-244
    return Error(ErrorCode::bad_request, fmt::format("Job {} does not exist on the cluster", job_id));
  }
  if (!response.json) return Error(ErrorCode::other, fmt::format("GetJobInfo fail: {}", response.text));
  out = std::move(response.info);
  return {};
}

Error RayDashboardClient::submit_job(const engine::RayJob& rayjob, std::string& job_id) {
  engine::SubmitJobRequest request;
  if (Error err = convert_rayjob_to_request(rayjob, request)) return err;
  const DashboardResponse response = api_.submit_job(dashboard_url_, request);
  if (!response.connected) return transport_error(response);
  // DASH:L320-326: only whether the body is JSON matters, not the status code.
  if (!response.json) return Error(ErrorCode::other, fmt::format("SubmitJob fail: {}", response.text));
  job_id = response.submission_id;
  return {};
}

Error RayDashboardClient::stop_job(std::string_view job_id) {
  const DashboardResponse response = api_.stop_job(dashboard_url_, job_id);
  if (!response.connected) return transport_error(response);
  if (!response.json) {   // DASH:L385-387: the JSON decode error itself
    return Error(ErrorCode::other, "invalid character looking for beginning of value");
  }
  if (!response.stopped) {   // DASH:L389-397
    engine::RayJobInfo info;
    if (Error err = get_job_info(job_id, info)) return err;
    if (!is_job_terminal(info.job_status)) {
      return Error(ErrorCode::other, fmt::format("Failed to stopped job: {}", info.job_status));
    }
  }
  return {};
}

namespace {

Error cannot_unmarshal(const std::string& what, std::string_view into) {
  return Error(ErrorCode::other, fmt::format("json: cannot unmarshal {} into Go value of type {}", what, into));
}

}  // namespace

// json.Unmarshal into a map[string]float32: null is no map; anything but an object of numbers (or
// nulls, which leave 0) fails, as does a number beyond float32. A syntax error comes first, as Go
// checks the whole text before it decodes; its text is paraphrased.
Error decode_entrypoint_resources(const std::string& text, std::map<std::string, float, std::less<>>& out) {
  out.clear();
  const nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return Error(ErrorCode::other, fmt::format("invalid character in entrypointResources {}: not JSON", text));
  }
  if (value.is_null()) return {};
  if (!value.is_object()) return cannot_unmarshal(go_json_kind(value), "map[string]float32");
  std::optional<Error> first_error;   // Go decodes on past a type error and returns the first
  for (const auto& [key, item] : value.items()) {
    float& slot = out[key];
    if (item.is_null()) continue;
    if (!item.is_number()) {
      if (!first_error) first_error = cannot_unmarshal(go_json_kind(item), "float32");
      continue;
    }
    const double number = item.get<double>();
    if (std::abs(number) > std::numeric_limits<float>::max()) {
      if (!first_error) first_error = cannot_unmarshal(fmt::format("number {}", item.dump()), "float32");
      continue;
    }
    slot = static_cast<float>(number);
  }
  if (first_error) {
    out.clear();
    return *first_error;
  }
  return {};
}

Error convert_rayjob_to_request(const engine::RayJob& rayjob, engine::SubmitJobRequest& out) {
  out.entrypoint = rayjob.spec->entrypoint;
  out.submission_id = rayjob.status.job_id;
  out.metadata = rayjob.spec->metadata;
  if (!rayjob.spec->runtime_env_yaml.empty()) {
    if (Error err = runtime_env_yaml_to_json(rayjob.spec->runtime_env_yaml, out.runtime_env_json)) return err;
  }
  out.entrypoint_num_cpus = static_cast<float>(rayjob.spec->entrypoint_num_cpus.value_or(0));   // DASH:L434-435
  out.entrypoint_num_gpus = static_cast<float>(rayjob.spec->entrypoint_num_gpus.value_or(0));
  if (!rayjob.spec->entrypoint_resources.empty()) {                                               // DASH:L436-440
    return decode_entrypoint_resources(rayjob.spec->entrypoint_resources, out.entrypoint_resources);
  }
  return {};
}

}  // namespace rjsim::models::kuberay_1_1
