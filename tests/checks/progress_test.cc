// no-stuck-state and validation-recoverable (DESIGN §5; docs/invariants.md).
#include <doctest/doctest.h>

#include "check_harness.h"

namespace progress_test {
namespace {

using rjsim::engine::RayJobSpec;
using rjsim::engine::RayJobStatus;
using rjsim::engine::RunEnd;
using rjsim::testing::CheckRun;
using rjsim::testing::single_violation;

TEST_CASE("no-stuck-state fires when a quiescent run leaves a RayJob in Running") {
  CheckRun run("no-stuck-state");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  const std::int64_t running = run.persist("demo", "Running", "RUNNING");
  run.finish(RunEnd::quiescent);
  single_violation(run, "no-stuck-state", run.last_seq(), {"Running", std::to_string(running)});
}

TEST_CASE("no-stuck-state is silent at rest states, on a time limit and for another manager") {
  SUBCASE("Complete, Failed and Suspended are rest states") {
    for (const char* rest : {"Complete", "Failed", "Suspended"}) {
      CheckRun run("no-stuck-state");
      run.create_rayjob("demo");
      run.persist("demo", "Initializing", "");
      run.persist("demo", rest, "");
      run.finish(RunEnd::quiescent);
      CHECK(run.violations().empty());
    }
  }
  SUBCASE("a run that hit its time limit is not at rest") {
    CheckRun run("no-stuck-state");
    run.create_rayjob("demo");
    run.persist("demo", "Running", "RUNNING");
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("spec.managedBy hands the RayJob to MultiKueue") {
    CheckRun run("no-stuck-state");
    run.create_rayjob("demo", [](RayJobSpec& spec) { spec.managed_by = "kueue.x-k8s.io/multikueue"; });
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

TEST_CASE("validation-recoverable fires when ValidationFailed replaces Complete") {
  CheckRun run("validation-recoverable");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Running", "RUNNING");
  run.persist("demo", "Complete", "SUCCEEDED");
  run.user_patch("demo", [](RayJobSpec& spec) { spec.shutdown_after_job_finishes = false; });
  const std::int64_t seq = run.persist("demo", "ValidationFailed", "SUCCEEDED");
  run.finish(RunEnd::quiescent);
  single_violation(run, "validation-recoverable", seq, {"replaced Complete"});
}

TEST_CASE("validation-recoverable fires when a RayJob stays ValidationFailed after its spec was fixed") {
  CheckRun run("validation-recoverable", {}, 60'000);
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Running", "RUNNING");
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = true; spec.shutdown_after_job_finishes = false; });
  run.persist("demo", "ValidationFailed", "RUNNING");
  run.advance_to(1'000);
  const std::int64_t fixed = run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = false; spec.shutdown_after_job_finishes = true; });
  run.advance_to(1'000 + 60'000);
  run.finish(RunEnd::time_limit);
  single_violation(run, "validation-recoverable", run.last_seq(), {"still ValidationFailed", std::to_string(fixed)});
}

TEST_CASE("validation-recoverable is silent when ValidationFailed is left in time or the spec stays invalid") {
  SUBCASE("left in time") {
    CheckRun run("validation-recoverable", {}, 60'000);
    run.create_rayjob("demo");
    run.persist("demo", "Initializing", "");
    run.persist("demo", "Running", "RUNNING");
    run.user_patch("demo", [](RayJobSpec& spec) { spec.shutdown_after_job_finishes = false; spec.suspend = true; });
    run.persist("demo", "ValidationFailed", "RUNNING");
    run.user_patch("demo", [](RayJobSpec& spec) { spec.shutdown_after_job_finishes = true; spec.suspend = false; });
    run.advance_to(30'000);
    run.persist("demo", "", "");
    run.advance_to(3'600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("still invalid") {
    CheckRun run("validation-recoverable", {}, 60'000);
    run.create_rayjob("demo");
    run.persist("demo", "Initializing", "");
    run.user_patch("demo", [](RayJobSpec& spec) { spec.shutdown_after_job_finishes = false; spec.suspend = true; });
    run.persist("demo", "ValidationFailed", "");
    run.advance_to(3'600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
  SUBCASE("kuberay 1.1 leaves the status alone on a validation error") {
    CheckRun run("validation-recoverable", {}, 60'000);
    run.create_rayjob("demo");
    run.persist("demo", "Initializing", "");
    run.persist("demo", "Running", "RUNNING");
    run.user_patch("demo", [](RayJobSpec& spec) { spec.shutdown_after_job_finishes = false; spec.suspend = true; });
    run.advance_to(3'600'000);
    run.finish(RunEnd::time_limit);
    CHECK(run.violations().empty());
  }
}

}  // namespace

}  // namespace progress_test
