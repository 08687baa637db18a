// API server rules (kubernetes-semantics §2.2, §7.3): uid, resourceVersion and generation on
// create; AlreadyExists, also for a name being deleted; the rv precondition of update and
// update_status, checked before the no-op short-circuit; status-subresource masking; merge
// patches without precondition; deletion with finalizers and propagation policies; one watch
// event per changing write and none for a no-op. Each test builds the smallest server that
// shows one rule, writes once, and asserts what the server holds and what its watch logs say.
#include "engine/api_server.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace api_server_test {
namespace {

using rjsim::engine::ApiServer;
using rjsim::engine::ErrorCode;
using rjsim::engine::has_finalizer;
using rjsim::engine::Hash128;
using rjsim::engine::Job;
using rjsim::engine::Kind;
using rjsim::engine::kAllKinds;
using rjsim::engine::kForegroundFinalizer;
using rjsim::engine::kOrphanFinalizer;
using rjsim::engine::meta;
using rjsim::engine::Object;
using rjsim::engine::Pod;
using rjsim::engine::Propagation;
using rjsim::engine::RayCluster;
using rjsim::engine::RayJob;
using rjsim::engine::WatchType;
using rjsim::engine::WriteOutcome;

constexpr std::int64_t kCreatedAt = 1'000;
constexpr std::int64_t kDeletedAt = 2'000;
constexpr std::string_view kNamespace = "default";
constexpr std::string_view kUserFinalizer = "ray.io/rayjob-finalizer";

template <class T>
Object named(std::string_view name) {
  T typed;
  typed.metadata.name = std::string(name);
  typed.metadata.namespace_ = std::string(kNamespace);
  return typed;
}

Object rayjob(std::string_view name = "job") {
  Object object = named<RayJob>(name);
  std::get<RayJob>(object).spec.edit().entrypoint = "python main.py";
  return object;
}

Object batch_job(std::string_view name = "job") { return named<Job>(name); }

Object pod(std::string_view name = "pod") { return named<Pod>(name); }

// Creates `object` and returns the stored copy (uid, rv, generation set by the server).
Object created(ApiServer& api, Object object) {
  const WriteOutcome outcome = api.create(object, kCreatedAt);
  REQUIRE(!outcome.error);
  return object;
}

const Object& stored(const ApiServer& api, const Object& object) {
  const Object* found = api.find(rjsim::engine::kind_of(object), meta(object).namespace_,
                                 meta(object).name);
  REQUIRE(found != nullptr);
  return *found;
}

// Watch events over every kind's log.
std::size_t total_watch_events(const ApiServer& api) {
  std::size_t total = 0;
  for (Kind kind : kAllKinds) total += api.watch_log(kind).size();
  return total;
}

// The stored object of type T named `name`; REQUIREs that it exists.
template <class T>
const T& stored_as(const ApiServer& api, std::string_view name) {
  const T* found = api.find<T>(kNamespace, name);
  REQUIRE(found != nullptr);
  return *found;
}

RayJob& as_rayjob(Object& object) { return std::get<RayJob>(object); }

}  // namespace

TEST_SUITE("api_server") {

// ---- create ----------------------------------------------------------------------------------

TEST_CASE("create assigns a uid, the next global resourceVersion, generation 1 and an ADDED event") {
  ApiServer api;
  const Object first = created(api, rayjob("a"));
  const Object second = created(api, batch_job("a"));   // another kind: the same counter
  Object third = pod("a");
  const WriteOutcome outcome = api.create(third, kCreatedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.changed);
  CHECK(outcome.watch_type == WatchType::Added);
  CHECK(meta(first).resource_version == 1);
  CHECK(meta(second).resource_version == 2);
  CHECK(meta(third).resource_version == 3);
  CHECK(outcome.resource_version_after == 3);
  CHECK(api.resource_version() == 3);
  CHECK(!meta(first).uid.empty());
  CHECK(meta(first).uid != meta(second).uid);
  CHECK(meta(second).uid != meta(third).uid);
  CHECK(meta(third).generation == 1);
  CHECK(meta(third).creation_timestamp_ms == kCreatedAt);
  CHECK(stored(api, third) == third);
  REQUIRE(api.watch_log(Kind::Pod).size() == 1);
  CHECK(api.watch_log(Kind::Pod)[0].type == WatchType::Added);
  CHECK(api.watch_log(Kind::Pod)[0].resource_version == 3);
  CHECK(api.watch_log(Kind::Pod)[0].object == third);
}

TEST_CASE("create of a name that exists fails with AlreadyExists and changes nothing") {
  ApiServer api;
  const Object existing = created(api, rayjob("job"));
  Object duplicate = rayjob("job");
  as_rayjob(duplicate).spec.edit().entrypoint = "python other.py";

  const WriteOutcome outcome = api.create(duplicate, kCreatedAt);

  CHECK(outcome.error.code() == ErrorCode::already_exists);
  CHECK(outcome.error.message().find("object is being deleted") == std::string::npos);
  CHECK(!outcome.changed);
  CHECK(stored(api, existing) == existing);
  CHECK(api.resource_version() == 1);
  CHECK(total_watch_events(api) == 1);
}

TEST_CASE("create of a name whose object is being deleted fails with AlreadyExists, "
          "message prefixed \"object is being deleted: \"") {
  ApiServer api;
  Object terminating = rayjob("job");
  meta(terminating).finalizers.edit().emplace_back(kUserFinalizer);
  terminating = created(api, terminating);
  REQUIRE(!api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt).error);
  const std::int64_t rv = api.resource_version();
  Object again = rayjob("job");

  const WriteOutcome outcome = api.create(again, kDeletedAt);

  CHECK(outcome.error.code() == ErrorCode::already_exists);
  CHECK(outcome.error.message().starts_with("object is being deleted: "));
  CHECK(api.resource_version() == rv);
  CHECK(meta(stored(api, again)).uid == meta(terminating).uid);
}

TEST_CASE("a RayJob's status times are stored in whole seconds, as metav1.Time serializes them") {
  ApiServer api;
  Object object = created(api, rayjob());
  as_rayjob(object).status.start_time_ms = 61'999;
  as_rayjob(object).status.job_status_check_failure_start_time_ms = 2'500;
  REQUIRE(!api.update_status(object, 62'000).error);
  CHECK(as_rayjob(object).status.start_time_ms == 61'000);   // the writer reads back the server's
  CHECK(stored_as<RayJob>(api, "job").status.job_status_check_failure_start_time_ms == 2'000);
  REQUIRE(!api.patch_status(Kind::RayJob, kNamespace, "job",
                            [](Object& o) { std::get<RayJob>(o).status.end_time_ms = 90'001; }, 90'001)
               .error);
  CHECK(stored_as<RayJob>(api, "job").status.end_time_ms == 90'000);
}

// ---- update and update_status: the rv precondition ---------------------------------------

TEST_CASE("update with a stale resourceVersion gets 409 Conflict and changes nothing") {
  ApiServer api;
  const Object read = created(api, rayjob());
  Object current = read;
  as_rayjob(current).spec.edit().entrypoint = "python v2.py";
  REQUIRE(!api.update(current, kCreatedAt).error);   // rv 1 -> 2
  const std::size_t events = total_watch_events(api);

  SUBCASE("update") {
    Object stale = read;   // rv 1
    as_rayjob(stale).spec.edit().entrypoint = "python v3.py";
    const WriteOutcome outcome = api.update(stale, kCreatedAt);
    CHECK(outcome.error.code() == ErrorCode::conflict);
    CHECK(!outcome.changed);
  }
  SUBCASE("update_status") {
    Object stale = read;
    as_rayjob(stale).status.job_deployment_status = "Initializing";
    const WriteOutcome outcome = api.update_status(stale, kCreatedAt);
    CHECK(outcome.error.code() == ErrorCode::conflict);
    CHECK(!outcome.changed);
  }

  CHECK(stored(api, current) == current);
  CHECK(api.resource_version() == 2);
  CHECK(total_watch_events(api) == events);
}

TEST_CASE("the rv check comes before the no-op short-circuit: a stale identical body gets 409") {
  ApiServer api;
  const Object read = created(api, rayjob());
  REQUIRE(!api.patch(Kind::RayJob, kNamespace, "job",
                     [](Object& o) { meta(o).labels.edit()["team"] = "ray"; }, kCreatedAt)
               .error);   // rv 1 -> 2
  // The stored object exactly, but with the rv the writer read before the patch.
  Object identical_but_stale = stored(api, read);
  meta(identical_but_stale).resource_version = meta(read).resource_version;

  WriteOutcome outcome;
  SUBCASE("update") { outcome = api.update(identical_but_stale, kCreatedAt); }
  SUBCASE("update_status") { outcome = api.update_status(identical_but_stale, kCreatedAt); }

  CHECK(outcome.error.code() == ErrorCode::conflict);
  CHECK(api.resource_version() == 2);
  CHECK(total_watch_events(api) == 2);
}

TEST_CASE("a no-op update or update_status keeps the resourceVersion and appends no watch event") {
  ApiServer api;
  const Object original = created(api, rayjob());
  Object same = original;

  WriteOutcome outcome;
  SUBCASE("update") { outcome = api.update(same, kCreatedAt); }
  SUBCASE("update_status") { outcome = api.update_status(same, kCreatedAt); }

  CHECK(!outcome.error);
  CHECK(!outcome.changed);
  CHECK(outcome.resource_version_after == meta(original).resource_version);
  CHECK(meta(same).resource_version == meta(original).resource_version);
  CHECK(api.resource_version() == 1);
  CHECK(total_watch_events(api) == 1);
  CHECK(stored(api, original) == original);
}

TEST_CASE("an update without resourceVersion is 422 Invalid for a custom resource and "
          "unconditional for a batch/v1 Job") {
  ApiServer api;

  SUBCASE("RayJob") {
    Object object = created(api, rayjob());
    as_rayjob(object).spec.edit().entrypoint = "python v2.py";
    meta(object).resource_version = 0;
    const WriteOutcome outcome = api.update(object, kCreatedAt);
    CHECK(outcome.error.code() == ErrorCode::invalid);
    CHECK(outcome.error.message().find("must be specified for an update") != std::string::npos);
    CHECK(api.resource_version() == 1);
    CHECK(stored_as<RayJob>(api, "job").spec->entrypoint == "python main.py");
  }
  SUBCASE("RayCluster") {
    Object object = created(api, named<RayCluster>("cluster"));
    std::get<RayCluster>(object).spec.edit().ray_version = "2.9.0";
    meta(object).resource_version = 0;
    CHECK(api.update(object, kCreatedAt).error.code() == ErrorCode::invalid);
    CHECK(api.resource_version() == 1);
  }
  SUBCASE("Job") {
    Object object = created(api, batch_job());
    std::get<Job>(object).spec.edit().backoff_limit = 2;
    meta(object).resource_version = 0;
    const WriteOutcome outcome = api.update(object, kCreatedAt);
    CHECK(!outcome.error);
    CHECK(outcome.changed);
    CHECK(api.resource_version() == 2);
    CHECK(stored_as<Job>(api, "job").spec->backoff_limit == 2);
  }
}

// ---- status-subresource masking and generation -------------------------------------------

TEST_CASE("update ignores status changes (status subresource)") {
  ApiServer api;
  const Object original = created(api, rayjob());
  Object request = original;
  as_rayjob(request).status.job_deployment_status = "Running";

  SUBCASE("status only: a no-op") {
    const WriteOutcome outcome = api.update(request, kCreatedAt);
    CHECK(!outcome.error);
    CHECK(!outcome.changed);
    CHECK(api.resource_version() == 1);
  }
  SUBCASE("status and spec: the spec is written, the status is not") {
    as_rayjob(request).spec.edit().entrypoint = "python v2.py";
    const WriteOutcome outcome = api.update(request, kCreatedAt);
    CHECK(outcome.changed);
    CHECK(stored_as<RayJob>(api, "job").spec->entrypoint == "python v2.py");
  }
  CHECK(stored_as<RayJob>(api, "job").status.job_deployment_status.empty());
}

TEST_CASE("update_status ignores spec and metadata changes") {
  ApiServer api;
  const Object original = created(api, rayjob());
  Object request = original;
  as_rayjob(request).status.job_deployment_status = "Initializing";
  as_rayjob(request).spec.edit().entrypoint = "python v2.py";
  meta(request).labels.edit()["team"] = "ray";
  meta(request).finalizers.edit().emplace_back(kUserFinalizer);

  const WriteOutcome outcome = api.update_status(request, kCreatedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.changed);
  const RayJob& after = stored_as<RayJob>(api, "job");
  CHECK(after.status.job_deployment_status == "Initializing");
  CHECK(after.spec == std::get<RayJob>(original).spec);
  CHECK(after.metadata.labels->empty());
  CHECK(after.metadata.finalizers->empty());
  CHECK(after.metadata.generation == 1);
  CHECK(after.metadata.resource_version == 2);
}

TEST_CASE("a patch of /status ignores spec and metadata changes") {
  ApiServer api;
  const Object original = created(api, rayjob());
  const std::size_t events_before = api.watch_log(Kind::RayJob).size();
  bool change_status = false;
  SUBCASE("with a status change") { change_status = true; }
  SUBCASE("without one: a no-op") {}

  const WriteOutcome outcome = api.patch_status(Kind::RayJob, kNamespace, "job", [&](Object& o) {
    if (change_status) as_rayjob(o).status.job_deployment_status = "Initializing";
    as_rayjob(o).spec.edit().entrypoint = "python v2.py";
    meta(o).labels.edit()["team"] = "ray";
  }, kCreatedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.changed == change_status);
  CHECK(api.watch_log(Kind::RayJob).size() == events_before + (change_status ? 1 : 0));
  const RayJob& after = stored_as<RayJob>(api, "job");
  CHECK(after.status.job_deployment_status == (change_status ? "Initializing" : ""));
  CHECK(after.spec == std::get<RayJob>(original).spec);
  CHECK(after.metadata.labels->empty());
  CHECK(after.metadata.generation == 1);
}

TEST_CASE("generation moves on spec changes only") {
  ApiServer api;
  const Object original = created(api, rayjob());
  Object request = original;
  std::int64_t expected_generation = 1;
  WriteOutcome outcome;

  SUBCASE("spec") {
    as_rayjob(request).spec.edit().entrypoint = "python v2.py";
    outcome = api.update(request, kCreatedAt);
    expected_generation = 2;
  }
  SUBCASE("status") {
    as_rayjob(request).status.job_status = "RUNNING";
    outcome = api.update_status(request, kCreatedAt);
  }
  SUBCASE("labels") {
    meta(request).labels.edit()["team"] = "ray";
    outcome = api.update(request, kCreatedAt);
  }
  SUBCASE("finalizers") {
    meta(request).finalizers.edit().emplace_back(kUserFinalizer);
    outcome = api.update(request, kCreatedAt);
  }

  REQUIRE(!outcome.error);
  REQUIRE(outcome.changed);   // the write happened: only the generation is in question
  CHECK(meta(stored(api, original)).generation == expected_generation);
}

TEST_CASE("a write that leaves the spec alone stores a version that shares the spec of the one before") {
  ApiServer api;
  const Object original = created(api, rayjob());
  Object request = original;
  const RayJob* before = &stored_as<RayJob>(api, "job");

  SUBCASE("update_status") {
    as_rayjob(request).status.job_status = "RUNNING";
    REQUIRE(api.update_status(request, kCreatedAt).changed);
  }
  SUBCASE("update of the labels, from a request whose spec is an equal copy") {
    as_rayjob(request).spec = rjsim::engine::RayJobSpec(*as_rayjob(request).spec);
    meta(request).labels.edit()["team"] = "ray";
    REQUIRE(api.update(request, kCreatedAt).changed);
  }
  const RayJob& after = stored_as<RayJob>(api, "job");
  CHECK(&after != before);   // a new version...
  CHECK(after.spec.shares_value_with(std::get<RayJob>(*api.watch_log(Kind::RayJob).front().object).spec));
}

TEST_CASE("a write that changes the spec stores a spec of its own, and the old version keeps its spec") {
  ApiServer api;
  const Object original = created(api, rayjob());
  Object request = original;
  as_rayjob(request).spec.edit().entrypoint = "python v2.py";
  REQUIRE(api.update(request, kCreatedAt).changed);
  const RayJob& added = std::get<RayJob>(*api.watch_log(Kind::RayJob).front().object);
  CHECK(added.spec->entrypoint == "python main.py");
  CHECK(stored_as<RayJob>(api, "job").spec->entrypoint == "python v2.py");
}

TEST_CASE("a copy of the server shares its watch logs until either appends, then each keeps its own") {
  ApiServer api;
  const Object original = created(api, rayjob());
  const ApiServer fork = api;   // as exploration's snapshots copy it
  CHECK(&fork.watch_log(Kind::RayJob) == &api.watch_log(Kind::RayJob));   // shared, not copied
  Object request = original;
  as_rayjob(request).spec.edit().entrypoint = "python v2.py";
  REQUIRE(api.update(request, kCreatedAt).changed);
  CHECK(api.watch_log(Kind::RayJob).size() == 2);
  CHECK(fork.watch_log(Kind::RayJob).size() == 1);   // the copy does not see the append
  CHECK(fork.watch_log(Kind::RayJob).front().type == WatchType::Added);
  CHECK_FALSE(fork == api);
}

TEST_CASE("a copy of the server shares each kind's objects until either writes that kind") {
  ApiServer api;
  const Object original = created(api, rayjob());
  created(api, pod());
  const ApiServer fork = api;   // as exploration's snapshots copy it
  CHECK(fork.objects(Kind::RayJob).data() == api.objects(Kind::RayJob).data());   // shared, not copied

  Object stale = original;
  as_rayjob(stale).metadata.resource_version = 1'000;
  REQUIRE(api.update(stale, kCreatedAt).error);   // a refused write changes nothing...
  CHECK(fork.objects(Kind::RayJob).data() == api.objects(Kind::RayJob).data());   // ...and copies nothing

  Object request = original;
  as_rayjob(request).spec.edit().entrypoint = "python v2.py";
  REQUIRE(api.update(request, kCreatedAt).changed);
  CHECK(stored_as<RayJob>(api, "job").spec->entrypoint == "python v2.py");
  CHECK(stored_as<RayJob>(fork, "job").spec->entrypoint == "python main.py");   // the copy keeps its own
  CHECK(fork.objects(Kind::Pod).data() == api.objects(Kind::Pod).data());       // the other kinds stay shared
}

// ---- patch -------------------------------------------------------------------------------

TEST_CASE("a merge patch applies without precondition: last writer wins, even right after "
          "another write") {
  ApiServer api;
  created(api, rayjob());
  REQUIRE(!api.patch(Kind::RayJob, kNamespace, "job",
                     [](Object& o) { meta(o).labels.edit()["owner"] = "alice"; }, kCreatedAt)
               .error);   // rv 2

  const WriteOutcome outcome = api.patch(Kind::RayJob, kNamespace, "job",
                                         [](Object& o) { meta(o).labels.edit()["owner"] = "bob"; }, kCreatedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.changed);
  CHECK(outcome.resource_version_before == 2);
  CHECK(outcome.resource_version_after == 3);
  CHECK(stored_as<RayJob>(api, "job").metadata.labels->at("owner") == "bob");
}

TEST_CASE("a patch of the main resource ignores status changes") {
  ApiServer api;
  created(api, rayjob());

  const WriteOutcome outcome = api.patch(
      Kind::RayJob, kNamespace, "job",
      [](Object& o) { std::get<RayJob>(o).status.job_status = "RUNNING"; }, kCreatedAt);

  CHECK(!outcome.error);
  CHECK(!outcome.changed);
  CHECK(stored_as<RayJob>(api, "job").status.job_status.empty());
  CHECK(api.resource_version() == 1);
}

// ---- delete --------------------------------------------------------------------------------

TEST_CASE("delete of a missing object is NotFound") {
  ApiServer api;
  created(api, rayjob("other"));

  const WriteOutcome outcome =
      api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt);

  CHECK(outcome.error.code() == ErrorCode::not_found);
  CHECK(api.resource_version() == 1);
  CHECK(total_watch_events(api) == 1);
}

TEST_CASE("update of a missing object is NotFound") {
  ApiServer api;
  Object missing = rayjob();
  meta(missing).resource_version = 1;

  CHECK(api.update(missing, kCreatedAt).error.code() == ErrorCode::not_found);
  CHECK(api.update_status(missing, kCreatedAt).error.code() == ErrorCode::not_found);
  CHECK(api.resource_version() == 0);
}

TEST_CASE("delete of an object without finalizers removes it with one DELETED event at a new rv") {
  ApiServer api;
  const Object original = created(api, rayjob());

  const WriteOutcome outcome =
      api.remove(Kind::RayJob, kNamespace, "job", Propagation::server_default, kDeletedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.changed);
  CHECK(outcome.watch_type == WatchType::Deleted);
  CHECK(api.find(Kind::RayJob, kNamespace, "job") == nullptr);
  CHECK(api.resource_version() == 2);
  const auto& log = api.watch_log(Kind::RayJob);
  REQUIRE(log.size() == 2);
  CHECK(log[1].type == WatchType::Deleted);
  CHECK(log[1].resource_version == 2);
  CHECK(meta(log[1].object).resource_version == 2);
  CHECK(meta(log[1].object).uid == meta(original).uid);
}

TEST_CASE("delete of an object with finalizers sets deletionTimestamp, keeps it readable and "
          "emits MODIFIED") {
  ApiServer api;
  Object object = rayjob();
  meta(object).finalizers.edit().emplace_back(kUserFinalizer);
  created(api, object);

  const WriteOutcome outcome =
      api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.changed);
  CHECK(outcome.watch_type == WatchType::Modified);
  const RayJob* after = api.find<RayJob>(kNamespace, "job");
  REQUIRE(after != nullptr);
  CHECK(after->metadata.deletion_timestamp_ms == kDeletedAt);
  CHECK(after->metadata.finalizers == std::vector<std::string>{std::string(kUserFinalizer)});
  CHECK(after->metadata.resource_version == 2);
  CHECK(api.objects(Kind::RayJob).size() == 1);
  const auto& log = api.watch_log(Kind::RayJob);
  REQUIRE(log.size() == 2);
  CHECK(log[1].type == WatchType::Modified);
  CHECK(log[1].object == Object(*after));
}

TEST_CASE("the write that removes the last finalizer deletes the object with exactly one DELETED "
          "event carrying the last stored object at the deletion rv") {
  ApiServer api;
  Object object = rayjob();
  meta(object).finalizers.edit().emplace_back(kUserFinalizer);
  created(api, object);
  REQUIRE(!api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt).error);
  const Object last_stored = stored(api, object);   // rv 2, deleting, lists the finalizer

  WriteOutcome outcome;
  SUBCASE("update") {
    Object request = last_stored;
    meta(request).finalizers.edit().clear();
    outcome = api.update(request, kDeletedAt);
  }
  SUBCASE("patch") {
    outcome = api.patch(Kind::RayJob, kNamespace, "job",
                        [](Object& o) { meta(o).finalizers.edit().clear(); }, kDeletedAt);
  }

  REQUIRE(!outcome.error);
  CHECK(outcome.changed);
  CHECK(outcome.watch_type == WatchType::Deleted);
  CHECK(outcome.resource_version_after == 3);
  CHECK(api.find(Kind::RayJob, kNamespace, "job") == nullptr);
  const auto& log = api.watch_log(Kind::RayJob);
  REQUIRE(log.size() == 3);   // ADDED, MODIFIED (deletionTimestamp), DELETED: no second MODIFIED
  CHECK(log[2].type == WatchType::Deleted);
  CHECK(log[2].resource_version == 3);
  Object expected = last_stored;
  meta(expected).resource_version = 3;
  CHECK(log[2].object == expected);
  CHECK(has_finalizer(meta(log[2].object), kUserFinalizer));
}

TEST_CASE("removing one of two finalizers of a deleting object keeps it, with a MODIFIED event") {
  ApiServer api;
  Object object = rayjob();
  meta(object).finalizers = std::vector<std::string>{std::string(kUserFinalizer), "example.com/other"};
  created(api, object);
  REQUIRE(!api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt).error);
  Object request = stored(api, object);
  meta(request).finalizers = std::vector<std::string>{"example.com/other"};

  const WriteOutcome outcome = api.update(request, kDeletedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.watch_type == WatchType::Modified);
  REQUIRE(api.find(Kind::RayJob, kNamespace, "job") != nullptr);
  CHECK(api.watch_log(Kind::RayJob).back().type == WatchType::Modified);
}

TEST_CASE("no finalizer can be added to an object being deleted: 422 Invalid") {
  ApiServer api;
  Object object = rayjob();
  meta(object).finalizers.edit().emplace_back(kUserFinalizer);
  created(api, object);
  REQUIRE(!api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt).error);
  const Object deleting = stored(api, object);

  WriteOutcome outcome;
  SUBCASE("update") {
    Object request = deleting;
    meta(request).finalizers.edit().emplace_back("example.com/new");
    outcome = api.update(request, kDeletedAt);
  }
  SUBCASE("patch") {
    outcome = api.patch(Kind::RayJob, kNamespace, "job",
                        [](Object& o) { meta(o).finalizers.edit().emplace_back("example.com/new"); },
                        kDeletedAt);
  }

  CHECK(outcome.error.code() == ErrorCode::invalid);
  CHECK(outcome.error.message().find("no new finalizers can be added if the object is being "
                                     "deleted") != std::string::npos);
  CHECK(stored(api, deleting) == deleting);
  CHECK(api.resource_version() == 2);
}

TEST_CASE("deleting an object that is already being deleted changes nothing") {
  ApiServer api;
  Object object = rayjob();
  meta(object).finalizers.edit().emplace_back(kUserFinalizer);
  created(api, object);
  REQUIRE(!api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt).error);
  const Object deleting = stored(api, object);

  const WriteOutcome outcome =
      api.remove(Kind::RayJob, kNamespace, "job", Propagation::foreground, kDeletedAt + 500);

  CHECK(!outcome.error);
  CHECK(!outcome.changed);
  CHECK(stored(api, deleting) == deleting);
  CHECK(api.resource_version() == 2);
  CHECK(total_watch_events(api) == 2);
}

TEST_CASE("a batch/v1 Job deleted with the server default gets the orphan finalizer and lingers") {
  ApiServer api;
  created(api, batch_job());

  const WriteOutcome outcome =
      api.remove(Kind::Job, kNamespace, "job", Propagation::server_default, kDeletedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.watch_type == WatchType::Modified);
  const Job* lingering = api.find<Job>(kNamespace, "job");
  REQUIRE(lingering != nullptr);
  CHECK(lingering->metadata.deletion_timestamp_ms == kDeletedAt);
  CHECK(lingering->metadata.finalizers == std::vector<std::string>{std::string(kOrphanFinalizer)});
}

TEST_CASE("a custom resource deleted with the server default goes at once (Background)") {
  ApiServer api;
  created(api, named<RayCluster>("cluster"));

  const WriteOutcome outcome =
      api.remove(Kind::RayCluster, kNamespace, "cluster", Propagation::server_default, kDeletedAt);

  REQUIRE(!outcome.error);
  CHECK(outcome.watch_type == WatchType::Deleted);
  CHECK(api.find(Kind::RayCluster, kNamespace, "cluster") == nullptr);
}

// A Pod its kubelet runs (phase Running), created in `api`.
void create_running_pod(ApiServer& api, std::string_view name) {
  created(api, pod(name));
  REQUIRE(api.patch_status(Kind::Pod, kNamespace, name,
                           [](Object& object) { std::get<Pod>(object).status.phase = "Running"; }, kCreatedAt)
              .changed);
}

TEST_CASE("a Running Pod is deleted gracefully: it stays with deletionTimestamp and deletionGracePeriodSeconds "
          "until a delete with grace 0") {
  ApiServer api;
  api.set_pod_termination_grace_period_seconds(30);
  create_running_pod(api, "head");

  const WriteOutcome graceful = api.remove(Kind::Pod, kNamespace, "head", Propagation::background, kDeletedAt);
  REQUIRE(!graceful.error);
  CHECK(graceful.watch_type == WatchType::Modified);
  const Pod* stopping = api.find<Pod>(kNamespace, "head");
  REQUIRE(stopping != nullptr);
  CHECK(stopping->metadata.deletion_timestamp_ms == kDeletedAt + 30'000);   // when the grace period ends
  CHECK(stopping->metadata.deletion_grace_period_seconds == 30);

  // Another delete without a shorter grace period is no news.
  CHECK_FALSE(api.remove(Kind::Pod, kNamespace, "head", Propagation::background, kDeletedAt + 1).changed);
  REQUIRE(api.find<Pod>(kNamespace, "head") != nullptr);

  const WriteOutcome stopped = api.remove(Kind::Pod, kNamespace, "head", Propagation::background, kDeletedAt + 5, 0);
  CHECK(stopped.watch_type == WatchType::Deleted);
  CHECK(api.find<Pod>(kNamespace, "head") == nullptr);
}

TEST_CASE("the server counts the objects of each kind being deleted, from deletionTimestamp to their removal") {
  ApiServer api;
  api.set_pod_termination_grace_period_seconds(30);
  create_running_pod(api, "head");
  create_running_pod(api, "worker");
  Object held = rayjob("job");
  meta(held).finalizers.edit().emplace_back(kUserFinalizer);
  created(api, held);
  CHECK(api.deleting(Kind::Pod) == 0);

  REQUIRE(!api.remove(Kind::Pod, kNamespace, "head", Propagation::background, kDeletedAt).error);
  REQUIRE(!api.remove(Kind::Pod, kNamespace, "worker", Propagation::background, kDeletedAt).error);
  REQUIRE(!api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt).error);
  CHECK(api.deleting(Kind::Pod) == 2);
  CHECK(api.deleting(Kind::RayJob) == 1);
  CHECK(api.deleting(Kind::Service) == 0);

  REQUIRE(!api.remove(Kind::Pod, kNamespace, "head", Propagation::background, kDeletedAt + 5, 0).error);
  CHECK(api.deleting(Kind::Pod) == 1);
  // A copy counts as its original did; a change to it leaves the original's count.
  ApiServer fork = api;
  REQUIRE(!fork.remove(Kind::Pod, kNamespace, "worker", Propagation::background, kDeletedAt + 6, 0).error);
  CHECK(fork.deleting(Kind::Pod) == 0);
  CHECK(api.deleting(Kind::Pod) == 1);
  // The last finalizer removed: the RayJob goes, and with it its count.
  REQUIRE(!api.patch(Kind::RayJob, kNamespace, "job",
                     [](Object& object) { meta(object).finalizers.edit().clear(); }, kDeletedAt + 7)
               .error);
  CHECK(api.find(Kind::RayJob, kNamespace, "job") == nullptr);
  CHECK(api.deleting(Kind::RayJob) == 0);
}

TEST_CASE("a shorter grace period moves the deletion timestamp back; a finalizer then holds the stopped Pod") {
  ApiServer api;
  api.set_pod_termination_grace_period_seconds(30);
  Object held = pod("held");
  meta(held).finalizers = std::vector<std::string>{"batch.kubernetes.io/job-tracking"};
  created(api, held);
  REQUIRE(api.patch_status(Kind::Pod, kNamespace, "held",
                           [](Object& object) { std::get<Pod>(object).status.phase = "Running"; }, kCreatedAt)
              .changed);
  REQUIRE(api.remove(Kind::Pod, kNamespace, "held", Propagation::background, kDeletedAt).changed);
  const WriteOutcome stopped = api.remove(Kind::Pod, kNamespace, "held", Propagation::background, kDeletedAt + 5, 0);
  CHECK(stopped.watch_type == WatchType::Modified);
  const Pod* stopping = api.find<Pod>(kNamespace, "held");
  REQUIRE(stopping != nullptr);
  CHECK(stopping->metadata.deletion_timestamp_ms == kDeletedAt);
  CHECK(stopping->metadata.deletion_grace_period_seconds == 0);
  // Removing the finalizer then deletes it.
  CHECK(api.patch(Kind::Pod, kNamespace, "held", [](Object& object) { meta(object).finalizers.edit().clear(); }, kDeletedAt + 6)
            .watch_type == WatchType::Deleted);
}

TEST_CASE("a Pod that does not run (Pending, Succeeded) or a server without a grace period deletes at once") {
  SUBCASE("a Pending Pod") {
    ApiServer api;
    api.set_pod_termination_grace_period_seconds(30);
    created(api, pod("pending"));
    CHECK(api.remove(Kind::Pod, kNamespace, "pending", Propagation::background, kDeletedAt).watch_type ==
          WatchType::Deleted);
  }
  SUBCASE("a Succeeded Pod") {
    ApiServer api;
    api.set_pod_termination_grace_period_seconds(30);
    created(api, pod("done"));
    REQUIRE(api.patch_status(Kind::Pod, kNamespace, "done",
                             [](Object& object) { std::get<Pod>(object).status.phase = "Succeeded"; }, kCreatedAt)
                .changed);
    CHECK(api.remove(Kind::Pod, kNamespace, "done", Propagation::background, kDeletedAt).watch_type ==
          WatchType::Deleted);
  }
  SUBCASE("grace period 0") {
    ApiServer api;
    create_running_pod(api, "head");
    CHECK(api.remove(Kind::Pod, kNamespace, "head", Propagation::background, kDeletedAt).watch_type ==
          WatchType::Deleted);
  }
}

TEST_CASE("a finalizer still holds a stopped Pod after the grace-0 delete") {
  ApiServer api;
  api.set_pod_termination_grace_period_seconds(30);
  create_running_pod(api, "worker");
  REQUIRE(api.patch(Kind::Pod, kNamespace, "worker",
                    [](Object& object) { meta(object).finalizers.edit().push_back("example.com/hold"); }, kCreatedAt)
              .changed);
  REQUIRE(!api.remove(Kind::Pod, kNamespace, "worker", Propagation::background, kDeletedAt).error);
  CHECK(api.remove(Kind::Pod, kNamespace, "worker", Propagation::background, kDeletedAt, 0).watch_type ==
        WatchType::Modified);
  const Pod* held = api.find<Pod>(kNamespace, "worker");
  REQUIRE(held != nullptr);
  CHECK(held->metadata.deletion_grace_period_seconds == 0);
  REQUIRE(api.patch(Kind::Pod, kNamespace, "worker", [](Object& object) { meta(object).finalizers.edit().clear(); },
                    kDeletedAt + 1)
              .changed);
  CHECK(api.find<Pod>(kNamespace, "worker") == nullptr);
}

TEST_CASE("foreground deletion adds the foregroundDeletion finalizer and keeps the owner") {
  ApiServer api;
  created(api, named<RayCluster>("cluster"));

  const WriteOutcome outcome =
      api.remove(Kind::RayCluster, kNamespace, "cluster", Propagation::foreground, kDeletedAt);

  REQUIRE(!outcome.error);
  const RayCluster* owner = api.find<RayCluster>(kNamespace, "cluster");
  REQUIRE(owner != nullptr);
  CHECK(owner->metadata.deletion_timestamp_ms == kDeletedAt);
  CHECK(has_finalizer(owner->metadata, kForegroundFinalizer));
}

// ---- one watch event per changing write --------------------------------------------------

TEST_CASE("a successful changing write bumps the global rv once and appends exactly one watch "
          "event") {
  ApiServer api;
  Object object = rayjob();
  meta(object).finalizers.edit().emplace_back(kUserFinalizer);
  object = created(api, object);
  created(api, pod());   // another kind's log must not move
  const std::int64_t rv_before = api.resource_version();
  const std::size_t pod_events = api.watch_log(Kind::Pod).size();
  const std::size_t rayjob_events = api.watch_log(Kind::RayJob).size();
  WatchType expected_type = WatchType::Modified;
  WriteOutcome outcome;

  SUBCASE("create") {
    Object other = rayjob("other");
    outcome = api.create(other, kCreatedAt);
    expected_type = WatchType::Added;
  }
  SUBCASE("update") {
    as_rayjob(object).spec.edit().entrypoint = "python v2.py";
    outcome = api.update(object, kCreatedAt);
  }
  SUBCASE("update_status") {
    as_rayjob(object).status.job_status = "PENDING";
    outcome = api.update_status(object, kCreatedAt);
  }
  SUBCASE("patch") {
    outcome = api.patch(Kind::RayJob, kNamespace, "job",
                        [](Object& o) { meta(o).labels.edit()["team"] = "ray"; }, kCreatedAt);
  }
  SUBCASE("patch_status") {
    outcome = api.patch_status(
        Kind::RayJob, kNamespace, "job",
        [](Object& o) { std::get<RayJob>(o).status.job_status = "RUNNING"; }, kCreatedAt);
  }
  SUBCASE("delete that sets deletionTimestamp") {
    outcome = api.remove(Kind::RayJob, kNamespace, "job", Propagation::background, kDeletedAt);
  }

  REQUIRE(!outcome.error);
  CHECK(outcome.changed);
  CHECK(outcome.watch_type == expected_type);
  CHECK(api.resource_version() == rv_before + 1);
  CHECK(outcome.resource_version_after == rv_before + 1);
  REQUIRE(api.watch_log(Kind::RayJob).size() == rayjob_events + 1);
  CHECK(api.watch_log(Kind::RayJob).back().type == expected_type);
  CHECK(api.watch_log(Kind::RayJob).back().resource_version == rv_before + 1);
  CHECK(api.watch_log(Kind::Pod).size() == pod_events);
}

}  // TEST_SUITE

TEST_CASE("a server that takes no digests stores and announces the same objects") {
  // Exploration's fast path turns digests off; what the server holds and tells its watchers
  // must not depend on it, only whether the world can be fingerprinted.
  auto writes = [](ApiServer& api) {
    created(api, rayjob());
    created(api, pod());
    api.patch(Kind::RayJob, kNamespace, "job", [](Object& o) { meta(o).labels.edit()["team"] = "ray"; }, kCreatedAt);
    api.remove(Kind::Pod, kNamespace, "pod", Propagation::background, kDeletedAt);
  };
  ApiServer with_digests;
  ApiServer without;
  without.take_digests(false);
  writes(with_digests);
  writes(without);
  CHECK(with_digests.takes_digests());
  CHECK_FALSE(without.takes_digests());
  CHECK(without.resource_version() == with_digests.resource_version());
  for (Kind kind : kAllKinds) {
    const auto kept = with_digests.objects(kind);
    const auto skipped = without.objects(kind);
    CHECK(std::equal(kept.begin(), kept.end(), skipped.begin(), skipped.end()));
    CHECK(with_digests.watch_log(kind) == without.watch_log(kind));
  }
  const auto versions = without.objects(Kind::RayJob);
  REQUIRE(versions.size() == 1);
  CHECK_FALSE(versions[0].has_digest());
  CHECK(with_digests.objects(Kind::RayJob)[0].has_digest());
}

TEST_CASE("a watch with a label selector marks the events it sends: the object selected before or after") {
  ApiServer api;
  api.watch_with_selector(Kind::Pod, rjsim::engine::LabelSelector{"team", {"ray", "data"}});
  auto label = [&](std::string value) {
    api.patch(Kind::Pod, kNamespace, "pod", [&](Object& o) { meta(o).labels.edit()["team"] = value; }, kCreatedAt);
  };
  created(api, pod());   // unlabelled: not sent
  label("ray");          // enters: sent
  label("data");         // stays: sent
  label("web");          // leaves: sent, so that the cache drops it
  label("ops");          // outside before and after: not sent
  api.remove(Kind::Pod, kNamespace, "pod", Propagation::background, kDeletedAt);   // not sent
  created(api, rayjob());   // another kind: no selector, sent

  const std::vector<rjsim::engine::WatchEvent>& log = api.watch_log(Kind::Pod);
  REQUIRE(log.size() == 6);
  std::vector<bool> sent;
  std::vector<std::uint32_t> sent_through;
  for (const rjsim::engine::WatchEvent& event : log) {
    sent.push_back(event.sent);
    sent_through.push_back(event.sent_through);
  }
  CHECK(sent == std::vector<bool>{false, true, true, true, false, false});
  CHECK(sent_through == std::vector<std::uint32_t>{0, 1, 2, 3, 3, 3});
  CHECK(api.watch_log(Kind::RayJob).back().sent);
}

TEST_CASE("a selector watch's log keeps the versions of the events the watch sends, and only those") {
  ApiServer api;
  api.watch_with_selector(Kind::Pod, rjsim::engine::LabelSelector{"team", {"ray"}});
  api.keep_watch_objects(Kind::Pod, rjsim::engine::WatchLogObjects::sent_events);
  created(api, pod());   // not sent
  api.patch(Kind::Pod, kNamespace, "pod", [](Object& o) { meta(o).labels.edit()["team"] = "ray"; }, kCreatedAt);
  api.patch(Kind::Pod, kNamespace, "pod", [](Object& o) { meta(o).labels.edit()["team"] = "web"; }, kCreatedAt);
  api.patch(Kind::Pod, kNamespace, "pod", [](Object& o) { meta(o).labels.edit()["owner"] = "me"; }, kCreatedAt);

  const std::vector<rjsim::engine::WatchEvent>& log = api.watch_log(Kind::Pod);
  REQUIRE(log.size() == 4);
  std::vector<bool> kept;
  for (const rjsim::engine::WatchEvent& event : log) {
    kept.push_back(!(event.object == rjsim::engine::ObjectVersion()));
    CHECK(api.keeps_object(Kind::Pod, event) == event.sent);
  }
  CHECK(kept == std::vector<bool>{false, true, true, false});   // entered, left; never sent: dropped
}

TEST_CASE("a watch log that keeps no objects keeps each event's resourceVersion, type and digest") {
  auto writes = [](ApiServer& api) {
    created(api, rayjob());
    created(api, pod());
    api.patch(Kind::Pod, kNamespace, "pod", [](Object& o) { meta(o).labels.edit()["team"] = "ray"; }, kCreatedAt);
    api.remove(Kind::Pod, kNamespace, "pod", Propagation::background, kDeletedAt);
  };
  ApiServer full;
  ApiServer revisions_only;
  revisions_only.keep_watch_objects(Kind::Pod, rjsim::engine::WatchLogObjects::no_event);
  writes(full);
  writes(revisions_only);
  CHECK(full.watch_log_objects(Kind::Pod) == rjsim::engine::WatchLogObjects::every_event);
  CHECK(revisions_only.watch_log_objects(Kind::Pod) == rjsim::engine::WatchLogObjects::no_event);
  const std::vector<rjsim::engine::WatchEvent>& kept = full.watch_log(Kind::Pod);
  const std::vector<rjsim::engine::WatchEvent>& dropped = revisions_only.watch_log(Kind::Pod);
  REQUIRE(kept.size() == 3);
  REQUIRE(dropped.size() == kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    CHECK(dropped[i].resource_version == kept[i].resource_version);
    CHECK(dropped[i].type == kept[i].type);
    CHECK(dropped[i].object == rjsim::engine::ObjectVersion());   // the placeholder, not the Pod
    CHECK_FALSE(kept[i].object == rjsim::engine::ObjectVersion());
  }
  // Taken before the versions were dropped: fingerprints tell the Pods' histories apart as before.
  CHECK(revisions_only.watch_log_digest(Kind::Pod) == full.watch_log_digest(Kind::Pod));
  // Other kinds, and the store itself, are untouched.
  CHECK(revisions_only.watch_log(Kind::RayJob) == full.watch_log(Kind::RayJob));
  CHECK(std::equal(full.objects(Kind::Pod).begin(), full.objects(Kind::Pod).end(),
                   revisions_only.objects(Kind::Pod).begin(), revisions_only.objects(Kind::Pod).end()));
}

TEST_CASE("the ownership digest moves with existence and ownership, not with status or spec") {
  for (const bool digests : {true, false}) {
    CAPTURE(digests);
    ApiServer api;
    api.take_digests(digests);
    const Hash128 empty = api.ownership_digest(Kind::Pod);
    created(api, pod("p"));
    const Hash128 after_create = api.ownership_digest(Kind::Pod);
    CHECK(after_create != empty);
    // A status write (the kubelet's) and a label: the log grows, ownership stays.
    api.patch_status(Kind::Pod, "default", "p", [](Object& o) { std::get<Pod>(o).status.phase = "Running"; }, 1);
    api.patch(Kind::Pod, "default", "p", [](Object& o) { meta(o).labels.edit()["team"] = "ray"; }, 2);
    CHECK(api.watch_log(Kind::Pod).size() == 3);
    CHECK(api.ownership_digest(Kind::Pod) == after_create);
    // A finalizer, then the delete: each moves it.
    api.patch(Kind::Pod, "default", "p", [](Object& o) { meta(o).finalizers.edit().emplace_back("x/y"); }, 3);
    const Hash128 after_finalizer = api.ownership_digest(Kind::Pod);
    CHECK(after_finalizer != after_create);
    api.remove(Kind::Pod, "default", "p", Propagation::background, 4);
    CHECK(api.ownership_digest(Kind::Pod) != after_finalizer);
    CHECK(api.ownership_digest(Kind::RayJob) == ApiServer().ownership_digest(Kind::RayJob));   // per kind
  }
}

TEST_CASE("versions without digests compare by their contents") {
  Object first = rayjob();
  Object second = rayjob();
  meta(second).labels.edit()["team"] = "ray";
  const rjsim::engine::ObjectVersion plain(first, false);
  CHECK(plain == rjsim::engine::ObjectVersion(first, false));
  CHECK(plain == rjsim::engine::ObjectVersion(first, true));
  CHECK_FALSE(plain == rjsim::engine::ObjectVersion(second, false));
  CHECK_FALSE(rjsim::engine::ObjectVersion(second, true) == plain);
}

}  // namespace api_server_test
