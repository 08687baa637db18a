// How the environment of a run behaves: the `world:` section of a scenario (DESIGN §4), with
// every default filled in. The actors read it; it never changes during a run, so it is not part
// of the World. Times are virtual milliseconds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rjsim::engine {

struct RayClusterBehaviour {
  std::int64_t ready_after_ms = 20'000;     // from creation to State ready
  std::int64_t deletion_takes_ms = 0;       // a deleted RayCluster lingers (someone else's finalizer)
};

struct SubmitterBehaviour {
  std::int64_t start_after_ms = 2'000;      // submitter pod (or sidecar container) start
  int fail_attempts = 0;                    // how many attempts fail (exit non-zero)
  std::int64_t fail_after_ms = 0;           // a failing attempt runs this long first (0: before submitting)
  std::optional<std::int64_t> finishes_after_ms;   // exit 0 this long after start whatever Ray does
};

struct RayBehaviour {
  std::int64_t pending_for_ms = 2'000;
  std::int64_t runs_for_ms = 30'000;
  // One result per successive submission (attempt); the last repeats. `result:` gives one.
  std::vector<std::string> results = {"SUCCEEDED"};   // SUCCEEDED | FAILED | STOPPED
};

struct Outage {
  std::int64_t from_ms = 0;
  std::int64_t for_ms = 0;
  friend bool operator==(const Outage&, const Outage&) = default;
};

struct DashboardBehaviour {
  std::int64_t latency_ms = 5;
  std::int64_t timeout_ms = 2'000;
  std::vector<Outage> outages;              // every operator call fails inside these windows
};

struct OperatorSettings {
  std::map<std::string, std::string> env;
  std::map<std::string, bool> feature_gates;
};

struct WorldBehaviour {
  RayClusterBehaviour ray_cluster;
  SubmitterBehaviour submitter;
  RayBehaviour ray;
  DashboardBehaviour dashboard;
  OperatorSettings operator_settings;
};

}  // namespace rjsim::engine
