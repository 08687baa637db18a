// Which files the store opens, and that a file that is not ours is never modified
// (src/store/database.h, schema.h).
#include "store/database.h"
#include "store_test_support.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace open_test {
using namespace rjsim::store;
using namespace rjsim::store::testing;

namespace {

// Opening `path` with `open` must throw StoreError with exactly `message`, leave the file's
// bytes as they were, and leave no SQLite side file (-wal, -shm, -journal) in the directory.
template <typename Open>
void check_refused_untouched(const ScratchDirectory& directory, const std::string& path,
                             Open open, const std::string& message) {
  const std::string before = read_bytes(path);
  const std::vector<std::string> names_before = directory.names();
  CHECK_THROWS_WITH_AS(open(path), message.c_str(), StoreError);
  CHECK(read_bytes(path) == before);
  CHECK(directory.names() == names_before);
}

const auto open_for_writing = [](const std::string& path) { return Database::open(path); };
const auto open_for_reading = [](const std::string& path) { return Database::open_existing(path); };

}  // namespace

TEST_CASE("a file that is not SQLite is refused by name and left untouched") {
  ScratchDirectory directory;
  const std::string path = directory.file("notes.txt");
  write_bytes(path, "these are my notes, not a database\n");
  const std::string message = path + ": not an SQLite database (an rjsim database is an SQLite "
                                     "file; give a new path to start one)";
  check_refused_untouched(directory, path, open_for_writing, message);
  check_refused_untouched(directory, path, open_for_reading, message);
}

TEST_CASE("a file shorter than the SQLite header is refused and left untouched") {
  ScratchDirectory directory;
  const std::string path = directory.file("short.db");
  write_bytes(path, "SQLite");
  CHECK_THROWS_WITH_AS(Database::open(path), doctest::Contains("not an SQLite database"),
                       StoreError);
  CHECK(read_bytes(path) == "SQLite");
}

TEST_CASE("an SQLite header followed by garbage is refused and left untouched") {
  ScratchDirectory directory;
  const std::string path = directory.file("broken.db");
  std::string bytes("SQLite format 3\0", 16);
  bytes += std::string(4080, '\x5a');
  write_bytes(path, bytes);
  const std::string before = read_bytes(path);
  CHECK_THROWS_WITH_AS(Database::open(path),
                       doctest::Contains((path + ": not a readable SQLite").c_str()), StoreError);
  CHECK(read_bytes(path) == before);
}

TEST_CASE("an SQLite database with other tables is refused, naming them, and left untouched") {
  ScratchDirectory directory;
  const std::string path = directory.file("app.db");
  {
    RawSqlite sqlite(path);
    sqlite.execute("CREATE TABLE foo(x); CREATE TABLE bar(y); INSERT INTO foo VALUES (1)");
  }
  const std::string message = path + ": not an rjsim database (it has tables: bar, foo)";
  check_refused_untouched(directory, path, open_for_writing, message);
  check_refused_untouched(directory, path, open_for_reading, message);
}

TEST_CASE("an SQLite database with no tables is refused: only new or empty files get a schema") {
  ScratchDirectory directory;
  const std::string path = directory.file("blank.db");
  {
    RawSqlite sqlite(path);
    sqlite.execute("PRAGMA user_version = 3");   // writes the header page, creates no table
  }
  check_refused_untouched(
      directory, path, open_for_writing,
      path + ": not an rjsim database (it is an SQLite database with no tables)");
}

TEST_CASE("an rjsim database of another schema_version is refused, naming both versions") {
  ScratchDirectory directory;
  const std::string path = directory.file("future.db");
  { Database database = Database::open(path); }
  {
    RawSqlite sqlite(path);
    sqlite.execute("PRAGMA journal_mode = DELETE");   // no -wal/-shm to muddy the comparison
    sqlite.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
    sqlite.execute("UPDATE meta SET value = '9.0.0' WHERE key = 'rjsim_version'");
  }
  const std::string message = path + ": schema_version 7 (written by rjsim 9.0.0), this rjsim (" +
                              RJSIM_VERSION + ") reads 1";
  check_refused_untouched(directory, path, open_for_writing, message);
  check_refused_untouched(directory, path, open_for_reading, message);
}

TEST_CASE("a meta table without schema_version is not an rjsim database") {
  ScratchDirectory directory;
  const std::string path = directory.file("meta.db");
  {
    RawSqlite sqlite(path);
    sqlite.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  }
  check_refused_untouched(directory, path, open_for_writing,
                          path + ": not an rjsim database (its meta table has no schema_version)");
}

TEST_CASE("open_existing on a missing file says so and creates nothing") {
  ScratchDirectory directory;
  const std::string path = directory.file("missing.db");
  CHECK_THROWS_WITH_AS(Database::open_existing(path), (path + ": no such file").c_str(),
                       StoreError);
  CHECK(directory.names().empty());
}

TEST_CASE("open_existing on an empty file refuses it and leaves it empty") {
  ScratchDirectory directory;
  const std::string path = directory.file("empty.db");
  write_bytes(path, "");
  check_refused_untouched(directory, path, open_for_reading,
                          path + ": not an rjsim database (the file is empty)");
}

TEST_CASE("open creates the schema in a missing file and in a zero-byte file") {
  ScratchDirectory directory;
  const std::string missing = directory.file("new.db");
  const std::string empty = directory.file("empty.db");
  write_bytes(empty, "");
  for (const std::string& path : {missing, empty}) {
    { Database database = Database::open(path); }
    CHECK_NOTHROW(Database::open_existing(path));
    RawSqlite sqlite(path);
    CHECK(sqlite.rows("SELECT value FROM meta WHERE key = 'schema_version'") ==
          std::vector<std::string>{"1"});
  }
}

TEST_CASE("a path in a directory that does not exist is refused, naming the path") {
  ScratchDirectory directory;
  const std::string path = directory.file("no-such-dir/runs.db");
  CHECK_THROWS_WITH_AS(Database::open(path),
                       doctest::Contains((path + ": cannot be opened").c_str()), StoreError);
}

TEST_CASE("a directory is refused as a database file") {
  ScratchDirectory directory;
  const std::string path = directory.file("");
  CHECK_THROWS_WITH_AS(Database::open(path), doctest::Contains("is a directory"), StoreError);
}

TEST_CASE("path() is the file the database was opened from") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  CHECK(Database::open(path).path() == path);
}

}  // namespace open_test
