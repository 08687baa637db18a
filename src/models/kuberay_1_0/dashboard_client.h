// KubeRay v1.0.0's Ray dashboard client (ray-operator/controllers/ray/utils/dashboard_httpclient.go
// at v1.0.0, "DASH"): how that release turned the dashboard's HTTP replies into (value, error).
// GetJobInfo answers a 404 with *no job and no error* (DASH:L354-356), which the controller then
// dereferences in places (a panic, reported as engine::ModelPanic by the callers); a body that is
// not JSON is "GetJobInfo fail: <body>". StopJob fails on a reply that is not JSON and, when Ray
// did not stop the job, re-reads it and fails only when it is not terminal (DASH:L406-439). The
// Go client's timeout is 120 s (DASH:L109-114); the simulated dashboard's timeout stands for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/controller.h"
#include "engine/dashboard_api.h"
#include "engine/error.h"

namespace rjsim::models::kuberay_1_0 {

class RayDashboardClient {
 public:
  explicit RayDashboardClient(engine::DashboardApi& api) : api_(api) {}

  void init_client(std::string url) { dashboard_url_ = std::move(url); }   // DASH:L109
  // `out` is empty (Go's nil *RayJobInfo) after a 404, with no error (DASH:L342-370).
  engine::Error get_job_info(std::string_view job_id, std::optional<engine::RayJobInfo>& out);
  engine::Error stop_job(std::string_view job_id);                            // DASH:L406

 private:
  engine::DashboardApi& api_;
  std::string dashboard_url_;
};

}  // namespace rjsim::models::kuberay_1_0
