// A run is stored whole or not at all (src/store/run_writer.h).
#include "store/database.h"
#include "store_test_support.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace run_transaction_test {
using namespace rjsim::store;
using namespace rjsim::store::testing;

namespace {

// What the file holds, counted by a separate connection (as another process would see it).
std::vector<std::string> row_counts(const std::string& path) {
  RawSqlite sqlite(path);
  return sqlite.rows("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM events), "
                     "(SELECT count(*) FROM violations)");
}

// Plants an event row that the next run's seq `seq` will collide with, so that writing that
// run fails at that row (a stand-in for a disk that fills up mid-run). The next run_id is one
// more than the largest.
void plant_conflicting_event(const std::string& path, std::int64_t next_run_id, int seq) {
  RawSqlite sqlite(path);
  sqlite.execute("INSERT INTO events(run_id, seq, at_ms, origin, type, actor, object, body) "
                 "VALUES (" + std::to_string(next_run_id) + ", " + std::to_string(seq) +
                 ", 0, 'effect', 'planted', 'test', NULL, '{}')");
}

}  // namespace

TEST_CASE("a RunWriter destroyed without commit leaves no run row, no events, no violations") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  {
    RunWriter writer = database.begin_run(header());
    for (int seq = 0; seq < 1000; ++seq) writer.emit(event(seq));
    writer.add_violation(Violation{3, "single-cluster", "two clusters"});
  }
  CHECK(row_counts(path) == std::vector<std::string>{"0|0|0"});
  CHECK(database.runs().empty());
}

TEST_CASE("an exception thrown in the middle of a run's emits leaves nothing of the run") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  const std::int64_t kept = write_run(database, 5);
  auto simulate_and_fail = [&] {
    RunWriter writer = database.begin_run(header());
    for (int seq = 0; seq < 500; ++seq) {
      if (seq == 250) throw std::runtime_error("the model panicked");
      writer.emit(event(seq));
    }
    writer.commit(RunSummary{"pass", 500, 5000, "00"});
  };
  CHECK_THROWS_WITH(simulate_and_fail(), "the model panicked");
  CHECK(row_counts(path) == std::vector<std::string>{"1|5|0"});
  CHECK(database.latest_run_id() == kept);
}

TEST_CASE("a run is invisible to other connections until it is committed") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  RunWriter writer = database.begin_run(header());
  for (int seq = 0; seq < 10; ++seq) writer.emit(event(seq));
  CHECK(row_counts(path) == std::vector<std::string>{"0|0|0"});
  writer.commit(RunSummary{"pass", 10, 100, "00"});
  CHECK(row_counts(path) == std::vector<std::string>{"1|10|0"});
}

TEST_CASE("after a rolled-back run the next run commits normally") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  {
    RunWriter abandoned = database.begin_run(header());
    abandoned.emit(event(0));
  }
  const std::int64_t run_id = write_run(database, 3);
  CHECK(row_counts(path) == std::vector<std::string>{"1|3|0"});
  CHECK(database.run(run_id)->outcome == "pass");
}

TEST_CASE("a second Database on the same file waits for the first writer, then writes") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database first = Database::open(path);
  Database second = Database::open(path);
  const std::int64_t first_run = write_run(first, 2);
  const std::int64_t second_run = write_run(second, 2);
  CHECK(first_run != second_run);
  CHECK(first.runs().size() == 2);
}

TEST_CASE("a write that fails in the middle of a batch leaves nothing of the run, and the "
          "writer refuses what follows") {
  constexpr int rows = RunWriter::rows_per_insert;
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  const std::int64_t kept = write_run(database, 5);
  plant_conflicting_event(path, kept + 1, rows + rows / 2);   // inside the second batch
  {
    RunWriter writer = database.begin_run(header());
    for (int seq = 0; seq < 2 * rows - 1; ++seq) writer.emit(event(seq));
    writer.add_violation(Violation{3, "single-cluster", "two clusters"});
    // The second batch is written when it is full.
    CHECK_THROWS_WITH_AS(writer.emit(event(2 * rows - 1)),
                         doctest::Contains("UNIQUE constraint failed"), DatabaseError);
    CHECK_THROWS_WITH_AS(writer.emit(event(2 * rows)),
                         doctest::Contains("an earlier write of this run failed"), DatabaseError);
    CHECK_THROWS_WITH_AS(writer.commit(RunSummary{"pass", 1, 1, "00"}),
                         doctest::Contains("an earlier write of this run failed"), DatabaseError);
  }
  // The kept run's 5 events and the planted one; nothing of the failed run.
  CHECK(row_counts(path) == std::vector<std::string>{"1|6|0"});
  // With the planted row gone, the connection's statements serve the next run (same run_id).
  RawSqlite(path).execute("DELETE FROM events WHERE type = 'planted'");
  const std::int64_t next = write_run(database, 2 * rows + 3);
  CHECK(database.run(next)->outcome == "pass");
  CHECK(row_counts(path) ==
        std::vector<std::string>{"2|" + std::to_string(5 + 2 * rows + 3) + "|0"});
}

TEST_CASE("a write that fails in the events held until commit leaves nothing of the run") {
  constexpr int rows = RunWriter::rows_per_insert;
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  Database database = Database::open(path);
  const std::int64_t kept = write_run(database, 5);
  plant_conflicting_event(path, kept + 1, rows + 2);
  {
    RunWriter writer = database.begin_run(header());
    for (int seq = 0; seq < rows + 5; ++seq) writer.emit(event(seq));
    CHECK_THROWS_WITH_AS(writer.commit(RunSummary{"pass", 1, 1, "00"}),
                         doctest::Contains("UNIQUE constraint failed"), DatabaseError);
    CHECK_THROWS_WITH_AS(writer.commit(RunSummary{"pass", 1, 1, "00"}),
                         doctest::Contains("an earlier write of this run failed"), DatabaseError);
  }
  CHECK(row_counts(path) == std::vector<std::string>{"1|6|0"});
  CHECK(database.latest_run_id() == kept);
}

}  // namespace run_transaction_test
