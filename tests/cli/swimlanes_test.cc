// The swimlanes of a stored run (cli/swimlanes.h) and their drawings (cli/swimlane_svg.h,
// cli/state_graph_svg.h), from runs recorded in-process: the tour's counterexample, whose
// Suspending pass reads the RayCluster from a cache that never saw its creation, and a fault-free
// run, in which nothing is stale.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "cli/run_record.h"
#include "cli/state_graph_svg.h"
#include "cli/swimlane_svg.h"
#include "cli/swimlanes.h"
#include "cli/transition_graph.h"
#include "cli/violation_excerpt.h"
#include "recorded_runs.h"
#include "store/database.h"

namespace rjsim::cli::testing {
namespace swimlanes_test {
namespace {

// Explores the tour's scenario into `db`: its last run is the shrunk counterexample.
std::int64_t record_stale_read_counterexample(const std::string& db) {
  const Result explored = invoke({"explore", bundled_scenario("explore/suspend-before-cluster-cached"), "--db", db});
  INFO(explored.err);
  REQUIRE(explored.code == 1);
  return store::Database::open_existing(db).latest_run_id().value();
}

// The tour's counterexample, stored and opened: its run id and its one violation.
struct StaleReadRun {
  ScratchDirectory scratch;
  std::string db = scratch.file("runs.db");
  std::int64_t run = record_stale_read_counterexample(db);
  store::Database database = store::Database::open_existing(db);
  std::vector<store::Violation> violations = database.violations(run);
};

const SwimlaneMark* find_mark(const Swimlanes& lanes, MarkKind kind, const std::string& lane) {
  auto it = std::find_if(lanes.marks.begin(), lanes.marks.end(),
                         [&](const SwimlaneMark& mark) { return mark.kind == kind && mark.lane == lane; });
  return it == lanes.marks.end() ? nullptr : &*it;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t found = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++found;
  return found;
}

}  // namespace

TEST_CASE("swimlanes of a stale read: the read names both versions, the creation is held, the violation is linked") {
  const StaleReadRun stored;
  REQUIRE(stored.violations.size() == 1);
  const Swimlanes lanes = collect_swimlanes(stored.database.events(stored.run), stored.violations);

  const SwimlaneMark* stale = find_mark(lanes, MarkKind::stale_read, "controller");
  REQUIRE(stale != nullptr);
  CHECK(stale->label.starts_with("RayCluster: cache rv 0, API rv "));
  CHECK(stale->link == "#seq-" + std::to_string(stale->seq));
  // The RayCluster's ADDED event was written and never reached the controller's cache.
  const auto held = std::find_if(lanes.in_flight.begin(), lanes.in_flight.end(), [](const WatchInFlight& event) {
    return event.lane == "informer/RayCluster" && !event.delivered_seq;
  });
  REQUIRE(held != lanes.in_flight.end());
  CHECK(held->written_seq < stale->seq);
  const SwimlaneMark* fired = find_mark(lanes, MarkKind::violation, "checker");
  REQUIRE(fired != nullptr);
  CHECK(fired->label == "suspended-is-clean");
  CHECK(fired->link == "#violation-0");
  // Lanes in the order a race is read: the truth, its caches, the controller, the checker.
  const auto at = [&](const std::string& lane) {
    return std::find(lanes.lanes.begin(), lanes.lanes.end(), lane) - lanes.lanes.begin();
  };
  CHECK(at("apiserver") < at("informer/RayCluster"));
  CHECK(at("informer/RayCluster") < at("controller"));
  CHECK(at("controller") < at("checker"));
  REQUIRE(lanes.bands.size() == 1);
  std::vector<std::string> statuses;
  for (const StatusSegment& segment : lanes.bands[0].segments) statuses.push_back(segment.deployment);
  CHECK(statuses == std::vector<std::string>{"Initializing", "Suspending", "Suspended"});
}

TEST_CASE("swimlanes of a fault-free run: nothing stale, nothing held, no departure, every reconcile closed") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("suspend-in-running-then-resume"));
  const store::Database database = store::Database::open_existing(db);
  const std::int64_t run = database.latest_run_id().value();
  const Swimlanes lanes = collect_swimlanes(database.events(run), database.violations(run));
  CHECK(find_mark(lanes, MarkKind::stale_read, "controller") == nullptr);
  CHECK(find_mark(lanes, MarkKind::departure, "chooser") == nullptr);
  REQUIRE_FALSE(lanes.in_flight.empty());
  for (const WatchInFlight& event : lanes.in_flight) CHECK(event.delivered_seq.has_value());
  REQUIRE_FALSE(lanes.bars.empty());
  for (const ReconcileBar& bar : lanes.bars) {
    CHECK(bar.end_seq > bar.begin_seq);
    CHECK_FALSE(bar.result.empty());
  }
  CHECK(std::is_sorted(lanes.marks.begin(), lanes.marks.end(),
                       [](const SwimlaneMark& a, const SwimlaneMark& b) { return a.seq < b.seq; }));
}

TEST_CASE("the window around a violation holds its excerpt's steps; the band starts with the status then in force") {
  const StaleReadRun stored;
  const store::Database& database = stored.database;
  const std::int64_t run = stored.run;
  const std::vector<store::Violation>& violations = stored.violations;
  const std::vector<ViolationExcerpt> excerpts = violation_excerpts(database, run, violations);
  const std::optional<SeqWindow> window = violation_window({excerpts[0].seqs}, violations);
  REQUIRE(window.has_value());
  CHECK(window->first == excerpts[0].seqs.front());
  CHECK(window->last == violations[0].seq);
  const Swimlanes around = collect_swimlanes(database.events(run), violations, window);
  CHECK(around.first_seq == window->first);
  for (const SwimlaneMark& mark : around.marks) {
    if (mark.kind != MarkKind::violation) CHECK(mark.seq <= window->last);   // its verdict comes after the step
    CHECK(mark.seq >= window->first);
  }
  CHECK(find_mark(around, MarkKind::violation, "checker") != nullptr);
  REQUIRE(around.bands.size() == 1);
  CHECK(around.bands[0].segments.front().from_seq == window->first);
  CHECK_FALSE(violation_window({}, {}).has_value());
}

TEST_CASE("rjsim show --format svg draws the swimlanes alone, the same bytes each time") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_stale_read_counterexample(db);
  const Result first = invoke({"show", db, "--format", "svg"});
  REQUIRE(first.code == 0);
  const std::string& svg = first.out;
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(contains(svg, "<g class=\"lane\" data-lane=\"controller\">"));
  CHECK(contains(svg, "<g class=\"lane\" data-lane=\"informer/RayCluster\">"));
  CHECK(contains(svg, "class=\"mark stale-read\""));
  CHECK(contains(svg, "RayCluster: cache rv 0, API rv "));
  CHECK(contains(svg, "href=\"#violation-0\""));
  CHECK(contains(svg, "class=\"violation-line\""));
  CHECK_FALSE(contains(svg, "<script"));
  CHECK(invoke({"show", db, "--format", "svg"}).out == svg);
}

TEST_CASE("the state graph as SVG: a node per state, an edge per transition with its count") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("suspend-in-running-then-resume"));
  const store::Database database = store::Database::open_existing(db);
  const TransitionGraph graph = transition_graph(database.transitions(database.latest_run_id().value()));
  const std::string svg = state_graph_svg(graph, "run");
  CHECK(count(svg, "<g class=\"node\"") == graph.states.size());
  CHECK(count(svg, "<g class=\"edge\"") == graph.edges.size());
  for (const TransitionGraph::Edge& edge : graph.edges) {
    CHECK(contains(svg, "data-to=\"" + deployment_label(edge.to) + "\" data-count=\"" + std::to_string(edge.count) + "\""));
  }
  CHECK(contains(svg, "data-status=\"Suspended\""));
  CHECK(state_graph_svg(graph, "run") == svg);
}

}  // namespace swimlanes_test
}  // namespace rjsim::cli::testing
