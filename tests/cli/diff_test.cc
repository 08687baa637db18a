// rjsim diff (DESIGN §6): two recorded runs aligned by seq, the first differing event, and each
// RayJob's transitions side by side. Runs are recorded in-process from bundled scenarios, or
// written event by event where a test needs runs of given lengths.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/run_diff.h"
#include "recorded_runs.h"
#include "store/database.h"

namespace rjsim::cli::testing {
namespace diff_test {
namespace {

// The first seq at which two stored runs differ, found the plain way: every event in memory.
std::optional<std::int64_t> first_differing_seq(const std::string& db, std::int64_t run_a,
                                                std::int64_t run_b) {
  const store::Database database = store::Database::open_existing(db);
  auto read = [&](std::int64_t run_id) {
    std::vector<events::Event> events;
    store::EventReader reader = database.events(run_id);
    for (events::Event event; reader.next(event);) events.push_back(event);
    return events;
  };
  const std::vector<events::Event> a = read(run_a);
  const std::vector<events::Event> b = read(run_b);
  for (std::size_t index = 0; index < std::max(a.size(), b.size()); ++index) {
    if (index >= a.size() || index >= b.size() || !(a[index] == b[index])) {
      return static_cast<std::int64_t>(index);
    }
  }
  return std::nullopt;
}

store::Transition transition(std::int64_t seq, std::string from, std::string to,
                             std::string job_status = "") {
  return store::Transition{seq, seq * 10, "RayJob/default/a", std::move(from), std::move(to), "",
                           std::move(job_status), ""};
}

// Runs 1 and 2 of a scratch database: two bundled scenarios, the second with extra flags.
struct TwoRuns {
  TwoRuns(const std::string& scenario_a, const std::string& scenario_b,
          std::vector<std::string> extra_b = {}) {
    record_run(db, bundled_scenario(scenario_a));
    record_run(db, bundled_scenario(scenario_b), std::move(extra_b));
  }
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
};

}  // namespace

TEST_CASE("rjsim diff of two runs of one scenario and seed: identical, exit 0") {
  const TwoRuns runs("head-restart-while-running", "head-restart-while-running");
  const std::string& db = runs.db;

  const Result text = invoke({"diff", db, "1", "2"});
  CHECK(text.code == 0);
  CHECK(text.err.empty());
  CHECK(contains(text.out, "The runs are identical: the same "));
  CHECK_FALSE(contains(text.out, "note:"));
  CHECK_FALSE(contains(text.out, "\n  ! "));

  const Result json = invoke({"diff", db, "1", "2", "--json"});
  CHECK(json.code == 0);
  const nlohmann::json diff = nlohmann::json::parse(json.out);
  CHECK(diff["run_a"] == 1);
  CHECK(diff["run_b"] == 2);
  CHECK(diff["identical"] == true);
  CHECK(diff["first_difference"].is_null());
  CHECK(diff["events_a"] == diff["events_b"]);
  CHECK(diff["events_a"].get<int>() > 100);
  CHECK(diff["transitions"]["rayjob-sample"]["a"] == diff["transitions"]["rayjob-sample"]["b"]);
}

TEST_CASE("rjsim diff of one scenario under two seeds: exit 1, the first differing seq named") {
  const TwoRuns runs("head-restart-while-running", "head-restart-while-running", {"--seed", "2"});
  const std::string& db = runs.db;
  const std::optional<std::int64_t> seq = first_differing_seq(db, 1, 2);
  REQUIRE(seq.has_value());

  const Result text = invoke({"diff", db, "1", "2"});
  CHECK(text.code == 1);
  CHECK(contains(text.out, "note: the runs have different seeds: A 1, B 2\n"));
  CHECK(contains(text.out, fmt::format("\nFirst difference at seq {} (A at ", *seq)));
  CHECK(contains(text.out, "  A (run 1):\n  > "));
  CHECK(contains(text.out, "  B (run 2):\n  > "));
  CHECK(contains(text.out, "\nTransitions (! another change, ~ the same change at another seq or time):\n"
                           "  rayjob-sample\n"));

  const Result json = invoke({"diff", db, "1", "2", "--json"});
  CHECK(json.code == 1);
  const nlohmann::json diff = nlohmann::json::parse(json.out);
  CHECK(diff["identical"] == false);
  CHECK(diff["first_difference"]["seq"] == *seq);
  CHECK(diff["first_difference"]["a"]["seq"] == *seq);
  CHECK(diff["first_difference"]["b"]["seq"] == *seq);
  CHECK(diff["first_difference"]["a"] != diff["first_difference"]["b"]);
  const std::size_t transitions_a = store::Database::open_existing(db).transitions(1).size();
  CHECK(diff["transitions"]["rayjob-sample"]["a"].size() == transitions_a);
}

TEST_CASE("rjsim diff --format html: both runs drawn from the same step before the first difference, which is marked") {
  const TwoRuns runs("head-restart-while-running", "head-restart-while-running", {"--seed", "2"});
  const std::optional<std::int64_t> seq = first_differing_seq(runs.db, 1, 2);
  REQUIRE(seq.has_value());
  const Result html = invoke({"diff", runs.db, "1", "2", "--format", "html"});
  CHECK(html.code == 1);
  const std::string& page = html.out;
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(contains(page, fmt::format("First difference at seq {} (", *seq)));
  CHECK(contains(page, "<div class=\"picture\" data-run=\"A\">"));
  CHECK(contains(page, "<div class=\"picture\" data-run=\"B\">"));
  // Both pictures start at the same step, and mark the same one.
  const std::string start = fmt::format("data-first-seq=\"{}\"", std::max<std::int64_t>(0, *seq - 40));
  const std::string mark = fmt::format("<g class=\"marked\" data-seq=\"{}\">", *seq);
  CHECK(page.find(start) != page.rfind(start));
  CHECK(page.find(mark) != std::string::npos);
  CHECK(page.find(mark) != page.rfind(mark));

  const TwoRuns same("head-restart-while-running", "head-restart-while-running");
  const Result identical = invoke({"diff", same.db, "1", "2", "--format", "html"});
  CHECK(identical.code == 0);
  CHECK(contains(identical.out, "The runs are identical: the same "));
  CHECK_FALSE(contains(identical.out, "class=\"marked\""));
}

TEST_CASE("rjsim diff of two scenarios: exit 1, a note, and each RayJob's transitions beside none") {
  const TwoRuns runs("head-restart-while-running", "httpmode-success");
  const std::string& db = runs.db;

  const Result text = invoke({"diff", db, "1", "2"});
  CHECK(text.code == 1);
  CHECK(contains(text.out, "note: the runs are of different scenarios: A head-restart-while-running, "
                           "B httpmode-success\n"));
  CHECK_FALSE(contains(text.out, "note: the runs have different seeds"));
  CHECK(contains(text.out, "\n  rayjob-http\n"));
  CHECK(contains(text.out, "\n  rayjob-sample\n"));
  CHECK(contains(text.out, "\n  ! (none) "));

  const nlohmann::json diff = nlohmann::json::parse(invoke({"diff", db, "1", "2", "--json"}).out);
  CHECK(diff["first_difference"]["seq"] == *first_differing_seq(db, 1, 2));
  CHECK(diff["transitions"]["rayjob-http"]["a"].empty());
  CHECK_FALSE(diff["transitions"]["rayjob-http"]["b"].empty());
  CHECK(diff["transitions"]["rayjob-sample"]["b"].empty());
}

TEST_CASE("rjsim diff: a run that ends earlier differs at the seq where it ends") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  {
    store::Database database = store::Database::open(db);
    store::testing::write_run(database, 5);
    store::testing::write_run(database, 7);
  }
  const Result text = invoke({"diff", db, "1", "2"});
  CHECK(text.code == 1);
  CHECK(contains(text.out, "First difference at seq 5 (A at its end, B at 0.050s), in end:\n"));
  CHECK(contains(text.out, "  A (run 1):\n  > (the run has ended)\n"));
  CHECK(contains(text.out, "Transitions (! another change, ~ the same change at another seq or time):\n"
                           "  (none in either run)\n"));

  const nlohmann::json diff = nlohmann::json::parse(invoke({"diff", db, "1", "2", "--json"}).out);
  CHECK(diff["events_a"] == 5);
  CHECK(diff["events_b"] == 7);
  CHECK(diff["first_difference"]["seq"] == 5);
  CHECK(diff["first_difference"]["a"].is_null());
  CHECK(diff["first_difference"]["b"]["seq"] == 5);
  CHECK(diff["first_difference"]["fields"] == nlohmann::json::array({"end"}));
}

TEST_CASE("rjsim diff names the fields in which two events differ") {
  events::Event a;
  a.seq = 4;
  a.type = "api.update";
  a.with("rv", 3);
  events::Event b = a;
  CHECK(differing_fields(a, b).empty());
  b.at_ms = 10;
  b.object = "RayJob/default/a";
  b.body.front().value = std::int64_t{4};
  CHECK(differing_fields(a, b) == std::vector<std::string>{"at_ms", "object", "body"});
}

TEST_CASE("rjsim diff pairs transitions per RayJob row by row and tells timing from another change") {
  const std::vector<store::Transition> a = {transition(11, "", "Initializing"),
                                            transition(20, "Initializing", "Running"),
                                            transition(30, "Running", "Complete", "SUCCEEDED")};
  const std::vector<store::Transition> b = {transition(11, "", "Initializing"),
                                            transition(21, "Initializing", "Running"),
                                            transition(30, "Running", "Failed", "FAILED"),
                                            transition(40, "Failed", "Retrying")};
  const std::vector<RayJobTransitions> paired = pair_transitions(a, b);
  REQUIRE(paired.size() == 1);
  CHECK(paired[0].rayjob == "a");
  REQUIRE(paired[0].rows.size() == 4);
  CHECK(paired[0].rows[0].difference == RowDifference::same);
  CHECK(paired[0].rows[1].difference == RowDifference::timing);
  CHECK(paired[0].rows[2].difference == RowDifference::transition);
  CHECK(paired[0].rows[3].difference == RowDifference::transition);
  CHECK_FALSE(paired[0].rows[3].a.has_value());
}

TEST_CASE("rjsim diff: a missing database or run is bad input, exit 2, naming the file and the run") {
  ScratchDirectory scratch;
  const Result missing = invoke({"diff", scratch.file("nope.db"), "1", "2"});
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, "rjsim diff: " + scratch.file("nope.db") + ": no such file"));

  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("httpmode-success"));
  const Result no_run = invoke({"diff", db, "1", "7"});
  CHECK(no_run.code == 2);
  CHECK(no_run.out.empty());
  CHECK(contains(no_run.err, "rjsim diff: " + db + ": no run 7"));
}

}  // namespace diff_test
}  // namespace rjsim::cli::testing

