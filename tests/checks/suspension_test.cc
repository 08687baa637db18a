// suspended-only-when-requested (DESIGN §5; docs/invariants.md): judged at the step that persists
// Suspended, from spec.suspend of the RayJob the write was based on.
#include <doctest/doctest.h>

#include "check_harness.h"

namespace suspension_test {
namespace {

using rjsim::engine::RayJobSpec;
using rjsim::engine::RunEnd;
using rjsim::testing::CheckRun;
using rjsim::testing::single_violation;

// A RayJob the user suspended, whose controller persisted Suspending.
void suspending(CheckRun& run) {
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = true; });
  run.persist("demo", "Suspending", "");
}

TEST_CASE("suspended-only-when-requested fires when Suspended is written over a RayJob that is no longer suspended") {
  CheckRun run("suspended-only-when-requested");
  suspending(run);
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = false; });
  const std::int64_t seq = run.persist("demo", "Suspended", "");
  run.finish(RunEnd::quiescent);
  single_violation(run, "suspended-only-when-requested", seq, {"Suspended", "Suspending", "spec.suspend was false"});
}

TEST_CASE("suspended-only-when-requested is silent while the RayJob asks to be suspended") {
  CheckRun run("suspended-only-when-requested");
  suspending(run);
  run.persist("demo", "Suspended", "");
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = false; });   // the resume, after
  run.persist("demo", "", "");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

}  // namespace
}  // namespace suspension_test
