// The file format of the event log: schema version 1 exactly as DESIGN §3 states it.
#include "store/database.h"
#include "store/schema.h"
#include "store_test_support.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace schema_test {
using namespace rjsim::store;
using namespace rjsim::store::testing;

namespace {

// name|type|notnull|pk of each column, in order.
std::vector<std::string> columns(RawSqlite& sqlite, const std::string& table) {
  return sqlite.rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info('" + table + "')");
}

}  // namespace

TEST_CASE("a new database holds exactly the tables and view of DESIGN §3") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  { Database database = Database::open(path); }
  RawSqlite sqlite(path);
  CHECK(sqlite.rows("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                    "ORDER BY name") ==
        std::vector<std::string>{"table|events", "table|meta", "table|runs", "view|transitions",
                                 "table|violations"});
}

TEST_CASE("the tables have DESIGN §3's columns, types, NOT NULLs and keys") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  { Database database = Database::open(path); }
  RawSqlite sqlite(path);
  CHECK(columns(sqlite, "meta") == std::vector<std::string>{"key|TEXT|0|1", "value|TEXT|1|0"});
  CHECK(columns(sqlite, "runs") ==
        std::vector<std::string>{"run_id|INTEGER|0|1", "parent_run|INTEGER|0|0",
                                 "kind|TEXT|1|0", "scenario|TEXT|1|0", "scenario_text|TEXT|1|0",
                                 "controller|TEXT|1|0", "seed|INTEGER|1|0", "outcome|TEXT|0|0",
                                 "steps|INTEGER|0|0", "virtual_ms|INTEGER|0|0",
                                 "log_hash|TEXT|0|0", "created_at|TEXT|1|0"});
  CHECK(columns(sqlite, "events") ==
        std::vector<std::string>{"run_id|INTEGER|1|1", "seq|INTEGER|1|2", "at_ms|INTEGER|1|0",
                                 "origin|TEXT|1|0", "type|TEXT|1|0", "actor|TEXT|1|0",
                                 "object|TEXT|0|0", "body|TEXT|1|0"});
  CHECK(columns(sqlite, "violations") ==
        std::vector<std::string>{"run_id|INTEGER|1|0", "seq|INTEGER|1|0",
                                 "invariant|TEXT|1|0", "message|TEXT|1|0"});
  CHECK(sqlite.rows("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list('runs')") ==
        std::vector<std::string>{"parent_run|runs|run_id"});
  CHECK(sqlite.rows("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list('events')") ==
        std::vector<std::string>{"run_id|runs|run_id"});
}

TEST_CASE("events is a WITHOUT ROWID table keyed by (run_id, seq)") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  { Database database = Database::open(path); }
  RawSqlite sqlite(path);
  CHECK_THROWS(sqlite.rows("SELECT rowid FROM events"));
  CHECK_NOTHROW(sqlite.rows("SELECT rowid FROM runs"));
}

TEST_CASE("the transitions view has DESIGN §3's columns in order") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  { Database database = Database::open(path); }
  RawSqlite sqlite(path);
  CHECK(sqlite.rows("SELECT name FROM pragma_table_info('transitions')") ==
        std::vector<std::string>{"run_id", "seq", "at_ms", "rayjob", "from_deployment",
                                 "to_deployment", "from_job_status", "to_job_status", "reason"});
}

TEST_CASE("meta records schema_version 1 and the rjsim version that created the file") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  { Database database = Database::open(path); }
  RawSqlite sqlite(path);
  CHECK(sqlite.rows("SELECT key, value FROM meta ORDER BY key") ==
        std::vector<std::string>{std::string("rjsim_version|") + RJSIM_VERSION,
                                 "schema_version|1"});
  CHECK(kSchemaVersion == 1);
}

TEST_CASE("a new database is in WAL mode, so readers never block the writer") {
  ScratchDirectory directory;
  const std::string path = directory.file("runs.db");
  { Database database = Database::open(path); }
  RawSqlite sqlite(path);
  CHECK(sqlite.rows("PRAGMA journal_mode") == std::vector<std::string>{"wal"});
}

}  // namespace schema_test
