#include "models/kuberay_1_0/dashboard_client.h"

#include <utility>

#include <fmt/format.h>

#include "models/shared/kuberay_1_0_1_1.h"

namespace rjsim::models::kuberay_1_0 {

using engine::DashboardResponse;
using engine::Error;
using engine::ErrorCode;
using shared::is_job_terminal;
using shared::transport_error;


Error RayDashboardClient::get_job_info(std::string_view job_id, std::optional<engine::RayJobInfo>& out) {
  out.reset();
  DashboardResponse response = api_.get_job_info(dashboard_url_, job_id);
  if (!response.connected) return transport_error(response);                  // DASH:L348-351
  if (response.status == 404) return {};                                      // DASH:L354-356: nil, nil
  if (!response.json) return Error(ErrorCode::other, fmt::format("GetJobInfo fail: {}", response.text));
  out = std::move(response.info);
  return {};
}

Error RayDashboardClient::stop_job(std::string_view job_id) {
  const DashboardResponse response = api_.stop_job(dashboard_url_, job_id);
  if (!response.connected) return transport_error(response);                  // DASH:L415-418
  if (!response.json) {   // DASH:L423-426: the JSON decode error itself
    return Error(ErrorCode::other, "invalid character looking for beginning of value");
  }
  if (!response.stopped) {                                                    // DASH:L428-437
    std::optional<engine::RayJobInfo> info;
    if (Error err = get_job_info(job_id, info)) return err;
    if (!info) {   // jobInfo.JobStatus on the nil that a 404 gave back
      throw engine::ModelPanic("runtime error: invalid memory address or nil pointer dereference "
                               "(StopJob re-read a job that answered 404; dashboard_httpclient.go:434)");
    }
    if (!is_job_terminal(info->job_status)) {
      return Error(ErrorCode::other, fmt::format("Failed to stopped job: {}", info->job_status));
    }
  }
  return {};
}

}  // namespace rjsim::models::kuberay_1_0
