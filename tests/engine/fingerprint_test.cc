// World fingerprints (engine/fingerprint.h): worlds that are equal apart from the step counter
// hash alike, also across runs; a change to any one part of a world changes both widths of the
// hash; a FingerprintMemo changes no fingerprint. Also how world copies share their parts, which
// the memo relies on. The worlds are taken from runs of a bundled scenario through a StepObserver.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "engine/controller_process.h"
#include "engine/fingerprint.h"
#include "engine/object_version.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"

namespace rjsim::engine {
namespace fingerprint_test {
namespace {

class WorldRecorder final : public StepObserver {
 public:
  events::EventTypes reads() const override { return events::EventTypes::none(); }
  void after_step(const World& world, const engine::StepLog&) override {
    worlds.push_back(world);
  }
  std::vector<World> worlds;
};

// The world after every step of a run of a bundled scenario: the fault-free run, or with
// `random` a seeded random walk over the step order.
std::vector<World> worlds_of_run(const char* name, bool random = false, std::uint64_t seed = 1) {
  const Scenario scenario =
      load_scenario((std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios" / name).string());
  WorldRecorder recorder;
  explore::RunOptions options;
  options.keep_events = false;
  options.faults = random;
  options.seed = seed;
  options.observers.push_back(&recorder);
  explore::run_scenario(scenario, options);
  return std::move(recorder.worlds);
}

RayJobRecord* running_ray_job(World& world) {
  for (CopyOnWrite<RayHead>& head : world.ray.edit().heads) {
    for (RayJobRecord& job : head.edit().jobs) {
      if (job.status == "RUNNING") return &job;
    }
  }
  return nullptr;
}

// A world in the middle of k8sjobmode-success: the submitter has submitted, the Ray job runs, a
// RequeueAfter timer is pending.
World mid_run_world() {
  for (World& world : worlds_of_run("k8sjobmode-success.yaml")) {
    if (running_ray_job(world) && !world.environment->submitters.empty() &&
        world.process.queue.next_timer_ms()) {
      return std::move(world);
    }
  }
  FAIL("k8sjobmode-success never has a running Ray job, a submitter and a queue timer at once");
  return World();
}

std::vector<std::uint64_t> fingerprints(const std::vector<World>& worlds) {
  std::vector<std::uint64_t> result;
  for (const World& world : worlds) result.push_back(fingerprint(world));
  return result;
}

bool equal_but_steps(World a, const World& b) {
  a.steps = b.steps;
  return a == b;
}

// `changed` is `base` with one part changed: both widths must tell them apart.
void check_told_apart(const World& base, const World& changed) {
  REQUIRE_FALSE(base == changed);   // the change changed something
  CHECK(fingerprint(base) != fingerprint(changed));
  CHECK(fingerprint128(base) != fingerprint128(changed));
}

const ObjectMeta& the_rayjob(const World& world) {
  REQUIRE(world.api.objects(Kind::RayJob).size() == 1);
  return meta(world.api.objects(Kind::RayJob)[0]);
}

// `world` with one write to its RayJob: `mutate` edits the object (spec and metadata through a
// patch of the main resource, status through /status), which takes the next rv and logs it.
template <class Mutate>
World after_rayjob_write(World world, bool status, Mutate mutate) {
  const ObjectMeta rayjob = the_rayjob(world);
  auto edit = [&](Object& object) { mutate(std::get<RayJob>(object)); };
  const WriteOutcome outcome =
      status
          ? world.api.patch_status(Kind::RayJob, rayjob.namespace_, rayjob.name, edit, world.now_ms)
          : world.api.patch(Kind::RayJob, rayjob.namespace_, rayjob.name, edit, world.now_ms);
  REQUIRE_FALSE(outcome.error);
  REQUIRE(outcome.changed);
  return world;
}

// Edits for after_rayjob_write: the label team=`value`.
auto label(std::string value) {
  return [value](RayJob& job) { job.metadata.labels.edit()["team"] = value; };
}

// `world` after two patches of its RayJob's labels: team=`first`, then team=`second`.
World after_two_labels(const World& world, const char* first, const char* second) {
  return after_rayjob_write(after_rayjob_write(world, false, label(first)), false, label(second));
}

TEST_CASE("a copy of a world has the same fingerprint") {
  const World world = mid_run_world();
  const World copy = world;
  CHECK(fingerprint(copy) == fingerprint(world));
  CHECK(fingerprint128(copy) == fingerprint128(world));
}

TEST_CASE("the same scenario and seed give the same fingerprint at every step") {
  const char* scenario = "k8sjobmode-success.yaml";
  const std::vector<std::uint64_t> first = fingerprints(worlds_of_run(scenario, true, 7));
  const std::vector<std::uint64_t> again = fingerprints(worlds_of_run(scenario, true, 7));
  CHECK(first == again);
  // The schedule depends on the seed, and so do the fingerprints along it.
  CHECK(first != fingerprints(worlds_of_run(scenario, true, 8)));
}

TEST_CASE("fingerprints along a run are equal exactly where the worlds are equal, steps aside") {
  const std::vector<World> worlds = worlds_of_run("suspend-in-initializing-then-resume.yaml");
  REQUIRE(worlds.size() > 50);
  std::set<std::uint64_t> distinct;
  for (std::size_t i = 0; i < worlds.size(); ++i) {
    const std::uint64_t fingerprint_i = fingerprint(worlds[i]);
    distinct.insert(fingerprint_i);
    for (std::size_t j = i + 1; j < worlds.size(); ++j) {
      if (equal_but_steps(worlds[i], worlds[j]) != (fingerprint_i == fingerprint(worlds[j]))) {
        FAIL("worlds after steps ", i, " and ", j, " are ",
             equal_but_steps(worlds[i], worlds[j]) ? "equal" : "different",
             " but their fingerprints are not");
      }
    }
  }
  CHECK(distinct.size() > worlds.size() / 2);
}

TEST_CASE("worlds that differ only in the step counter have one fingerprint") {
  const World world = mid_run_world();
  World later = world;
  later.steps += 1000;
  REQUIRE_FALSE(later == world);
  CHECK(fingerprint(later) == fingerprint(world));
  CHECK(fingerprint128(later) == fingerprint128(world));
}

TEST_CASE("a version that shares its spec with the one it came from has the digest of its contents") {
  RayJob rayjob;
  rayjob.metadata.name = "rayjob-sample";
  rayjob.metadata.namespace_ = "default";
  rayjob.spec.edit().entrypoint = "python /home/ray/samples/sample_code.py";
  const ObjectVersion stored(rayjob, /*with_digest=*/true);

  RayJob status_written = rayjob;   // shares the spec, as ApiServer::commit_change keeps it
  status_written.status.job_deployment_status = "Running";
  const ObjectVersion next(status_written, true, stored);
  CHECK(next.digest() == content_digest(status_written));
  CHECK(next.digest() == ObjectVersion(status_written, true).digest());
  CHECK(next.digest() != stored.digest());

  RayJob spec_changed = rayjob;
  spec_changed.spec.edit().suspend = true;   // a spec of its own: its digest is taken again
  const ObjectVersion changed(spec_changed, true, stored);
  CHECK(changed.digest() == content_digest(spec_changed));
  CHECK(changed.digest() != stored.digest());
}

TEST_CASE("a change to any one part of the world changes its fingerprint") {
  const World base = mid_run_world();
  const std::string key = key_of(the_rayjob(base));

  SUBCASE("virtual time") {
    World changed = base;
    changed.now_ms += 1;
    check_told_apart(base, changed);
  }
  SUBCASE("an object's status field") {
    auto message = [](std::string text) {
      return [text](RayJob& job) { job.status.message = text; };
    };
    check_told_apart(after_rayjob_write(base, true, message("a")),
                     after_rayjob_write(base, true, message("b")));
  }
  SUBCASE("a label") {
    check_told_apart(after_rayjob_write(base, false, label("a")),
                     after_rayjob_write(base, false, label("b")));
  }
  SUBCASE("a finalizer") {
    auto finalizer = [](std::string name) {
      return [name](RayJob& job) { job.metadata.finalizers.edit().push_back(name); };
    };
    check_told_apart(after_rayjob_write(base, false, finalizer("example.com/a")),
                     after_rayjob_write(base, false, finalizer("example.com/b")));
  }
  SUBCASE("the resourceVersion counter") {
    // Every rv the server hands out is logged, so the counter never moves alone: the same labels
    // reached by one write or by two differ in the counter, the object's rv and the log.
    const World one_write = after_rayjob_write(base, false, label("b"));
    const World two_writes = after_two_labels(base, "a", "b");
    REQUIRE(two_writes.api.resource_version() == one_write.api.resource_version() + 1);
    check_told_apart(one_write, two_writes);
  }
  SUBCASE("a watch log's history") {
    // The same object at the same rv, reached through a different intermediate state: only the
    // log (and so the server's digest of it) differs.
    const World through_a = after_two_labels(base, "a", "c");
    const World through_b = after_two_labels(base, "b", "c");
    REQUIRE(through_a.api.objects(Kind::RayJob)[0] == through_b.api.objects(Kind::RayJob)[0]);
    check_told_apart(through_a, through_b);
  }
  SUBCASE("an informer's position in its kind's watch log, and its cache") {
    // The cache follows from the log and the positions (what was received, what is pending), so
    // it never changes alone.
    const World written = after_rayjob_write(base, false, label("a"));
    World received = written;
    receive_watch_events(received, Kind::RayJob);   // the reflector got it; not applied yet
    check_told_apart(written, received);
    World applied = received;
    Informer& informer = applied.edit_informer(Kind::RayJob);
    REQUIRE(informer.pending_events() > 0);
    informer.pop(applied.api.watch_log(Kind::RayJob));   // now the cache has it
    check_told_apart(received, applied);
  }
  SUBCASE("a queue entry") {
    World changed = base;
    changed.process.queue.add("default/another", base.now_ms);
    check_told_apart(base, changed);
  }
  SUBCASE("a queue timer") {
    World sooner = base;
    World later = base;
    sooner.process.queue.add_after("default/another", 1'000, base.now_ms);
    later.process.queue.add_after("default/another", 2'000, base.now_ms);
    check_told_apart(sooner, later);
  }
  SUBCASE("the queue's error backoff for a key") {
    World backing_off = base;
    backing_off.process.queue.add_rate_limited(key, base.now_ms);
    World forgotten = backing_off;   // the same timer and bucket; the failure count reset
    forgotten.process.queue.forget(key);
    REQUIRE(backing_off.process.queue.num_requeues(key) == 1);
    check_told_apart(backing_off, forgotten);
  }
  SUBCASE("faults used") {
    World changed = base;
    changed.faults_used.conflicts += 1;
    check_told_apart(base, changed);
  }
  SUBCASE("a Ray job's status") {
    World changed = base;
    running_ray_job(changed)->status = "FAILED";
    check_told_apart(base, changed);
  }
  SUBCASE("a submitter process") {
    World changed = base;
    changed.environment.edit().submitters.front().submit_outcome = "http_error";
    check_told_apart(base, changed);
  }
  SUBCASE("the controller process") {
    World changed = base;
    changed.process.incarnation += 1;
    check_told_apart(base, changed);
  }
}

// `world` with a Service `name` created in the default namespace.
World after_service_created(World world, const char* name) {
  Service service;
  service.metadata.name = name;
  service.metadata.namespace_ = "default";
  Object object = std::move(service);
  REQUIRE_FALSE(world.api.create(object, world.now_ms).error);
  return world;
}

// A Job its informer's selector (created-by=kuberay-operator) does not select: its watch events
// are never sent, so when it was written matters to no delivery.
TEST_CASE("when an event the watch does not send was written is no part of the fingerprint; when a sent one was, is") {
  const World base = mid_run_world();
  auto with_job_written_at = [&](std::int64_t at_ms, bool selected) {   // its last write
    World world = base;
    Job job;
    job.metadata.name = "a-user-job";
    job.metadata.namespace_ = "default";
    if (selected) job.metadata.labels.edit()["app.kubernetes.io/created-by"] = "kuberay-operator";
    Object object = job;
    REQUIRE_FALSE(world.api.create(object, base.now_ms).error);
    // A label write changes no timestamp: only when it was written differs.
    const WriteOutcome outcome = world.api.patch(
        Kind::Job, "default", "a-user-job", [](Object& o) { meta(o).labels.edit()["team"] = "ray"; }, at_ms);
    REQUIRE(outcome.changed);
    return world;
  };
  REQUIRE_FALSE(with_job_written_at(base.now_ms, false).api.watch_log(Kind::Job).back().sent);
  CHECK(fingerprint(with_job_written_at(base.now_ms - 1, false)) == fingerprint(with_job_written_at(base.now_ms, false)));
  CHECK(fingerprint(with_job_written_at(base.now_ms - 1, true)) != fingerprint(with_job_written_at(base.now_ms, true)));
}

TEST_CASE("writes to two kinds in either order are one state; two objects of one kind in either order are two") {
  const World base = mid_run_world();
  SUBCASE("a RayJob write and a Service create, in either order") {
    // The two orders number the writes differently (rv, and without per-kind uid counters the
    // Service's uid too), which nothing in the world can observe: each kind's log keeps its order.
    const World rayjob_first = after_service_created(after_rayjob_write(base, false, label("a")), "extra");
    const World service_first = after_rayjob_write(after_service_created(base, "extra"), false, label("a"));
    REQUIRE_FALSE(rayjob_first == service_first);
    CHECK(rayjob_first.api.find<Service>("default", "extra")->metadata.uid ==
          service_first.api.find<Service>("default", "extra")->metadata.uid);
    CHECK(fingerprint(rayjob_first) == fingerprint(service_first));
    CHECK(fingerprint128(rayjob_first) == fingerprint128(service_first));
  }
  SUBCASE("the same, and an informer received what the writes logged") {
    World rayjob_first = after_service_created(after_rayjob_write(base, false, label("a")), "extra");
    World service_first = after_rayjob_write(after_service_created(base, "extra"), false, label("a"));
    for (World* world : {&rayjob_first, &service_first}) {
      receive_watch_events(*world, Kind::RayJob);
      world->edit_informer(Kind::RayJob).pop(world->api.watch_log(Kind::RayJob));
    }
    CHECK(fingerprint(rayjob_first) == fingerprint(service_first));
  }
  SUBCASE("two Services created in either order") {
    // One kind's log order is what its informer delivers: a different future.
    const World a_first = after_service_created(after_service_created(base, "a"), "b");
    const World b_first = after_service_created(after_service_created(base, "b"), "a");
    check_told_apart(a_first, b_first);
  }
}

TEST_CASE("a memo changes no fingerprint, also when a part it remembers is then changed in place") {
  const std::vector<World> worlds = worlds_of_run("suspend-in-initializing-then-resume.yaml");
  FingerprintMemo along_the_run;
  std::size_t differ = 0;
  for (const World& world : worlds) differ += fingerprint(world, along_the_run) != fingerprint(world);
  CHECK(differ == 0);

  // Each part below is this world's alone, so an edit would change it in place, were the memo not
  // holding a copy of what it remembers: its digest would then be stale.
  World world = mid_run_world();
  FingerprintMemo memo;
  std::uint64_t last = fingerprint(world, memo);
  auto check_seen = [&](const char* change) {
    INFO(change);
    const std::uint64_t now = fingerprint(world, memo);
    CHECK(now != last);
    CHECK(now == fingerprint(world));
    last = now;
  };
  running_ray_job(world)->status = "FAILED";
  check_seen("the Ray state");
  world.environment.edit().submitters.front().submit_outcome = "http_error";
  check_seen("the environment");
  const ObjectMeta rayjob = the_rayjob(world);
  REQUIRE(world.api.patch_status(Kind::RayJob, rayjob.namespace_, rayjob.name,
                                 [](Object& object) { std::get<RayJob>(object).status.message = "changed"; },
                                 world.now_ms).changed);
  check_seen("the API server's RayJobs");
  receive_watch_events(world, Kind::RayJob);
  check_seen("the RayJob informer");
}

TEST_CASE("a memo remembers each Ray head: a change to one of several heads is seen, and a copy shares the rest") {
  World world = mid_run_world();
  RayHead other;
  other.cluster_namespace = "default";
  other.cluster_name = "other-cluster";
  other.cluster_uid = "other-uid";
  other.jobs.emplace_back().status = "RUNNING";
  world.ray.edit().heads.push_back(other);
  REQUIRE(world.ray->heads.size() == 2);
  FingerprintMemo memo;
  const std::uint64_t before = fingerprint(world, memo);

  // A snapshot's copy: editing the second head leaves the first shared with the snapshot.
  const World snapshot = world;
  world.ray.edit().heads[1].edit().jobs.front().status = "SUCCEEDED";
  CHECK(world.ray->heads[0].shares_value_with(snapshot.ray->heads[0]));
  CHECK_FALSE(world.ray->heads[1].shares_value_with(snapshot.ray->heads[1]));
  const std::uint64_t after = fingerprint(world, memo);
  CHECK(after != before);
  CHECK(after == fingerprint(world));
  CHECK(fingerprint(snapshot, memo) == before);

  // The same contents in a head of its own (not shared): one state.
  world.ray.edit().heads[1].edit().jobs.front().status = "RUNNING";
  CHECK(fingerprint(world, memo) == before);
}

TEST_CASE("a copy of a world shares its informers until it changes one, which then is its own") {
  World world = mid_run_world();
  receive_watch_events(world, Kind::RayJob);   // what is in the log is received: pending counts it all
  World copy = world;
  CHECK(copy.informer(Kind::RayJob) == world.informer(Kind::RayJob));   // shared, not copied
  const ObjectMeta rayjob = the_rayjob(copy);
  REQUIRE(copy.api.patch_status(Kind::RayJob, rayjob.namespace_, rayjob.name,
                                [](Object& object) { std::get<RayJob>(object).status.message = "changed"; },
                                copy.now_ms).changed);
  receive_watch_events(copy, Kind::RayCluster);   // nothing new for it: it stays shared
  CHECK(copy.informer(Kind::RayCluster) == world.informer(Kind::RayCluster));
  receive_watch_events(copy, Kind::RayJob);
  CHECK(copy.informer(Kind::RayJob) != world.informer(Kind::RayJob));
  CHECK(copy.informer(Kind::RayJob)->pending_events() == world.informer(Kind::RayJob)->pending_events() + 1);
}

}  // namespace
}  // namespace fingerprint_test
}  // namespace rjsim::engine

