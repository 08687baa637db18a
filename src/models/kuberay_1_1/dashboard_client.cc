#include "models/kuberay_1_1/dashboard_client.h"

#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/kuberay_1_1/runtime_env.h"
#include "models/shared/kuberay_1_0_1_1.h"

namespace rjsim::models::kuberay_1_1 {

using engine::DashboardResponse;
using engine::Error;
using engine::ErrorCode;
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

Error convert_rayjob_to_request(const engine::RayJob& rayjob, engine::SubmitJobRequest& out) {
  out.entrypoint = rayjob.spec->entrypoint;
  out.submission_id = rayjob.status.job_id;
  out.metadata = rayjob.spec->metadata;
  if (!rayjob.spec->runtime_env_yaml.empty()) {
    if (Error err = runtime_env_yaml_to_json(rayjob.spec->runtime_env_yaml, out.runtime_env_json)) return err;
  }
  if (!rayjob.spec->entrypoint_resources.empty() &&
      !nlohmann::json::accept(rayjob.spec->entrypoint_resources)) {
    return Error(ErrorCode::other, fmt::format("invalid entrypointResources: {}",
                                               rayjob.spec->entrypoint_resources));
  }
  return {};
}

}  // namespace rjsim::models::kuberay_1_1
