// Invariants over what Suspended promises the user, judged at the step that persists Suspended:
// suspended-only-when-requested, from spec.suspend as the write's sender had read the RayJob
// (PersistedTransition::suspend_read): a controller that acts on what it read is judged by it,
// not by a user edit it could not have seen yet; and suspended-means-released, from the Pods in
// the API server (a deleted Pod runs on until its grace period is over, objects.h).
#include <algorithm>

#include <fmt/format.h>

#include "checks/judgements.h"

namespace rjsim::checks::judgements {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

void suspended_only_when_requested(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (t.to_deployment != "Suspended"sv || t.from_deployment == t.to_deployment || t.suspend_read) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    reporter.report("suspended-only-when-requested", rayjob.ref, t.at.seq,
                    fmt::format("{}: Suspended was persisted at seq {} (from {}) by a write based on a read of the "
                                "RayJob whose spec.suspend was false",
                                rayjob.ref, t.at.seq, show_status(t.from_deployment)));
  }
}

namespace {

// What of the RayJob `pod` belongs to, as a message names it: its submitter Job (the Pod's
// controller is a Job named like the RayJob) or a RayCluster it created (the Pod's
// ray.io/cluster label names one of them); null when neither.
const char* pod_of(const engine::Pod& pod, const RayJobHistory& rayjob) {
  if (pod.metadata.namespace_ != rayjob.namespace_) return nullptr;
  const engine::OwnerReference* owner = engine::controller_owner(pod.metadata);
  if (owner && owner->kind == engine::Kind::Job && owner->name == rayjob.name) return "its submitter Job";
  const auto cluster = pod.metadata.labels->find(engine::kRayClusterLabel);
  if (cluster == pod.metadata.labels->end()) return nullptr;
  const bool created = std::any_of(rayjob.attempts.begin(), rayjob.attempts.end(), [&](const Attempt& attempt) {
    return std::any_of(attempt.clusters.begin(), attempt.clusters.end(),
                       [&](const ClusterCreation& creation) { return creation.name == cluster->second; });
  });
  return created ? "its RayCluster" : nullptr;
}

bool still_running(const engine::Pod& pod) {
  return pod.status.phase == "Running"sv && !engine::containers_stopped(pod);
}

}  // namespace

void suspended_means_released(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (t.to_deployment != "Suspended"sv || t.from_deployment == t.to_deployment) continue;
    const RayJobHistory& rayjob = rayjob_of(view, t);
    for (const engine::Object& object : view.world.api.objects(engine::Kind::Pod)) {
      const auto& pod = std::get<engine::Pod>(object);
      const char* belongs_to = pod_of(pod, rayjob);
      if (!belongs_to || !still_running(pod)) continue;
      reporter.report("suspended-means-released", rayjob.ref, t.at.seq,
                      fmt::format("{}: Suspended was persisted at seq {} while Pod/{}/{} of {} still runs{}", rayjob.ref,
                                  t.at.seq, pod.metadata.namespace_, pod.metadata.name, belongs_to,
                                  pod.metadata.deletion_timestamp_ms ? " (deleted, in its grace period)" : ""));
      break;
    }
  }
}

}  // namespace rjsim::checks::judgements
