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

// The submitter Job of "demo" gets a condition `type`=True (the Job controller's status write).
std::int64_t finish_submitter_job(CheckRun& run, const std::string& type) {
  return run.step([&](rjsim::engine::StepContext& c) {
    rjsim::engine::LoggedApi(c, "job-controller")
        .patch_status(rjsim::engine::Kind::Job, "default", "demo", [&](rjsim::engine::Object& object) {
          std::get<rjsim::engine::Job>(object).status.conditions.push_back({type, "True", "", "", 0});
        });
  });
}

// A K8sJobMode RayJob (or `mode`) whose submitter Job exists and whose Ray job ended `result`.
void run_with_submitter(CheckRun& run, const std::string& result, const std::string& mode = "") {
  run.create_rayjob("demo", [&](RayJobSpec& spec) { spec.submission_mode = mode; });
  run.persist("demo", "Initializing", "", [](RayJobStatus& s) {
    s.job_id = kJobId;
    s.ray_cluster_name = kCluster;
  });
  run.create_cluster("demo", kCluster);
  run.head_up(kCluster);
  run.create_submitter_job("demo");
  run.submit(kCluster, kJobId, "submitter/demo-pod");
  run.ray_status(kCluster, kJobId, "RUNNING");
  run.persist("demo", "Running", "RUNNING");
  run.ray_status(kCluster, kJobId, result);
}

TEST_CASE("terminal-after-submitter fires when Complete from Ray is persisted before the submitter Job finished") {
  CheckRun run("terminal-after-submitter");
  run_with_submitter(run, "SUCCEEDED");
  const std::int64_t seq = run.persist("demo", "Complete", "SUCCEEDED");
  run.finish(RunEnd::quiescent);
  single_violation(run, "terminal-after-submitter", seq, {"Complete", "Job/default/demo", "before its submitter"});
}

TEST_CASE("terminal-after-submitter is silent after the Job finished, outside K8sJobMode and for other reasons") {
  SUBCASE("the Job completed first") {
    CheckRun run("terminal-after-submitter");
    run_with_submitter(run, "SUCCEEDED");
    finish_submitter_job(run, "Complete");
    run.persist("demo", "Complete", "SUCCEEDED");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("HTTPMode has no submitter Job") {
    CheckRun run("terminal-after-submitter");
    run_with_submitter(run, "SUCCEEDED", "HTTPMode");
    run.persist("demo", "Complete", "SUCCEEDED");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("the grace-period fallback") {
    CheckRun run("terminal-after-submitter");
    run_with_submitter(run, "SUCCEEDED");
    run.persist("demo", "Complete", "SUCCEEDED",
                [](RayJobStatus& s) { s.reason = "JobDeploymentStatusTransitionGracePeriodExceeded"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

TEST_CASE("submitter-finished-implies-terminal fires when nothing terminal follows the submitter's end in time") {
  CheckRun run("submitter-finished-implies-terminal", {}, 60'000);
  run_with_submitter(run, "RUNNING");
  run.advance_to(5'000);
  finish_submitter_job(run, "Failed");
  run.advance_to(5'000 + 60'000);
  run.finish(RunEnd::time_limit);
  single_violation(run, "submitter-finished-implies-terminal", run.last_seq(),
                   {"Job/default/demo has Failed=True", "60000 ms", "rests in Running"});
}

TEST_CASE("submitter-finished-implies-terminal is silent on time, with interference, and before the deadline") {
  SUBCASE("Failed within the limit") {
    CheckRun run("submitter-finished-implies-terminal", {}, 60'000);
    run_with_submitter(run, "RUNNING");
    finish_submitter_job(run, "Failed");
    run.advance_to(30'000);
    run.persist("demo", "Failed", "RUNNING", [](RayJobStatus& s) { s.reason = "SubmissionFailed"; });
    run.advance_to(600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("a user patch in between") {
    CheckRun run("submitter-finished-implies-terminal", {}, 60'000);
    run_with_submitter(run, "RUNNING");
    finish_submitter_job(run, "Complete");
    run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = true; });
    run.advance_to(600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("the run ended first") {
    CheckRun run("submitter-finished-implies-terminal", {}, 60'000);
    run_with_submitter(run, "RUNNING");
    finish_submitter_job(run, "Complete");
    run.advance_to(59'000);
    run.finish(RunEnd::step_limit);
    CHECK(run.violations().empty());
  }
}

// The SidecarMode head Pod of kCluster, whose submitter container (restart policy `policy`)
// terminated with `exit_code`.
std::int64_t sidecar_exits(CheckRun& run, int exit_code, const std::string& policy) {
  return run.step([&](rjsim::engine::StepContext& c) {
    rjsim::engine::Pod pod;
    pod.metadata.name = "demo-head";
    pod.metadata.namespace_ = "default";
    pod.metadata.labels.edit() = {{std::string(rjsim::engine::kRayClusterLabel), kCluster},
                                  {std::string(rjsim::engine::kRayNodeTypeLabel), "head"}};
    rjsim::engine::Container sidecar;
    sidecar.name = "ray-job-submitter";
    sidecar.restart_policy = policy;
    pod.spec.edit().containers.push_back(sidecar);
    rjsim::engine::Object object = pod;
    REQUIRE(!rjsim::engine::LoggedApi(c, "raycluster-controller").create(object).error);
    rjsim::engine::LoggedApi(c, "kubelet").patch_status(
        rjsim::engine::Kind::Pod, "default", "demo-head", [&](rjsim::engine::Object& o) {
          rjsim::engine::ContainerStatus status;
          status.name = "ray-job-submitter";
          status.state = "terminated";
          status.exit_code = exit_code;
          std::get<rjsim::engine::Pod>(o).status.container_statuses.push_back(status);
        });
  });
}

TEST_CASE("submitter-finished-implies-terminal reads SidecarMode's end from the submitter container, if it will not restart") {
  struct Case {
    int exit_code;
    const char* policy;
    bool fires;
  };
  for (const Case& c : {Case{0, "OnFailure", true}, Case{1, "", true}, Case{1, "OnFailure", false}}) {
    const int exit_code = c.exit_code;
    const std::string policy = c.policy;
    const bool fires = c.fires;
    CAPTURE(exit_code);
    CAPTURE(policy);
    CheckRun run("submitter-finished-implies-terminal", {}, 60'000);
    run_with_submitter(run, "RUNNING", "SidecarMode");
    sidecar_exits(run, exit_code, policy);
    run.advance_to(60'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().size() == (fires ? 1U : 0U));
    if (fires) CHECK(run.violations().front().message.find("submitter container in Pod/default/demo-head exited") != std::string::npos);
  }
}

// The history follows the submitters of a step before it reads the RayJobs the step wrote
// (History::apply_step), so it learns a SidecarMode cluster's name one look after a step that
// wrote both a Pod and the status naming the cluster. That look must not be skipped as "nothing
// to read" until the next RayJob write: here none comes.
TEST_CASE("submitter-finished-implies-terminal reads a sidecar's end when the cluster's name came with a Pod write") {
  CheckRun run("submitter-finished-implies-terminal", {}, 60'000);
  run.create_rayjob("demo", [](RayJobSpec& spec) { spec.submission_mode = "SidecarMode"; });
  run.create_cluster("demo", kCluster);
  run.head_up(kCluster);
  run.submit(kCluster, kJobId, "submitter/demo-head");
  run.ray_status(kCluster, kJobId, "RUNNING");
  run.step([&](rjsim::engine::StepContext& c) {
    rjsim::engine::Pod other;
    other.metadata.name = "elsewhere";
    other.metadata.namespace_ = "default";
    rjsim::engine::Object object = other;
    REQUIRE(!rjsim::engine::LoggedApi(c, "user").create(object).error);
    run.write_status(c, "demo", "Running", "RUNNING", [](RayJobStatus& s) {
      s.job_id = kJobId;
      s.ray_cluster_name = kCluster;
    });
  });
  sidecar_exits(run, 0, "OnFailure");
  run.advance_to(60'000);
  run.finish(RunEnd::time_limit);
  REQUIRE(run.violations().size() == 1);
  CHECK(run.violations().front().message.find("submitter container in Pod/default/demo-head exited") !=
        std::string::npos);
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
