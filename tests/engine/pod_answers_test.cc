// The kubelet, the submitter and the dashboard keep the answers of the Pods (or clusters) of
// which they list something, found by following the watch logs (issue 30; followed_answers.h):
// after any create, delete or recreation of a RayCluster or a Pod (a new uid under the same name),
// any change of a Pod's phase, readiness or containers or of a cluster's State, a head coming up,
// a move of the clock, the actors' own work and any return to an earlier world (another run from
// a snapshot), their listing and their next timer are the ones an actor that keeps nothing gives;
// and a write to one Pod computes that Pod's answer only. Random sequences come from a seeded
// generator: a failure names the seed.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/kubelet.h"
#include "engine/ray_dashboard.h"
#include "engine/raycluster_controller.h"
#include "engine/submitter.h"
#include "engine/world.h"
#include "actor_bench.h"

namespace pod_answers_test {

namespace {

using namespace rjsim::engine;
using rjsim::testing::compare_kept_with_fresh;
using rjsim::testing::listing_of;

constexpr std::string_view kNamespace = "default";
const std::vector<std::string> kClusters = {"first", "second", "third"};
constexpr std::string_view kRoles[] = {"head", "worker", "submitter"};

RayClusterBehaviour cluster_behaviour() {
  RayClusterBehaviour behaviour;
  behaviour.ready_after_ms = 20'000;
  behaviour.head_ready_after_ms = 10'000;
  behaviour.running_before_ready_ms = 3'000;
  return behaviour;
}

SubmitterBehaviour submitter_behaviour() {
  SubmitterBehaviour behaviour;
  behaviour.start_after_ms = 2'000;
  behaviour.fail_attempts = 1;
  behaviour.fail_after_ms = 4'000;
  behaviour.finishes_after_ms = 9'000;
  return behaviour;
}

void create(World& world, Object object) { world.api.create(object, world.now_ms); }

void create_cluster(World& world, const std::string& name) {
  RayCluster cluster;
  cluster.metadata.name = name;
  cluster.metadata.namespace_ = std::string(kNamespace);
  create(world, std::move(cluster));
}

// A Pod of `cluster` in `role`: a head (with the submitter sidecar half the time) or a worker
// controlled by the RayCluster (by its uid when it exists, else a uid no object has), or a
// submitter Pod controlled by a Job.
Pod pod_of(const World& world, const std::string& cluster, std::string_view role, bool sidecar) {
  Pod pod;
  pod.metadata.name = cluster + "-" + std::string(role);
  pod.metadata.namespace_ = std::string(kNamespace);
  pod.metadata.labels.edit()[std::string(kRayClusterLabel)] = cluster;
  OwnerReference owner;
  owner.controller = true;
  if (role == "submitter") {
    owner.kind = Kind::Job;
    owner.name = cluster;
    owner.uid = "job-" + cluster;
  } else {
    pod.metadata.labels.edit()[std::string(kRayNodeTypeLabel)] = std::string(role);
    owner.kind = Kind::RayCluster;
    owner.name = cluster;
    const Object* found = world.api.find(Kind::RayCluster, kNamespace, cluster);
    owner.uid = found ? meta(*found).uid : "gone-" + cluster;
  }
  pod.metadata.owner_references.edit().push_back(owner);
  Container main;
  main.name = role == "submitter" ? "ray-job-submitter" : "ray-" + std::string(role);
  main.command = {"ray", "job", "submit", "--address", "http://" + cluster + "-head-svc.default:8265",
                  "--submission-id", cluster + "-id", "--", "python", "job.py"};
  pod.spec.edit().containers.push_back(main);
  if (sidecar) {
    Container submitter = main;
    submitter.name = std::string(kSubmitterSidecarName);
    submitter.restart_policy = "OnFailure";
    pod.spec.edit().containers.push_back(submitter);
  }
  return pod;
}

// A status a Pod may show: Pending, Running with its containers running (Ready or not), Running
// with its sidecar exited, or finished.
void set_status(Pod& pod, unsigned pick, std::int64_t now_ms) {
  PodStatus& status = pod.status;
  status.container_statuses.clear();
  switch (pick % 5) {
    case 0: status = PodStatus{}; status.phase = "Pending"; return;
    case 1:
    case 2: status.phase = "Running"; status.ready = pick % 5 == 2; break;
    case 3: status.phase = "Running"; status.ready = false; break;
    default: status.phase = pick % 2 == 0 ? "Succeeded" : "Failed"; status.ready = false; break;
  }
  for (const Container& container : pod.spec->containers) {
    ContainerStatus each;
    each.name = container.name;
    each.state = "running";
    if (pick % 5 == 3 && container.name == kSubmitterSidecarName) {
      each.state = "terminated";
      each.exit_code = 1;
      each.finished_at_ms = now_ms;
    }
    if (pick % 5 == 4) {
      each.state = "terminated";
      each.exit_code = status.phase == "Succeeded" ? 0 : 1;
    }
    status.container_statuses.push_back(std::move(each));
  }
}

// The cluster's Ray head comes up, as the dashboard actor brings it (ray_dashboard.h), with the
// head Service its submitters' address names: submits then succeed and processes wait for the job.
void head_up(World& world, const std::string& cluster) {
  const Object* found = world.api.find(Kind::RayCluster, kNamespace, cluster);
  if (!found) return;
  RayHead head;
  head.cluster_namespace = std::string(kNamespace);
  head.cluster_name = cluster;
  head.cluster_uid = meta(*found).uid;
  for (CopyOnWrite<RayHead>& earlier : world.ray.edit().heads) {
    if (earlier->cluster_uid == head.cluster_uid) earlier.edit().table_lost = true;
  }
  world.ray.edit().heads.push_back(std::move(head));
  OwnerReference owner;
  owner.kind = Kind::RayCluster;
  owner.name = cluster;
  owner.uid = meta(*found).uid;
  owner.controller = true;
  Service service;
  service.metadata.name = cluster + "-head-svc";
  service.metadata.namespace_ = std::string(kNamespace);
  service.metadata.owner_references.edit().push_back(owner);
  service.spec.edit().ports = {{"dashboard", 8265}};
  world.api.remove(Kind::Service, kNamespace, service.metadata.name, Propagation::background, world.now_ms);
  create(world, std::move(service));
}

// One random change to `world`.
void change(World& world, std::mt19937& random) {
  const std::string& cluster = kClusters[random() % kClusters.size()];
  const std::string_view role = kRoles[random() % 3];
  const std::string pod_name = cluster + "-" + std::string(role);
  switch (random() % 12) {
    case 0: create_cluster(world, cluster); break;
    case 1: world.api.remove(Kind::RayCluster, kNamespace, cluster, Propagation::background, world.now_ms); break;
    case 2:
    case 3: create(world, pod_of(world, cluster, role, random() % 2 == 0)); break;
    case 4: world.api.remove(Kind::Pod, kNamespace, pod_name, Propagation::background, world.now_ms); break;
    case 5: {
      const unsigned pick = random();
      world.api.patch_status(Kind::Pod, kNamespace, pod_name,
                             [&](Object& pod) { set_status(std::get<Pod>(pod), pick, world.now_ms); }, world.now_ms);
      break;
    }
    case 7: head_up(world, cluster); break;
    case 9: {
      // A job of a head's table moves: the Ray state changes and the live heads stay.
      if (world.ray->heads.empty()) break;
      RayHead& head = world.ray.edit().heads[random() % world.ray->heads.size()].edit();
      RayJobRecord job;
      job.submission_id = "job-" + std::to_string(head.jobs.size());
      job.status = "RUNNING";
      job.result = "SUCCEEDED";
      job.next_change_at_ms = world.now_ms + 2'000;
      head.jobs.push_back(std::move(job));
      break;
    }
    case 8: {
      // The RayCluster controller's status: State ready or not (the dashboard brings up the heads of
      // ready clusters).
      const bool ready = random() % 3 != 0;
      world.api.patch_status(Kind::RayCluster, kNamespace, cluster, [&](Object& object) {
        std::get<RayCluster>(object).status.edit().state = ready ? "ready" : "";
      }, world.now_ms);
      break;
    }
    case 6: {
      // The user's stopSubmitter (user_actions.cc): the process alone changes, not its Pod.
      const std::size_t processes = world.environment->submitters.size();
      if (processes > 0) world.environment.edit().submitters[random() % processes].stop_requested = true;
      break;
    }
    default: world.now_ms += static_cast<std::int64_t>(random() % 6) * 1'000; break;
  }
}

}  // namespace

TEST_CASE("the kubelet's kept answers list what a fresh kubelet lists, across writes, time and returns to "
          "earlier worlds") {
  const std::size_t listed =
      compare_kept_with_fresh(30, [] { return std::make_unique<Kubelet>(cluster_behaviour()); }, change);
  CHECK(listed > 300);   // the sequences do bring Pods up
}

TEST_CASE("the submitter's kept answers list what a fresh submitter lists, across writes, time and returns "
          "to earlier worlds") {
  static const RayDashboard dashboard(DashboardBehaviour{}, RayBehaviour{});
  const auto make = [] { return std::make_unique<Submitter>(submitter_behaviour(), &dashboard); };
  const std::size_t listed = compare_kept_with_fresh(30, make, change);
  CHECK(listed > 1'000);   // the sequences do start, submit, restart and stop processes
}

TEST_CASE("a submitter whose processes wait for their Ray jobs lists what a fresh one lists as the jobs end") {
  // No failing attempts and no finishesAfter: a process exits when its job's record in its head's
  // table says so, which the kept submitter remembers per process (Submitter::JobExitMemo).
  static const RayDashboard dashboard(DashboardBehaviour{}, RayBehaviour{});
  SubmitterBehaviour waits_for_ray;
  waits_for_ray.start_after_ms = 2'000;
  const auto make = [=] { return std::make_unique<Submitter>(waits_for_ray, &dashboard); };
  std::size_t exits = 0;
  const auto change_and_count = [&](World& world, std::mt19937& random) {
    if (random() % 4 != 0 || world.ray->heads.empty()) {
      change(world, random);
    } else {
      // A job of a head's table moves (the dashboard's work): only that head changes.
      CopyOnWrite<RayHead>& head = world.ray.edit().heads[random() % world.ray->heads.size()];
      static constexpr std::string_view kStatuses[] = {"SUCCEEDED", "FAILED", "STOPPED", "RUNNING"};
      if (!head->jobs.empty()) head.edit().jobs[random() % head->jobs.size()].status = kStatuses[random() % 4];
    }
    for (const ActorWork& work : listing_of(*make(), world).work) exits += work.what == "exit";
  };
  compare_kept_with_fresh(30, make, change_and_count);
  CHECK(exits > 20);   // the sequences do end jobs that processes wait for
}

TEST_CASE("the dashboard's listing from the ready clusters it keeps is what a fresh dashboard lists, across "
          "writes, time and returns to earlier worlds") {
  const auto make = [] { return std::make_unique<RayDashboard>(DashboardBehaviour{}, RayBehaviour{}, 10'000); };
  const std::size_t listed = compare_kept_with_fresh(30, make, change);
  CHECK(listed > 300);   // the sequences do bring heads up and lose them
}

TEST_CASE("a head that comes up or loses its table asks again whether its own cluster awaits a head, no other") {
  const RayDashboard dashboard(DashboardBehaviour{}, RayBehaviour{}, 0);
  World world;
  for (const std::string& cluster : kClusters) {
    create_cluster(world, cluster);
    world.api.patch_status(Kind::RayCluster, kNamespace, cluster, [](Object& object) {
      std::get<RayCluster>(object).status.edit().state = "ready";
    }, world.now_ms);
  }
  const auto asked_after = [&](const std::function<void()>& change) {
    const std::size_t before = dashboard.cluster_answers_computed();
    change();
    REQUIRE(listing_of(dashboard, world) == listing_of(RayDashboard(DashboardBehaviour{}, RayBehaviour{}, 0), world));
    return dashboard.cluster_answers_computed() - before;
  };
  CHECK(asked_after([] {}) == kClusters.size());   // the first listing asks every cluster
  CHECK(asked_after([&] { head_up(world, "first"); }) == 1);
  CHECK(asked_after([&] { head_up(world, "third"); }) == 1);
  // A job of a table moves: the live heads stay, no cluster is asked.
  CHECK(asked_after([&] { world.ray.edit().heads[0].edit().jobs.emplace_back().status = "RUNNING"; }) == 0);
  CHECK(asked_after([&] { world.ray.edit().heads[0].edit().table_lost = true; }) == 1);
}

TEST_CASE("a write to one Pod computes that Pod's answer only") {
  const Kubelet kubelet(cluster_behaviour());
  const Submitter submitter(submitter_behaviour(), nullptr);
  World world;
  for (const std::string& cluster : kClusters) {
    create_cluster(world, cluster);
    create(world, pod_of(world, cluster, "head", false));
    create(world, pod_of(world, cluster, "submitter", false));
  }
  const std::size_t pods = 2 * kClusters.size();
  const auto list_both = [&] {
    (void)listing_of(kubelet, world);
    (void)listing_of(submitter, world);
  };
  list_both();
  CHECK(kubelet.pod_answers_computed() == pods);
  CHECK(submitter.pod_answers_computed() == pods);
  world.now_ms += 1'000;   // the clock alone: every answer kept
  list_both();
  CHECK(kubelet.pod_answers_computed() == pods);
  CHECK(submitter.pod_answers_computed() == pods);

  world.api.patch_status(Kind::Pod, kNamespace, "second-head",
                         [](Object& pod) { set_status(std::get<Pod>(pod), 1, 0); }, world.now_ms);
  list_both();
  CHECK(kubelet.pod_answers_computed() == pods + 1);
  CHECK(submitter.pod_answers_computed() == pods + 1);

  // A RayCluster goes: the kubelet asks again about the Pods it controls (its head Pod; the
  // submitter Pod is its Job's), not about the other clusters' Pods.
  world.api.remove(Kind::RayCluster, kNamespace, "third", Propagation::background, world.now_ms);
  list_both();
  CHECK(kubelet.pod_answers_computed() == pods + 2);
  CHECK(submitter.pod_answers_computed() == pods + 1);
}

TEST_CASE("a process started in one Pod computes that Pod's submitter answer only") {
  const Submitter submitter(submitter_behaviour(), nullptr);
  World world;
  for (const std::string& cluster : kClusters) {
    create_cluster(world, cluster);
    create(world, pod_of(world, cluster, "submitter", false));
  }
  const auto start_process = [&](const std::string& pod_name) {
    const Pod& pod = *world.api.find<Pod>(kNamespace, pod_name);
    SubmitterProcess& process = world.environment.edit().submitters.emplace_back();
    process.pod_namespace = pod.metadata.namespace_;
    process.pod_name = pod.metadata.name;
    process.pod_uid = pod.metadata.uid;
    process.started_at_ms = world.now_ms;
  };
  const auto asked_after = [&](const std::function<void()>& change) {
    const std::size_t before = submitter.pod_answers_computed();
    change();
    REQUIRE(listing_of(submitter, world) == listing_of(Submitter(submitter_behaviour(), nullptr), world));
    return submitter.pod_answers_computed() - before;
  };
  CHECK(asked_after([] {}) == kClusters.size());
  CHECK(asked_after([&] { start_process("second-submitter"); }) == 1);
  CHECK(asked_after([&] { start_process("first-submitter"); start_process("third-submitter"); }) == 2);
  // A process's progress leaves every Pod's latest process as it was.
  CHECK(asked_after([&] { world.environment.edit().submitters[0].submit_outcome = "ok"; }) == 0);
  // Any other change of the processes (here one that goes) asks every Pod again.
  CHECK(asked_after([&] { world.environment.edit().submitters.pop_back(); }) == kClusters.size());
}

}  // namespace pod_answers_test
