// Garbage collector rules (kubernetes-semantics §2.2 "Garbage collection by ownerReferences" and
// "Propagation policy", §7.3): dependents of a deleted owner (matched by uid) go in later steps
// of their own, never in the owner's delete; a same-name owner with a new uid does not save
// them; orphan propagation strips ownerReferences, then the orphan finalizer, and the dependents
// stay; foreground propagation deletes the dependents before the owner goes.
#include "engine/garbage_collector.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chooser.h"
#include "engine/controller.h"
#include "engine/simulation.h"
#include "idle_controller.h"
#include "events/event.h"

namespace garbage_collector_test {
namespace {

using rjsim::engine::ActorWork;
using rjsim::engine::ApiServer;
using rjsim::engine::Clients;
using rjsim::engine::Controller;
using rjsim::engine::DefaultChooser;
using rjsim::engine::FifoBehaviour;
using rjsim::engine::GarbageCollector;
using rjsim::engine::has_finalizer;
using rjsim::engine::Job;
using rjsim::engine::Service;
using rjsim::engine::kForegroundFinalizer;
using rjsim::engine::Kind;
using rjsim::engine::kOrphanFinalizer;
using rjsim::engine::meta;
using rjsim::engine::Object;
using rjsim::engine::OwnerReference;
using rjsim::engine::Pod;
using rjsim::engine::Propagation;
using rjsim::engine::QueueBehaviour;
using rjsim::engine::RayCluster;
using rjsim::engine::RayJob;
using rjsim::engine::ReconcileResult;
using rjsim::engine::ReleaseEnvironment;
using rjsim::engine::Request;
using rjsim::engine::RunEnd;
using rjsim::engine::Simulation;
using rjsim::engine::StepContext;
using rjsim::engine::Watches;
using rjsim::testing::IdleController;
using rjsim::testing::named;
using rjsim::engine::WatchEvent;
using rjsim::engine::WatchType;
using rjsim::engine::World;

constexpr std::string_view kNamespace = "default";

// The ownerReference controllerutil.SetControllerReference writes.
OwnerReference controller_reference(const Object& owner) {
  OwnerReference ref;
  ref.kind = rjsim::engine::kind_of(owner);
  ref.name = meta(owner).name;
  ref.uid = meta(owner).uid;
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

Object create(ApiServer& api, Object object) {
  REQUIRE(!api.create(object, 0).error);
  return object;
}

Object create_owned(ApiServer& api, Object object, const Object& owner) {
  meta(object).owner_references.edit().push_back(controller_reference(owner));
  return create(api, std::move(object));
}

bool exists(const ApiServer& api, Kind kind, std::string_view name) {
  return api.find(kind, kNamespace, name) != nullptr;
}

// A world and the means to run actor work on it as steps, outside a Simulation.
struct Bench {
  World world;
  DefaultChooser chooser{1};
  std::int64_t next_seq = 0;
  rjsim::engine::StepEvents events;
  rjsim::events::EventTypes every_type = rjsim::events::EventTypes::all();
  StepContext context{world, chooser, next_seq, events, every_type};
  GarbageCollector gc;

  ApiServer& api() { return world.api; }

  std::vector<ActorWork> work() const {
    std::vector<ActorWork> out;
    gc.enabled(world, out);
    return out;
  }
  // Applies one enabled piece of work, the first (as the fault-free schedule would) or the last
  // (another order the chooser may pick); false if none is enabled.
  bool step(bool pick_last = false) {
    const std::vector<ActorWork> enabled = work();
    if (enabled.empty()) return false;
    gc.apply(pick_last ? enabled.back() : enabled.front(), context);
    return true;
  }
};

const WatchEvent* deleted_event(const ApiServer& api, Kind kind, std::string_view name) {
  for (const WatchEvent& event : api.watch_log(kind)) {
    if (event.type == WatchType::Deleted && meta(event.object).name == name) return &event;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("garbage_collector") {

TEST_CASE("a dependent of a deleted owner is removed by the GC in a later step, not in the "
          "owner's delete") {
  IdleController controller;
  GarbageCollector gc;
  DefaultChooser chooser(1);
  rjsim::events::MemorySink sink;
  Simulation simulation(Simulation::initial_world(controller), controller, {&gc}, chooser, sink);
  World& world = simulation.mutable_world();
  const Object owner = create(world.api, named<RayJob>("job"));
  create_owned(world.api, named<RayCluster>("cluster"), owner);

  simulation.run_as_step([](StepContext& context) {
    REQUIRE(!context.world()
                 .api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, 0)
                 .error);
  });

  CHECK(!exists(simulation.world().api, Kind::RayJob, "job"));
  CHECK(exists(simulation.world().api, Kind::RayCluster, "cluster"));   // not in the same step
  const std::int64_t steps_after_delete = simulation.world().steps;

  CHECK(simulation.run() == RunEnd::quiescent);

  CHECK(!exists(simulation.world().api, Kind::RayCluster, "cluster"));
  CHECK(simulation.world().steps > steps_after_delete);
  const auto gc_delete = std::find_if(sink.events.begin(), sink.events.end(), [](const auto& e) {
    return e.type == "api.delete" && e.actor == "gc" && e.object == "RayCluster/default/cluster";
  });
  CHECK(gc_delete != sink.events.end());
}

TEST_CASE("no GC work while every owner exists") {
  Bench bench;
  const Object owner = create(bench.api(), named<RayCluster>("cluster"));
  create_owned(bench.api(), named<Pod>("head"), owner);

  CHECK(bench.work().empty());
  CHECK(!bench.step());
  CHECK(exists(bench.api(), Kind::Pod, "head"));
}

TEST_CASE("Background delete of a RayCluster: its Pods stay until the GC deletes them, all of the owner's in one "
          "step of its own, and its Service in another") {
  Bench bench;
  const Object owner = create(bench.api(), named<RayCluster>("cluster"));
  create_owned(bench.api(), named<Pod>("head"), owner);
  create_owned(bench.api(), named<Pod>("worker"), owner);
  create_owned(bench.api(), named<Service>("head-svc"), owner);
  const auto outcome =
      bench.api().remove(Kind::RayCluster, kNamespace, "cluster", Propagation::background, 0);
  REQUIRE(outcome.watch_type == WatchType::Deleted);
  REQUIRE(!exists(bench.api(), Kind::RayCluster, "cluster"));
  CHECK(exists(bench.api(), Kind::Pod, "head"));
  CHECK(exists(bench.api(), Kind::Pod, "worker"));
  CHECK(bench.work().size() == 2);   // the Service; the Pods of RayCluster/default/cluster

  const std::vector<ActorWork> work = bench.work();
  const auto service = std::find_if(work.begin(), work.end(), [](const ActorWork& w) { return w.object.str().starts_with("Service/"); });
  REQUIRE(service != work.end());
  bench.gc.apply(*service, bench.context);
  CHECK(!exists(bench.api(), Kind::Service, "head-svc"));
  CHECK(exists(bench.api(), Kind::Pod, "head"));   // the Service's step deleted nothing else
  CHECK(exists(bench.api(), Kind::Pod, "worker"));

  REQUIRE(bench.step());
  CHECK(!exists(bench.api(), Kind::Pod, "head"));
  CHECK(!exists(bench.api(), Kind::Pod, "worker"));
  const WatchEvent* head_deleted = deleted_event(bench.api(), Kind::Pod, "head");
  REQUIRE(head_deleted != nullptr);
  CHECK(head_deleted->resource_version > outcome.resource_version_after);
  CHECK(bench.work().empty());
}

TEST_CASE("the GC's delete of an owner's Pods deletes the garbage Pods of the world it is applied in, not of the "
          "world it last listed") {
  // The Pods it deletes come from its kept answers: they must be brought to the world the work is
  // applied in (here another run's, one Pod more and one fewer than the world listed).
  Bench bench;
  const Object owner = create(bench.api(), named<RayCluster>("cluster"));
  create_owned(bench.api(), named<Pod>("head"), owner);
  create_owned(bench.api(), named<Pod>("worker-1"), owner);
  REQUIRE(!bench.api().remove(Kind::RayCluster, kNamespace, "cluster", Propagation::background, 0).error);
  const World listed = bench.world;
  create_owned(bench.api(), named<Pod>("worker-2"), owner);
  REQUIRE(!bench.api().remove(Kind::Pod, kNamespace, "worker-1", Propagation::background, 0, 0).error);
  const World applied_in = bench.world;

  bench.world = listed;
  const std::vector<ActorWork> work = bench.work();
  REQUIRE(work.size() == 1);   // the Pods of RayCluster/default/cluster
  bench.world = applied_in;
  bench.gc.apply(work.front(), bench.context);
  CHECK(!exists(bench.api(), Kind::Pod, "head"));
  CHECK(!exists(bench.api(), Kind::Pod, "worker-2"));
  CHECK(std::count_if(bench.api().watch_log(Kind::Pod).begin(), bench.api().watch_log(Kind::Pod).end(),
                      [](const WatchEvent& event) { return event.type == WatchType::Deleted; }) == 3);
}

TEST_CASE("an owner recreated with the same name but a new uid does not save its dependents") {
  Bench bench;
  const Object first = create(bench.api(), named<RayCluster>("cluster"));
  create_owned(bench.api(), named<Pod>("old-head"), first);
  REQUIRE(!bench.api()
               .remove(Kind::RayCluster, kNamespace, "cluster", Propagation::background, 0)
               .error);
  const Object second = create(bench.api(), named<RayCluster>("cluster"));
  REQUIRE(meta(second).uid != meta(first).uid);
  create_owned(bench.api(), named<Pod>("new-head"), second);

  while (bench.step()) {}

  CHECK(!exists(bench.api(), Kind::Pod, "old-head"));
  CHECK(exists(bench.api(), Kind::Pod, "new-head"));
  CHECK(exists(bench.api(), Kind::RayCluster, "cluster"));
}

TEST_CASE("a dependent with one owner left is not garbage") {
  Bench bench;
  const Object gone = create(bench.api(), named<RayCluster>("gone"));
  const Object kept = create(bench.api(), named<RayJob>("kept"));
  Object shared = named<Pod>("shared");
  meta(shared).owner_references = std::vector<OwnerReference>{controller_reference(gone), controller_reference(kept)};
  meta(shared).owner_references.edit()[1].controller = false;
  create(bench.api(), shared);
  REQUIRE(!bench.api().remove(Kind::RayCluster, kNamespace, "gone", Propagation::background, 0).error);

  CHECK(bench.work().empty());
  CHECK(exists(bench.api(), Kind::Pod, "shared"));
}

TEST_CASE("a Job deleted with the server default orphans its pods: ownerReferences go first, then "
          "the orphan finalizer, and the Job disappears while the pods stay") {
  Bench bench;
  const Object job = create(bench.api(), named<Job>("submitter"));
  create_owned(bench.api(), named<Pod>("submitter-a"), job);
  create_owned(bench.api(), named<Pod>("submitter-b"), job);
  REQUIRE(!bench.api().remove(Kind::Job, kNamespace, "submitter", Propagation::server_default, 0).error);
  const Object* lingering = bench.api().find(Kind::Job, kNamespace, "submitter");
  REQUIRE(lingering != nullptr);
  REQUIRE(has_finalizer(meta(*lingering), kOrphanFinalizer));

  // Whichever enabled work the chooser picks first, the Job never goes while a pod still
  // references it.
  bool pick_last = false;
  SUBCASE("first enabled work first") { pick_last = false; }
  SUBCASE("last enabled work first") { pick_last = true; }
  int steps = 0;
  while (bench.step(pick_last)) {
    REQUIRE(++steps <= 10);
    if (!exists(bench.api(), Kind::Job, "submitter")) {
      for (const Object& pod : bench.api().objects(Kind::Pod)) {
        CHECK(meta(pod).owner_references->empty());
      }
    }
  }

  CHECK(steps == 3);   // two ownerReference removals, then the finalizer
  CHECK(!exists(bench.api(), Kind::Job, "submitter"));
  const WatchEvent* job_deleted = deleted_event(bench.api(), Kind::Job, "submitter");
  REQUIRE(job_deleted != nullptr);
  CHECK(has_finalizer(meta(job_deleted->object), kOrphanFinalizer));
  for (std::string_view name : {"submitter-a", "submitter-b"}) {
    CAPTURE(name);
    const Pod* pod = bench.api().find<Pod>(kNamespace, name);
    REQUIRE(pod != nullptr);
    CHECK(pod->metadata.owner_references->empty());
    CHECK(!pod->metadata.deletion_timestamp_ms.has_value());
    CHECK(pod->metadata.resource_version < job_deleted->resource_version);
  }
  CHECK(deleted_event(bench.api(), Kind::Pod, "submitter-a") == nullptr);
}

TEST_CASE("foreground deletion deletes the dependents before the owner goes") {
  Bench bench;
  const Object owner = create(bench.api(), named<RayCluster>("cluster"));
  create_owned(bench.api(), named<Pod>("head"), owner);
  create_owned(bench.api(), named<Pod>("worker"), owner);
  REQUIRE(!bench.api().remove(Kind::RayCluster, kNamespace, "cluster", Propagation::foreground, 0).error);
  REQUIRE(exists(bench.api(), Kind::RayCluster, "cluster"));

  // Whichever enabled work the chooser picks first, the owner never goes before its dependents.
  bool pick_last = false;
  SUBCASE("first enabled work first") { pick_last = false; }
  SUBCASE("last enabled work first") { pick_last = true; }
  int steps = 0;
  while (bench.step(pick_last)) {
    REQUIRE(++steps <= 10);
    if (!exists(bench.api(), Kind::RayCluster, "cluster")) {
      CHECK(bench.api().objects(Kind::Pod).empty());
    }
  }

  CHECK(steps == 3);   // two dependents, then the foregroundDeletion finalizer
  CHECK(!exists(bench.api(), Kind::RayCluster, "cluster"));
  const WatchEvent* owner_deleted = deleted_event(bench.api(), Kind::RayCluster, "cluster");
  REQUIRE(owner_deleted != nullptr);
  CHECK(has_finalizer(meta(owner_deleted->object), kForegroundFinalizer));
  for (std::string_view name : {"head", "worker"}) {
    CAPTURE(name);
    const WatchEvent* pod_deleted = deleted_event(bench.api(), Kind::Pod, name);
    REQUIRE(pod_deleted != nullptr);
    CHECK(pod_deleted->resource_version < owner_deleted->resource_version);
  }
}

}  // TEST_SUITE

}  // namespace garbage_collector_test
