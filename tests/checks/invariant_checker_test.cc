// The checker as a whole: the names of DESIGN §5, the selection, one violation per
// invariant and RayJob, several RayJobs kept apart, and a checker that copies with the world.
#include "checks/invariant_checker.h"

#include <doctest/doctest.h>

#include "check_harness.h"
#include "checks/scratch.h"

namespace invariant_checker_test {
namespace {

using rjsim::checks::find_invariant;
using rjsim::checks::invariants;
using rjsim::engine::InvariantSelection;
using rjsim::engine::RayJobStatus;
using rjsim::engine::RunEnd;
using rjsim::testing::CheckRun;

TEST_CASE("the checks know exactly the twenty-two invariants of DESIGN §5, in its order") {
  const std::vector<std::string> names = {
      "single-submission",   "single-cluster",     "no-leaked-cluster",       "terminal-is-terminal",
      "legal-transition",    "suspend-atomic",     "suspended-is-clean",      "status-mirrors-ray",
      "eventually-terminal", "no-stuck-state",     "no-rerun-after-terminal", "jobstatus-monotone",
      "retry-is-clean",      "validation-recoverable", "no-model-panic",
      "outcome-follows-ray", "terminal-only-when-job-done", "submitter-finished-implies-terminal",
      "terminal-after-submitter", "suspended-only-when-requested", "suspended-means-released",
      "one-execution-at-a-time"};
  REQUIRE(invariants().size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(invariants()[i].name == names[i]);
    CHECK((invariants()[i].after_step || invariants()[i].at_end));
    CHECK(find_invariant(names[i]) == &invariants()[i]);
  }
  CHECK(find_invariant("no-such-invariant") == nullptr);
}

// A history that breaks suspend-atomic twice and jobstatus-monotone once.
void break_suspend_atomic(CheckRun& run, const std::string& name) {
  run.create_rayjob(name);
  run.persist(name, "Initializing", "");
  run.persist(name, "Suspending", "");
  run.persist(name, "Running", "RUNNING");
  run.persist(name, "Suspending", "RUNNING");
  run.persist(name, "Running", "PENDING");
}

TEST_CASE("only the selected invariants are judged") {
  SUBCASE("a list of names") {
    CheckRun run("suspend-atomic");
    break_suspend_atomic(run, "demo");
    run.finish(RunEnd::quiescent);
    REQUIRE(run.violations().size() == 1);
    CHECK(run.violations()[0].invariant == "suspend-atomic");
  }
  SUBCASE("all but some") {
    InvariantSelection all_but;
    all_but.except = {"suspend-atomic", "no-stuck-state"};
    CheckRun run(all_but);
    break_suspend_atomic(run, "demo");
    run.finish(RunEnd::quiescent);
    REQUIRE(run.violations().size() == 1);
    CHECK(run.violations()[0].invariant == "jobstatus-monotone");
  }
}

TEST_CASE("with every invariant selected, each broken invariant fires once per RayJob") {
  CheckRun run(InvariantSelection{});
  break_suspend_atomic(run, "demo");
  break_suspend_atomic(run, "other");
  run.finish(RunEnd::time_limit);
  std::vector<std::pair<std::string, std::string>> found;
  for (const auto& violation : run.violations()) {
    found.emplace_back(violation.invariant, violation.rayjob);
    CHECK(violation.message.find(violation.rayjob) != std::string::npos);
  }
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"suspend-atomic", "RayJob/default/demo"},
      {"jobstatus-monotone", "RayJob/default/demo"},
      {"suspend-atomic", "RayJob/default/other"},
      {"jobstatus-monotone", "RayJob/default/other"},
  };
  CHECK(found == expected);
}

TEST_CASE("a copied checker goes on from where the original was, independently") {
  CheckRun run("suspend-atomic");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Suspending", "");
  const rjsim::checks::InvariantChecker fork = run.checker;
  run.persist("demo", "Running", "RUNNING");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().size() == 1);
  CHECK(fork.violations().empty());
  CHECK(fork.history().rayjobs().size() == 1);
  CHECK(fork.history().rayjobs()[0]->deployment_status == "Suspending");
}

TEST_CASE("a copy of the checker made between two steps judges the next step as the original does") {
  // The copy starts with empty scratch (checks/scratch.h): each step's facts are made afresh.
  CheckRun run("suspend-atomic");
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.persist("demo", "Suspending", "");
  CheckRun copy = run;
  run.persist("demo", "Running", "RUNNING");
  copy.persist("demo", "Running", "RUNNING");
  REQUIRE(run.violations().size() == 1);
  REQUIRE(copy.violations().size() == 1);
  CHECK(copy.violations()[0].message == run.violations()[0].message);
  CHECK(copy.checker.history() == run.checker.history());
}

TEST_CASE("scratch is not copied, takes no part in ==, and moves with its owner") {
  rjsim::checks::Scratch<std::vector<int>> scratch;
  scratch->push_back(7);
  const rjsim::checks::Scratch<std::vector<int>> copy = scratch;
  CHECK(copy->empty());
  CHECK(copy == scratch);
  rjsim::checks::Scratch<std::vector<int>> assigned;
  assigned->push_back(1);
  assigned = scratch;
  CHECK(*assigned == std::vector<int>{1});   // kept what it had: scratch is cleared before it is read
  const rjsim::checks::Scratch<std::vector<int>> moved = std::move(scratch);
  CHECK(*moved == std::vector<int>{7});
}

}  // namespace

}  // namespace invariant_checker_test
