// rjsim show (DESIGN §6): a recorded run read back as text, JSON, DOT and Mermaid. Runs are
// recorded in-process from bundled scenarios (or written event by event where a test needs an
// exact log), then shown.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli/violation_excerpt.h"
#include "cli/transition_graph.h"
#include "recorded_runs.h"
#include "store/database.h"

namespace rjsim::cli::testing {
namespace show_test {
namespace {

using Edges = std::map<std::pair<std::string, std::string>, int>;

// The edges the transitions view implies: one per persisted (from, to), with its count.
Edges edges_of_view(const std::string& db, std::int64_t run_id) {
  Edges edges;
  for (const store::Transition& t : store::Database::open_existing(db).transitions(run_id)) {
    ++edges[{t.from_deployment.empty() ? "New" : t.from_deployment, t.to_deployment}];
  }
  return edges;
}

// The text between the first `open` at or after `from` and the next `close`; advances `from`.
// (Plain parsing: std::regex trips GCC 12's maybe-uninitialized warning under the sanitizers.)
std::string between(const std::string& line, std::size_t& from, const std::string& open, const std::string& close) {
  const std::size_t start = line.find(open, from);
  if (start == std::string::npos) return "";
  const std::size_t end = line.find(close, start + open.size());
  if (end == std::string::npos) return "";
  from = end + close.size();
  return line.substr(start + open.size(), end - start - open.size());
}

// Lines `  "FROM" -> "TO" [label="N"];`.
Edges dot_edges(const std::string& dot) {
  Edges edges;
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("  \"") || line.find("\" -> \"") == std::string::npos || !line.ends_with("\"];")) continue;
    std::size_t at = 0;
    const std::string from = between(line, at, "\"", "\"");
    const std::string to = between(line, at, "\"", "\"");
    const std::string count = between(line, at, "[label=\"", "\"");
    edges[{from, to}] += std::stoi(count);
  }
  return edges;
}

// Lines `  state "LABEL" as ID` and `  FROM_ID --> TO_ID : N`.
Edges mermaid_edges(const std::string& mermaid) {
  std::map<std::string, std::string> label_of;
  Edges edges;
  std::istringstream lines(mermaid);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("  state \"")) {
      std::size_t at = 0;
      const std::string label = between(line, at, "\"", "\"");
      label_of[line.substr(line.rfind(" as ") + 4)] = label;
      continue;
    }
    const std::size_t arrow = line.find(" --> ");
    const std::size_t colon = line.find(" : ");
    if (!line.starts_with("  ") || arrow == std::string::npos || colon == std::string::npos) continue;
    const std::string from = line.substr(2, arrow - 2);
    const std::string to = line.substr(arrow + 5, colon - arrow - 5);
    edges[{label_of.at(from), label_of.at(to)}] += std::stoi(line.substr(colon + 3));
  }
  return edges;
}

// Whether `text` has a line marked `  *` that holds every one of `parts`.
bool has_marked_line(const std::string& text, const std::vector<std::string>& parts) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("  *")) continue;
    if (std::all_of(parts.begin(), parts.end(), [&](const std::string& part) { return contains(line, part); })) {
      return true;
    }
  }
  return false;
}

constexpr const char* rayjob_spec = R"(
      entrypoint: python main.py
      submissionMode: HTTPMode
      shutdownAfterJobFinishes: true
      rayClusterSpec:
        rayVersion: "2.9.0"
        headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: ray-head, image: "rayproject/ray:2.9.0"}]}}}
)";

// A scenario of HTTPMode RayJobs with these names, alike in everything else.
std::string write_scenario(const ScratchDirectory& scratch, const std::vector<std::string>& names) {
  std::string text = fmt::format("apiVersion: rjsim/v1\nkind: Scenario\nname: rayjobs-{}\nrayjobs:\n",
                                 names.size());
  for (const std::string& name : names) {
    text += fmt::format("  - apiVersion: ray.io/v1\n    kind: RayJob\n    metadata: {{name: {}}}\n    spec:{}",
                        name, rayjob_spec);
  }
  const std::string file = scratch.file(fmt::format("rayjobs-{}.yaml", names.size()));
  store::testing::write_bytes(file, text);
  return file;
}

std::int64_t first_violation_seq(const std::string& db, std::int64_t run_id) {
  const std::vector<store::Violation> violations = store::Database::open_existing(db).violations(run_id);
  REQUIRE(violations.size() == 1);
  return violations.front().seq;
}

}  // namespace

TEST_CASE("rjsim show --format dot and mermaid draw each persisted transition as an edge with its count") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("head-restart-while-running"));

  const Result dot = invoke({"show", db, "--format", "dot"});
  REQUIRE(dot.code == 0);
  CHECK(dot.out.starts_with("digraph transitions {\n"));
  CHECK(dot.out.ends_with("}\n"));
  CHECK(contains(dot.out, "  \"New\" -> \"Initializing\" [label=\"1\"];\n"));
  CHECK(contains(dot.out, "  \"Running\" -> \"Running\" [label=\"2\"];\n"));   // jobStatus PENDING, RUNNING
  CHECK(contains(dot.out, "  \"Running\" -> \"Complete\" [label=\"1\"];\n"));
  CHECK(dot_edges(dot.out) == edges_of_view(db, 1));

  const Result mermaid = invoke({"show", db, "--format", "mermaid"});
  REQUIRE(mermaid.code == 0);
  CHECK(mermaid.out.starts_with("stateDiagram-v2\n"));
  CHECK(contains(mermaid.out, "  state \"New\" as New\n"));
  CHECK(contains(mermaid.out, "  New --> Initializing : 1\n"));
  CHECK(contains(mermaid.out, "  Running --> Running : 2\n"));
  CHECK(mermaid_edges(mermaid.out) == edges_of_view(db, 1));
}

TEST_CASE("rjsim show graphs count the transitions of every RayJob of the run") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, write_scenario(scratch, {"first"}));
  record_run(db, write_scenario(scratch, {"first", "second"}));

  const Edges one = dot_edges(invoke({"show", db, "--run", "1", "--format", "dot"}).out);
  const Edges two = dot_edges(invoke({"show", db, "--run", "2", "--format", "dot"}).out);
  REQUIRE(one.size() >= 3);
  Edges doubled = one;
  for (auto& [edge, count] : doubled) count *= 2;
  CHECK(two == doubled);
  CHECK(mermaid_edges(invoke({"show", db, "--run", "2", "--format", "mermaid"}).out) == doubled);
}

TEST_CASE("rjsim show graphs list states and edges in the order the log first has them") {
  const std::vector<store::Transition> transitions = {
      {11, 0, "RayJob/default/a", "", "Initializing", "", "", ""},
      {20, 5, "RayJob/default/a", "Initializing", "Suspending", "", "", ""},
      {30, 9, "RayJob/default/a", "Suspending", "Suspended", "", "", ""},
      {40, 12, "RayJob/default/a", "Suspended", "", "", "", ""},
      {50, 13, "RayJob/default/a", "", "Initializing", "", "", ""},
  };
  const TransitionGraph graph = transition_graph(transitions);
  CHECK(graph.states == std::vector<std::string>{"", "Initializing", "Suspending", "Suspended"});
  REQUIRE(graph.edges.size() == 4);
  CHECK(graph.edges[0].from == "");
  CHECK(graph.edges[0].count == 2);
  CHECK(graph.edges[3].from == "Suspended");
  CHECK(graph.edges[3].to == "");
  const std::string dot = graph_dot(graph, "t");
  CHECK(dot.find("\"New\" -> \"Initializing\"") < dot.find("\"Suspended\" -> \"New\""));
  CHECK(contains(graph_mermaid(graph, "t"), "  Suspended --> New : 1\n"));
}

TEST_CASE("rjsim show --format mermaid makes a state id of any persisted value") {
  const std::vector<store::Transition> transitions = {
      {1, 0, "RayJob/default/a", "", "Odd \"state\"", "", "", ""},
      {2, 0, "RayJob/default/a", "Odd \"state\"", "Odd-state", "", "", ""},
  };
  const std::string mermaid = graph_mermaid(transition_graph(transitions), "t");
  CHECK(contains(mermaid, "  state \"Odd state\" as Odd__state_\n"));
  CHECK(contains(mermaid, "  state \"Odd-state\" as Odd_state\n"));
  CHECK(contains(mermaid, "  New --> Odd__state_ : 1\n"));
  const std::string dot = graph_dot(transition_graph(transitions), "t");
  CHECK(contains(dot, "  \"New\" -> \"Odd \\\"state\\\"\" [label=\"1\"];\n"));
}

TEST_CASE("rjsim show prints the header, the timeline, the transitions and the violations") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("head-restart-while-running"));

  const Result shown = invoke({"show", db});
  REQUIRE(shown.code == 0);
  CHECK(shown.err.empty());
  CHECK(shown.out.starts_with("run          1\nkind         run\n"));
  CHECK(contains(shown.out, "\nscenario     head-restart-while-running\n"));
  CHECK(contains(shown.out, "\nmodel        kuberay-1.1\n"));
  CHECK(contains(shown.out, "\nseed         1\n"));
  CHECK(contains(shown.out, "\noutcome      violation\n"));
  CHECK(contains(shown.out, "\nparent run   none\n"));
  CHECK(contains(shown.out, "\nTimeline:\n"));
  CHECK(contains(shown.out, "#0 "));
  const std::size_t transitions = edges_of_view(db, 1).size();
  CHECK(transitions > 0);
  CHECK(contains(shown.out, fmt::format("\nTransitions ({}):\n",
                                        store::Database::open_existing(db).transitions(1).size())));
  CHECK(contains(shown.out, "\nViolations (1):\n"));
}

TEST_CASE("rjsim show prints under a violation the steps that led to it, the cause among them") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("head-restart-while-running"));
  const std::int64_t seq = first_violation_seq(db, 1);

  const Result shown = invoke({"show", db});
  REQUIRE(shown.code == 0);
  const std::string violation = section(shown.out, "Violations (1):");
  CHECK(contains(violation, fmt::format("#{:<6} single-submission: RayJob/default/rayjob-sample", seq)));
  CHECK(contains(violation, "the steps that led to it (RayJob/default/rayjob-sample and its objects"));
  // The story: the head restarts and loses the job, the submitter exits, the Job's next pod
  // submits the same id again, and it runs a second time (the violation's own step, marked).
  for (const std::string step : {"action.head_restart", "ray.head_restart", "submitter.exit",
                                 "dashboard.submit_job"}) {
    CAPTURE(step);
    CHECK(contains(violation, step));
  }
  CHECK(has_marked_line(violation, {fmt::format("s  #{} ", seq), " ray ", "ray.job_status"}));
  CHECK(contains(violation, "... the same reconcile "));
  // Quiet events stay out: fresh cache reads, queue bookkeeping, the clock.
  CHECK_FALSE(contains(violation, "lag=0"));
  CHECK_FALSE(contains(violation, "queue.get"));
  CHECK_FALSE(contains(violation, "clock.advance"));
}

// A log written event by event: RayJob a's reconciles, a RayJob a-b whose cluster is not a's,
// and a violation at seq 15 naming a and seq 5.
std::int64_t write_excerpt_run(store::Database& database) {
  using events::Event;
  auto event = [](std::int64_t seq, std::string type, std::string actor, std::string object) {
    Event e;
    e.seq = seq;
    e.at_ms = seq * 100;
    e.type = std::move(type);
    e.actor = std::move(actor);
    e.object = std::move(object);
    return e;
  };
  const std::string a = "RayJob/default/a";
  const std::string shared = "RayCluster/default/shared";
  std::vector<Event> log = {
      event(0, "action.create", "user", a),
      event(1, "action.create", "user", "RayJob/default/a-b"),
      event(2, "reconcile.begin", "controller", a).with("incarnation", 1),
      event(3, "cache.read", "controller", a).with("found", true).with("rv_seen", 1).with("rv_latest", 1).with("lag", 0),
      event(4, "cache.read", "controller", shared).with("found", true).with("rv_seen", 3).with("rv_latest", 5).with("lag", 1),
      event(5, "api.create", "controller", "RayCluster/default/a-raycluster-x").with("outcome", "ok"),
      event(6, "reconcile.end", "controller", a).with("result", "done"),
      event(7, "api.update", "raycluster-controller", "RayCluster/default/a-b-raycluster-y").with("outcome", "ok"),
      event(8, "queue.get", "workqueue", "").with("key", "default/a"),
      event(9, "clock.advance", "clock", "").with("to_ms", 900),
      event(10, "ray.head_restart", "ray", shared).with("incarnation", 2),
      event(11, "reconcile.begin", "controller", a).with("incarnation", 1),
      event(12, "reconcile.end", "controller", a).with("result", "done"),
      event(13, "reconcile.begin", "controller", a).with("incarnation", 1),
      event(14, "reconcile.end", "controller", a).with("result", "done"),
      event(15, "api.delete", "gc", "RayCluster/default/a-raycluster-x").with("outcome", "ok"),
      event(16, "api.delete", "gc", "RayJob/default/a").with("outcome", "ok"),
  };
  log[0].origin = events::Origin::input;
  log[1].origin = events::Origin::input;
  store::RunWriter writer = database.begin_run(store::testing::header("excerpt"));
  for (const Event& e : log) writer.emit(e);
  writer.add_violation({15, "no-leaked-cluster",
                        "RayJob/default/a: RayCluster/default/a-raycluster-x created at seq 5 went at seq 15"});
  return writer.commit(store::RunSummary{"violation", 10, 1600, "00"});
}

TEST_CASE("rjsim show: a violation's excerpt keeps its RayJob's objects and drops quiet events") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  {
    store::Database database = store::Database::open(db);
    write_excerpt_run(database);
  }
  const Result json = invoke({"show", db, "--format", "json"});
  REQUIRE(json.code == 0);
  const nlohmann::json run = nlohmann::json::parse(json.out);
  const nlohmann::json& violation = run["violations"][0];
  CHECK(violation["rayjob"] == "RayJob/default/a");
  // The window opens at the third-last reconcile of a (seq 2), earlier than seq 5 it names.
  CHECK(violation["excerpt"] == nlohmann::json::array({2, 4, 5, 6, 10, 11, 12, 13, 14, 15}));

  const Result text = invoke({"show", db});
  REQUIRE(text.code == 0);
  const std::string excerpt = section(text.out, "Violations (1):");
  CHECK(contains(excerpt, "#4 "));                                  // the stale read of a cluster a reads
  CHECK_FALSE(contains(excerpt, "a-b-raycluster-y"));              // a-b's, not a's
  CHECK(has_marked_line(excerpt, {" 0.500s  #5 "}));
  CHECK(has_marked_line(excerpt, {" 1.500s  #15 "}));
  CHECK(contains(excerpt, "1.300s  ... the same reconcile 1 more time, the last at #13\n"));
  CHECK(contains(excerpt, "#12 "));        // the first of the two alike reconciles is shown whole
  CHECK_FALSE(contains(excerpt, "#14 "));  // the second one only counted
}

TEST_CASE("rjsim show: what a violation message names") {
  CHECK(rayjob_named_in("RayJob/default/rayjob-sample: attempt 1") == "RayJob/default/rayjob-sample");
  CHECK(rayjob_named_in("the reconcile of RayJob/ns/a.b. Then") == "RayJob/ns/a.b");
  CHECK(rayjob_named_in("RayCluster/default/x only") == "");
  CHECK(seqs_named_in("begun at seq 1) started at seq 464: had at seq 248") ==
        std::vector<std::int64_t>{1, 464, 248});
  CHECK(seqs_named_in("subsequent 12, seq x, seq 7") == std::vector<std::int64_t>{7});
}

TEST_CASE("rjsim show --format json is the run object with its events and graph") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("head-restart-while-running"));

  const Result shown = invoke({"show", db, "--run", "1", "--format", "json"});
  REQUIRE(shown.code == 0);
  const nlohmann::json run = nlohmann::json::parse(shown.out);
  for (const char* field : {"run_id", "kind", "parent_run", "scenario", "controller", "seed", "outcome",
                            "steps", "virtual_ms", "log_hash", "transitions", "violations", "events",
                            "graph"}) {
    CAPTURE(field);
    CHECK(run.contains(field));
  }
  CHECK(run["run_id"] == 1);
  CHECK(run["scenario"] == "head-restart-while-running");
  CHECK(run["outcome"] == "violation");
  const std::vector<store::Transition> transitions = store::Database::open_existing(db).transitions(1);
  REQUIRE(run["transitions"].size() == transitions.size());
  CHECK(run["transitions"][0]["rayjob"] == "rayjob-sample");
  CHECK(run["transitions"][0]["from"] == "");
  CHECK(run["transitions"][0]["to"] == transitions[0].to_deployment);
  CHECK(run["transitions"][0]["at_ms"] == transitions[0].at_ms);
  CHECK(run["violations"][0]["invariant"] == "single-submission");
  CHECK(run["violations"][0]["seq"] == first_violation_seq(db, 1));
  const nlohmann::json& events = run["events"];
  REQUIRE(events.size() > 100);
  for (std::size_t index = 0; index < events.size(); ++index) {
    CHECK(events[index]["seq"] == index);
  }
  const nlohmann::json& event = events[1];
  for (const char* field : {"seq", "at_ms", "origin", "type", "actor", "object", "body"}) {
    CAPTURE(field);
    CHECK(event.contains(field));
  }
  CHECK(event["body"].is_object());
  CHECK(run["graph"]["nodes"][0] == nlohmann::json({{"status", ""}, {"label", "New"}}));
  CHECK(run["graph"]["edges"][0] == nlohmann::json({{"from", ""}, {"to", "Initializing"}, {"count", 1}}));
}

TEST_CASE("rjsim show shows the last run unless --run names another") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("head-restart-while-running"));
  record_run(db, bundled_scenario("httpmode-success"));

  CHECK(nlohmann::json::parse(invoke({"show", db, "--format", "json"}).out)["scenario"] == "httpmode-success");
  CHECK(nlohmann::json::parse(invoke({"show", db, "--run", "1", "--format", "json"}).out)["run_id"] == 1);
  const Result passing = invoke({"show", db});
  CHECK(contains(passing.out, "\nViolations (0):\n"));
}

TEST_CASE("rjsim show: a missing file, a file that is not rjsim's, an empty database or no such run exits 2") {
  ScratchDirectory scratch;
  const Result missing = invoke({"show", scratch.file("nope.db")});
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, "rjsim show: " + scratch.file("nope.db") + ": no such file"));

  store::testing::write_bytes(scratch.file("notes.txt"), "not a database\n");
  const Result foreign = invoke({"show", scratch.file("notes.txt")});
  CHECK(foreign.code == 2);
  CHECK(contains(foreign.err, scratch.file("notes.txt") + ": not an SQLite database"));

  const std::string db = scratch.file("runs.db");
  { store::Database::open(db); }
  const Result empty = invoke({"show", db});
  CHECK(empty.code == 2);
  CHECK(contains(empty.err, db + ": the database holds no runs yet"));

  record_run(db, bundled_scenario("httpmode-success"));
  const Result no_run = invoke({"show", db, "--run", "9", "--format", "dot"});
  CHECK(no_run.code == 2);
  CHECK(no_run.out.empty());
  CHECK(contains(no_run.err, "rjsim show: " + db + ": no run 9"));
}

TEST_CASE("rjsim show --format html is one self-contained page: transitions, violations, the timeline anchored by seq") {
  ScratchDirectory scratch;
  const std::string db = scratch.file("runs.db");
  record_run(db, bundled_scenario("head-restart-while-running"));
  const Result result = invoke({"show", db, "--format", "html"});
  REQUIRE(result.code == 0);
  const std::string& page = result.out;
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(page.ends_with("</html>\n"));
  CHECK_FALSE(contains(page, "<script"));
  CHECK_FALSE(contains(page, "href=\"http"));   // nothing fetched: no link out, no source
  CHECK_FALSE(contains(page, "src="));
  CHECK(contains(page, "<h2>Swimlanes</h2>"));
  CHECK(contains(page, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"swimlanes\""));
  CHECK(contains(page, "<section class=\"violation\" id=\"violation-0\">"));
  CHECK(contains(page, "message=&quot;"));   // the log's text is escaped (a quoted body value)
  CHECK(contains(page, "<h2>Transitions ("));
  CHECK(contains(page, "<h2>Violations (1)</h2>"));
  CHECK(contains(page, "<tr id=\"seq-0\">"));
  CHECK(contains(page, "class=\"transition\""));
  // Every violation links to its row of the timeline, which is marked.
  const std::size_t link = page.find("<h3>");
  REQUIRE(link != std::string::npos);
  const std::string anchor = "href=\"#seq-";
  const std::size_t from = page.find(anchor, link) + anchor.size();
  const std::string seq = page.substr(from, page.find('"', from) - from);
  const std::size_t row = page.find("<tr id=\"seq-" + seq + "\" class=\"");
  REQUIRE(row != std::string::npos);
  CHECK(contains(page.substr(row, page.find('>', row) - row), "violation"));
}

}  // namespace show_test
}  // namespace rjsim::cli::testing

