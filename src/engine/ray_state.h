// The Ray side's state as plain data (World::ray): every head incarnation's job table, kept after
// the head restarts or the cluster goes, so that the checks can judge what ran. Behaviour lives
// in ray_dashboard.h.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/copy_on_write.h"

namespace rjsim::engine {

struct RayJobRecord {
  std::string submission_id;
  std::string entrypoint;
  std::string status;                 // PENDING, RUNNING, SUCCEEDED, FAILED, STOPPED
  std::string result;                 // the final status it is headed for
  std::string message;
  std::string submitted_by;           // "controller" (HTTPMode) or "submitter/<pod>"
  std::int64_t submitted_at_ms = 0;
  std::int64_t start_time_ms = 0;     // when it started RUNNING (0: not yet)
  std::int64_t end_time_ms = 0;       // when it became terminal (0: not yet)
  std::int64_t next_change_at_ms = 0; // the time of its next status change (0: none)
  friend bool operator==(const RayJobRecord&, const RayJobRecord&) = default;
};

struct RayHead {
  std::string cluster_namespace;
  std::string cluster_name;
  std::string cluster_uid;
  int incarnation = 1;                // 1 at cluster readiness, +1 per head restart
  bool table_lost = false;            // replaced by a later incarnation, or the cluster is gone
  std::vector<RayJobRecord> jobs;
  friend bool operator==(const RayHead&, const RayHead&) = default;
};

struct RayState {
  // In creation order; at most one live per cluster uid. Each head is shared by the copies of the
  // state until one changes it: a step changes one head's table, and with twenty heads copying
  // (a snapshot's world edited) and fingerprinting all of them again was a fifth of an exhaustive
  // search of twenty-rayjobs.
  std::vector<CopyOnWrite<RayHead>> heads;
  // Submissions per RayJob name (for `world.ray.results`), in name order.
  std::vector<std::pair<std::string, int>> submissions_per_rayjob;
  friend bool operator==(const RayState&, const RayState&) = default;
};

}  // namespace rjsim::engine
