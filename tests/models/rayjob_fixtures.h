// The smallest objects the model tests build their worlds from, shared by the tests of every
// model: a RayJob with an owned-cluster spec, its RayCluster in a given State, the head Service,
// and a live Ray head whose job table holds the RayJob's submission id.
#pragma once

#include <string>

#include "engine/objects.h"
#include "engine/ray_state.h"
#include "model_harness.h"

namespace rjsim::testing {

inline engine::RayJob sample_rayjob(const std::string& name = "demo") {
  engine::RayJob rayjob;
  rayjob.metadata.name = name;
  rayjob.metadata.namespace_ = "default";
  rayjob.spec.edit().entrypoint = "python /home/ray/samples/sample_code.py";
  rayjob.spec.edit().shutdown_after_job_finishes = true;
  engine::RayClusterSpec cluster;
  cluster.ray_version = "2.9.0";
  engine::Container head;
  head.name = "ray-head";
  head.image = "rayproject/ray:2.9.0";
  cluster.head_group_spec.template_.containers.push_back(head);
  rayjob.spec.edit().ray_cluster_spec = cluster;
  return rayjob;
}

// The RayCluster named in the RayJob's status, with its spec, in `state`.
inline engine::RayCluster cluster_for(const engine::RayJob& rayjob, const std::string& state) {
  engine::RayCluster cluster;
  cluster.metadata.name = rayjob.status.ray_cluster_name;
  cluster.metadata.namespace_ = "default";
  cluster.spec = *rayjob.spec->ray_cluster_spec;
  cluster.status.edit().state = state;
  return cluster;
}

inline engine::Service head_service_for(const engine::RayCluster& cluster, bool with_dashboard_port = true) {
  engine::Service service;
  service.metadata.name = cluster.metadata.name + "-head-svc";
  service.metadata.namespace_ = "default";
  service.spec.edit().ports.push_back({"gcs", 6379});
  if (with_dashboard_port) service.spec.edit().ports.push_back({"dashboard", 8265});
  return service;
}

// A cluster in `cluster_state` with its head Service (owned by the cluster, which is how the
// dashboard finds the head) and a live Ray head whose table holds `job_status` for the RayJob's
// submission id (nothing when empty), started at 1 s and, when terminal, ended at 9 s.
inline void put_ray_head(ModelHarness& harness, const engine::RayJob& rayjob, const std::string& cluster_state,
                         const std::string& job_status) {
  const engine::RayCluster& cluster = harness.put(cluster_for(rayjob, cluster_state));
  engine::Service service = head_service_for(cluster);
  service.metadata.owner_references.edit().push_back(engine::OwnerReference{
      "ray.io/v1", engine::Kind::RayCluster, cluster.metadata.name, cluster.metadata.uid, true, true});
  harness.put(service);
  engine::RayHead head;
  head.cluster_namespace = "default";
  head.cluster_name = cluster.metadata.name;
  head.cluster_uid = cluster.metadata.uid;
  if (!job_status.empty()) {
    engine::RayJobRecord job;
    job.submission_id = rayjob.status.job_id;
    job.status = job_status;
    job.message = "from Ray";
    job.start_time_ms = 1'000;
    job.end_time_ms = job_status == "RUNNING" || job_status == "PENDING" ? 0 : 9'000;
    head.jobs.push_back(job);
  }
  harness.world.ray.edit().heads.push_back(head);
}

}  // namespace rjsim::testing
