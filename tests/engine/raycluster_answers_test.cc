// The simulated RayCluster controller keeps one answer per cluster (issue 30): after any write
// to a cluster, its Services or its Pods (or a Pod of another cluster that bears its Pods' names),
// any move of the clock, and any return to an earlier world (another run from a snapshot), its
// listing and its timer are those a controller that keeps nothing gives; and a write to one
// cluster's Pods computes that cluster's answer again, not the others'. Random sequences come from
// a seeded generator: a failure names the seed.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/raycluster_controller.h"
#include "engine/world.h"
#include "actor_bench.h"

namespace raycluster_answers_test {
namespace {

using namespace rjsim::engine;
using rjsim::testing::ActorBench;

constexpr std::string_view kNamespace = "default";
const std::vector<std::string> kClusters = {"a", "b", "c"};
RayClusterBehaviour lingering_behaviour() {
  RayClusterBehaviour behaviour;
  behaviour.ready_after_ms = 20'000;
  behaviour.deletion_takes_ms = 5'000;
  return behaviour;
}
const RayClusterBehaviour kBehaviour = lingering_behaviour();

std::string head_pod(const std::string& cluster) { return cluster + "-head"; }
std::string worker_pod(const std::string& cluster, int replica) {
  return cluster + "-workers-worker-" + std::to_string(replica);
}

void create_cluster(World& world, const std::string& name) {
  RayCluster cluster;
  cluster.metadata.name = name;
  cluster.metadata.namespace_ = std::string(kNamespace);
  WorkerGroupSpec group;
  group.group_name = "workers";
  group.replicas = 2;
  cluster.spec.edit().worker_group_specs.push_back(group);
  Object object = cluster;
  world.api.create(object, world.now_ms);
}

void create_head_service(World& world, const std::string& cluster) {
  Service service;
  service.metadata.name = cluster + "-head-svc";
  service.metadata.namespace_ = std::string(kNamespace);
  service.spec.edit().ports.push_back(ServicePort{"dashboard", kDashboardPort});
  Object object = service;
  world.api.create(object, world.now_ms);
}

// A Pod named `name` labelled ray.io/cluster=`label` (none when empty).
void create_pod(World& world, const std::string& name, const std::string& label) {
  Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = std::string(kNamespace);
  if (!label.empty()) pod.metadata.labels.edit()[std::string(kRayClusterLabel)] = label;
  pod.spec.edit().containers.emplace_back().name = "ray";
  Object object = pod;
  world.api.create(object, world.now_ms);
}

void set_pod_status(World& world, const std::string& name, bool running, bool ready) {
  world.api.patch_status(Kind::Pod, kNamespace, name, [&](Object& object) {
    auto& status = std::get<Pod>(object).status;
    status.phase = running ? "Running" : "Pending";
    status.ready = ready;
  }, world.now_ms);
}

struct Listing {
  std::vector<ActorWork> work;
  std::optional<std::int64_t> timer_ms;
  friend bool operator==(const Listing&, const Listing&) = default;
};

Listing list(const RayClusterController& controller, const World& world) {
  Listing listing;
  controller.enabled(world, listing.work);
  listing.timer_ms = controller.next_timer_ms(world);
  return listing;
}

// What a controller that keeps nothing lists.
Listing fresh_listing(RayClusterReadiness readiness, const World& world) {
  return list(RayClusterController(kBehaviour, readiness), world);
}

// Every Pod name the controller looks up, and a stray one.
std::string some_pod_name(std::mt19937& random) {
  const std::string& cluster = kClusters[random() % kClusters.size()];
  switch (random() % 4) {
    case 0: return head_pod(cluster);
    case 1: return worker_pod(cluster, 0);
    case 2: return worker_pod(cluster, 1);
    default: return "stray";
  }
}

// Some work the controller lists now, done by `controller` (its status writes make the stored
// status one that a change of the Pods or the head Service makes due again).
void do_some_work(ActorBench& bench, const RayClusterController& controller, RayClusterReadiness readiness,
                  std::mt19937& random) {
  const std::vector<ActorWork> work = fresh_listing(readiness, bench.world).work;
  if (!work.empty()) controller.apply(work[random() % work.size()], bench.context);
}

// One random change to `world`: a write of a cluster, a Service or a Pod, or the clock.
void change(World& world, std::mt19937& random) {
  const std::string& cluster = kClusters[random() % kClusters.size()];
  const std::string pod = some_pod_name(random);
  switch (random() % 10) {
    case 0: create_cluster(world, cluster); break;
    case 1:
      world.api.patch(Kind::RayCluster, kNamespace, cluster, [](Object& object) {
        auto& finalizers = meta(object).finalizers.edit();
        if (finalizers.empty()) finalizers.emplace_back(kLingeringDeletionFinalizer); else finalizers.clear();
      }, world.now_ms);
      break;
    case 2: world.api.remove(Kind::RayCluster, kNamespace, cluster, Propagation::background, world.now_ms); break;
    case 3:
      world.api.patch_status(Kind::RayCluster, kNamespace, cluster, [](Object& object) {
        auto& status = std::get<RayCluster>(object).status.edit();
        status.state = status.state.empty() ? "ready" : "";
      }, world.now_ms);
      break;
    case 4:
      if (random() % 3 == 0) create_head_service(world, cluster);
      else if (random() % 2) world.api.remove(Kind::Service, kNamespace, cluster + "-head-svc", Propagation::background, world.now_ms);
      else world.api.patch(Kind::Service, kNamespace, cluster + "-head-svc", [](Object& object) {
        auto& ports = std::get<Service>(object).spec.edit().ports;
        ports.push_back(ServicePort{"port-" + std::to_string(ports.size()), static_cast<int>(10'000 + ports.size())});
      }, world.now_ms);
      break;
    case 5: create_pod(world, pod, random() % 4 ? cluster : std::string()); break;
    case 6: {
      const bool running = random() % 2 == 0;
      set_pod_status(world, pod, running, running && random() % 2 == 0);
      break;
    }
    case 7:
      world.api.patch(Kind::Pod, kNamespace, pod, [&](Object& object) {
        meta(object).labels.edit()[std::string(kRayClusterLabel)] = cluster;
      }, world.now_ms);
      break;
    case 8: world.api.remove(Kind::Pod, kNamespace, pod, Propagation::background, world.now_ms, 0); break;
    default: world.now_ms += static_cast<std::int64_t>(random() % 12'000); break;
  }
}

TEST_CASE("the RayCluster controller's kept answers list what a fresh controller lists, across writes, time and "
          "returns to earlier worlds") {
  for (const RayClusterReadiness readiness : {RayClusterReadiness::all_pods_running,
                                              RayClusterReadiness::listed_pods_ready,
                                              RayClusterReadiness::desired_pods_ready}) {
    for (std::uint32_t seed = 1; seed <= 30; ++seed) {
      CAPTURE(seed);
      CAPTURE(static_cast<int>(readiness));
      std::mt19937 random(seed);
      const RayClusterController kept(kBehaviour, readiness);
      ActorBench bench;
      World& world = bench.world;
      std::vector<World> snapshots;
      for (int step = 0; step < 300; ++step) {
        if (random() % 25 == 0) snapshots.push_back(world);
        // Another run from a snapshot: the kept answers were given for worlds of other runs.
        if (!snapshots.empty() && random() % 40 == 0) world = snapshots[random() % snapshots.size()];
        if (random() % 2) do_some_work(bench, kept, readiness, random); else change(world, random);
        // Some steps are not listed: the next listing follows the writes of several.
        if (random() % 3 == 0) continue;
        CAPTURE(step);
        REQUIRE(list(kept, world) == fresh_listing(readiness, world));
      }
    }
  }
}

TEST_CASE("kept answers still list what a fresh controller lists after more cluster names than the controller keeps") {
  // Runs name their clusters differently (a random suffix each), so one controller sees far more
  // names than its bounded caches hold (64): the oldest names' entries are reused.
  const RayClusterController kept(kBehaviour, RayClusterReadiness::desired_pods_ready);
  for (int run = 0; run < 60; ++run) {
    CAPTURE(run);
    World world;
    for (const std::string& name : kClusters) {
      const std::string cluster = name + "-" + std::to_string(run);
      create_cluster(world, cluster);
      create_head_service(world, cluster);
      create_pod(world, head_pod(cluster), cluster);
    }
    for (int step = 0; step < 4; ++step) {
      world.now_ms += 8'000;
      REQUIRE(list(kept, world) == fresh_listing(RayClusterReadiness::desired_pods_ready, world));
      const std::string cluster = kClusters[static_cast<std::size_t>(step) % kClusters.size()] + "-" + std::to_string(run);
      set_pod_status(world, head_pod(cluster), step % 2 == 0, step % 4 == 0);
    }
  }
}

// A world with every cluster of kClusters and its head Service.
World clusters_with_head_services() {
  World world;
  for (const std::string& cluster : kClusters) {
    create_cluster(world, cluster);
    create_head_service(world, cluster);
  }
  return world;
}

// clusters_with_head_services(), with each cluster's head Pod and two workers.
World clusters_with_pods() {
  World world = clusters_with_head_services();
  for (const std::string& cluster : kClusters) {
    create_pod(world, head_pod(cluster), cluster);
    create_pod(world, worker_pod(cluster, 0), cluster);
    create_pod(world, worker_pod(cluster, 1), cluster);
  }
  return world;
}

// How many cluster answers `kept` computes in its listing after `write`, which must be what a
// fresh controller lists.
std::size_t answers_computed_by(const RayClusterController& kept, World& world, const std::function<void()>& write) {
  const std::size_t before = kept.cluster_answers_computed();
  write();
  REQUIRE(list(kept, world) == fresh_listing(RayClusterReadiness::desired_pods_ready, world));
  return kept.cluster_answers_computed() - before;
}

TEST_CASE("a write to one cluster's Pods computes that cluster's answer again, and keeps the others'") {
  const RayClusterController kept(kBehaviour, RayClusterReadiness::desired_pods_ready);
  World world = clusters_with_pods();
  world.now_ms = 30'000;   // past readyAfter: no Pod is missing, so none is looked up in vain
  const auto computed_after = [&](const std::function<void()>& write) { return answers_computed_by(kept, world, write); };
  CHECK(computed_after([] {}) == kClusters.size());   // the first listing computes every one
  CHECK(computed_after([] {}) == 0);
  CHECK(computed_after([&] { set_pod_status(world, worker_pod("a", 1), true, true); }) == 1);
  CHECK(computed_after([&] { set_pod_status(world, head_pod("b"), true, false); }) == 1);
  CHECK(computed_after([&] { world.now_ms += 60'000; }) == 0);   // no timer of theirs is ahead
  // A Service that is no cluster's head Service, and a Pod of no cluster's: nothing to compute.
  CHECK(computed_after([&] { create_head_service(world, "other"); }) == 0);
  CHECK(computed_after([&] { create_pod(world, "stray", "other"); }) == 0);
  CHECK(computed_after([&] { world.api.remove(Kind::Pod, kNamespace, head_pod("a"), Propagation::background, world.now_ms, 0); }) == 1);
  CHECK(computed_after([&] { world.api.remove(Kind::Service, kNamespace, "b-head-svc", Propagation::background, world.now_ms); }) == 1);
  // A relabel moves a Pod out of one cluster's Pods into another's: both change.
  CHECK(computed_after([&] {
    world.api.patch(Kind::Pod, kNamespace, worker_pod("c", 0), [](Object& object) {
      meta(object).labels.edit()[std::string(kRayClusterLabel)] = "a";
    }, world.now_ms);
  }) == 2);
}

TEST_CASE("a listing after writes to one cluster looks at that cluster's answer only") {
  const RayClusterController kept(kBehaviour, RayClusterReadiness::desired_pods_ready);
  World world = clusters_with_pods();
  world.now_ms = 30'000;
  const auto checked_after = [&](const std::function<void()>& write) {
    const std::size_t before = kept.cluster_answers_checked();
    write();
    REQUIRE(list(kept, world) == fresh_listing(RayClusterReadiness::desired_pods_ready, world));
    return kept.cluster_answers_checked() - before;
  };
  CHECK(checked_after([] {}) == kClusters.size());   // the first listing checks every one
  CHECK(checked_after([] {}) == 0);
  CHECK(checked_after([&] { set_pod_status(world, worker_pod("a", 1), true, true); }) == 1);
  CHECK(checked_after([&] { world.now_ms += 60'000; }) == 0);   // no window of theirs ends
  CHECK(checked_after([&] { create_head_service(world, "other"); }) == 0);
  CHECK(checked_after([&] { create_pod(world, "stray", "other"); }) == 0);
  CHECK(checked_after([&] {
    world.api.patch_status(Kind::RayCluster, kNamespace, "b", [](Object& object) {
      std::get<RayCluster>(object).status.edit().state = "ready";
    }, world.now_ms);
    world.api.remove(Kind::Service, kNamespace, "b-head-svc", Propagation::background, world.now_ms);
  }) == 1);
  // A cluster comes ("aa" between "a" and "b": the others' places move) or goes: its answer only
  // is looked at, and the others keep theirs.
  CHECK(checked_after([&] { create_cluster(world, "aa"); }) == 1);
  CHECK(checked_after([&] { world.api.remove(Kind::RayCluster, kNamespace, "aa", Propagation::background, world.now_ms); }) == 0);
  CHECK(checked_after([&] {
    create_cluster(world, "0");   // before every other
    create_cluster(world, "d");   // after every other
    create_cluster(world, "bb");
  }) == 3);
  CHECK(checked_after([&] {
    world.api.remove(Kind::RayCluster, kNamespace, "0", Propagation::background, world.now_ms);
    create_cluster(world, "ab");
  }) == 1);
  // Deleted and created again under its name before a listing: another cluster, looked at anew.
  CHECK(checked_after([&] {
    world.api.remove(Kind::RayCluster, kNamespace, "bb", Propagation::background, world.now_ms);
    create_cluster(world, "bb");
  }) == 1);
  // Created and deleted between two listings: never listed.
  CHECK(checked_after([&] {
    create_cluster(world, "e");
    world.api.remove(Kind::RayCluster, kNamespace, "e", Propagation::background, world.now_ms);
  }) == 0);
  CHECK(checked_after([&] { set_pod_status(world, head_pod("c"), true, false); }) == 1);
  // Another run from an earlier world: its logs do not continue the ones followed.
  World earlier = world;
  CHECK(checked_after([&] { set_pod_status(world, head_pod("a"), true, false); }) == 1);
  const std::size_t clusters = earlier.api.objects(Kind::RayCluster).size();   // kClusters and "ab", "bb", "d"
  CHECK(clusters == kClusters.size() + 3);
  CHECK(checked_after([&] { world = earlier; }) == clusters);
}

TEST_CASE("a Pod created or deleted computes again only the answers that looked a Pod of its name up") {
  const RayClusterController kept(kBehaviour, RayClusterReadiness::desired_pods_ready);
  World world = clusters_with_head_services();
  // Before readyAfter, without Pods: each cluster looked up its head Pod and its first worker.
  const auto computed_after = [&](const std::function<void()>& write) { return answers_computed_by(kept, world, write); };
  CHECK(computed_after([] {}) == kClusters.size());
  CHECK(computed_after([&] { create_pod(world, "stray", ""); }) == 0);
  CHECK(computed_after([&] { create_pod(world, head_pod("a"), "a"); }) == 1);
  // A Pod of another cluster's under b's first worker's name: b's answer read that name's absence.
  CHECK(computed_after([&] { create_pod(world, worker_pod("b", 0), "other"); }) == 1);
  // c's second worker was not looked up (its first is missing), and the Pod is not c's.
  CHECK(computed_after([&] { create_pod(world, worker_pod("c", 1), "other"); }) == 0);
  // Two writes before one listing: both are followed.
  CHECK(computed_after([&] {
    world.api.remove(Kind::Pod, kNamespace, "stray", Propagation::background, world.now_ms, 0);
    world.api.remove(Kind::Pod, kNamespace, worker_pod("b", 0), Propagation::background, world.now_ms, 0);
  }) == 1);
  // Another run from an earlier world: its log does not continue the one followed, so every
  // answer that read a Pod's absence is computed again, but b's: it was computed in that very
  // world (after b's first worker went), whose stamps it holds.
  World earlier = world;
  CHECK(computed_after([&] { create_pod(world, "stray", ""); }) == 0);
  CHECK(computed_after([&] { world = earlier; }) == kClusters.size() - 1);
}

}  // namespace
}  // namespace raycluster_answers_test
