#include "store/schema.h"

#include "store/connection.h"
#include "store/store_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace rjsim::store {
namespace {

// The text of DESIGN §3, comments included, so that `sqlite3 F .schema` explains itself.
constexpr std::string_view schema_text = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);   -- schema_version=1, rjsim_version
CREATE TABLE runs(
  run_id      INTEGER PRIMARY KEY,
  parent_run  INTEGER REFERENCES runs(run_id),  -- a shrunk counterexample points at its origin
  kind        TEXT NOT NULL,    -- run | explore | shrink | replay | trace
  scenario    TEXT NOT NULL,    -- scenario name
  scenario_text TEXT NOT NULL,  -- the whole scenario file as given
  controller  TEXT NOT NULL,    -- model name
  seed        INTEGER NOT NULL,
  outcome     TEXT,             -- pass | violation | diverged | error | incomplete
  steps       INTEGER,
  virtual_ms  INTEGER,
  log_hash    TEXT,             -- hex hash over all events of the run, in order
  created_at  TEXT NOT NULL     -- informational only; never read back by a simulation
);
CREATE TABLE events(
  run_id  INTEGER NOT NULL REFERENCES runs(run_id),
  seq     INTEGER NOT NULL,     -- 0, 1, 2, ... dense
  at_ms   INTEGER NOT NULL,     -- virtual time
  origin  TEXT NOT NULL,        -- input (a choice or an outside stimulus) | effect (derived)
  type    TEXT NOT NULL,        -- see docs/events.md
  actor   TEXT NOT NULL,        -- user, apiserver, informer/RayJob, workqueue, controller, ...
  object  TEXT,                 -- Kind/namespace/name, when there is one
  body    TEXT NOT NULL,        -- JSON object
  PRIMARY KEY(run_id, seq)
) WITHOUT ROWID;
CREATE TABLE violations(
  run_id INTEGER NOT NULL, seq INTEGER NOT NULL, invariant TEXT NOT NULL, message TEXT NOT NULL);
CREATE VIEW transitions AS      -- one row per persisted RayJob status change
  SELECT run_id, seq, at_ms,
         object AS rayjob,
         json_extract(body, '$.from_deployment') AS from_deployment,
         json_extract(body, '$.to_deployment') AS to_deployment,
         json_extract(body, '$.from_job_status') AS from_job_status,
         json_extract(body, '$.to_job_status') AS to_job_status,
         json_extract(body, '$.reason') AS reason
  FROM events
  WHERE type = 'status.transition';
)sql";

// The names an rjsim database of this version must have, besides meta.
constexpr std::array<std::string_view, 4> required_names = {"events", "runs", "transitions",
                                                            "violations"};

constexpr std::string_view sqlite_header{"SQLite format 3\0", 16};

void require_sqlite_header(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw StoreError(fmt::format("{}: cannot be read", path));
  std::array<char, 16> first_bytes{};
  file.read(first_bytes.data(), first_bytes.size());
  if (file.gcount() != static_cast<std::streamsize>(first_bytes.size()) ||
      std::string_view(first_bytes.data(), first_bytes.size()) != sqlite_header) {
    throw StoreError(fmt::format(
        "{}: not an SQLite database (an rjsim database is an SQLite file; give a new path to "
        "start one)", path));
  }
}

std::unique_ptr<detail::Connection> open_read_only(const std::string& path) {
  sqlite3* handle = nullptr;
  const int result = sqlite3_open_v2(path.c_str(), &handle,
                                     SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  auto connection = std::make_unique<detail::Connection>(handle, path);
  if (result != SQLITE_OK) {
    throw StoreError(fmt::format("{}: cannot be opened read-only: {}", path,
                                 handle ? sqlite3_errmsg(handle) : sqlite3_errstr(result)));
  }
  // A process beside it may hold a lock for a moment (the SIGKILL test found this check failing
  // at once with "database is locked" while another process read the file).
  sqlite3_busy_timeout(handle, detail::kBusyTimeoutMs);
  return connection;
}

// SQLite codes that come from the machine, not from the file's bytes: a busy, full or failing disk,
// no memory. Any other failure of the first read means the bytes are not a database we can read
// (the database fuzzer found "unsupported file format", a plain SQLITE_ERROR, from a damaged header).
bool is_failure_of_the_machine(int code) {
  return code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_IOERR || code == SQLITE_FULL ||
         code == SQLITE_NOMEM || code == SQLITE_CANTOPEN || code == SQLITE_INTERRUPT;
}

// Names of the tables and views, sorted. Reading sqlite_master is the first real read, so
// this is where a file with an SQLite header but garbage after it is found out.
std::vector<std::string> schema_names(detail::Connection& connection) {
  std::vector<std::string> names;
  try {
    detail::Statement statement(connection,
                                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                                "AND name NOT LIKE 'sqlite_%' ORDER BY name");
    while (statement.step()) names.emplace_back(statement.text(0));
  } catch (const DatabaseError&) {
    const int code = sqlite3_errcode(connection.handle);
    if (sqlite3_extended_errcode(connection.handle) == SQLITE_READONLY_ROLLBACK) {
      // A writer was killed inside a transaction in rollback-journal mode: only while creating the
      // schema (rjsim switches to WAL right after). Reading first needs the journal rolled back.
      throw StoreError(fmt::format(
          "{0}: a process was killed while creating it (its rollback journal {0}-journal is left); "
          "it holds no run, and the next rjsim command that writes to it finishes creating it",
          connection.path));
    }
    if (is_failure_of_the_machine(code)) throw;
    throw StoreError(fmt::format("{}: not a readable SQLite database ({})", connection.path,
                                 sqlite3_errmsg(connection.handle)));
  }
  return names;
}

std::string listed(const std::vector<std::string>& names) {
  constexpr std::size_t most_shown = 8;
  std::string text;
  for (std::size_t index = 0; index < names.size() && index < most_shown; ++index) {
    if (index > 0) text += ", ";
    text += names[index];
  }
  if (names.size() > most_shown) text += fmt::format(" and {} more", names.size() - most_shown);
  return text;
}

std::optional<std::string> meta_value(detail::Connection& connection, std::string_view key) {
  try {
    detail::Statement statement(connection, "SELECT value FROM meta WHERE key = ?");
    statement.bind(1, key);
    if (!statement.step()) return std::nullopt;
    return std::string(statement.text(0));
  } catch (const DatabaseError&) {
    throw StoreError(fmt::format(
        "{}: not an rjsim database (it has a meta table, but not meta(key, value))",
        connection.path));
  }
}

void require_schema_version(detail::Connection& connection) {
  const std::optional<std::string> version = meta_value(connection, "schema_version");
  if (!version) {
    throw StoreError(fmt::format("{}: not an rjsim database (its meta table has no schema_version)",
                                 connection.path));
  }
  if (*version != std::to_string(kSchemaVersion)) {
    const std::optional<std::string> writer = meta_value(connection, "rjsim_version");
    throw StoreError(fmt::format("{}: schema_version {}{}, this rjsim ({}) reads {}",
                                 connection.path, *version,
                                 writer ? fmt::format(" (written by rjsim {})", *writer) : "",
                                 RJSIM_VERSION, kSchemaVersion));
  }
}

void require_tables(detail::Connection& connection, const std::vector<std::string>& names) {
  for (std::string_view required : required_names) {
    if (std::find(names.begin(), names.end(), required) == names.end()) {
      throw StoreError(fmt::format(
          "{}: a damaged rjsim database: schema_version {} but no '{}' (it has: {})",
          connection.path, kSchemaVersion, required, listed(names)));
    }
  }
}

}  // namespace

std::string_view schema_sql() { return schema_text; }

bool create_schema_if_empty(detail::Connection& connection) {
  detail::Transaction transaction(connection);
  detail::Statement count(connection, "SELECT count(*) FROM sqlite_master");
  count.step();
  if (count.integer(0) != 0) return false;   // the transaction rolls back: nothing was written
  detail::execute(connection, std::string(schema_text).c_str(), "creating the rjsim schema");
  detail::Statement insert(connection, "INSERT INTO meta(key, value) VALUES (?, ?)");
  const std::string version = std::to_string(kSchemaVersion);
  using MetaRow = std::pair<std::string_view, std::string_view>;
  for (const auto& [key, value] : {MetaRow{"schema_version", version},
                                   MetaRow{"rjsim_version", RJSIM_VERSION}}) {
    insert.bind(1, key);
    insert.bind(2, value);
    insert.step();
    insert.reset();
  }
  transaction.commit();
  return true;
}

void check_rjsim_database(const std::string& path) {
  require_sqlite_header(path);
  const std::unique_ptr<detail::Connection> connection = open_read_only(path);
  const std::vector<std::string> names = schema_names(*connection);
  if (std::find(names.begin(), names.end(), "meta") == names.end()) {
    if (names.empty()) {
      throw StoreError(fmt::format(
          "{}: not an rjsim database (it is an SQLite database with no tables)", path));
    }
    throw StoreError(fmt::format("{}: not an rjsim database (it has tables: {})", path,
                                 listed(names)));
  }
  require_schema_version(*connection);
  require_tables(*connection, names);
}

}  // namespace rjsim::store
