// The transitions view: one row per status.transition event (DESIGN §3).
#include "store/database.h"
#include "store_test_support.h"

#include <doctest/doctest.h>

#include <vector>

using rjsim::events::Event;
using rjsim::events::Origin;

namespace transitions_view_test {
using namespace rjsim::store;
using namespace rjsim::store::testing;

namespace {

Event transition(std::int64_t seq, std::string from, std::string to, std::string job_from,
                 std::string job_to, std::string reason) {
  Event event{seq, seq * 1000, Origin::effect, "status.transition", "apiserver",
              "RayJob/default/demo", {}};
  event.with("from_deployment", from)
      .with("to_deployment", to)
      .with("from_job_status", job_from)
      .with("to_job_status", job_to)
      .with("reason", reason)
      .with("rv", seq);
  return event;
}

}  // namespace

TEST_CASE("the transitions view returns the status.transition events of a run, and only them") {
  ScratchDirectory directory;
  Database database = Database::open(directory.file("runs.db"));
  const std::int64_t other_run = write_run(database, 4);
  RunWriter writer = database.begin_run(header());
  writer.emit(event(0, "api.update_status"));
  writer.emit(transition(1, "", "Initializing", "", "", ""));
  writer.emit(event(2, "status.transition.extra"));
  writer.emit(transition(3, "Initializing", "Running", "", "PENDING", ""));
  writer.emit(event(4, "reconcile.end"));
  writer.emit(transition(5, "Running", "Failed", "RUNNING", "FAILED", "DeadlineExceeded"));
  const std::int64_t run_id = writer.commit(RunSummary{"pass", 6, 5000, "00"});

  CHECK(database.transitions(run_id) ==
        std::vector<Transition>{
            {1, 1000, "RayJob/default/demo", "", "Initializing", "", "", ""},
            {3, 3000, "RayJob/default/demo", "Initializing", "Running", "", "PENDING", ""},
            {5, 5000, "RayJob/default/demo", "Running", "Failed", "RUNNING", "FAILED",
             "DeadlineExceeded"}});
  CHECK(database.transitions(other_run).empty());
}

TEST_CASE("a transition whose body lacks a key reads that column as empty") {
  ScratchDirectory directory;
  Database database = Database::open(directory.file("runs.db"));
  RunWriter writer = database.begin_run(header());
  Event partial{0, 7, Origin::effect, "status.transition", "apiserver", "RayJob/ns/job", {}};
  partial.with("to_deployment", "Suspended");
  writer.emit(partial);
  const std::int64_t run_id = writer.commit(RunSummary{"pass", 1, 7, "00"});
  CHECK(database.transitions(run_id) ==
        std::vector<Transition>{{0, 7, "RayJob/ns/job", "", "Suspended", "", "", ""}});
}

}  // namespace transitions_view_test
