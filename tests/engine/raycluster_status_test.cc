// The RayCluster status as each release's calculateStatus makes it and the comparison that decides
// whether it is written (raycluster_status.h), from hand-made Pods and a head Service.
#include "engine/raycluster_status.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

namespace raycluster_status_test {
namespace {

using rjsim::engine::calculate_raycluster_status;
using rjsim::engine::desired_worker_replicas;
using rjsim::engine::expected_worker_pods;
using rjsim::engine::ContainerStatus;
using rjsim::engine::Pod;
using rjsim::engine::RayCluster;
using rjsim::engine::RayClusterReadiness;
using rjsim::engine::RayClusterStatus;
using rjsim::engine::raycluster_status_changed;
using rjsim::engine::raycluster_status_would_change;
using rjsim::engine::Service;
using rjsim::engine::ServicePort;
using rjsim::engine::set_status_condition;
using rjsim::engine::StatusCondition;
using rjsim::engine::StringMap;
using rjsim::engine::WorkerGroupSpec;

constexpr RayClusterReadiness kV10 = RayClusterReadiness::all_pods_running;
constexpr RayClusterReadiness kV11 = RayClusterReadiness::listed_pods_ready;
constexpr RayClusterReadiness kV17 = RayClusterReadiness::desired_pods_ready;

WorkerGroupSpec group(int replicas, int min, int max, int hosts = 1) {
  WorkerGroupSpec out;
  out.group_name = "small";
  out.replicas = replicas;
  out.min_replicas = min;
  out.max_replicas = max;
  out.num_of_hosts = hosts;
  return out;
}

RayCluster cluster_with(std::vector<WorkerGroupSpec> groups) {
  RayCluster cluster;
  cluster.metadata.name = "demo";
  cluster.metadata.namespace_ = "default";
  cluster.metadata.generation = 3;
  cluster.spec.edit().worker_group_specs = std::move(groups);
  return cluster;
}

Pod pod(std::string name, std::string type, std::string phase, std::optional<bool> ready, std::string ip) {
  Pod out;
  out.metadata.name = std::move(name);
  out.metadata.labels = StringMap{{"ray.io/cluster", "demo"}, {"ray.io/node-type", std::move(type)}};
  out.status.phase = std::move(phase);
  out.status.ready = ready;
  out.status.pod_ip = std::move(ip);
  return out;
}

Service head_service() {
  Service service;
  service.metadata.name = "demo-head-svc";
  service.spec.edit().ports = {ServicePort{"dashboard", 8265}, ServicePort{"", 9999}};
  service.spec.edit().cluster_ip = "10.96.0.1";
  return service;
}

std::vector<const Pod*> pointers(const std::vector<Pod>& pods) {
  std::vector<const Pod*> out;
  for (const Pod& p : pods) out.push_back(&p);
  return out;
}

const StatusCondition* condition(const RayClusterStatus& status, const std::string& type) {
  for (const StatusCondition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("v1.0.0 and v1.1.0: worker counts, endpoints and the head's IPs; no names, no conditions") {
  const RayCluster cluster = cluster_with({group(2, 1, 5, 2)});
  const std::vector<Pod> pods = {pod("demo-head", "head", "Running", true, "10.244.0.1"),
                                 pod("w0", "worker", "Running", false, "10.244.0.2"),
                                 pod("w1", "worker", "Pending", std::nullopt, "")};
  for (RayClusterReadiness release : {kV10, kV11}) {
    const RayClusterStatus status =
        calculate_raycluster_status(cluster, pointers(pods), head_service(), false, release, 5'000);
    CHECK(status.available_worker_replicas == 1);   // Running, ready or not
    CHECK(status.ready_worker_replicas == 0);       // not computed before v1.2
    CHECK(status.desired_worker_replicas == 2);     // numOfHosts not counted before v1.2
    CHECK(status.min_worker_replicas == 1);
    CHECK(status.max_worker_replicas == 5);
    CHECK(status.endpoints == StringMap{{"dashboard", "8265"}});   // an unnamed port is left out
    CHECK(status.head.pod_ip == "10.244.0.1");
    CHECK(status.head.service_ip == "10.96.0.1");
    CHECK(status.head.pod_name.empty());
    CHECK(status.conditions.empty());
    CHECK(status.observed_generation == 3);
    CHECK(status.last_update_time_ms == 5'000);
    CHECK(status.state.empty());
  }
}

TEST_CASE("GetWorkerGroupDesiredReplicas and the worker Pods reconcilePods keeps, per release") {
  // Within [min, max]; v1.1.0 creates numOfHosts Pods a replica but counts replicas; v1.7.0 counts hosts.
  CHECK(desired_worker_replicas(group(2, 1, 5, 2), kV11) == 2);
  CHECK(expected_worker_pods(group(2, 1, 5, 2), kV11) == 4);
  CHECK(desired_worker_replicas(group(2, 1, 5, 2), kV17) == 4);
  CHECK(expected_worker_pods(group(2, 1, 5, 2), kV17) == 4);
  // Held to min and to max.
  for (RayClusterReadiness release : {kV10, kV11, kV17}) {
    CHECK(desired_worker_replicas(group(0, 1, 5), release) == 1);
    CHECK(desired_worker_replicas(group(9, 1, 5), release) == 5);
    WorkerGroupSpec unset = group(0, 3, 5);
    unset.replicas.reset();
    CHECK(desired_worker_replicas(unset, release) == 3);
  }
  // minReplicas above maxReplicas: v1.0.0 and v1.1.0 take max first; v1.7.0 tests replicas < min first.
  CHECK(desired_worker_replicas(group(2, 4, 3), kV10) == 3);
  CHECK(desired_worker_replicas(group(2, 4, 3), kV11) == 3);
  CHECK(desired_worker_replicas(group(2, 4, 3), kV17) == 4);
  // A suspended group wants none at v1.7.0; the field is not read before.
  WorkerGroupSpec suspended = group(2, 0, 5);
  suspended.suspend = true;
  CHECK(desired_worker_replicas(suspended, kV17) == 0);
  CHECK(expected_worker_pods(suspended, kV17) == 0);
  CHECK(desired_worker_replicas(suspended, kV11) == 2);
  // The cluster's: the sum over its groups.
  CHECK(desired_worker_replicas(cluster_with({group(2, 0, 5), group(9, 1, 5, 2)}), kV17) == 12);
}

TEST_CASE("v1.7.0: the ready worker count, the head's names, and per-host min and max clamped to int32") {
  RayCluster cluster = cluster_with({group(1, 1, std::numeric_limits<int>::max()), group(1, 0, std::numeric_limits<int>::max())});
  const std::vector<Pod> pods = {pod("demo-head", "head", "Running", true, "10.244.0.1"),
                                 pod("w0", "worker", "Running", true, "10.244.0.2")};
  const RayClusterStatus status = calculate_raycluster_status(cluster, pointers(pods), head_service(), false, kV17, 0);
  CHECK(status.ready_worker_replicas == 1);
  CHECK(status.head.pod_name == "demo-head");
  CHECK(status.head.service_name == "demo-head-svc");
  CHECK(status.max_worker_replicas == std::numeric_limits<int>::max());   // SafeInt64ToInt32
  // v1.1.0 sums maxReplicas in int32, which wraps.
  CHECK(calculate_raycluster_status(cluster, pointers(pods), head_service(), false, kV11, 0).max_worker_replicas == -2);
  // A suspended group counts for nothing at v1.7.0.
  cluster.spec.edit().worker_group_specs[0].suspend = true;
  const RayClusterStatus without = calculate_raycluster_status(cluster, pointers(pods), head_service(), false, kV17, 0);
  CHECK(without.desired_worker_replicas == 1);
  CHECK(without.min_worker_replicas == 0);
}

TEST_CASE("the state becomes ready when the caller's rule holds and then stays; suspended without Pods from v1.1.0") {
  RayCluster cluster = cluster_with({});
  const std::vector<Pod> none;
  cluster.status = calculate_raycluster_status(cluster, pointers(none), head_service(), true, kV11, 0);
  CHECK(cluster.status->state == "ready");
  CHECK(calculate_raycluster_status(cluster, pointers(none), head_service(), false, kV11, 0).state == "ready");
  cluster.spec.edit().suspend = true;
  CHECK(calculate_raycluster_status(cluster, pointers(none), head_service(), false, kV11, 0).state == "suspended");
  CHECK(calculate_raycluster_status(cluster, pointers(none), head_service(), false, kV10, 0).state == "ready");
}

TEST_CASE("v1.7.0's conditions: HeadPodReady follows the head Pod, RayClusterProvisioned turns True once") {
  RayCluster cluster = cluster_with({group(1, 1, 5)});
  std::vector<Pod> pods = {pod("demo-head", "head", "Pending", std::nullopt, "")};
  cluster.status = calculate_raycluster_status(cluster, pointers(pods), head_service(), false, kV17, 1'500);
  REQUIRE(condition(cluster.status, "HeadPodReady"));
  CHECK(*condition(cluster.status, "HeadPodReady") == StatusCondition{"HeadPodReady", "False", "Unknown", "", 1'000});
  CHECK(condition(cluster.status, "RayClusterProvisioned")->reason == "RayClusterPodsProvisioning");
  CHECK(condition(cluster.status, "RayClusterSuspended")->status == "False");
  CHECK(condition(cluster.status, "RayClusterSuspending")->status == "False");
  std::vector<std::string> order;
  for (const StatusCondition& c : cluster.status->conditions) order.push_back(c.type);
  CHECK(order == std::vector<std::string>{"HeadPodReady", "RayClusterProvisioned", "RayClusterSuspended",
                                          "RayClusterSuspending"});

  pods = {pod("demo-head", "head", "Running", true, "10.244.0.1"), pod("w0", "worker", "Running", true, "10.244.0.2")};
  RayClusterStatus next = calculate_raycluster_status(cluster, pointers(pods), head_service(), true, kV17, 20'000);
  CHECK(*condition(next, "HeadPodReady") == StatusCondition{"HeadPodReady", "True", "HeadPodRunningAndReady", "", 20'000});
  CHECK(condition(next, "RayClusterProvisioned")->status == "True");
  CHECK(condition(next, "RayClusterSuspended")->last_transition_time_ms == 1'000);   // unchanged status, same time
  CHECK(raycluster_status_changed(cluster.status, next, kV17));
  cluster.status = next;

  // The sidecar exits: the head Pod is no longer Ready; the reason is the exited container's.
  pods[0].status.ready = false;
  ContainerStatus sidecar;
  sidecar.name = "ray-job-submitter";
  sidecar.state = "terminated";
  sidecar.reason = "Completed";
  pods[0].status.container_statuses = {sidecar};
  next = calculate_raycluster_status(cluster, pointers(pods), head_service(), false, kV17, 31'000);
  CHECK(*condition(next, "HeadPodReady") ==
        StatusCondition{"HeadPodReady", "False", "Completed", "ray-job-submitter: ", 31'000});
  CHECK(condition(next, "RayClusterProvisioned")->status == "True");   // only the first time
  CHECK(next.state == "ready");
  CHECK(raycluster_status_changed(cluster.status, next, kV17));
  CHECK_FALSE(raycluster_status_changed(cluster.status, next, kV11));   // v1.1.0 compares no conditions
}

TEST_CASE("what each release compares: lastUpdateTime and observedGeneration never count") {
  RayClusterStatus old_status;
  RayClusterStatus new_status = old_status;
  new_status.last_update_time_ms = 9'000;
  new_status.observed_generation = 4;
  for (RayClusterReadiness release : {kV10, kV11, kV17}) CHECK_FALSE(raycluster_status_changed(old_status, new_status, release));
  new_status.ready_worker_replicas = 1;
  CHECK_FALSE(raycluster_status_changed(old_status, new_status, kV11));
  CHECK(raycluster_status_changed(old_status, new_status, kV17));
  new_status = old_status;
  new_status.head.pod_ip = "10.244.0.9";
  for (RayClusterReadiness release : {kV10, kV11, kV17}) CHECK(raycluster_status_changed(old_status, new_status, release));
  new_status = old_status;
  new_status.endpoints["dashboard"] = "8265";
  CHECK(raycluster_status_changed(old_status, new_status, kV10));
}

TEST_CASE("meta.SetStatusCondition: the transition time moves with the status only, in whole seconds") {
  std::vector<StatusCondition> conditions;
  set_status_condition(conditions, {"HeadPodReady", "False", "Unknown", "", 0}, 2'750);
  CHECK(conditions.at(0).last_transition_time_ms == 2'000);
  set_status_condition(conditions, {"HeadPodReady", "False", "ContainersNotReady", "m", 0}, 9'000);
  CHECK(conditions.at(0) == StatusCondition{"HeadPodReady", "False", "ContainersNotReady", "m", 2'000});
  set_status_condition(conditions, {"HeadPodReady", "True", "HeadPodRunningAndReady", "", 0}, 12'400);
  CHECK(conditions.at(0).last_transition_time_ms == 12'000);
  CHECK(conditions.size() == 1);
}

TEST_CASE("raycluster_status_would_change answers as calculating the status and comparing it does") {
  // Every combination of head and worker Pod states, suspension, the readiness rule's answer and
  // a stored status that is blank or the one calculated a moment before.
  struct PodState {
    const char* phase;
    std::optional<bool> ready;
    bool exited_sidecar;
  };
  const std::vector<PodState> states = {{"Pending", std::nullopt, false}, {"Running", false, false},
                                        {"Running", true, false}, {"Running", false, true}};
  int checked = 0;
  for (RayClusterReadiness release : {kV10, kV11, kV17}) {
    for (const PodState& head_state : states) {
      for (int workers = 0; workers <= 2; ++workers) {
        for (bool suspend : {false, true}) {
          for (bool ready : {false, true}) {
            for (bool stored : {false, true}) {
              RayCluster cluster = cluster_with({group(1, 0, 3)});
              if (suspend) cluster.spec.edit().suspend = true;
              std::vector<Pod> pods;
              if (workers < 2) {   // 2: no Pods at all
                Pod head = pod("demo-head", "head", head_state.phase, head_state.ready, "10.244.0.1");
                if (head_state.exited_sidecar) {
                  ContainerStatus sidecar;
                  sidecar.name = "ray-job-submitter";
                  sidecar.state = "terminated";
                  sidecar.reason = "Error";
                  head.status.container_statuses = {sidecar};
                }
                pods.push_back(head);
                if (workers == 1) pods.push_back(pod("w0", "worker", "Running", true, "10.244.0.2"));
              }
              if (stored) {
                // What was written a moment before, with the head not yet running.
                const std::vector<Pod> before = {pod("demo-head", "head", "Pending", std::nullopt, "")};
                cluster.status = calculate_raycluster_status(cluster, pointers(before), head_service(), false, release, 0);
              }
              const bool expected = raycluster_status_changed(
                  cluster.status,
                  calculate_raycluster_status(cluster, pointers(pods), head_service(), ready, release, 7'000), release);
              CAPTURE(checked);
              CHECK(raycluster_status_would_change(cluster, pointers(pods), head_service(), ready, release) == expected);
              ++checked;
            }
          }
        }
      }
    }
  }
  CHECK(checked == 3 * 4 * 3 * 2 * 2 * 2);
}

}  // namespace raycluster_status_test
