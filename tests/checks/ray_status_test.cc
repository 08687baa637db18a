// status-mirrors-ray, outcome-follows-ray and terminal-only-when-job-done (judged at the step
// that persists Complete or Failed) and eventually-terminal (judged at the end of the run)
// (DESIGN §5; docs/invariants.md).
#include <doctest/doctest.h>

#include "check_harness.h"

namespace ray_status_test {
namespace {

using rjsim::engine::RayJobSpec;
using rjsim::engine::RayJobStatus;
using rjsim::engine::RunEnd;
using rjsim::testing::CheckRun;
using rjsim::testing::single_violation;

constexpr const char* kCluster = "demo-raycluster-aaaaa";
constexpr const char* kJobId = "demo-jjjjj";

// A RayJob in Running whose Ray job was submitted and ended `result` at `end_ms`.
void run_to(CheckRun& run, const std::string& result, std::int64_t end_ms = 0) {
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
    s.job_id = kJobId;
    s.ray_cluster_name = kCluster;
  });
  run.create_cluster("demo", kCluster);
  run.head_up(kCluster);
  run.submit(kCluster, kJobId);
  run.ray_status(kCluster, kJobId, "RUNNING");
  run.persist("demo", "Running", "RUNNING");
  if (end_ms > 0) run.advance_to(end_ms);
  run.ray_status(kCluster, kJobId, result);
}

TEST_CASE("status-mirrors-ray fires when Complete is persisted for a Ray job that FAILED") {
  CheckRun run("status-mirrors-ray");
  run_to(run, "FAILED");
  const std::int64_t seq = run.persist("demo", "Complete", "SUCCEEDED");
  run.finish(RunEnd::quiescent);
  single_violation(run, "status-mirrors-ray", seq, {"Complete", "FAILED", kJobId, "RayCluster/default/demo-raycluster-aaaaa"});
}

TEST_CASE("status-mirrors-ray fires when Failed (SubmissionFailed) is persisted for a Ray job that SUCCEEDED") {
  CheckRun run("status-mirrors-ray");
  run_to(run, "SUCCEEDED");
  const std::int64_t seq = run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "SubmissionFailed"; });
  run.finish(RunEnd::quiescent);
  single_violation(run, "status-mirrors-ray", seq, {"Failed goes with FAILED", "SubmissionFailed"});
}

TEST_CASE("status-mirrors-ray is silent when the status mirrors Ray, on deadlines and before Ray is final") {
  SUBCASE("Complete with SUCCEEDED") {
    CheckRun run("status-mirrors-ray");
    run_to(run, "SUCCEEDED");
    run.persist("demo", "Complete", "SUCCEEDED");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("Complete with STOPPED") {
    CheckRun run("status-mirrors-ray");
    run_to(run, "STOPPED");
    run.persist("demo", "Complete", "STOPPED");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("Failed by DeadlineExceeded") {
    CheckRun run("status-mirrors-ray");
    run_to(run, "SUCCEEDED");
    run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "DeadlineExceeded"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("Failed while the Ray job still runs") {
    CheckRun run("status-mirrors-ray");
    run.create_rayjob("demo");
    run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
      s.job_id = kJobId;
      s.ray_cluster_name = kCluster;
    });
    run.create_cluster("demo", kCluster);
    run.head_up(kCluster);
    run.submit(kCluster, kJobId);
    run.ray_status(kCluster, kJobId, "RUNNING");
    run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "SubmissionFailed"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

TEST_CASE("outcome-follows-ray fires when Complete is persisted for a Ray job that FAILED, whatever jobStatus says") {
  CheckRun run("outcome-follows-ray");
  run_to(run, "FAILED");
  const std::int64_t seq = run.persist("demo", "Complete", "FAILED");
  run.finish(RunEnd::quiescent);
  single_violation(run, "outcome-follows-ray", seq, {"Complete", "FAILED", kJobId, "SUCCEEDED or STOPPED"});
}

TEST_CASE("outcome-follows-ray is silent when the outcome follows Ray, on deadlines and before Ray is final") {
  SUBCASE("Failed for a FAILED Ray job, with a stale jobStatus (status-mirrors-ray's business)") {
    CheckRun run("outcome-follows-ray");
    run_to(run, "FAILED");
    run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "AppFailed"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("Complete for a STOPPED Ray job") {
    CheckRun run("outcome-follows-ray");
    run_to(run, "STOPPED");
    run.persist("demo", "Complete", "STOPPED");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("Failed by PreRunningDeadlineExceeded after Ray SUCCEEDED") {
    CheckRun run("outcome-follows-ray");
    run_to(run, "SUCCEEDED");
    run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "PreRunningDeadlineExceeded"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

TEST_CASE("terminal-only-when-job-done fires when Failed is persisted while the Ray job runs on a live head") {
  CheckRun run("terminal-only-when-job-done");
  run_to(run, "RUNNING");
  const std::int64_t seq = run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "SubmissionFailed"; });
  run.finish(RunEnd::quiescent);
  single_violation(run, "terminal-only-when-job-done", seq, {"Failed", "SubmissionFailed", kJobId, "still RUNNING"});
}

TEST_CASE("terminal-only-when-job-done is silent when the job is done or unknown, on deadlines and validation") {
  SUBCASE("the Ray job ended") {
    CheckRun run("terminal-only-when-job-done");
    run_to(run, "FAILED");
    run.persist("demo", "Failed", "FAILED", [](RayJobStatus& s) { s.reason = "AppFailed"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("never submitted") {
    CheckRun run("terminal-only-when-job-done");
    run.create_rayjob("demo");
    run.persist("demo", "Initializing", "");
    run.persist("demo", "Failed", "", [](RayJobStatus& s) { s.reason = "SubmissionFailed"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("its head restarted and lost the table: no dashboard knows it") {
    CheckRun run("terminal-only-when-job-done");
    run_to(run, "RUNNING");
    run.head_up(kCluster);
    run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "AppFailed"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  for (const char* reason : {"DeadlineExceeded", "PreRunningDeadlineExceeded", "ValidationFailed"}) {
    CAPTURE(reason);
    CheckRun run("terminal-only-when-job-done");
    run_to(run, "RUNNING");
    run.persist("demo", "Failed", "RUNNING", [&](RayJobStatus& s) { s.reason = reason; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

TEST_CASE("eventually-terminal fires when Complete is not persisted within limits.eventually of Ray's end") {
  CheckRun run("eventually-terminal", {}, 60'000);
  run_to(run, "SUCCEEDED", 5'000);
  run.advance_to(5'000 + 60'000);
  run.finish(RunEnd::time_limit);
  single_violation(run, "eventually-terminal", run.last_seq(), {kJobId, "SUCCEEDED", "60000 ms", "attempt 1"});
}

TEST_CASE("eventually-terminal fires when Complete comes too late") {
  CheckRun run("eventually-terminal", {}, 60'000);
  run_to(run, "SUCCEEDED", 5'000);
  run.advance_to(5'000 + 60'001);
  run.persist("demo", "Complete", "SUCCEEDED");
  run.finish(RunEnd::quiescent);
  single_violation(run, "eventually-terminal", run.last_seq(), {"persisted only at seq"});
}

TEST_CASE("eventually-terminal is silent on time, with interference, and when the run ends before the deadline") {
  SUBCASE("Complete within the limit") {
    CheckRun run("eventually-terminal", {}, 60'000);
    run_to(run, "SUCCEEDED", 5'000);
    run.advance_to(5'000 + 60'000);
    run.persist("demo", "Complete", "SUCCEEDED");
    run.advance_to(3'600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("a user patch in between") {
    CheckRun run("eventually-terminal", {}, 60'000);
    run_to(run, "SUCCEEDED", 5'000);
    run.advance_to(6'000);
    run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = true; });
    run.advance_to(3'600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("the run ended before the deadline") {
    CheckRun run("eventually-terminal", {}, 60'000);
    run_to(run, "SUCCEEDED", 5'000);
    run.advance_to(5'000 + 59'999);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("the Ray job never ended (its head was lost)") {
    CheckRun run("eventually-terminal", {}, 60'000);
    run.create_rayjob("demo");
    run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
      s.job_id = kJobId;
      s.ray_cluster_name = kCluster;
    });
    run.create_cluster("demo", kCluster);
    run.head_up(kCluster);
    run.submit(kCluster, kJobId);
    run.ray_status(kCluster, kJobId, "RUNNING");
    run.head_up(kCluster);
    run.advance_to(3'600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
}

}  // namespace

}  // namespace ray_status_test
