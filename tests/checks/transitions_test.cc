// legal-transition, terminal-is-terminal, suspend-atomic, jobstatus-monotone and no-model-panic
// (DESIGN §5; docs/invariants.md): each fires on a hand-built bad history at the step of the
// offending event, naming the RayJob, and stays silent on a good one.
#include <doctest/doctest.h>

#include "check_harness.h"

namespace transitions_test {
namespace {

using rjsim::engine::RayJobStatus;
using rjsim::engine::RunEnd;
using rjsim::testing::CheckRun;
using rjsim::testing::single_violation;

// kuberay-1.1's table (kuberay-rayjob §2.8).
const std::vector<std::pair<std::string, std::string>> kTable11 = {
    {"", "Initializing"},       {"Initializing", "Suspending"}, {"Initializing", "Failed"},
    {"Initializing", "Running"}, {"Running", "Suspending"},      {"Running", "Failed"},
    {"Running", "Complete"},    {"Suspending", "Suspended"},    {"Suspended", ""},
};

TEST_CASE("legal-transition fires on a persisted edge the model's table lacks") {
  CheckRun run("legal-transition", kTable11);
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  const std::int64_t seq = run.persist("demo", "Complete", "SUCCEEDED");
  run.finish(RunEnd::quiescent);
  single_violation(run, "legal-transition", seq, {"Initializing -> Complete"});
}

TEST_CASE("legal-transition is silent on the table's edges, on jobStatus-only changes and without a table") {
  for (const bool with_table : {true, false}) {
    CheckRun run("legal-transition", with_table ? kTable11 : decltype(kTable11){});
    run.create_rayjob("demo");
    run.persist("demo", "Initializing", "");
    run.persist("demo", "Running", "PENDING");
    run.persist("demo", "Running", "RUNNING");
    run.persist("demo", "Complete", "SUCCEEDED");
    if (!with_table) run.persist("demo", "Initializing", "");   // illegal, but nothing to judge by
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

TEST_CASE("terminal-is-terminal fires when Complete is followed by anything but Retrying") {
  CheckRun run("terminal-is-terminal");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Running", "RUNNING");
  run.persist("demo", "Complete", "SUCCEEDED");
  const std::int64_t seq = run.persist("demo", "Running", "SUCCEEDED");
  run.finish(RunEnd::quiescent);
  single_violation(run, "terminal-is-terminal", seq, {"Running after Complete"});
}

TEST_CASE("terminal-is-terminal is silent on Failed -> Retrying -> New and on jobStatus changes after Complete") {
  CheckRun run("terminal-is-terminal");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Failed", "FAILED");
  run.persist("demo", "Retrying", "FAILED");
  run.persist("demo", "", "");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Complete", "SUCCEEDED");
  run.persist("demo", "Complete", "STOPPED");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("suspend-atomic fires when Suspending is followed by anything but Suspended") {
  CheckRun run("suspend-atomic");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Suspending", "");
  const std::int64_t seq = run.persist("demo", "Running", "RUNNING");
  run.finish(RunEnd::quiescent);
  single_violation(run, "suspend-atomic", seq, {"Running after Suspending"});
}

TEST_CASE("suspend-atomic is silent on Suspending -> Suspended -> New") {
  CheckRun run("suspend-atomic");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Suspending", "");
  run.persist("demo", "Suspending", "PENDING");   // a jobStatus change keeps Suspending
  run.persist("demo", "Suspended", "");
  run.persist("demo", "", "");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("jobstatus-monotone fires when a persisted jobStatus goes from RUNNING back to PENDING") {
  CheckRun run("jobstatus-monotone");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Running", "RUNNING");
  const std::int64_t seq = run.persist("demo", "Running", "PENDING");
  run.finish(RunEnd::quiescent);
  single_violation(run, "jobstatus-monotone", seq, {"RUNNING -> PENDING", "attempt 1"});
}

TEST_CASE("jobstatus-monotone fires when a terminal jobStatus turns non-terminal within the attempt") {
  CheckRun run("jobstatus-monotone");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Running", "SUCCEEDED");
  const std::int64_t seq = run.persist("demo", "Running", "RUNNING");
  run.finish(RunEnd::quiescent);
  single_violation(run, "jobstatus-monotone", seq, {"SUCCEEDED -> RUNNING"});
}

TEST_CASE("jobstatus-monotone is silent on forward moves and on the resets that end and begin attempts") {
  CheckRun run("jobstatus-monotone");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Running", "PENDING");
  run.persist("demo", "Running", "RUNNING");
  run.persist("demo", "Running", "SUCCEEDED");   // Ray done, submitter Job not yet (1.1)
  run.persist("demo", "Suspending", "SUCCEEDED");
  run.persist("demo", "Suspended", "");          // kuberay 1.1 resets jobStatus here
  run.persist("demo", "", "");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Running", "RUNNING");
  run.persist("demo", "Failed", "FAILED");
  run.persist("demo", "Retrying", "");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

TEST_CASE("no-model-panic fires on a reconcile that panics") {
  CheckRun run("no-model-panic");
  run.create_rayjob("demo");
  const std::int64_t seq = run.panic("demo", "runtime error: invalid memory address or nil pointer dereference");
  run.finish(RunEnd::quiescent);
  single_violation(run, "no-model-panic", seq, {"nil pointer dereference"});
}

TEST_CASE("no-model-panic is silent on reconciles that return") {
  CheckRun run("no-model-panic");
  run.create_rayjob("demo");
  run.step([](rjsim::engine::StepContext& c) {
    c.effect("reconcile.begin", "controller", "RayJob/default/demo").with("incarnation", 1);
    c.effect("reconcile.end", "controller", "RayJob/default/demo").with("result", "error").with("error", "boom");
  });
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

}  // namespace

}  // namespace transitions_test
