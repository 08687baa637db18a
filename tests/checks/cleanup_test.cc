// suspended-is-clean, retry-is-clean and no-leaked-cluster (DESIGN §5; docs/invariants.md):
// judged against the API server's truth, never a cache; no-leaked-cluster at the end of the
// run, once cleanup was due and the allowance (kCleanupAllowanceMs) passed.
#include <doctest/doctest.h>

#include "check_harness.h"

namespace cleanup_test {
namespace {

using rjsim::checks::kCleanupAllowanceMs;
using rjsim::engine::Kind;
using rjsim::engine::RayJobSpec;
using rjsim::engine::RayJobStatus;
using rjsim::engine::RunEnd;
using rjsim::engine::StepContext;
using rjsim::testing::CheckRun;
using rjsim::testing::single_violation;

constexpr const char* kCluster = "demo-raycluster-aaaaa";

// A RayJob that got as far as Running: cluster and submitter Job created.
void start(CheckRun& run) {
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
    s.job_id = "demo-jjjjj";
    s.ray_cluster_name = kCluster;
  });
  run.create_cluster("demo", kCluster);
  run.create_submitter_job("demo");
  run.persist("demo", "Running", "RUNNING");
}

// What kuberay 1.1's Suspending pass writes once both are gone.
void reset_names(RayJobStatus& s) {
  s.job_id.clear();
  s.ray_cluster_name.clear();
}

TEST_CASE("suspended-is-clean fires when Suspended is persisted while the RayCluster still exists") {
  CheckRun run("suspended-is-clean");
  start(run);
  run.persist("demo", "Suspending", "RUNNING");
  run.remove(Kind::Job, "demo");
  const std::int64_t seq = run.persist("demo", "Suspended", "", reset_names);   // the cluster was never deleted
  run.finish(RunEnd::quiescent);
  single_violation(run, "suspended-is-clean", seq, {"RayCluster/default/demo-raycluster-aaaaa"});
}

TEST_CASE("suspended-is-clean counts a submitter Job that is still being deleted") {
  CheckRun run("suspended-is-clean");
  start(run);
  run.persist("demo", "Suspending", "RUNNING");
  run.remove(Kind::RayCluster, kCluster);
  run.step([&](StepContext& c) {   // someone else's finalizer holds the Job
    rjsim::engine::Object job = *run.world.api.find(Kind::Job, "default", "demo");
    rjsim::engine::meta(job).finalizers.edit().push_back("example.com/hold");
    REQUIRE(!rjsim::engine::LoggedApi(c, "user").update(job).error);
  });
  run.remove(Kind::Job, "demo");
  const std::int64_t seq = run.persist("demo", "Suspended", "", reset_names);
  run.finish(RunEnd::quiescent);
  single_violation(run, "suspended-is-clean", seq, {"Job/default/demo (being deleted)"});
}

TEST_CASE("suspended-is-clean is silent when the RayCluster and the submitter Job are gone first") {
  CheckRun run("suspended-is-clean");
  start(run);
  run.persist("demo", "Suspending", "RUNNING");
  run.remove(Kind::RayCluster, kCluster);
  run.remove(Kind::Job, "demo");
  run.persist("demo", "Suspended", "", reset_names);
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("retry-is-clean fires when New follows Retrying while the previous attempt's Job exists") {
  CheckRun run("retry-is-clean");
  start(run);
  run.persist("demo", "Failed", "FAILED");
  run.persist("demo", "Retrying", "FAILED");
  run.remove(Kind::RayCluster, kCluster);
  const std::int64_t seq = run.persist("demo", "", "", reset_names);
  run.finish(RunEnd::quiescent);
  single_violation(run, "retry-is-clean", seq, {"Job/default/demo", "attempt 1"});
}

TEST_CASE("retry-is-clean is silent when the previous attempt's RayCluster and Job are gone") {
  CheckRun run("retry-is-clean");
  start(run);
  run.persist("demo", "Failed", "FAILED");
  run.persist("demo", "Retrying", "FAILED");
  run.remove(Kind::RayCluster, kCluster);
  run.remove(Kind::Job, "demo");
  run.persist("demo", "", "", reset_names);
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("no-leaked-cluster fires when a Suspended RayJob's cluster outlives the allowance") {
  CheckRun run("no-leaked-cluster");
  start(run);
  run.persist("demo", "Suspending", "RUNNING");
  run.remove(Kind::Job, "demo");
  run.persist("demo", "Suspended", "", reset_names);   // the cache-lag race: the cluster was not seen
  run.advance_to(kCleanupAllowanceMs + 1);
  run.finish(RunEnd::time_limit);
  single_violation(run, "no-leaked-cluster", run.last_seq(), {"RayCluster/default/demo-raycluster-aaaaa", "Suspended"});
}

TEST_CASE("no-leaked-cluster fires on a cluster left from a suspended attempt after the RayJob resumed") {
  CheckRun run("no-leaked-cluster");
  start(run);
  run.persist("demo", "Suspending", "RUNNING");
  run.remove(Kind::Job, "demo");
  run.persist("demo", "Suspended", "", reset_names);
  run.persist("demo", "", "");
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
    s.job_id = "demo-kkkkk";
    s.ray_cluster_name = "demo-raycluster-bbbbb";
  });
  run.create_cluster("demo", "demo-raycluster-bbbbb");
  run.advance_to(60'000);
  run.finish(RunEnd::time_limit);
  const auto& violation = single_violation(run, "no-leaked-cluster", run.last_seq(),
                                           {"RayCluster/default/demo-raycluster-aaaaa", "attempt 1"});
  CHECK(violation.message.find("demo-raycluster-bbbbb") == std::string::npos);   // the live attempt's own
}

TEST_CASE("no-leaked-cluster fires when a deleted RayJob's cluster is still there when nothing is left to run") {
  CheckRun run("no-leaked-cluster");
  start(run);
  run.user_delete("demo");   // the garbage collector never ran
  run.finish(RunEnd::quiescent);
  single_violation(run, "no-leaked-cluster", run.last_seq(), {"RayCluster/default/demo-raycluster-aaaaa", "deleted", "nothing left to run"});
}

TEST_CASE("no-leaked-cluster fires when Complete with shutdownAfterJobFinishes keeps its cluster past the TTL") {
  CheckRun run("no-leaked-cluster");
  run.create_rayjob("demo", [](RayJobSpec& spec) { spec.ttl_seconds_after_finished = 30; });
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) { s.ray_cluster_name = kCluster; });
  run.create_cluster("demo", kCluster);
  run.persist("demo", "Running", "RUNNING");
  run.advance_to(1'000);
  run.persist("demo", "Complete", "SUCCEEDED", [](RayJobStatus& s) { s.end_time_ms = 1'000; });
  run.advance_to(1'000 + 30'000 + kCleanupAllowanceMs);
  run.finish(RunEnd::time_limit);
  single_violation(run, "no-leaked-cluster", run.last_seq(), {"RayCluster/default/demo-raycluster-aaaaa", "TTL of 30 s"});
}

TEST_CASE("no-leaked-cluster is silent while cleanup is in progress or not yet due") {
  SUBCASE("the run ends within the allowance after the TTL") {
    CheckRun run("no-leaked-cluster");
    run.create_rayjob("demo", [](RayJobSpec& spec) { spec.ttl_seconds_after_finished = 30; });
    run.persist("demo", "Initializing", "", [](RayJobStatus& s) { s.ray_cluster_name = kCluster; });
    run.create_cluster("demo", kCluster);
    run.persist("demo", "Complete", "SUCCEEDED", [](RayJobStatus& s) { s.end_time_ms = 0; });
    run.advance_to(30'000 + kCleanupAllowanceMs - 1);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("shutdownAfterJobFinishes is false") {
    CheckRun run("no-leaked-cluster");
    run.create_rayjob("demo", [](RayJobSpec& spec) { spec.shutdown_after_job_finishes = false; });
    run.persist("demo", "Initializing", "", [](RayJobStatus& s) { s.ray_cluster_name = kCluster; });
    run.create_cluster("demo", kCluster);
    run.persist("demo", "Complete", "SUCCEEDED", [](RayJobStatus& s) { s.end_time_ms = 0; });
    run.advance_to(3'600'000);
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("the garbage collector removed a deleted RayJob's cluster") {
    CheckRun run("no-leaked-cluster");
    start(run);
    run.user_delete("demo");
    run.remove(Kind::RayCluster, kCluster, "gc");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("the cluster is being deleted (someone else's finalizer)") {
    CheckRun run("no-leaked-cluster");
    start(run);
    run.step([&](StepContext& c) {
      rjsim::engine::Object cluster = *run.world.api.find(Kind::RayCluster, "default", kCluster);
      rjsim::engine::meta(cluster).finalizers.edit().push_back("example.com/hold");
      REQUIRE(!rjsim::engine::LoggedApi(c, "user").update(cluster).error);
    });
    run.persist("demo", "Suspending", "RUNNING");
    run.remove(Kind::RayCluster, kCluster);
    run.remove(Kind::Job, "demo");
    run.persist("demo", "Suspended", "", reset_names);
    run.advance_to(3'600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("a suspended RayJob whose cluster went first") {
    CheckRun run("no-leaked-cluster");
    start(run);
    run.persist("demo", "Suspending", "RUNNING");
    run.remove(Kind::RayCluster, kCluster);
    run.remove(Kind::Job, "demo");
    run.persist("demo", "Suspended", "", reset_names);
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

}  // namespace

}  // namespace cleanup_test
