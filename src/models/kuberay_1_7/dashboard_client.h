// KubeRay v1.7.0's Ray dashboard client (ray-operator/controllers/ray/utils/dashboardclient/
// dashboard_httpclient.go at v1.7.0, "DASH"): how that release turns the dashboard's HTTP replies
// into (value, error). GetJobInfo answers a 404 with a BadRequest error (DASH:L168-170) and a body
// that is not JSON with "GetJobInfo fail: <body>", and StopJob re-reads a job it could not stop,
// as 1.1 did; SubmitJob now checks the status code: a 500 naming a used submission_id and any
// other non-2xx reply are errors (DASH:L251-258).
// Without UseKubernetesProxy the HTTP timeout is 2 s (utils/util.go), which the simulated
// dashboard's `timeout` stands for. Token auth (the Secret read by the client factory) is not
// modelled (docs/models.md).
#pragma once

#include <string>
#include <string_view>

#include "engine/controller.h"
#include "engine/dashboard_api.h"
#include "engine/error.h"
#include "engine/objects.h"
#include "models/kuberay_1_1/dashboard_client.h"

namespace rjsim::models::kuberay_1_7 {

// GetJobInfo and StopJob are unchanged since v1.1.0 (DASH:L154-184, L303-338), so they are the
// 1.1 client's; SubmitJob is this release's own.
class RayDashboardClient {
 public:
  explicit RayDashboardClient(engine::DashboardApi& api) : api_(api), unchanged_(api) {}

  void init_client(std::string url) {   // DASH:L49
    unchanged_.init_client(url);
    dashboard_url_ = std::move(url);
  }
  engine::Error get_job_info(std::string_view job_id, engine::RayJobInfo& out) {   // DASH:L154
    return unchanged_.get_job_info(job_id, out);
  }
  engine::Error submit_job(const engine::RayJob& rayjob, std::string& job_id);   // DASH:L218
  engine::Error stop_job(std::string_view job_id) { return unchanged_.stop_job(job_id); }   // DASH:L303

 private:
  engine::DashboardApi& api_;
  kuberay_1_1::RayDashboardClient unchanged_;
  std::string dashboard_url_;
};

}  // namespace rjsim::models::kuberay_1_7
