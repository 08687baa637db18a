#include "models/kuberay_1_7/dashboard_client.h"

#include <fmt/format.h>

namespace rjsim::models::kuberay_1_7 {

using engine::DashboardResponse;
using engine::Error;
using engine::ErrorCode;

namespace {

// What Go's http.Client returns when no response came back.
Error transport_error(const DashboardResponse& response) {
  return Error(response.timed_out ? ErrorCode::timeout : ErrorCode::other, response.text);
}

}  // namespace

Error RayDashboardClient::submit_job(const engine::RayJob& rayjob, std::string& job_id) {
  engine::SubmitJobRequest request;
  // ConvertRayJobToReq is unchanged since v1.1.0 (DASH:L359-380), so the 1.1 helper is shared.
  if (Error err = kuberay_1_1::convert_rayjob_to_request(rayjob, request)) return err;
  const DashboardResponse response = api_.submit_job(dashboard_url_, request);
  if (!response.connected) return transport_error(response);
  if (response.status < 200 || response.status > 299) {   // DASH:L251-258
    if (response.status == 500 && response.text.find("Please use a different submission_id") != std::string::npos) {
      job_id = request.submission_id;
      return Error(ErrorCode::other, fmt::format("submission ID '{}' already used, Please use a different "
                                                 "submission_id", request.submission_id));
    }
    return Error(ErrorCode::other, fmt::format("SubmitJob fail: {} {}", response.status, response.text));
  }
  if (!response.json) return Error(ErrorCode::other, fmt::format("SubmitJob fail: {}", response.text));
  job_id = response.submission_id;
  return {};
}

}  // namespace rjsim::models::kuberay_1_7
