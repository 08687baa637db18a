// KubeRay v1.1.0's Ray dashboard client (ray-operator/controllers/ray/utils/dashboard_httpclient.go
// at v1.1.0, "DASH"): how that release turned the dashboard's HTTP replies into (value, error).
// GetJobInfo answers a 404 with a BadRequest error (DASH:L242-244) and any body that is not JSON
// with "GetJobInfo fail: <body>"; SubmitJob checks only that the reply parses as JSON, not its
// status code (DASH:L290-329); StopJob re-reads a job it could not stop and fails only when it is
// not terminal (DASH:L366-400). The HTTP timeout is 2 s (DASH:L104-109), which the simulated
// dashboard's behaviour stands for.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "engine/controller.h"
#include "engine/dashboard_api.h"
#include "engine/error.h"
#include "engine/objects.h"

namespace rjsim::models::kuberay_1_1 {

class RayDashboardClient {
 public:
  explicit RayDashboardClient(engine::DashboardApi& api) : api_(api) {}

  void init_client(std::string url) { dashboard_url_ = std::move(url); }   // DASH:L104
  engine::Error get_job_info(std::string_view job_id, engine::RayJobInfo& out);   // DASH:L228
  engine::Error submit_job(const engine::RayJob& rayjob, std::string& job_id);   // DASH:L284
  engine::Error stop_job(std::string_view job_id);                               // DASH:L366

 private:
  engine::DashboardApi& api_;
  std::string dashboard_url_;
};

// ConvertRayJobToReq (DASH:L421-442): fails when runtimeEnvYAML or entrypointResources do not
// parse.
engine::Error convert_rayjob_to_request(const engine::RayJob& rayjob, engine::SubmitJobRequest& out);
// json.Unmarshal of spec.entrypointResources into the request's map[string]float32 (DASH:L436-440).
engine::Error decode_entrypoint_resources(const std::string& text, std::map<std::string, float, std::less<>>& out);

}  // namespace rjsim::models::kuberay_1_1
