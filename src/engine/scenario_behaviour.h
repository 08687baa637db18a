// How the environment of a run behaves: the `world:` section of a scenario (DESIGN §4), with
// every default filled in. The actors read it; it never changes during a run, so it is not part
// of the World. Times are virtual milliseconds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rjsim::engine {

// Which Pods a release's RayCluster controller waits for before it sets State "ready"
// (kuberay-rayjob §3.5, §2.6, §1.12). The model of the release chooses (ReleaseEnvironment).
enum class RayClusterReadiness : std::uint8_t {
  all_pods_running,    // v1.0.0: every listed Pod is phase Running; no PodReady, no Pod count
  listed_pods_ready,   // v1.1.0: every listed Pod is Running and Ready; no Pod count
  desired_pods_ready,  // v1.7.0: as many Pods as desired workers + 1, all Running and Ready
};

// How the batch Job controller of the Kubernetes a release runs on counts a Job's Pods
// (kubernetes-semantics §4.2; KEP-2307 "Job tracking without lingering Pods"). The model of the
// release chooses (ReleaseEnvironment), after the kind node image of the release's own CI.
enum class JobPodTracking : std::uint8_t {
  // Kubernetes 1.23 (JobTrackingWithFinalizers off by default from 1.23.6 on, kubernetes#109487):
  // the counters are recomputed from the Pods listed; a deleted Pod is forgotten.
  listed_pods,
  // Kubernetes >= 1.26 (the gate GA, kubernetes#113510): each Pod carries the
  // `batch.kubernetes.io/job-tracking` finalizer until the controller has counted it.
  finalizers,
};

// The timeline of a RayCluster's Pods from the cluster's creation, which the kubelet follows
// (kubelet.h): the head Pod Running at headReadyAfter - runningBeforeReady and Ready at
// headReadyAfter; the worker Pods, created at readyAfter, Running and Ready then. Each release's
// readiness rule reads those Pods (RayClusterController). The Ray head serves its dashboard once
// its Pod is Ready (and the cluster's State is ready).
struct RayClusterBehaviour {
  std::int64_t ready_after_ms = 20'000;     // every Pod Running and Ready
  std::optional<std::int64_t> head_ready_after_ms;   // the head Pod alone Ready; default ready_after_ms
  std::int64_t running_before_ready_ms = 0; // a Pod is Running this long before it is Ready
  std::int64_t deletion_takes_ms = 0;       // a deleted RayCluster lingers (someone else's finalizer)

  std::int64_t head_ready_ms() const { return head_ready_after_ms.value_or(ready_after_ms); }
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
  std::optional<std::int64_t> timeout_ms;   // the operator's HTTP client timeout; default: the release's
  std::vector<Outage> outages;              // every operator call fails inside these windows
};

// How long a part of the environment takes to react to what caused its work (DESIGN §1.1): it
// does the work no sooner than min after the work became possible, and no later than max. The
// fault-free run takes min; with `faults.latency` the schedule may take any time up to max.
struct Latency {
  std::int64_t min_ms = 0;
  std::int64_t max_ms = 0;
  friend bool operator==(const Latency&, const Latency&) = default;
};

// `world.latency`. The defaults' min is 0: the fault-free run reacts at once, as the first engine
// did; their max is how late the real component may be (the Job controller batches Pod events
// for 1 s; the garbage collector and the RayCluster controller run on their own queues).
// A watch may lag for seconds in a loaded cluster (kubernetes-semantics §1.7 has no upper bound;
// a disconnect backs off up to 30 s): 5 s covers the controller's 3 s polls with room to spare.
inline constexpr std::int64_t kDefaultWatchLatencyMaxMs = 5'000;

struct LatencyBehaviour {
  Latency garbage_collector{0, 2'000};
  Latency job_controller{0, 1'000};
  Latency ray_cluster_controller{0, 1'000};
  // Container start and exit -> Pod status in the API. Only submitter Pods and the SidecarMode
  // sidecar have containers that run yet (Submitter).
  Latency kubelet{0, 2'000};
  // Crash -> the new process lists. Unset: from the release's leader-election delay (15 s) to
  // kDefaultOperatorRestartMaxMs, or that delay when it is longer.
  std::optional<Latency> operator_restart;
  // Write -> the watch event applied in the controller's cache, when faults.staleReads or
  // faults.squash let deliveries wait: a held delivery is due kDefaultWatchLatencyMaxMs after its
  // write at the latest (min is always 0: the fault-free run applies each event at once).
  Latency watch{0, kDefaultWatchLatencyMaxMs};
};
inline constexpr std::int64_t kDefaultOperatorRestartMaxMs = 60'000;

// The operator-restart latency of a scenario's world under a release that waits
// `leader_election_ms` for the lease.
inline Latency operator_restart_latency(const LatencyBehaviour& latency, std::int64_t leader_election_ms) {
  if (latency.operator_restart) return *latency.operator_restart;
  return {leader_election_ms, std::max(leader_election_ms, kDefaultOperatorRestartMaxMs)};
}

struct OperatorSettings {
  std::map<std::string, std::string> env;
  std::map<std::string, bool> feature_gates;
};

// world.pods: how deleted Pods stop (pod_termination.h).
struct PodBehaviour {
  std::int64_t termination_grace_period_ms = 30'000;   // Kubernetes' default; whole seconds
};

struct WorldBehaviour {
  RayClusterBehaviour ray_cluster;
  SubmitterBehaviour submitter;
  RayBehaviour ray;
  DashboardBehaviour dashboard;
  OperatorSettings operator_settings;
  LatencyBehaviour latency;
  PodBehaviour pods;
};

}  // namespace rjsim::engine
