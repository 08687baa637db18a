// The status KubeRay's RayCluster controller writes, per release: calculateStatus (v1.0.0 and v1.1.0
// RC:L1244-1290; v1.7.0 RC:L1970-2132) over the cluster's Pods and head Service as the API lists
// them, and the comparison that decides whether it is written (inconsistentRayClusterStatus,
// RC:L396-418 at v1.1.0; utils/consistency.go:L16-34 at v1.7.0). Pure functions of their inputs.
//  - every release: the worker counts (available: worker Pods Running; desired, min and max from
//    the groups, times numOfHosts), the endpoints (the head Service's named ports), the head's Pod
//    IP and Service IP, observedGeneration and lastUpdateTime;
//  - v1.7.0 also the ready worker count, the head's Pod and Service names, and the conditions
//    HeadPodReady, RayClusterProvisioned, RayClusterSuspended and RayClusterSuspending (the
//    RayClusterStatusConditions gate, on by default), set as meta.SetStatusCondition does;
//  - the state: "ready" when the release's readiness rule holds (the caller's `ready`), then kept;
//    "suspended" for a suspended cluster without Pods (v1.1.0 on).
// Not modelled: desired CPU/memory/GPU/TPU, stateTransitionTimes (neither is compared), the
// RayClusterReplicaFailure condition (rjsim's Pod creates do not fail), a headless head Service.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/objects.h"
#include "engine/scenario_behaviour.h"

namespace rjsim::engine {

// GetWorkerGroupDesiredReplicas at the release: replicas held within [minReplicas, maxReplicas];
// v1.0.0 and v1.1.0 take maxReplicas when minReplicas exceeds it; v1.7.0 gives 0 for a suspended
// group and counts numOfHosts.
int desired_worker_replicas(const WorkerGroupSpec& group, RayClusterReadiness release);
// CalculateDesiredReplicas: the cluster's desiredWorkerReplicas, the sum over its groups.
int desired_worker_replicas(const RayCluster& cluster, RayClusterReadiness release);
// How many worker Pods the release's reconcilePods keeps for the group (v1.1.0 on counts numOfHosts).
int expected_worker_pods(const WorkerGroupSpec& group, RayClusterReadiness release);

// The status of `cluster` as its release's calculateStatus makes it at `now_ms`, from the cluster's
// Pods and its head Service. `ready`: whether the release's readiness rule holds for the Pods.
RayClusterStatus calculate_raycluster_status(const RayCluster& cluster, const std::vector<const Pod*>& pods,
                                             const Service& head_service, bool ready, RayClusterReadiness release,
                                             std::int64_t now_ms);

// Whether the release's RayCluster controller writes `new_status` over `old_status`: the fields
// it compares differ (lastUpdateTime and observedGeneration never count).
bool raycluster_status_changed(const RayClusterStatus& old_status, const RayClusterStatus& new_status,
                               RayClusterReadiness release);

// raycluster_status_changed(cluster.status, calculate_raycluster_status(...), release), without
// building the status: what a listing asks of every cluster at every step.
bool raycluster_status_would_change(const RayCluster& cluster, const std::vector<const Pod*>& pods,
                                    const Service& head_service, bool ready, RayClusterReadiness release);

// meta.SetStatusCondition: adds the condition, or updates the one of its type; the transition time
// moves only when the status changes.
void set_status_condition(std::vector<StatusCondition>& conditions, StatusCondition condition, std::int64_t now_ms);

}  // namespace rjsim::engine
