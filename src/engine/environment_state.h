// What the environment actors (DESIGN §1: the RayCluster and Job controllers, the submitter, the
// Ray dashboard, the user) remember between steps beyond the API server's objects and the Ray
// job tables (World::ray): plain values in World::environment, ordered, comparable. Everything
// an actor can read back from the API server (pod phases, Job counters, finalizers) is not
// repeated here; references to other parts of the World are indices, never pointers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rjsim::engine {

// The process in one submitter pod (`ray job submit`, kubernetes-semantics §4.1), from the
// moment its container started.
struct SubmitterProcess {
  std::string pod_namespace;
  std::string pod_name;
  std::string pod_uid;
  // How many pods of its Job were created before it; for a restarted container (the SidecarMode
  // submitter under restartPolicy OnFailure), how many times the container restarted before this run.
  int attempt = 0;
  std::int64_t started_at_ms = 0;
  std::string dashboard_url;         // parsed from the container command (or env)
  std::string submission_id;
  // "" (not yet), ok, duplicate, unreachable, http_error, no_command, not_submitted (an attempt
  // that fails before it submits).
  std::string submit_outcome;
  int head = -1;                     // index into World::ray.heads of the table that took the job
  // The command submits with --no-wait and then runs `ray job logs --follow` (kuberay-1.7): it
  // exits 0 once the job ends, whatever its final status.
  bool follows_logs = false;
  // `crictl stop` reached the container (the scenario action stopSubmitter): it is killed, exit 137.
  bool stop_requested = false;
  friend bool operator==(const SubmitterProcess&, const SubmitterProcess&) = default;
};

// A job record that DELETE /api/jobs/{id} removed from its live table. The record itself stays in
// World::ray (the checks read the history); it is only no longer found by id.
struct DeletedRayJob {
  int head = 0;   // index into World::ray.heads
  int job = 0;    // index into that head's jobs
  friend bool operator==(const DeletedRayJob&, const DeletedRayJob&) = default;
};

// The batch Job controller's backoff record of one Job (podBackoffStore, kubernetes-semantics
// §4.2): when the last Pod it counted as failed finished. Kept in its memory, so the failure
// backoff holds after the Pod is gone from the API (JobPodTracking::finalizers counts a deleted
// Pod, which then goes).
struct JobBackoffRecord {
  std::string job_uid;
  std::int64_t last_failure_ms = 0;
  friend bool operator==(const JobBackoffRecord&, const JobBackoffRecord&) = default;
};

struct EnvironmentState {
  int actions_fired = 0;                        // scenario actions already fired, in order
  std::vector<SubmitterProcess> submitters;     // in the order their pods (or containers) started
  std::vector<DeletedRayJob> deleted_ray_jobs;  // in deletion order
  std::vector<JobBackoffRecord> job_backoffs;   // in the order of the Jobs' first counted failure
  friend bool operator==(const EnvironmentState&, const EnvironmentState&) = default;
};

}  // namespace rjsim::engine
