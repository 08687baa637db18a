#include "models/toy/toy_controller.h"

namespace rjsim::models::toy {

using namespace rjsim::engine;

const Watches& ToyController::watches() const {
  static const Watches watches{.for_kind = Kind::RayJob, .owns = {Kind::RayCluster}, .cache_selectors = {}};
  return watches;
}

ReconcileResult ToyController::reconcile(const Request& request, Clients& clients) {
  RayJob rayjob;
  if (Error err = clients.kube.get(request.namespace_, request.name, rayjob)) {
    if (is_not_found(err)) return ReconcileResult::done();
    return ReconcileResult::error(err);
  }
  const std::string& state = rayjob.status.job_deployment_status;
  if (state.empty()) return reconcile_new(rayjob, clients);
  if (state == "Initializing") return reconcile_initializing(rayjob, clients);
  return ReconcileResult::done();
}

ReconcileResult ToyController::reconcile_new(RayJob& rayjob, Clients& clients) {
  if (!rayjob.metadata.labels->contains(kSeenLabel)) {
    RayJob labelled = rayjob;
    labelled.metadata.labels.edit()[kSeenLabel] = "true";
    if (Error err = clients.kube.update(labelled)) return ReconcileResult::error(err);
    // The bug on purpose: `rayjob` still carries the resourceVersion read before the update.
  }
  rayjob.status.ray_cluster_name = rayjob.metadata.name + "-" + clients.runtime.random_string(5);
  rayjob.status.job_deployment_status = "Initializing";
  if (Error err = clients.kube.update_status(rayjob)) return ReconcileResult::error(err);
  return ReconcileResult::done();
}

ReconcileResult ToyController::reconcile_initializing(RayJob& rayjob, Clients& clients) {
  RayCluster cluster;
  const std::string& cluster_name = rayjob.status.ray_cluster_name;
  Error err = clients.kube.get(rayjob.metadata.namespace_, cluster_name, cluster);
  if (is_not_found(err)) {
    cluster = RayCluster{};
    cluster.metadata.name = cluster_name;
    cluster.metadata.namespace_ = rayjob.metadata.namespace_;
    cluster.metadata.owner_references.edit().push_back(OwnerReference{
        "ray.io/v1", Kind::RayJob, rayjob.metadata.name, rayjob.metadata.uid, true, true});
    if (Error create_err = clients.kube.create(cluster)) return ReconcileResult::error(create_err);
    rayjob.status.message = "cluster created";
    if (Error status_err = clients.kube.update_status(rayjob)) return ReconcileResult::error(status_err);
    return ReconcileResult::requeue_after(3'000);
  }
  if (err) return ReconcileResult::error(err);
  if (cluster.status->state != "ready") return ReconcileResult::requeue_after(3'000);
  rayjob.status.job_deployment_status = "Running";
  if (Error status_err = clients.kube.update_status(rayjob)) return ReconcileResult::error(status_err);
  return ReconcileResult::done();
}

void ToyClusterReadiness::enabled(const World& world, std::vector<ActorWork>& out) const {
  for (const Object& object : world.api.objects(Kind::RayCluster)) {
    const auto& cluster = std::get<RayCluster>(object);
    if (cluster.status->state != "ready" &&
        cluster.metadata.creation_timestamp_ms + ready_after_ms_ <= world.now_ms) {
      out.push_back({"ready", engine::SharedString(object_ref(object)), 0});
    }
  }
}

std::optional<std::int64_t> ToyClusterReadiness::next_timer_ms(const World& world) const {
  std::optional<std::int64_t> next;
  for (const Object& object : world.api.objects(Kind::RayCluster)) {
    const auto& cluster = std::get<RayCluster>(object);
    const std::int64_t at = cluster.metadata.creation_timestamp_ms + ready_after_ms_;
    if (cluster.status->state != "ready" && at > world.now_ms && (!next || at < *next)) next = at;
  }
  return next;
}

void ToyClusterReadiness::apply(const ActorWork& work, StepContext& context) const {
  ObjectRef ref;
  if (!parse_object_ref(work.object.str(), ref)) return;
  LoggedApi api(context, std::string(this->name()));
  api.patch_status(Kind::RayCluster, ref.namespace_, ref.name,
                   [](Object& object) { std::get<RayCluster>(object).status.edit().state = "ready"; });
}

RayJob toy_rayjob(std::string name, std::string namespace_) {
  RayJob rayjob;
  rayjob.metadata.name = std::move(name);
  rayjob.metadata.namespace_ = std::move(namespace_);
  rayjob.spec.edit().entrypoint = "python main.py";
  return rayjob;
}

}  // namespace rjsim::models::toy
