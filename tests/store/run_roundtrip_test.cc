// Writing runs and reading them back (src/store/database.h, run_writer.h, event_reader.h).
#include "store/database.h"
#include "store_test_support.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using rjsim::events::Event;
using rjsim::events::Origin;
using rjsim::events::RawJson;
using rjsim::events::Value;

namespace run_roundtrip_test {
using namespace rjsim::store;
using namespace rjsim::store::testing;

namespace {

std::vector<Event> read_events(const Database& database, std::int64_t run_id) {
  std::vector<Event> events;
  EventReader reader = database.events(run_id);
  Event event;
  while (reader.next(event)) events.push_back(event);
  CHECK_FALSE(reader.next(event));   // stays finished
  return events;
}

std::vector<Event> varied_events() {
  std::vector<Event> events;
  Event choice{0, 0, Origin::input, "choice", "chooser", "", {}};
  choice.with("decision", "deliver").with("index", -3).with("fault", false).with("none", Value{});
  events.push_back(choice);
  Event update{1, 250, Origin::effect, "api.update_status", "controller", "RayJob/default/demo",
               {}};
  update.with("outcome", "conflict")
      .with("rv_before", std::int64_t{1} << 40)
      .with("message", "tab\there, quote \" and caf\xc3\xa9")
      .with("status", Value{RawJson{R"({"a":[1,2],"b":{"c":null}})"}});
  events.push_back(update);
  for (int seq = 2; seq < 300; ++seq) events.push_back(event(seq));
  return events;
}

}  // namespace

TEST_CASE("a run is written and read back in seq order with every field") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  const std::vector<Event> written = varied_events();
  std::int64_t run_id = 0;
  {
    Database database = Database::open(path);
    RunWriter writer = database.begin_run(header());
    for (const Event& event : written) writer.emit(event);
    writer.add_violation(Violation{1, "single-submission", "RayJob/default/demo: two ids"});
    CHECK(writer.events_written() == 300);
    run_id = writer.commit(RunSummary{"violation", 120, 250, "0123456789abcdef0123456789abcdef"});
    CHECK(run_id == writer.run_id());
  }
  Database database = Database::open_existing(path);
  CHECK(read_events(database, run_id) == written);

  const std::optional<RunInfo> info = database.run(run_id);
  REQUIRE(info);
  CHECK(info->run_id == run_id);
  CHECK_FALSE(info->parent_run);
  CHECK(info->kind == "run");
  CHECK(info->scenario == "suspend-while-initializing");
  CHECK(info->scenario_text == header().scenario_text);
  CHECK(info->controller == "kuberay-1.1");
  CHECK(info->seed == 1);
  CHECK(info->outcome == "violation");
  CHECK(info->steps == 120);
  CHECK(info->virtual_ms == 250);
  CHECK(info->log_hash == "0123456789abcdef0123456789abcdef");
  CHECK(info->created_at.size() == 24);   // 2024-05-01T12:34:56.789Z
  CHECK(info->created_at.back() == 'Z');
  CHECK(database.violations(run_id) ==
        std::vector<Violation>{{1, "single-submission", "RayJob/default/demo: two ids"}});
}

// Events whose every column varies with seq, so that a field read from a neighbour's slot of
// the writer's batch would show.
std::vector<Event> distinct_events(int count) {
  std::vector<Event> events;
  for (int seq = 0; seq < count; ++seq) {
    Event event{seq, seq * 7, seq % 3 == 0 ? Origin::input : Origin::effect,
                "type." + std::to_string(seq), std::string(1 + seq % 4, 'a'),
                seq % 5 == 0 ? "" : "RayJob/default/job-" + std::to_string(seq), {}};
    event.with("n", seq).with("text", std::string(seq % 9, 'x'));
    events.push_back(event);
  }
  return events;
}

TEST_CASE("runs of any length read back equal to what was written, in order, whatever the "
          "remainder by rows_per_insert") {
  constexpr int rows = RunWriter::rows_per_insert;
  ScratchDirectory directory;
  Database database = Database::open(directory.file("runs.db"));
  for (const int count : {0, 1, rows - 1, rows, rows + 1, 2 * rows, 3 * rows + rows - 1}) {
    CAPTURE(count);
    const std::vector<Event> written = distinct_events(count);
    RunWriter writer = database.begin_run(header());
    for (const Event& event : written) writer.emit(event);
    CHECK(writer.events_written() == count);
    const std::int64_t run_id = writer.commit(RunSummary{"pass", count, count * 7, "00"});
    CHECK(read_events(database, run_id) == written);
  }
}

TEST_CASE("an event without an object is stored as NULL and read back as empty") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  RunWriter writer = database.begin_run(header());
  writer.emit(Event{0, 0, Origin::input, "choice", "chooser", "", {}});
  const std::int64_t run_id = writer.commit(RunSummary{"pass", 1, 0, "00"});
  RawSqlite sqlite(path);
  CHECK(sqlite.rows("SELECT object IS NULL, body FROM events") ==
        std::vector<std::string>{"1|{}"});
  CHECK(read_events(database, run_id).at(0).object.empty());
}

TEST_CASE("two runs in one file get distinct run_ids and keep their own events") {
  ScratchDirectory directory;
  Database database = Database::open(directory.file("runs.db"));
  const std::int64_t first = write_run(database, 3, header("first"));
  const std::int64_t second = write_run(database, 5, header("second"));
  CHECK(first != second);
  CHECK(read_events(database, first).size() == 3);
  CHECK(read_events(database, second).size() == 5);
  const std::vector<RunInfo> runs = database.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].scenario == "first");
  CHECK(runs[1].scenario == "second");
  CHECK(database.latest_run_id() == second);
}

TEST_CASE("runs written by one open survive into the next open of the same file") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  std::int64_t first = 0;
  { Database database = Database::open(path); first = write_run(database, 2); }
  Database database = Database::open(path);
  const std::int64_t second = write_run(database, 2);
  CHECK(second != first);
  CHECK(database.runs().size() == 2);
}

TEST_CASE("parent_run round-trips, and a parent that does not exist is refused") {
  ScratchDirectory directory;
  Database database = Database::open(directory.file("runs.db"));
  const std::int64_t original = write_run(database, 4);
  RunHeader shrunk = header();
  shrunk.kind = "shrink";
  shrunk.parent_run = original;
  const std::int64_t child = write_run(database, 2, shrunk);
  CHECK(database.run(child)->parent_run == original);
  CHECK(database.run(child)->kind == "shrink");
  CHECK_FALSE(database.run(original)->parent_run);

  shrunk.parent_run = 999;
  CHECK_THROWS_WITH_AS(database.begin_run(shrunk),
                       doctest::Contains("parent run 999 does not exist"), StoreError);
  CHECK(database.runs().size() == 2);
}

TEST_CASE("an empty database has no runs and no latest run") {
  ScratchDirectory directory;
  Database database = Database::open(directory.file("runs.db"));
  CHECK(database.runs().empty());
  CHECK_FALSE(database.latest_run_id());
  CHECK_FALSE(database.run(1));
}

TEST_CASE("asking for a run the file does not hold throws StoreError naming file and run") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  CHECK_THROWS_WITH_AS(database.events(7), (path + ": no run 7 (it has no runs)").c_str(),
                       StoreError);
  write_run(database, 1);
  write_run(database, 1);
  CHECK_THROWS_WITH_AS(database.violations(9),
                       (path + ": no run 9 (it has 2 runs, ids 1 to 2)").c_str(), StoreError);
  CHECK_THROWS_AS(database.transitions(9), StoreError);
}

TEST_CASE("a stored body that does not parse is reported with file, run and seq") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  const std::int64_t run_id = write_run(database, 3);
  {
    RawSqlite sqlite(path);
    sqlite.execute("UPDATE events SET body = '{\"x\":1.5}' WHERE seq = 1");
  }
  EventReader reader = database.events(run_id);
  Event event;
  CHECK(reader.next(event));
  const std::string where = path + ": run 1, event seq 1: body is not a valid";
  CHECK_THROWS_WITH_AS(reader.next(event), doctest::Contains(where.c_str()), StoreError);
}

TEST_CASE("a reader and a writer stay usable after their Database is gone") {
  ScratchDirectory directory;
  std::optional<EventReader> reader;
  std::optional<RunWriter> writer;
  {
    Database database = Database::open(directory.file("runs.db"));
    const std::int64_t run_id = write_run(database, 2);
    reader.emplace(database.events(run_id));
    writer.emplace(database.begin_run(header()));
  }
  Event event;
  CHECK(reader->next(event));
  writer->emit(rjsim::store::testing::event(0));
  CHECK(writer->commit(RunSummary{"pass", 1, 0, "00"}) == 2);
}

TEST_CASE("a committed writer does not block the next run while it still exists") {
  ScratchDirectory directory;
  Database database = Database::open(directory.file("runs.db"));
  RunWriter first = database.begin_run(header());
  first.commit(RunSummary{"pass", 0, 0, "00"});
  RunWriter second = database.begin_run(header());
  CHECK(second.commit(RunSummary{"pass", 0, 0, "00"}) != first.run_id());
}

}  // namespace run_roundtrip_test
