// The environment actors of DESIGN §1: the RayCluster controller (head Service, readiness,
// lingering deletion), the Ray dashboard (heads, job tables, endpoints, outages, head restarts;
// kuberay-rayjob §0.4), the batch Job controller and the submitter (kubernetes-semantics §4.2),
// and the user's scenario actions. Each test drives a Simulation whose controller does nothing,
// so that only the environment moves.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/environment_state.h"
#include "engine/garbage_collector.h"
#include "engine/job_controller.h"
#include "engine/kubelet.h"
#include "engine/pod_termination.h"
#include "engine/ray_dashboard.h"
#include "engine/raycluster_controller.h"
#include "engine/scenario.h"
#include "engine/simulation.h"
#include "engine/submitter.h"
#include "engine/user_actions.h"
#include "lambda_controller.h"

namespace rjsim::engine {
namespace environment_test {
namespace {

using events::Event;
using events::MemorySink;
using testing::LambdaController;

constexpr std::string_view kNamespace = "default";
constexpr std::string_view kCluster = "demo-raycluster-abcde";
constexpr std::string_view kUrl = "demo-raycluster-abcde-head-svc.default.svc.cluster.local:8265";

RayCluster make_cluster(std::string_view name = kCluster) {
  RayCluster cluster;
  cluster.metadata.name = std::string(name);
  cluster.metadata.namespace_ = std::string(kNamespace);
  return cluster;
}

// One worker group of `replicas` Pods.
RayCluster make_cluster_with_workers(int replicas) {
  RayCluster cluster = make_cluster();
  WorkerGroupSpec group;
  group.group_name = "small-group";
  group.replicas = replicas;
  cluster.spec.edit().worker_group_specs.push_back(group);
  return cluster;
}

RayJob make_rayjob(std::string_view name = "demo") {
  RayJob rayjob;
  rayjob.metadata.name = std::string(name);
  rayjob.metadata.namespace_ = std::string(kNamespace);
  rayjob.spec.edit().entrypoint = "python main.py";
  return rayjob;
}

// A submitter Job as KubeRay 1.1 builds it (kuberay-rayjob §2.4 Initializing step 5).
Job make_submitter_job(std::string_view submission_id, int backoff_limit = 2) {
  Job job;
  job.metadata.name = "demo";
  job.metadata.namespace_ = std::string(kNamespace);
  job.spec.edit().backoff_limit = backoff_limit;
  job.spec.edit().template_.restart_policy = "Never";
  Container container;
  container.name = "ray-job-submitter";
  container.command = {"ray", "job", "submit", "--address", "http://" + std::string(kUrl),
                       "--submission-id", std::string(submission_id), "--", "python", "main.py"};
  container.env = {{"RAY_DASHBOARD_ADDRESS", std::string(kUrl)},
                   {"RAY_JOB_SUBMISSION_ID", std::string(submission_id)}};
  job.spec.edit().template_.containers.push_back(container);
  return job;
}

// A world with every environment actor and a controller that does nothing.
class Harness {
 public:
  // `stops_deleted_pods` false: no actor stops a deleted Pod's containers, so its grace period
  // never ends (as if the chooser took the longest delay).
  explicit Harness(WorldBehaviour behaviour = {}, std::vector<Action> scenario_actions = {},
                   RayClusterReadiness readiness = RayClusterReadiness::listed_pods_ready,
                   JobPodTracking tracking = JobPodTracking::listed_pods, bool stops_deleted_pods = true)
      : actions(std::move(scenario_actions)),
        ray(behaviour.dashboard, behaviour.ray, behaviour.ray_cluster.head_ready_ms()),
        clusters(behaviour.ray_cluster, readiness),
        kubelet(behaviour.ray_cluster),
        jobs(tracking),
        submitter(behaviour.submitter, &ray),
        user(actions, &ray),
        pod_termination(behaviour.pods.termination_grace_period_ms),
        controller([](const Request&, Clients&) { return ReconcileResult::done(); }),
        chooser(1),
        sim(Simulation::initial_world(controller), controller, actors(stops_deleted_pods), chooser, sink) {
    sim.set_dashboard(&ray);
    sim.mutable_world().api.set_pod_termination_grace_period_seconds(behaviour.pods.termination_grace_period_ms / 1000);
  }

  std::vector<const Actor*> actors(bool stops_deleted_pods) const {
    std::vector<const Actor*> all{&user, &clusters, &jobs, &kubelet, &submitter, &ray, &gc};
    if (stops_deleted_pods) all.push_back(&pod_termination);
    return all;
  }

  const World& world() const { return sim.world(); }
  std::int64_t now() const { return sim.world().now_ms; }

  void create(Object object) {
    sim.run_as_step([&](StepContext& context) { LoggedApi(context, "user").create(object); });
  }
  void set_job_id(std::string_view rayjob, std::string job_id, std::string cluster = std::string(kCluster)) {
    sim.run_as_step([&](StepContext& context) {
      LoggedApi(context, "user").patch_status(Kind::RayJob, kNamespace, rayjob, [&](Object& object) {
        std::get<RayJob>(object).status.job_id = job_id;
        std::get<RayJob>(object).status.ray_cluster_name = cluster;
      });
    });
  }
  void remove(Kind kind, std::string_view name, Propagation propagation = Propagation::background) {
    sim.run_as_step([&](StepContext& context) {
      LoggedApi(context, "user").remove(kind, kNamespace, name, propagation);
    });
  }
  const Pod* pod(std::string_view name) const { return world().api.find<Pod>(kNamespace, name); }

  // Runs every step due up to `t_ms`, then sets the clock to `t_ms` (nothing is due between).
  void run_until(std::int64_t t_ms) {
    for (int steps = 0;; ++steps) {
      REQUIRE(steps < 100'000);
      const std::vector<Step> enabled = sim.enabled_steps();
      if (enabled.empty()) break;
      if (enabled.front().kind == StepKind::clock && enabled.front().clock_to_ms > t_ms) break;
      sim.step();
    }
    if (sim.world().now_ms < t_ms) sim.mutable_world().now_ms = t_ms;
  }

  DashboardResponse call(const std::function<DashboardResponse(StepContext&)>& endpoint) {
    DashboardResponse response;
    sim.run_as_step([&](StepContext& context) { response = endpoint(context); });
    return response;
  }
  DashboardResponse get(std::string_view id, DashboardCaller caller = DashboardCaller::controller) {
    return call([&](StepContext& c) { return ray.get_job_info(c, caller, kUrl, id); });
  }
  DashboardResponse submit(std::string_view id, DashboardCaller caller = DashboardCaller::controller) {
    SubmitJobRequest request;
    request.entrypoint = "python main.py";
    request.submission_id = std::string(id);
    return call([&](StepContext& c) { return ray.submit_job(c, caller, kUrl, request); });
  }
  DashboardResponse stop(std::string_view id) {
    return call([&](StepContext& c) { return ray.stop_job(c, DashboardCaller::controller, kUrl, id); });
  }
  DashboardResponse remove_job(std::string_view id) {
    return call([&](StepContext& c) { return ray.delete_job(c, DashboardCaller::controller, kUrl, id); });
  }

  // A ready cluster with its head, at `ready_ms`.
  void ready_cluster(std::int64_t ready_ms) {
    create(make_cluster());
    run_until(ready_ms);
    REQUIRE(world().ray->heads.size() == 1);
  }

  std::vector<const Event*> events(std::string_view type) const {
    std::vector<const Event*> found;
    for (const Event& event : sink.events) {
      if (event.type == type) found.push_back(&event);
    }
    return found;
  }

  const RayCluster* cluster() const { return world().api.find<RayCluster>(kNamespace, kCluster); }
  const Job* job() const { return world().api.find<Job>(kNamespace, "demo"); }
  std::vector<const Pod*> pods() const {
    const Job* submitter_job = job();
    REQUIRE(submitter_job != nullptr);
    return pods_of_job(world().api, kNamespace, submitter_job->metadata.uid);
  }

  std::vector<Action> actions;   // the user's, which it reads in place
  RayDashboard ray;
  RayClusterController clusters;
  Kubelet kubelet;
  JobController jobs;
  Submitter submitter;
  GarbageCollector gc;
  UserActions user;
  PodTermination pod_termination;
  LambdaController controller;
  DefaultChooser chooser;
  MemorySink sink;
  Simulation sim;
};

std::string text_field(const Event& event, std::string_view key) {
  const events::Value* value = event.find(key);
  REQUIRE(value != nullptr);
  return std::get<std::string>(*value);
}

std::int64_t int_field(const Event& event, std::string_view key) {
  const events::Value* value = event.find(key);
  REQUIRE(value != nullptr);
  return std::get<std::int64_t>(*value);
}

WorldBehaviour ready_at_once() {
  WorldBehaviour behaviour;
  behaviour.ray_cluster.ready_after_ms = 0;
  return behaviour;
}

// ---- the RayCluster controller ----

TEST_CASE("a RayCluster gets its head Service with a dashboard port, owned by the cluster") {
  Harness h;
  h.create(make_cluster());
  h.run_until(0);
  const Service* service = h.world().api.find<Service>(kNamespace, "demo-raycluster-abcde-head-svc");
  REQUIRE(service != nullptr);
  REQUIRE(service->spec->ports.size() == 1);
  CHECK(service->spec->ports[0] == ServicePort{"dashboard", 8265});
  const OwnerReference* owner = controller_owner(service->metadata);
  REQUIRE(owner != nullptr);
  CHECK(owner->kind == Kind::RayCluster);
  CHECK(owner->uid == h.cluster()->metadata.uid);
}

TEST_CASE("headServiceName overrides the head Service name") {
  Harness h;
  RayCluster cluster = make_cluster();
  cluster.spec.edit().head_group_spec.head_service_name = "custom-head";
  h.create(cluster);
  h.run_until(0);
  CHECK(h.world().api.find<Service>(kNamespace, "custom-head") != nullptr);
  CHECK(h.world().api.find<Service>(kNamespace, "demo-raycluster-abcde-head-svc") == nullptr);
}

TEST_CASE("a RayCluster's State becomes ready exactly readyAfter after its creation, in one write") {
  WorldBehaviour behaviour;
  behaviour.ray_cluster.ready_after_ms = 20'000;
  Harness h(behaviour);
  h.create(make_cluster());
  h.run_until(19'999);
  CHECK(h.cluster()->status->state == "");
  h.run_until(20'000);
  CHECK(h.cluster()->status->state == "ready");
  // The status is written when what KubeRay's calculateStatus compares changes: at creation (the
  // replica counts, the head Service), and once at 20 s, when the Pods run and the state is ready.
  std::vector<const Event*> writes = h.events("api.patch_status");
  std::erase_if(writes, [](const Event* write) { return write->actor != "raycluster-controller"; });
  REQUIRE(writes.size() == 2);
  CHECK(writes[0]->at_ms == 0);
  CHECK(writes[1]->at_ms == 20'000);
}

TEST_CASE("the RayCluster's status carries the head Pod's IP and the head Service's, as the API assigned them") {
  Harness h(ready_at_once());
  h.create(make_cluster());
  h.run_until(0);
  const Service* service = h.world().api.find<Service>(kNamespace, "demo-raycluster-abcde-head-svc");
  REQUIRE(service != nullptr);
  CHECK(service->spec->cluster_ip.starts_with("10.96."));
  const Pod* head = h.world().api.find<Pod>(kNamespace, "demo-raycluster-abcde-head");
  REQUIRE(head != nullptr);
  CHECK(head->status.pod_ip.starts_with("10.244."));
  CHECK(h.cluster()->status->head.pod_ip == head->status.pod_ip);
  CHECK(h.cluster()->status->head.service_ip == service->spec->cluster_ip);
  CHECK(h.cluster()->status->endpoints.at("dashboard") == "8265");
}

// Pods: the head Running at 6 s and Ready at 10 s, the workers Running and Ready at 20 s.
WorldBehaviour pods_come_up_in_stages() {
  WorldBehaviour behaviour;
  behaviour.ray_cluster.ready_after_ms = 20'000;
  behaviour.ray_cluster.head_ready_after_ms = 10'000;
  behaviour.ray_cluster.running_before_ready_ms = 4'000;
  return behaviour;
}

TEST_CASE("v1.0.0's readiness rule: ready once the listed Pods run, before the head serves") {
  Harness h(pods_come_up_in_stages(), {}, RayClusterReadiness::all_pods_running);
  h.create(make_cluster());
  h.run_until(5'999);
  CHECK(h.cluster()->status->state == "");
  h.run_until(6'000);
  CHECK(h.cluster()->status->state == "ready");
  CHECK_FALSE(h.get("nothing").connected);   // the head Pod is not Ready: no dashboard yet
  h.run_until(9'999);
  CHECK(h.world().ray->heads.empty());
  h.run_until(10'000);
  REQUIRE(h.world().ray->heads.size() == 1);
  CHECK(h.get("nothing").status == 404);
}

TEST_CASE("v1.1.0's readiness rule: ready when the head Pod is Ready, before worker Pods exist") {
  Harness h(pods_come_up_in_stages(), {}, RayClusterReadiness::listed_pods_ready);
  h.create(make_cluster());
  h.run_until(9'999);
  CHECK(h.cluster()->status->state == "");
  h.run_until(10'000);
  CHECK(h.cluster()->status->state == "ready");
  CHECK(h.world().ray->heads.size() == 1);
}

TEST_CASE("v1.7.0's readiness rule: ready only when every desired Pod is Running and Ready") {
  Harness h(pods_come_up_in_stages(), {}, RayClusterReadiness::desired_pods_ready);
  h.create(make_cluster_with_workers(2));
  h.run_until(19'999);
  CHECK(h.cluster()->status->state == "");
  h.run_until(20'000);
  CHECK(h.cluster()->status->state == "ready");
}

TEST_CASE("v1.7.0 keeps replicas within maxReplicas, numOfHosts Pods each, and is ready when those are") {
  Harness h(pods_come_up_in_stages(), {}, RayClusterReadiness::desired_pods_ready);
  RayCluster cluster = make_cluster_with_workers(5);
  cluster.spec.edit().worker_group_specs[0].max_replicas = 2;
  cluster.spec.edit().worker_group_specs[0].num_of_hosts = 2;
  h.create(cluster);
  h.run_until(20'000);
  CHECK(h.world().api.objects(Kind::Pod).size() == 1 + 2 * 2);   // GetWorkerGroupDesiredReplicas, not replicas
  CHECK(h.cluster()->status->desired_worker_replicas == 4);
  CHECK(h.cluster()->status->state == "ready");
}

TEST_CASE("deletionTakes keeps a deleted RayCluster for that long, then its head is lost") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.ray_cluster.deletion_takes_ms = 30'000;
  Harness h(behaviour);
  h.create(make_cluster());
  h.run_until(0);
  CHECK(has_finalizer(h.cluster()->metadata, kLingeringDeletionFinalizer));
  h.run_until(5'000);
  h.remove(Kind::RayCluster, kCluster);
  h.run_until(34'999);
  REQUIRE(h.cluster() != nullptr);
  CHECK(h.cluster()->metadata.deletion_timestamp_ms == 5'000);
  CHECK_FALSE(h.world().ray->heads[0]->table_lost);
  h.run_until(35'000);
  CHECK(h.cluster() == nullptr);
  CHECK(h.world().ray->heads[0]->table_lost);
  CHECK(h.events("ray.head_lost").size() == 1);
  // The garbage collector takes the head Service once its owner is gone.
  CHECK(h.world().api.objects(Kind::Service).empty());
}

TEST_CASE("a deleted cluster's Pods stop gracefully, all in one kubelet step, and its head serves until its Pod "
          "is gone") {
  Harness h(ready_at_once());   // a 30 s grace period
  h.create(make_cluster_with_workers(2));
  h.run_until(1'000);
  REQUIRE(h.world().ray->heads.size() == 1);
  REQUIRE(h.world().api.objects(Kind::Pod).size() == 3);
  h.remove(Kind::RayCluster, kCluster);
  std::size_t graceful = 0;
  for (int steps = 0; !h.world().api.objects(Kind::Pod).empty(); ++steps) {
    REQUIRE(steps < 100);
    for (const Object& object : h.world().api.objects(Kind::Pod)) {
      const ObjectMeta& m = meta(object);
      if (m.deletion_timestamp_ms) {
        CHECK(m.deletion_grace_period_seconds == 30);
        ++graceful;
      }
    }
    // While the head Pod runs (deleted or not), the head keeps its table.
    CHECK_FALSE(h.world().ray->heads[0]->table_lost);
    REQUIRE(h.sim.step());
  }
  CHECK(graceful > 0);
  h.run_until(2'000);
  CHECK(h.world().ray->heads[0]->table_lost);
  // The kubelet's grace-0 deletes: one step, one delete per Pod.
  std::vector<const Event*> stops;
  for (const Event& event : h.sink.events) {
    if (event.actor == "kubelet" && event.type == "api.delete") stops.push_back(&event);
  }
  REQUIRE(stops.size() == 3);
  CHECK(stops.back()->seq - stops.front()->seq == 2);   // one after another: one step
}

// ---- the Ray dashboard ----

TEST_CASE("a head comes up when its cluster is ready, and the dashboard answers through the URL") {
  Harness h;   // readyAfter 20 s
  h.create(make_cluster());
  h.run_until(19'999);
  CHECK(h.world().ray->heads.empty());
  const DashboardResponse before = h.get("nothing");
  CHECK_FALSE(before.connected);
  CHECK(before.text.find("connection refused") != std::string::npos);

  h.run_until(20'000);
  REQUIRE(h.world().ray->heads.size() == 1);
  CHECK(h.world().ray->heads[0]->incarnation == 1);
  CHECK(h.world().ray->heads[0]->cluster_uid == h.cluster()->metadata.uid);
  const auto up = h.events("ray.head_up");
  REQUIRE(up.size() == 1);
  CHECK(up[0]->at_ms == 20'000);
  CHECK(up[0]->object == "RayCluster/default/demo-raycluster-abcde");

  const DashboardResponse after = h.get("nothing");
  CHECK(after.connected);
  CHECK(after.status == 404);
}

TEST_CASE("GET of an unknown id answers 404 with a plain-text body") {
  Harness h(ready_at_once());
  h.ready_cluster(0);
  const DashboardResponse response = h.get("demo-xyz");
  CHECK(response.connected);
  CHECK(response.status == 404);
  CHECK_FALSE(response.json);
  CHECK(response.text == "Job demo-xyz does not exist");
  const auto calls = h.events("dashboard.get_job_info");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]->actor == "dashboard");
  CHECK(calls[0]->object == "RayCluster/default/demo-raycluster-abcde");
  CHECK(text_field(*calls[0], "outcome") == "not_found");
  CHECK(int_field(*calls[0], "status") == 404);
  CHECK(int_field(*calls[0], "incarnation") == 1);
}

TEST_CASE("a duplicate submission id answers 500 text and adds no second job") {
  Harness h(ready_at_once());
  h.ready_cluster(0);
  const DashboardResponse first = h.submit("demo-xyz");
  CHECK(first.status == 200);
  CHECK(first.submission_id == "demo-xyz");
  const DashboardResponse second = h.submit("demo-xyz", DashboardCaller::submitter);
  CHECK(second.connected);
  CHECK(second.status == 500);
  CHECK_FALSE(second.json);
  CHECK(second.text.find("Please use a different submission_id") != std::string::npos);
  CHECK(h.world().ray->heads[0]->jobs.size() == 1);
  const auto calls = h.events("dashboard.submit_job");
  REQUIRE(calls.size() == 2);
  CHECK(text_field(*calls[1], "outcome") == "duplicate");
  CHECK(text_field(*calls[1], "caller") == "submitter");
}

TEST_CASE("a Ray job is PENDING, RUNNING after pendingFor, and ends runsFor later") {
  Harness h;   // pendingFor 2 s, runsFor 30 s, SUCCEEDED
  h.ready_cluster(20'000);
  h.submit("demo-xyz");
  CHECK(h.get("demo-xyz").info.job_status == "PENDING");
  h.run_until(21'999);
  CHECK(h.get("demo-xyz").info.job_status == "PENDING");
  h.run_until(22'000);
  DashboardResponse running = h.get("demo-xyz");
  CHECK(running.info.job_status == "RUNNING");
  CHECK(running.info.start_time_ms == 22'000);
  h.run_until(51'999);
  CHECK(h.get("demo-xyz").info.job_status == "RUNNING");
  h.run_until(52'000);
  const DashboardResponse done = h.get("demo-xyz");
  CHECK(done.info.job_status == "SUCCEEDED");
  CHECK(done.info.end_time_ms == 52'000);
  const auto changes = h.events("ray.job_status");
  REQUIRE(changes.size() == 2);
  CHECK(changes[0]->at_ms == 22'000);
  CHECK(text_field(*changes[0], "to") == "RUNNING");
  CHECK(changes[1]->at_ms == 52'000);
  CHECK(text_field(*changes[1], "from") == "RUNNING");
  CHECK(text_field(*changes[1], "to") == "SUCCEEDED");
  CHECK(int_field(*changes[1], "incarnation") == 1);
}

TEST_CASE("successive submissions of a RayJob take successive results, the last repeating") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.ray.results = {"FAILED", "STOPPED", "SUCCEEDED"};
  Harness h(behaviour);
  h.create(make_rayjob());
  h.ready_cluster(0);
  for (std::string id : {"demo-a", "demo-b", "demo-c", "demo-d"}) {
    h.set_job_id("demo", id);
    h.submit(id);
  }
  h.submit("other");   // no RayJob has this id: counted by the id itself, so it is first
  h.run_until(40'000);
  std::vector<std::string> statuses;
  for (const RayJobRecord& job : h.world().ray->heads[0]->jobs) statuses.push_back(job.status);
  CHECK(statuses == std::vector<std::string>{"FAILED", "STOPPED", "SUCCEEDED", "SUCCEEDED", "FAILED"});
}

TEST_CASE("stopping a running Ray job makes it STOPPED; a terminal one is not stopped again") {
  Harness h(ready_at_once());
  h.ready_cluster(0);
  h.submit("demo-xyz");
  h.run_until(5'000);
  const DashboardResponse stopped = h.stop("demo-xyz");
  CHECK(stopped.status == 200);
  CHECK(stopped.stopped);
  const DashboardResponse info = h.get("demo-xyz");
  CHECK(info.info.job_status == "STOPPED");
  CHECK(info.info.end_time_ms == 5'000);
  CHECK_FALSE(h.stop("demo-xyz").stopped);
  CHECK(h.stop("unknown").status == 404);
  h.run_until(60'000);
  CHECK(h.get("demo-xyz").info.job_status == "STOPPED");   // no later change
}

TEST_CASE("deleting a Ray job needs a terminal status; the record stays in the history") {
  Harness h(ready_at_once());
  h.ready_cluster(0);
  h.submit("demo-xyz");
  const DashboardResponse early = h.remove_job("demo-xyz");
  CHECK(early.status == 400);
  CHECK_FALSE(early.json);
  h.run_until(40'000);
  CHECK(h.remove_job("demo-xyz").status == 200);
  CHECK(h.get("demo-xyz").status == 404);
  CHECK(h.remove_job("demo-xyz").status == 404);
  REQUIRE(h.world().ray->heads[0]->jobs.size() == 1);
  CHECK(h.world().ray->heads[0]->jobs[0].status == "SUCCEEDED");
  CHECK(h.submit("demo-xyz").status == 200);   // the id is free again
}

TEST_CASE("a head restart loses the job table, but the history keeps the lost table") {
  Harness h(ready_at_once());
  h.ready_cluster(0);
  h.submit("demo-xyz");
  h.run_until(5'000);
  h.sim.run_as_step([&](StepContext& c) { h.ray.restart_head(c, kNamespace, kCluster); });
  const DashboardResponse lost = h.get("demo-xyz");
  CHECK(lost.status == 404);
  const std::vector<CopyOnWrite<RayHead>>& heads = h.world().ray->heads;
  REQUIRE(heads.size() == 2);
  CHECK(heads[0]->table_lost);
  REQUIRE(heads[0]->jobs.size() == 1);
  CHECK(heads[0]->jobs[0].status == "RUNNING");
  CHECK_FALSE(heads[1]->table_lost);
  CHECK(heads[1]->incarnation == 2);
  CHECK(heads[1]->jobs.empty());
  const auto restarts = h.events("ray.head_restart");
  REQUIRE(restarts.size() == 1);
  CHECK(int_field(*restarts[0], "incarnation") == 2);
  h.run_until(60'000);
  CHECK(h.world().ray->heads[0]->jobs[0].status == "RUNNING");   // a lost table never moves on
  CHECK(h.submit("demo-xyz").status == 200);                     // the new table does not know it
}

TEST_CASE("a dashboard outage fails the controller's calls only") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.dashboard.outages = {Outage{10'000, 5'000}};
  Harness h(behaviour);
  h.ready_cluster(0);
  h.submit("demo-xyz");
  h.run_until(9'999);
  CHECK(h.get("demo-xyz").connected);
  h.run_until(10'000);
  const DashboardResponse refused = h.get("demo-xyz");
  CHECK_FALSE(refused.connected);
  CHECK(h.get("demo-xyz", DashboardCaller::submitter).connected);
  CHECK_FALSE(h.submit("demo-other").connected);
  h.run_until(15'000);
  CHECK(h.get("demo-xyz").connected);
  const auto calls = h.events("dashboard.get_job_info");
  REQUIRE(calls.size() == 4);
  CHECK(text_field(*calls[1], "outcome") == "outage");
  CHECK(int_field(*calls[1], "status") == 0);
  CHECK(text_field(*calls[2], "outcome") == "ok");
}

TEST_CASE("the controller's dashboard client reaches the same Ray side") {
  WorldBehaviour behaviour = ready_at_once();
  RayDashboard ray(behaviour.dashboard, behaviour.ray);
  RayClusterController clusters(behaviour.ray_cluster, RayClusterReadiness::listed_pods_ready);
  Kubelet kubelet(behaviour.ray_cluster);
  DashboardResponse seen;
  LambdaController controller([&](const Request&, Clients& clients) {
    seen = clients.dashboard.get_job_info(kUrl, "demo-xyz");
    return ReconcileResult::done();
  });
  DefaultChooser chooser(1);
  MemorySink sink;
  Simulation sim(Simulation::initial_world(controller), controller, {&clusters, &kubelet, &ray}, chooser, sink);
  sim.set_dashboard(&ray);
  sim.run_as_step([](StepContext& c) {
    Object cluster = make_cluster();
    LoggedApi(c, "user").create(cluster);
  });
  sim.run();
  sim.run_as_step([](StepContext& c) {
    Object rayjob = make_rayjob();
    LoggedApi(c, "user").create(rayjob);
  });
  sim.run();
  CHECK(seen.connected);
  CHECK(seen.status == 404);
  CHECK(seen.text == "Job demo-xyz does not exist");
}

// ---- the Job controller and the submitter ----

TEST_CASE("the submitter command gives the address, the submission id and the entrypoint") {
  SubmitCommand command;
  REQUIRE(parse_submit_command(make_submitter_job("demo-xyz").spec->template_.containers[0], command));
  CHECK(command.dashboard_url == kUrl);
  CHECK(command.submission_id == "demo-xyz");
  CHECK(command.entrypoint == "python main.py");

  Container script;
  script.command = {"/bin/sh", "-c"};
  script.args = {"ray job submit --address=http://svc.ns.svc.cluster.local:8265 -- python 'a b.py'"};
  script.env = {{"RAY_JOB_SUBMISSION_ID", "from-env"}};
  REQUIRE(parse_submit_command(script, command));
  CHECK(command.dashboard_url == "svc.ns.svc.cluster.local:8265");
  CHECK(command.submission_id == "from-env");
  CHECK(command.entrypoint == "python a b.py");

  CHECK_FALSE(parse_submit_command(Container{}, command));
}

TEST_CASE("the submitter splits a script's words as the shell does: quotes, backslashes, blanks and \";\"") {
  const auto entrypoint_of = [](std::string script) {
    Container container;
    container.command = {"/bin/bash", "-ce", "--"};
    container.args = {"ray job submit --address http://h:8265 --submission-id s1 -- " + std::move(script)};
    SubmitCommand command;
    REQUIRE(parse_submit_command(container, command));
    return command.entrypoint;
  };
  CHECK(entrypoint_of("python  main.py\targ") == "python main.py arg");
  CHECK(entrypoint_of("python -c 'print(\"a;b\")' x") == "python -c print(\"a;b\") x");
  CHECK(entrypoint_of("python -c \"x=\\\"q\\\" 'y' \\$z\"") == "python -c x=\"q\" 'y' $z");
  CHECK(entrypoint_of("a\\ b c") == "a b c");            // an escaped blank joins: one word "a b"
  CHECK(entrypoint_of("a''b \"\" c") == "ab  c");        // an empty quoted word is a word
  CHECK(entrypoint_of("one; two") == "one");                 // the entrypoint stops at ";"
  CHECK(entrypoint_of("tail\\") == "tail\\");             // a backslash that ends the text stays
  CHECK(entrypoint_of("'unclosed quote") == "unclosed quote");
  CHECK(entrypoint_of("'single \\ keeps' x") == "single \\ keeps x");
}

TEST_CASE("a submitter Job runs a pod that submits, succeeds with the Ray job, and completes the Job") {
  Harness h(ready_at_once());   // startAfter 2 s, pendingFor 2 s, runsFor 30 s
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz"));
  h.run_until(0);
  auto pods = h.pods();
  REQUIRE(pods.size() == 1);
  const Pod& pod = *pods[0];
  CHECK(pod.metadata.name.starts_with("demo-"));
  CHECK(pod.metadata.name.size() == 10);
  CHECK(pod.metadata.labels->at("job-name") == "demo");
  CHECK(controller_owner(pod.metadata)->uid == h.job()->metadata.uid);
  CHECK(pod.spec->containers == h.job()->spec->template_.containers);
  CHECK(h.job()->status.active == 1);
  CHECK(h.job()->status.start_time_ms == 0);

  h.run_until(1'999);
  CHECK(h.pods()[0]->status.phase.empty());
  h.run_until(2'000);
  CHECK(h.pods()[0]->status.phase == "Running");
  REQUIRE(h.world().ray->heads[0]->jobs.size() == 1);
  const RayJobRecord& job = h.world().ray->heads[0]->jobs[0];
  CHECK(job.submission_id == "demo-xyz");
  CHECK(job.submitted_at_ms == 2'000);
  CHECK(job.submitted_by == "submitter/" + h.pods()[0]->metadata.name);

  h.run_until(33'999);
  CHECK(h.pods()[0]->status.phase == "Running");
  CHECK_FALSE(has_true_condition(*h.job(), "Complete"));
  h.run_until(34'000);
  CHECK(h.pods()[0]->status.phase == "Succeeded");
  CHECK(h.pods()[0]->status.container_statuses[0].exit_code == 0);
  const Job& finished = *h.job();
  REQUIRE(finished.status.conditions.size() == 2);
  CHECK(finished.status.conditions[0].type == "SuccessCriteriaMet");
  CHECK(finished.status.conditions[1].type == "Complete");
  CHECK(finished.status.conditions[1].status == "True");
  CHECK(finished.status.conditions[1].last_transition_time_ms == 34'000);
  CHECK(finished.status.succeeded == 1);
  CHECK(finished.status.active == 0);
  // Two writes, two watch events: the first with only SuccessCriteriaMet.
  const auto& log = h.world().api.watch_log(Kind::Job);
  REQUIRE(log.size() >= 2);
  CHECK(std::get<Job>(*log[log.size() - 2].object).status.conditions.size() == 1);
}

TEST_CASE("each submitter Pod submits what its own template says, the same template as the last or another") {
  // A second Job from another template must not submit the first's id, and a third from the
  // first's template must (the dashboard then refuses the duplicate).
  Harness h(ready_at_once());
  h.ready_cluster(0);
  const auto submit_from = [&](std::string_view job_name, std::string_view submission_id) {
    Job job = make_submitter_job(submission_id);
    job.metadata.name = std::string(job_name);
    h.create(job);
    h.run_until(h.world().now_ms + 2'000);   // startAfter 2 s
  };
  submit_from("demo", "first-id");
  submit_from("demo-2", "second-id");
  submit_from("demo-3", "first-id");   // a duplicate: the dashboard refuses it and keeps one job
  std::vector<std::string> submitted;
  for (const RayJobRecord& job : h.world().ray->heads[0]->jobs) submitted.push_back(job.submission_id);
  CHECK(submitted == std::vector<std::string>{"first-id", "second-id"});
  const auto submits = h.events("dashboard.submit_job");
  REQUIRE(submits.size() == 3);
  CHECK(text_field(*submits[1], "submission_id") == "second-id");
  CHECK(text_field(*submits[2], "submission_id") == "first-id");
  CHECK(text_field(*submits[2], "outcome") == "duplicate");
}

TEST_CASE("two failing attempts back off 10 s then 20 s, and the third succeeds") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.submitter.fail_attempts = 2;
  Harness h(behaviour);
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz", 2));
  h.run_until(200'000);
  const auto pods = h.pods();
  REQUIRE(pods.size() == 3);
  CHECK(pods[0]->metadata.creation_timestamp_ms == 0);
  CHECK(pods[0]->status.phase == "Failed");
  CHECK(pods[0]->status.container_statuses[0].finished_at_ms == 2'000);
  CHECK(pods[1]->metadata.creation_timestamp_ms == 12'000);   // 2 s + 10 s
  CHECK(pods[1]->status.phase == "Failed");
  CHECK(pods[2]->metadata.creation_timestamp_ms == 34'000);   // 14 s + 20 s
  CHECK(pods[2]->status.phase == "Succeeded");
  CHECK(h.world().ray->heads[0]->jobs.size() == 1);             // failing attempts never submitted
  CHECK(has_true_condition(*h.job(), "Complete"));
  CHECK(h.job()->status.failed == 2);
}

TEST_CASE("attempts beyond backoffLimit fail the Job: FailureTarget, then Failed BackoffLimitExceeded") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.submitter.fail_attempts = 3;
  Harness h(behaviour);
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz", 2));
  h.run_until(200'000);
  CHECK(h.pods().size() == 3);
  const Job& job = *h.job();
  REQUIRE(job.status.conditions.size() == 2);
  CHECK(job.status.conditions[0].type == "FailureTarget");
  CHECK(job.status.conditions[1].type == "Failed");
  CHECK(job.status.conditions[1].reason == "BackoffLimitExceeded");
  CHECK(job.status.conditions[1].last_transition_time_ms == 36'000);
  CHECK(job.status.failed == 3);
  CHECK(h.world().ray->heads[0]->jobs.empty());
}

// ---- the job-tracking finalizer (Kubernetes >= 1.26, kuberay-1.7's JobPodTracking) ----

TEST_CASE("job tracking: a submitter Pod holds the finalizer until the Job controller counts it, just before Complete") {
  Harness h(ready_at_once(), {}, RayClusterReadiness::listed_pods_ready, JobPodTracking::finalizers);
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz"));
  h.run_until(0);
  REQUIRE(h.pods().size() == 1);
  const std::string name = h.pods()[0]->metadata.name;
  CHECK(h.pod(name)->metadata.finalizers == std::vector<std::string>{std::string(kJobTrackingFinalizer)});
  h.run_until(33'999);
  CHECK(h.pod(name)->metadata.finalizers->size() == 1);   // running: not counted yet
  h.run_until(34'000);
  CHECK(h.pod(name)->status.phase == "Succeeded");
  CHECK(h.pod(name)->metadata.finalizers->empty());
  CHECK(has_true_condition(*h.job(), "Complete"));
  CHECK(h.job()->status.succeeded == 1);
  // The finalizer goes in the step that counts the Pod, before the Job's status writes.
  std::vector<std::string> writes;
  for (const Event& event : h.sink.events) {
    if (event.actor == "job-controller" && event.at_ms == 34'000) writes.push_back(event.type + " " + event.object);
  }
  CHECK(writes == std::vector<std::string>{"api.patch Pod/default/" + name, "api.patch_status Job/default/demo",
                                           "api.patch_status Job/default/demo"});
}

TEST_CASE("job tracking: a Pod deleted while it runs is counted failed and replaced; without it, forgotten") {
  for (const JobPodTracking tracking : {JobPodTracking::finalizers, JobPodTracking::listed_pods}) {
    CAPTURE(static_cast<int>(tracking));
    Harness h(ready_at_once(), {}, RayClusterReadiness::listed_pods_ready, tracking);
    h.ready_cluster(0);
    h.create(make_submitter_job("demo-xyz"));
    h.run_until(5'000);
    const std::string first = h.pods().at(0)->metadata.name;
    h.remove(Kind::Pod, first);
    h.run_until(5'000);
    CHECK(h.pod(first) == nullptr);   // stopped, counted, gone
    if (tracking == JobPodTracking::finalizers) {
      CHECK(h.job()->status.failed == 1);
      CHECK(h.pods().empty());         // the replacement waits for the 10 s failure backoff
      h.run_until(14'999);
      CHECK(h.pods().empty());
      h.run_until(15'000);
      CHECK(h.pods().size() == 1);
    } else {
      CHECK(h.job()->status.failed == 0);
      CHECK(h.pods().size() == 1);     // replaced at once: nothing failed as far as it counts
    }
  }
}

TEST_CASE("job tracking: the Pods of a deleted Job lose the finalizer, orphaned or deleted, and do not linger") {
  Harness h(ready_at_once(), {}, RayClusterReadiness::listed_pods_ready, JobPodTracking::finalizers);
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz"));
  h.run_until(5'000);
  const std::string name = h.pods().at(0)->metadata.name;
  SUBCASE("background: the garbage collector deletes the Pod, which goes once stopped and released") {
    h.remove(Kind::Job, "demo", Propagation::background);
    h.run_until(5'000);
    CHECK(h.pod(name) == nullptr);
  }
  SUBCASE("orphan (a batch/v1 Job's default): the Pod runs on, without owner and without the finalizer") {
    h.remove(Kind::Job, "demo", Propagation::orphan);
    h.run_until(5'000);
    REQUIRE(h.job() == nullptr);
    REQUIRE(h.pod(name) != nullptr);
    CHECK(h.pod(name)->metadata.owner_references->empty());
    CHECK(h.pod(name)->metadata.finalizers->empty());
    CHECK(h.pod(name)->status.phase == "Running");
  }
}

TEST_CASE("a deleted submitter Pod runs through its grace period: it still submits, and exits with the Ray job") {
  Harness h(ready_at_once(), {}, RayClusterReadiness::listed_pods_ready, JobPodTracking::finalizers,
            /*stops_deleted_pods=*/false);
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz"));
  h.run_until(0);
  const std::string name = h.pods().at(0)->metadata.name;
  h.run_until(1'999);
  while (h.pod(name)->status.phase != "Running") h.sim.step();   // started, not yet submitted
  REQUIRE(h.world().ray->heads[0]->jobs.empty());
  h.remove(Kind::Job, "demo", Propagation::background);          // KubeRay's deleteSubmitterJob
  h.run_until(2'000);
  REQUIRE(h.pod(name) != nullptr);
  CHECK(h.pod(name)->metadata.deletion_timestamp_ms == 32'000);   // when the grace period ends
  CHECK(h.pod(name)->metadata.deletion_grace_period_seconds == 30);
  REQUIRE(h.world().ray->heads[0]->jobs.size() == 1);   // `sh -c` ignores SIGTERM: the submit goes out
  CHECK(h.world().ray->heads[0]->jobs[0].submitted_by == "submitter/" + name);
  h.run_until(34'000);
  CHECK(h.pod(name)->status.phase == "Succeeded");
}

TEST_CASE("a failing attempt with failAfter submits, then exits 1 while the Ray job runs") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.submitter.fail_attempts = 1;
  behaviour.submitter.fail_after_ms = 5'000;
  Harness h(behaviour);
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz", 0));
  h.run_until(100'000);
  REQUIRE(h.pods().size() == 1);
  CHECK(h.pods()[0]->status.phase == "Failed");
  CHECK(h.pods()[0]->status.container_statuses[0].finished_at_ms == 7'000);
  CHECK(has_true_condition(*h.job(), "Failed"));
  REQUIRE(h.world().ray->heads[0]->jobs.size() == 1);
  CHECK(h.world().ray->heads[0]->jobs[0].status == "SUCCEEDED");   // Ray went on regardless
}

TEST_CASE("a duplicate submission fails the submitter pod at once") {
  Harness h(ready_at_once());
  h.ready_cluster(0);
  h.submit("demo-xyz");   // the controller got there first (HTTPMode, or an earlier attempt)
  h.create(make_submitter_job("demo-xyz", 0));
  h.run_until(2'000);
  REQUIRE(h.pods().size() == 1);
  CHECK(h.pods()[0]->status.phase == "Failed");
  CHECK(h.pods()[0]->status.container_statuses[0].exit_code == 1);
  CHECK(h.world().ray->heads[0]->jobs.size() == 1);
  const auto exits = h.events("submitter.exit");
  REQUIRE(exits.size() == 1);
  CHECK(text_field(*exits[0], "reason") == "duplicate");
  h.run_until(2'001);
  CHECK(has_true_condition(*h.job(), "Failed"));
}

TEST_CASE("finishesAfter makes the submitter exit 0 whatever Ray does") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.submitter.finishes_after_ms = 5'000;
  behaviour.ray.results = {"FAILED"};
  Harness h(behaviour);
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz"));
  h.run_until(6'999);
  CHECK(h.pods()[0]->status.phase == "Running");
  h.run_until(7'000);
  CHECK(h.pods()[0]->status.phase == "Succeeded");
  CHECK(has_true_condition(*h.job(), "Complete"));
  CHECK(h.world().ray->heads[0]->jobs[0].status == "RUNNING");
}

TEST_CASE("a head restart makes the waiting submitter exit 1") {
  Harness h(ready_at_once());
  h.ready_cluster(0);
  h.create(make_submitter_job("demo-xyz", 0));
  h.run_until(10'000);
  h.sim.run_as_step([&](StepContext& c) { h.ray.restart_head(c, kNamespace, kCluster); });
  h.run_until(10'000);
  CHECK(h.pods()[0]->status.phase == "Failed");
  const auto exits = h.events("submitter.exit");
  REQUIRE(exits.size() == 1);
  CHECK(text_field(*exits[0], "reason") == "job_lost");
}

// A submitter Job as KubeRay 1.7 builds it (kuberay-rayjob §1.10.1): `/bin/bash -ce --` with the
// GCS wait, the `ray job status` guard, `submit --no-wait` and `ray job logs --follow`.
Job make_submitter_job_1_7(std::string_view submission_id, int backoff_limit = 2) {
  Job job = make_submitter_job(submission_id, backoff_limit);
  Container& container = job.spec.edit().template_.containers[0];
  const std::string address = "http://" + std::string(kUrl);
  const std::string id(submission_id);
  container.command = {"/bin/bash", "-ce", "--"};
  container.args = {"until python -c \"import urllib.request; r=urllib.request.urlopen('" + address +
                    "/api/gcs_healthz', timeout=10); exit(0 if b'success' in r.read() else 1)\" >/dev/null 2>&1 ; "
                    "do echo \"Waiting ...\" ; sleep 2 ; done ; if ! ray job status --address " + address + " " + id +
                    " >/dev/null 2>&1 ; then ray job submit --address " + address + " --no-wait --submission-id " + id +
                    " -- python main.py ; fi ; ray job logs --address " + address + " --follow " + id};
  return job;
}

TEST_CASE("the 1.7 script: address, id, entrypoint up to the ';', the status guard and logs --follow") {
  SubmitCommand command;
  REQUIRE(parse_submit_command(make_submitter_job_1_7("demo-xyz").spec->template_.containers[0], command));
  CHECK(command.dashboard_url == kUrl);
  CHECK(command.submission_id == "demo-xyz");
  CHECK(command.entrypoint == "python main.py");
  CHECK(command.status_guard);
  CHECK(command.follows_logs);
  REQUIRE(parse_submit_command(make_submitter_job("demo-xyz").spec->template_.containers[0], command));
  CHECK_FALSE(command.status_guard);
  CHECK_FALSE(command.follows_logs);
}

TEST_CASE("the 1.7 submitter exits 0 after a FAILED Ray job: `ray job logs --follow` does not fail") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.ray.results = {"FAILED"};
  Harness h(behaviour);
  h.ready_cluster(0);
  h.create(make_submitter_job_1_7("demo-xyz"));
  h.run_until(34'000);
  CHECK(h.world().ray->heads[0]->jobs[0].status == "FAILED");
  CHECK(h.pods()[0]->status.phase == "Succeeded");
  CHECK(has_true_condition(*h.job(), "Complete"));
}

TEST_CASE("a retried 1.7 submitter pod finds the job with `ray job status` and follows it instead of submitting") {
  WorldBehaviour behaviour = ready_at_once();
  behaviour.submitter.fail_attempts = 1;
  behaviour.submitter.fail_after_ms = 5'000;
  Harness h(behaviour);
  h.ready_cluster(0);
  h.create(make_submitter_job_1_7("demo-xyz"));
  h.run_until(40'000);
  CHECK(h.world().ray->heads[0]->jobs.size() == 1);   // one submission, no duplicate rejected
  REQUIRE(h.pods().size() == 2);
  CHECK(h.pods()[0]->status.phase == "Failed");
  CHECK(h.pods()[1]->status.phase == "Succeeded");
  CHECK(has_true_condition(*h.job(), "Complete"));
}

// A RayCluster as kuberay-1.7 builds it in SidecarMode (kuberay-rayjob §1.10.4): the submitter
// container, a blocking `ray job submit` against 127.0.0.1, appended to the head template.
RayCluster make_sidecar_cluster() {
  RayCluster cluster = make_cluster();
  Container head;
  head.name = "ray-head";
  cluster.spec.edit().head_group_spec.template_.containers.push_back(head);
  Container sidecar;
  sidecar.name = "ray-job-submitter";
  sidecar.command = {"/bin/bash", "-ce", "--"};
  sidecar.args = {"until python -c \"...\" >/dev/null 2>&1 ; do sleep 2 ; done ; ray job submit --address "
                  "http://127.0.0.1:8265 --submission-id demo-xyz -- python main.py ;"};
  cluster.spec.edit().head_group_spec.template_.containers.push_back(sidecar);
  cluster.spec.edit().head_group_spec.template_.restart_policy = "Never";
  return cluster;
}

TEST_CASE("a cluster with the submitter sidecar gets a head Pod whose sidecar submits once the head is up") {
  WorldBehaviour behaviour;   // readyAfter 20 s, startAfter 2 s, pendingFor 2 s, runsFor 30 s
  behaviour.ray.results = {"FAILED"};
  Harness h(behaviour);
  h.create(make_sidecar_cluster());
  h.run_until(0);
  const Pod* pod = h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head");
  REQUIRE(pod != nullptr);
  CHECK(pod->metadata.labels->at("ray.io/node-type") == "head");
  CHECK(controller_owner(pod->metadata)->kind == Kind::RayCluster);
  h.run_until(19'999);   // startAfter has passed, but the GCS is not up before the cluster is ready
  CHECK(h.events("submitter.start").empty());
  h.run_until(20'000);
  REQUIRE(h.world().ray->heads.size() == 1);
  REQUIRE(h.world().ray->heads[0]->jobs.size() == 1);
  CHECK(h.world().ray->heads[0]->jobs[0].submission_id == "demo-xyz");
  h.run_until(52'000);   // the blocking submit exits 1 for FAILED; only the sidecar's container ends
  pod = h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head");
  CHECK(pod->status.phase == "Running");
  CHECK(pod->status.ready == false);
  const ContainerStatus& sidecar = pod->status.container_statuses.at(1);
  CHECK(sidecar.name == "ray-job-submitter");
  CHECK(sidecar.state == "terminated");
  CHECK(sidecar.exit_code == 1);
  CHECK(sidecar.reason == "Error");   // the runtime's reason for a non-zero exit
  CHECK(sidecar.finished_at_ms == 52'000);
  CHECK(pod->status.container_statuses.at(0).state == "running");
  CHECK(h.events("submitter.exit").size() == 1);
  h.run_until(100'000);   // restartPolicy Never: the sidecar stays exited
  CHECK(h.events("submitter.restart").empty());
}

// make_sidecar_cluster with kuberay-1.7's script (the `ray job status` guard, `--no-wait`, then
// `ray job logs --follow`) and, as under the SidecarSubmitterRestart gate, restartPolicy OnFailure.
RayCluster make_restarting_sidecar_cluster() {
  RayCluster cluster = make_sidecar_cluster();
  Container& sidecar = cluster.spec.edit().head_group_spec.template_.containers.at(1);
  sidecar.args = {"until python -c \"...\" >/dev/null 2>&1 ; do sleep 2 ; done ; if ! ray job status --address "
                  "http://127.0.0.1:8265 demo-xyz >/dev/null 2>&1 ; then ray job submit --address http://127.0.0.1:8265 "
                  "--no-wait --submission-id demo-xyz -- python main.py ; fi ; ray job logs --address "
                  "http://127.0.0.1:8265 --follow demo-xyz"};
  sidecar.restart_policy = "OnFailure";
  return cluster;
}

TEST_CASE("the kubelet restarts an OnFailure sidecar on a non-zero exit: at once, then after CrashLoopBackOff") {
  WorldBehaviour behaviour;   // readyAfter 20 s, startAfter 2 s, pendingFor 2 s, runsFor 30 s
  behaviour.submitter.fail_attempts = 3;
  behaviour.submitter.fail_after_ms = 5'000;
  Harness h(behaviour);
  h.create(make_restarting_sidecar_cluster());
  const auto sidecar = [&] {
    return h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head")->status.container_statuses.at(1);
  };
  const auto head_ready = [&] { return h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head")->status.ready; };
  h.run_until(25'000);   // attempt 0 submitted at 20 s and exits 1 at 25 s: restarted at once
  CHECK(sidecar().state == "running");
  CHECK(sidecar().restart_count == 1);
  REQUIRE(sidecar().last_termination_state.has_value());
  CHECK(*sidecar().last_termination_state == ContainerTerminated{1, "Error", 25'000});
  CHECK(head_ready() == true);
  h.run_until(30'000);   // attempt 1 exits 1 at 30 s: the second restart waits 10 s
  CHECK(sidecar().state == "waiting");
  CHECK(sidecar().reason == "CrashLoopBackOff");
  CHECK(sidecar().restart_count == 1);
  CHECK(*sidecar().last_termination_state == ContainerTerminated{1, "Error", 30'000});
  CHECK(head_ready() == false);
  h.run_until(39'999);
  CHECK(sidecar().state == "waiting");
  h.run_until(40'000);
  CHECK(sidecar().state == "running");
  CHECK(sidecar().restart_count == 2);
  h.run_until(45'000);   // attempt 2 exits 1 at 45 s: the third restart waits 20 s
  CHECK(sidecar().state == "waiting");
  h.run_until(64'999);
  CHECK(sidecar().restart_count == 2);
  h.run_until(65'000);   // attempt 3 finds the job (SUCCEEDED at 52 s) with `ray job status` and exits 0
  CHECK(sidecar().state == "terminated");
  CHECK(sidecar().exit_code == 0);
  CHECK(sidecar().restart_count == 3);
  CHECK(*sidecar().last_termination_state == ContainerTerminated{1, "Error", 45'000});
  CHECK(h.world().ray->heads[0]->jobs.size() == 1);   // every restart found the job: one submission
  h.run_until(400'000);
  CHECK(h.events("submitter.restart").size() == 3);   // an exit 0 is not restarted
}

TEST_CASE("a sidecar without restartPolicy OnFailure is not restarted; a deleted head Pod's is not either") {
  WorldBehaviour behaviour;
  behaviour.submitter.fail_attempts = 1;
  behaviour.submitter.fail_after_ms = 5'000;
  // No actor stops a deleted Pod: its containers run on through the grace period.
  Harness h(behaviour, {}, RayClusterReadiness::listed_pods_ready, JobPodTracking::listed_pods, false);
  RayCluster cluster = make_restarting_sidecar_cluster();
  bool deleted = false;
  SUBCASE("restartPolicy unset: the Pod's Never applies") {
    cluster.spec.edit().head_group_spec.template_.containers.at(1).restart_policy.clear();
  }
  SUBCASE("OnFailure, but the Pod is being deleted") { deleted = true; }
  h.create(cluster);
  h.run_until(24'000);
  if (deleted) h.remove(Kind::RayCluster, kCluster);
  h.run_until(100'000);
  REQUIRE(h.events("submitter.exit").size() == 1);
  CHECK(h.events("submitter.restart").empty());
}

TEST_CASE("every cluster gets its head Pod at once and one worker Pod per replica at readyAfter, owned and "
          "labelled as KubeRay's") {
  Harness h(pods_come_up_in_stages());
  h.create(make_cluster_with_workers(2));
  h.run_until(0);
  REQUIRE(h.world().api.objects(Kind::Pod).size() == 1);
  const Pod* head = h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head");
  REQUIRE(head != nullptr);
  CHECK(head->metadata.labels->at("ray.io/node-type") == "head");
  CHECK(head->metadata.labels->at("ray.io/cluster") == kCluster);
  CHECK(controller_owner(head->metadata)->uid == h.cluster()->metadata.uid);
  h.run_until(19'999);
  CHECK(h.world().api.objects(Kind::Pod).size() == 1);
  h.run_until(20'000);
  CHECK(h.world().api.objects(Kind::Pod).size() == 3);
  for (const Object& object : h.world().api.objects(Kind::Pod)) {
    CHECK(std::get<Pod>(object).status.phase == "Running");
    CHECK(std::get<Pod>(object).status.ready == std::optional<bool>(true));
  }
  // Deleting the cluster deletes its Pods through the garbage collector; being Running, each
  // goes once the kubelet has stopped it.
  h.remove(Kind::RayCluster, kCluster);
  h.run_until(20'000);
  CHECK(h.world().api.objects(Kind::Pod).empty());
  std::vector<std::string> deleters;
  for (const Event* deleted : h.events("api.delete")) {
    if (deleted->object.starts_with("Pod/")) deleters.push_back(deleted->actor);
  }
  CHECK(deleters == std::vector<std::string>{"gc", "gc", "gc", "kubelet", "kubelet", "kubelet"});
}

TEST_CASE("the kubelet runs a head Pod at headReadyAfter - runningBeforeReady, not Ready, and Ready at "
          "headReadyAfter") {
  Harness h(pods_come_up_in_stages());
  h.create(make_cluster());
  const auto head = [&] { return h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head"); };
  h.run_until(5'999);
  CHECK(head()->status.phase.empty());
  h.run_until(6'000);
  CHECK(head()->status.phase == "Running");
  CHECK(head()->status.ready == std::optional<bool>(false));
  h.run_until(10'000);
  CHECK(head()->status.ready == std::optional<bool>(true));
  for (const Event* write : h.events("api.patch_status")) {
    if (write->object.starts_with("Pod/")) CHECK(write->actor == "kubelet");
  }
}

// ---- the user ----

TEST_CASE("the user patches, restarts the head and deletes at the actions' times") {
  std::vector<Action> actions(3);
  actions[0].at_ms = 5'000;
  actions[0].type = Action::Type::patch;
  actions[0].rayjob = "demo";
  actions[0].patch = nlohmann::json::parse(R"({"spec": {"suspend": true}})");
  actions[1].at_ms = 6'000;
  actions[1].type = Action::Type::head_restart;
  actions[1].rayjob = "demo";
  actions[2].at_ms = 9'000;
  actions[2].type = Action::Type::delete_;
  actions[2].rayjob = "demo";
  Harness h(ready_at_once(), actions);
  h.create(make_rayjob());
  h.set_job_id("demo", "demo-xyz");
  h.ready_cluster(0);

  h.run_until(4'999);
  CHECK_FALSE(h.world().api.find<RayJob>(kNamespace, "demo")->spec->suspend);
  CHECK(h.world().environment->actions_fired == 0);
  h.run_until(5'000);
  CHECK(h.world().api.find<RayJob>(kNamespace, "demo")->spec->suspend);
  const auto patches = h.events("action.patch");
  REQUIRE(patches.size() == 1);
  CHECK(patches[0]->origin == events::Origin::input);
  CHECK(patches[0]->at_ms == 5'000);
  CHECK(std::get<events::RawJson>(*patches[0]->find("patch")).text == R"({"spec":{"suspend":true}})");

  h.run_until(6'000);
  CHECK(h.world().ray->heads.size() == 2);
  const auto restarts = h.events("action.head_restart");
  REQUIRE(restarts.size() == 1);
  CHECK(text_field(*restarts[0], "ray_cluster") == kCluster);

  h.run_until(8'999);
  CHECK(h.world().api.find<RayJob>(kNamespace, "demo") != nullptr);
  h.run_until(9'000);
  CHECK(h.world().api.find<RayJob>(kNamespace, "demo") == nullptr);
  CHECK(h.events("action.delete").size() == 1);
  CHECK(h.world().environment->actions_fired == 3);
}

TEST_CASE("stopSubmitter kills the RayJob's running submitter, as `crictl stop` does: exit 137") {
  std::vector<Action> actions(1);
  actions[0].at_ms = 30'000;
  actions[0].type = Action::Type::stop_submitter;
  actions[0].rayjob = "demo";
  Harness h(ready_at_once(), actions);   // startAfter 2 s, pendingFor 2 s, runsFor 30 s
  h.create(make_rayjob());
  h.set_job_id("demo", "demo-xyz");
  SUBCASE("the sidecar of the RayJob's cluster: OnFailure restarts it and it follows the job") {
    h.create(make_restarting_sidecar_cluster());
    h.run_until(30'000);
    const Pod* head = h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head");
    const ContainerStatus& sidecar = head->status.container_statuses.at(1);
    CHECK(sidecar.state == "running");
    CHECK(sidecar.restart_count == 1);
    CHECK(*sidecar.last_termination_state == ContainerTerminated{137, "Error", 30'000});
    h.run_until(40'000);
    CHECK(h.world().ray->heads[0]->jobs.size() == 1);
    CHECK(h.world().api.find<Pod>(kNamespace, std::string(kCluster) + "-head")->status.container_statuses.at(1).exit_code == 0);
  }
  SUBCASE("a Pod of the RayJob's submitter Job: the Pod fails") {
    h.ready_cluster(0);
    h.create(make_submitter_job_1_7("demo-xyz"));
    h.run_until(30'000);
    REQUIRE(!h.pods().empty());
    CHECK(h.pods()[0]->status.phase == "Failed");
    CHECK(h.pods()[0]->status.container_statuses.at(0).exit_code == 137);
  }
  const auto stops = h.events("action.stop_submitter");
  REQUIRE(stops.size() == 1);
  CHECK(stops[0]->origin == events::Origin::input);
  const auto exits = h.events("submitter.exit");
  REQUIRE(!exits.empty());
  CHECK(text_field(*exits[0], "reason") == "killed");
}

TEST_CASE("the environment is deterministic: the same seed gives the same events") {
  auto run = [] {
    WorldBehaviour behaviour = ready_at_once();
    behaviour.submitter.fail_attempts = 1;
    Harness h(behaviour);
    h.ready_cluster(0);
    h.create(make_submitter_job("demo-xyz"));
    h.run_until(100'000);
    return std::make_pair(h.sink.events, h.world());
  };
  const auto first = run();
  const auto second = run();
  CHECK(first.first == second.first);
  CHECK(first.second == second.second);
}

}  // namespace
}  // namespace environment_test
}  // namespace rjsim::engine

