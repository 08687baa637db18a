// The garbage collector keeps what it lists of the objects of which it lists something, found by
// following the watch logs (issue 30; followed_answers.h): after any create, delete, recreation
// under the same name (a new uid), change of ownerReferences or finalizers, its own work, and any
// return to an earlier world (another run from a snapshot), its listing is the one a collector
// that keeps nothing gives; and a write that creates or deletes no object computes the written
// object's answer only. Random sequences come from a seeded generator: a failure names the seed.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/garbage_collector.h"
#include "engine/world.h"
#include "actor_bench.h"

namespace garbage_collector_answers_test {
namespace {

using namespace rjsim::engine;

constexpr std::string_view kNamespace = "default";
const std::vector<std::string> kNames = {"first", "second", "third"};

// A kind and a name the changes below pick from: owners and dependents of every kind.
struct Pick {
  Kind kind;
  std::string name;
};
Pick pick(std::mt19937& random) {
  static constexpr Kind kKinds[] = {Kind::RayJob, Kind::RayCluster, Kind::Service, Kind::Job, Kind::Pod};
  return {kKinds[random() % 5], kNames[random() % kNames.size()]};
}

Object object_of(Kind kind, const std::string& name) {
  Object object;
  switch (kind) {
    case Kind::RayJob: object = RayJob{}; break;
    case Kind::RayCluster: object = RayCluster{}; break;
    case Kind::Service: object = Service{}; break;
    case Kind::Job: object = Job{}; break;
    case Kind::Pod: object = Pod{}; break;
  }
  meta(object).name = name;
  meta(object).namespace_ = std::string(kNamespace);
  return object;
}

// An ownerReference to the object `owner` names, if it exists (its uid then), else to a uid no
// object has.
OwnerReference reference_to(const World& world, const Pick& owner) {
  OwnerReference ref;
  ref.kind = owner.kind;
  ref.name = owner.name;
  const Object* found = world.api.find(owner.kind, kNamespace, owner.name);
  ref.uid = found ? meta(*found).uid : "gone-" + owner.name;
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

// One random change to `world`: a create (with up to `max_owners` owners), a delete by each
// propagation, a change of an object's ownerReferences or finalizers, or a write that leaves
// ownership alone.
void change_owned(World& world, std::mt19937& random, std::uint32_t max_owners) {
  const Pick target = pick(random);
  switch (random() % 7) {
    case 0:
    case 1: {
      Object object = object_of(target.kind, target.name);
      for (int owners = static_cast<int>(random() % (max_owners + 1)); owners > 0; --owners) {
        meta(object).owner_references.edit().push_back(reference_to(world, pick(random)));
      }
      world.api.create(object, world.now_ms);
      break;
    }
    case 2: {
      static constexpr Propagation kPropagations[] = {Propagation::background, Propagation::foreground,
                                                      Propagation::orphan, Propagation::server_default};
      world.api.remove(target.kind, kNamespace, target.name, kPropagations[random() % 4], world.now_ms);
      break;
    }
    case 3: {
      const OwnerReference added = reference_to(world, pick(random));
      const bool clear = random() % 2 == 0;
      world.api.patch(target.kind, kNamespace, target.name, [&](Object& object) {
        auto& owners = meta(object).owner_references.edit();
        if (clear) {
          owners.clear();
          return;
        }
        if (max_owners == 1) owners.clear();   // the new owner replaces the old
        owners.push_back(added);
      }, world.now_ms);
      break;
    }
    case 4:
      world.api.patch(target.kind, kNamespace, target.name, [](Object& object) {
        auto& finalizers = meta(object).finalizers.edit();
        if (finalizers.empty()) finalizers.emplace_back("example.com/keep"); else finalizers.clear();
      }, world.now_ms);
      break;
    case 5:
      world.api.patch(target.kind, kNamespace, target.name, [](Object& object) {
        meta(object).labels.edit()["touched"] = "yes";
      }, world.now_ms);
      break;
    default: world.now_ms += 1'000; break;
  }
}

// Objects with up to two owners (one not its controller, when two).
void change(World& world, std::mt19937& random) { change_owned(world, random, 2); }
// Objects owned by their controller alone: whom an owner's create or delete concerns is named by
// the API server's controller index.
void change_controlled(World& world, std::mt19937& random) { change_owned(world, random, 1); }

std::vector<ActorWork> listing(const GarbageCollector& collector, const World& world) {
  std::vector<ActorWork> work;
  collector.enabled(world, work);
  return work;
}

}  // namespace

TEST_CASE("the garbage collector's kept answers list what a fresh collector lists, across writes and returns "
          "to earlier worlds") {
  const std::size_t garbage_listed =
      rjsim::testing::compare_kept_with_fresh(40, [] { return std::make_unique<GarbageCollector>(); }, change);
  CHECK(garbage_listed > 1'000);   // the sequences do make garbage and finalizer work
}

TEST_CASE("the garbage collector's kept answers list what a fresh collector lists when each object is owned by "
          "its controller alone") {
  const std::size_t garbage_listed = rjsim::testing::compare_kept_with_fresh(
      40, [] { return std::make_unique<GarbageCollector>(); }, change_controlled);
  CHECK(garbage_listed > 1'000);
}

TEST_CASE("a write that creates or deletes nothing computes the written object's answer only") {
  const GarbageCollector kept;
  World world;
  Object owner = object_of(Kind::RayCluster, "owner");
  world.api.create(owner, 0);
  for (const std::string& name : kNames) {
    Object pod = object_of(Kind::Pod, name);
    meta(pod).owner_references.edit().push_back(reference_to(world, {Kind::RayCluster, "owner"}));
    world.api.create(pod, 0);
  }
  const std::size_t objects = kNames.size() + 1;
  (void)listing(kept, world);
  CHECK(kept.garbage_answers_computed() == objects);   // the first listing asks about every object
  (void)listing(kept, world);
  CHECK(kept.garbage_answers_computed() == objects);   // nothing changed: all kept

  world.api.patch(Kind::Pod, kNamespace, "second", [](Object& pod) { meta(pod).labels.edit()["x"] = "y"; }, 0);
  (void)listing(kept, world);
  CHECK(kept.garbage_answers_computed() == objects + 1);

  // The owner goes: every Pod's answer is computed again (the owner, gone, has none), and each is
  // garbage.
  world.api.remove(Kind::RayCluster, kNamespace, "owner", Propagation::background, 0);
  const std::vector<ActorWork> work = listing(kept, world);
  CHECK(kept.garbage_answers_computed() == objects + 1 + kNames.size());
  REQUIRE(work.size() == 1);   // a gone owner's Pods go in one step
  CHECK(work.front().object == "RayCluster/default/owner");
}

TEST_CASE("a create or delete of an owner computes the answers of the objects it controls only, unless "
          "their kind has objects with other owners") {
  const GarbageCollector kept;
  World world;
  for (const std::string owner : {"one", "two"}) {
    Object cluster = object_of(Kind::RayCluster, owner);
    world.api.create(cluster, 0);
    for (const std::string& name : kNames) {
      Object pod = object_of(Kind::Pod, owner + "-" + name);
      meta(pod).owner_references.edit().push_back(reference_to(world, {Kind::RayCluster, owner}));
      world.api.create(pod, 0);
    }
  }
  std::size_t computed = 2 + 2 * kNames.size();
  (void)listing(kept, world);
  REQUIRE(kept.garbage_answers_computed() == computed);

  // "one" goes: its Pods are asked again, those of "two" are not.
  world.api.remove(Kind::RayCluster, kNamespace, "one", Propagation::background, 0);
  CHECK(listing(kept, world).size() == 1);
  computed += kNames.size();
  CHECK(kept.garbage_answers_computed() == computed);

  // A Pod owned by "two" and, not as its controller, by a Service: a Service's create or delete
  // may change any Pod's answer, and every Pod is asked again.
  Object service = object_of(Kind::Service, "svc");
  world.api.create(service, 0);
  Object shared = object_of(Kind::Pod, "shared");
  meta(shared).owner_references.edit().push_back(reference_to(world, {Kind::RayCluster, "two"}));
  OwnerReference by_service = reference_to(world, {Kind::Service, "svc"});
  by_service.controller = false;
  meta(shared).owner_references.edit().push_back(by_service);
  world.api.create(shared, 0);
  (void)listing(kept, world);
  computed += 2;   // the Service and the new Pod
  CHECK(kept.garbage_answers_computed() == computed);
  world.api.remove(Kind::Service, kNamespace, "svc", Propagation::background, 0);
  (void)listing(kept, world);
  CHECK(kept.garbage_answers_computed() == computed + world.api.objects(Kind::Pod).size());
}

}  // namespace garbage_collector_answers_test
