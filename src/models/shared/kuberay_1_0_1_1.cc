#include "models/shared/kuberay_1_0_1_1.h"

#include <algorithm>

#include <fmt/format.h>

namespace rjsim::models::shared {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using namespace rjsim::engine;

std::string generate_rayjob_id(Clients& clients, const std::string& rayjob) {   // UTIL GenerateRayJobId
  return fmt::format("{}-{}", rayjob, clients.runtime.random_string(5));
}

std::string generate_raycluster_name(Clients& clients, const std::string& rayjob) {   // UTIL GenerateRayClusterName
  return fmt::format("{}-raycluster-{}", rayjob, clients.runtime.random_string(5));
}

// GenerateHeadServiceName (UTIL) and FetchHeadServiceURL (DASH:L67-107 at v1.0.0, L63-99 at v1.1.0).
Error fetch_head_service_url(Clients& clients, const RayCluster& cluster, std::string& url) {
  std::string head_service_name = fmt::format("{}-head-svc", cluster.metadata.name);
  if (cluster.spec->head_group_spec.head_service_name && !cluster.spec->head_group_spec.head_service_name->empty()) {
    head_service_name = *cluster.spec->head_group_spec.head_service_name;
  }
  Service head_service;
  if (Error err = clients.kube.get(cluster.metadata.namespace_, head_service_name, head_service)) return err;
  const auto& ports = head_service.spec->ports;
  auto port = std::find_if(ports.begin(), ports.end(), [](const ServicePort& p) { return p.name == "dashboard"sv; });
  if (port == ports.end()) return Error(ErrorCode::other, "dashboard port is not found");
  url = fmt::format("{}.{}.svc.cluster.local:{}", head_service.metadata.name, head_service.metadata.namespace_,
                    port->port);
  return {};
}

bool is_job_terminal(std::string_view status) {
  return status == "STOPPED"sv || status == "SUCCEEDED"sv || status == "FAILED"sv;
}

Error transport_error(const DashboardResponse& response) {
  return Error(response.timed_out ? ErrorCode::timeout : ErrorCode::other, response.text);
}

ReleaseEnvironment legacy_release_environment() {
  ReleaseEnvironment environment;
  environment.queue = QueueBehaviour::legacy;
  environment.fifo = FifoBehaviour::delta_fifo;
  environment.workers_wait_for_handlers = false;
  environment.panic_kills_process = true;
  environment.leader_election_ms = 15'000;
  // Both releases' e2e tests run on kind node v1.23.17, where Job Pods carry no tracking finalizer.
  environment.job_pod_tracking = JobPodTracking::listed_pods;
  return environment;
}

const Watches& rayjob_watches() {
  static const Watches watches{
      .for_kind = Kind::RayJob,
      .owns = {Kind::RayCluster, Kind::Service, Kind::Job},
      .cache_selectors = {{Kind::Job, LabelSelector{"app.kubernetes.io/created-by", {"kuberay-operator"}}}}};
  return watches;
}

}  // namespace rjsim::models::shared
