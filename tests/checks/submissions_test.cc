// single-submission, single-cluster, no-rerun-after-terminal and one-execution-at-a-time
// (DESIGN §5; docs/invariants.md): judged at the step that submits, starts or creates.
#include <doctest/doctest.h>

#include <functional>

#include "check_harness.h"

namespace submissions_test {
namespace {

using rjsim::engine::Kind;
using rjsim::engine::RayJobStatus;
using rjsim::engine::RunEnd;
using rjsim::engine::StepContext;
using rjsim::testing::CheckRun;
using rjsim::testing::single_violation;

constexpr const char* kCluster = "demo-raycluster-aaaaa";
constexpr const char* kJobId = "demo-jjjjj";

// A RayJob whose cluster is up, in its first attempt.
void start(CheckRun& run) {
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
    s.job_id = kJobId;
    s.ray_cluster_name = kCluster;
  });
  run.create_cluster("demo", kCluster);
  run.head_up(kCluster);
}

TEST_CASE("single-submission fires when a second submission id reaches a dashboard in one attempt") {
  CheckRun run("single-submission");
  start(run);
  run.submit(kCluster, kJobId);
  const std::int64_t seq = run.submit(kCluster, "demo-other");
  run.finish(RunEnd::quiescent);
  single_violation(run, "single-submission", seq, {"demo-other", kJobId, "RayCluster/default/demo-raycluster-aaaaa"});
}

// The user suspends (the jobStatus persisted then is `job_status`) and resumes: Suspending deletes
// the cluster, Suspended clears the ids, the new attempt names its own and its cluster comes up.
void suspend_and_resume(CheckRun& run, const char* job_status) {
  run.persist("demo", "Suspending", job_status);
  run.remove(Kind::RayCluster, kCluster);
  run.persist("demo", "Suspended", "", [](RayJobStatus& s) {
    s.job_id.clear();
    s.ray_cluster_name.clear();
  });
  run.persist("demo", "", "");
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
    s.job_id = "demo-kkkkk";
    s.ray_cluster_name = "demo-raycluster-bbbbb";
  });
  run.create_cluster("demo", "demo-raycluster-bbbbb");
  run.head_up("demo-raycluster-bbbbb");
}

TEST_CASE("single-submission fires when the attempt's id starts again in a new head incarnation") {
  CheckRun run("single-submission");
  start(run);
  run.submit(kCluster, kJobId, "submitter/demo-abcde");
  run.ray_status(kCluster, kJobId, "RUNNING");
  run.head_up(kCluster);   // the head restarted: its table is lost
  run.submit(kCluster, kJobId, "submitter/demo-fghij");   // the submitter pod's retry
  const std::int64_t seq = run.ray_status(kCluster, kJobId, "RUNNING");
  run.finish(RunEnd::quiescent);
  single_violation(run, "single-submission", seq, {"started executing a second time", "incarnation 2"});
}

TEST_CASE("single-submission is silent on one id started once per attempt, and on a new id after resume") {
  CheckRun run("single-submission");
  start(run);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "RUNNING");
  run.persist("demo", "Running", "RUNNING");
  suspend_and_resume(run, "RUNNING");
  run.submit("demo-raycluster-bbbbb", "demo-kkkkk");
  run.ray_status("demo-raycluster-bbbbb", "demo-kkkkk", "RUNNING");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("single-cluster fires on a second RayCluster created in one attempt") {
  CheckRun run("single-cluster");
  start(run);
  run.remove(Kind::RayCluster, kCluster, "user");
  const std::int64_t seq = run.create_cluster("demo", kCluster);   // Running re-creates it
  run.finish(RunEnd::quiescent);
  single_violation(run, "single-cluster", seq, {"second RayCluster", "RayCluster/default/demo-raycluster-aaaaa"});
}

TEST_CASE("single-cluster fires on a RayCluster created under a name not persisted before") {
  CheckRun run("single-cluster");
  run.create_rayjob("demo");
  const std::int64_t seq = run.step([&](StepContext& c) {
    // kuberay 1.1 writes status last: a create before the name is persisted breaks I1.
    run.create_cluster(c, "demo", kCluster);
    run.write_status(c, "demo", "Initializing", "", [](RayJobStatus& s) { s.ray_cluster_name = kCluster; });
  });
  run.finish(RunEnd::quiescent);
  single_violation(run, "single-cluster", seq - 2, {"RayCluster/default/demo-raycluster-aaaaa", "not persisted"});
}

TEST_CASE("single-cluster is silent on one cluster per attempt under the persisted name") {
  CheckRun run("single-cluster");
  start(run);
  run.persist("demo", "Suspending", "");
  run.remove(Kind::RayCluster, kCluster);
  run.persist("demo", "Suspended", "", [](RayJobStatus& s) { s.ray_cluster_name.clear(); });
  run.persist("demo", "", "");
  run.step([&](StepContext& c) {   // kuberay 1.0 writes the name, then creates, in one pass
    run.write_status(c, "demo", "Initializing", "", [](RayJobStatus& s) { s.ray_cluster_name = "demo-raycluster-bbbbb"; });
    run.create_cluster(c, "demo", "demo-raycluster-bbbbb");
  });
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("single-cluster counts a resume out of Suspended as a new attempt, also without a New (kuberay-1.0)") {
  CheckRun run("single-cluster");
  start(run);
  run.remove(Kind::RayCluster, kCluster);
  run.persist("demo", "Suspended", "STOPPED", [](RayJobStatus& s) { s.ray_cluster_name.clear(); });
  run.persist("demo", "Initializing", "STOPPED", [](RayJobStatus& s) { s.ray_cluster_name = "demo-raycluster-bbbbb"; });
  run.create_cluster("demo", "demo-raycluster-bbbbb");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
  CHECK(run.checker.history().rayjobs()[0]->attempts.size() == 2);
}

TEST_CASE("no-rerun-after-terminal fires on a submission after a terminal jobStatus in the same attempt") {
  CheckRun run("no-rerun-after-terminal");
  start(run);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "RUNNING");
  run.ray_status(kCluster, kJobId, "SUCCEEDED");
  run.persist("demo", "Running", "SUCCEEDED");
  run.head_up(kCluster);   // head restart: the job is gone from the new table
  const std::int64_t seq = run.submit(kCluster, kJobId);   // HTTPMode resubmits on 404
  run.finish(RunEnd::quiescent);
  single_violation(run, "no-rerun-after-terminal", seq, {"SUCCEEDED", kJobId, "incarnation 2"});
}

TEST_CASE("no-rerun-after-terminal fires on a rerun after a resume: only a backoffLimit retry starts clean") {
  // The Ray job SUCCEEDED and the RayJob persisted it; the user suspended before the controller
  // saw the submitter finish, and resumed: the new attempt submits the workload again.
  CheckRun run("no-rerun-after-terminal");
  start(run);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "SUCCEEDED");
  run.persist("demo", "Running", "SUCCEEDED");
  suspend_and_resume(run, "SUCCEEDED");
  const std::int64_t seq = run.submit("demo-raycluster-bbbbb", "demo-kkkkk");
  run.finish(RunEnd::quiescent);
  single_violation(run, "no-rerun-after-terminal", seq, {"SUCCEEDED", "demo-kkkkk", "only resumed out of Suspended"});
}

TEST_CASE("no-rerun-after-terminal is silent on a resume when no terminal jobStatus was persisted before it") {
  CheckRun run("no-rerun-after-terminal");
  start(run);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "RUNNING");
  run.persist("demo", "Running", "RUNNING");
  suspend_and_resume(run, "RUNNING");
  run.submit("demo-raycluster-bbbbb", "demo-kkkkk");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("no-rerun-after-terminal is silent when a backoffLimit retry began a new attempt") {
  CheckRun run("no-rerun-after-terminal");
  start(run);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "FAILED");
  run.persist("demo", "Failed", "FAILED");
  run.persist("demo", "Retrying", "FAILED");
  run.remove(Kind::RayCluster, kCluster);
  run.persist("demo", "", "", [](RayJobStatus& s) {
    s.job_id.clear();
    s.ray_cluster_name.clear();
  });
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
    s.job_id = "demo-kkkkk";
    s.ray_cluster_name = "demo-raycluster-bbbbb";
  });
  run.create_cluster("demo", "demo-raycluster-bbbbb");
  run.head_up("demo-raycluster-bbbbb");
  run.submit("demo-raycluster-bbbbb", "demo-kkkkk");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}


// A second cluster of the RayJob ("demo-raycluster-bbbbb") with its own head, running `id`.
constexpr const char* kSecondCluster = "demo-raycluster-bbbbb";
void run_second(CheckRun& run, const std::string& id) {
  run.create_cluster("demo", kSecondCluster);
  run.head_up(kSecondCluster);
  run.submit(kSecondCluster, id);
}

TEST_CASE("one-execution-at-a-time fires when a second Ray job of the RayJob runs while the first still does") {
  CheckRun run("one-execution-at-a-time");
  start(run);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "RUNNING");
  run_second(run, "demo-kkkkk");
  const std::int64_t seq = run.ray_status(kSecondCluster, "demo-kkkkk", "RUNNING");
  run.finish(RunEnd::quiescent);
  single_violation(run, "one-execution-at-a-time", seq, {"demo-kkkkk", kJobId, "two executions"});
}

// The first Ray job runs; `between` happens; then the second one starts on its own cluster.
void first_then_second(CheckRun& run, const std::function<void()>& between) {
  start(run);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "RUNNING");
  between();
  run_second(run, "demo-kkkkk");
  run.ray_status(kSecondCluster, "demo-kkkkk", "RUNNING");
  run.finish(RunEnd::quiescent);
}

TEST_CASE("one-execution-at-a-time is silent when the first ended or its head is gone before the second runs") {
  CheckRun ended("one-execution-at-a-time");
  first_then_second(ended, [&] { ended.ray_status(kCluster, kJobId, "STOPPED"); });
  CHECK(ended.violations().empty());
  CheckRun head_restarted("one-execution-at-a-time");   // its table, and the job, gone
  first_then_second(head_restarted, [&] { head_restarted.head_up(kCluster); });
  CHECK(head_restarted.violations().empty());
}

}  // namespace
}  // namespace submissions_test
