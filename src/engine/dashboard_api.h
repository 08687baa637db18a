// The Ray dashboard's job REST API as a client sees it on the wire (kuberay-rayjob §0.4):
// GET /api/jobs/{id}, POST /api/jobs/ (submit), POST /api/jobs/{id}/stop, DELETE /api/jobs/{id}.
// A response is what came back: no connection (refused, or timed out: the call may still have
// been applied), or an HTTP status with a JSON body (job info, submit reply, stop reply) or a
// plain-text body (404 "Job X does not exist", 500 with a traceback on a duplicate
// submission_id). How a release's Go client turns that into (value, error) lives in the model's
// own folder, because it changed between releases (a 404 is an error in 1.1, nil in 1.0).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "engine/objects.h"

namespace rjsim::engine {

struct RayJobInfo {
  std::string job_status;       // PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED
  std::string entrypoint;
  std::string submission_id;
  std::string message;
  std::int64_t start_time_ms = 0;   // Unix ms as Ray reports them (virtual ms here); 0 = unset
  std::int64_t end_time_ms = 0;
  StringMap metadata;
  friend bool operator==(const RayJobInfo&, const RayJobInfo&) = default;
};

struct SubmitJobRequest {
  std::string entrypoint;
  std::string submission_id;
  std::string runtime_env_json;
  StringMap metadata;
  // entrypoint_num_cpus, entrypoint_num_gpus, entrypoint_resources (float32 in Go's request):
  // sent as the operator sends them; rjsim's Ray schedules no resources, so it reads none.
  float entrypoint_num_cpus = 0;
  float entrypoint_num_gpus = 0;
  std::map<std::string, float, std::less<>> entrypoint_resources;
};

struct DashboardResponse {
  bool connected = true;        // false: no HTTP response at all
  bool timed_out = false;       // with !connected: the client gave up; the call may have landed
  int status = 200;
  bool json = true;             // the body parsed as JSON (info, submission_id, stopped)
  RayJobInfo info;              // GET /api/jobs/{id}
  std::string submission_id;    // POST /api/jobs/
  bool stopped = false;         // POST /api/jobs/{id}/stop
  std::string text;             // a plain-text body, or the transport error
  friend bool operator==(const DashboardResponse&, const DashboardResponse&) = default;
};

class DashboardApi {
 public:
  virtual ~DashboardApi() = default;
  // `dashboard_url` is Status.DashboardURL: "<head service>.<namespace>.svc.cluster.local:<port>".
  virtual DashboardResponse get_job_info(std::string_view dashboard_url, std::string_view job_id) = 0;
  virtual DashboardResponse submit_job(std::string_view dashboard_url, const SubmitJobRequest& request) = 0;
  virtual DashboardResponse stop_job(std::string_view dashboard_url, std::string_view job_id) = 0;
  virtual DashboardResponse delete_job(std::string_view dashboard_url, std::string_view job_id) = 0;
};

}  // namespace rjsim::engine
