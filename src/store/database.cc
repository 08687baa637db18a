#include "store/database.h"

#include "store/connection.h"
#include "store/schema.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace rjsim::store {
namespace {

namespace fs = std::filesystem;

enum class FileState { missing, empty, has_content };

FileState file_state(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    throw StoreError(fmt::format("{}: cannot be examined: {}", path, error.message()));
  }
  if (!fs::exists(status)) return FileState::missing;
  if (fs::is_directory(status)) {
    throw StoreError(fmt::format("{}: is a directory, not a database file", path));
  }
  return fs::file_size(path, error) == 0 && !error ? FileState::empty : FileState::has_content;
}

std::shared_ptr<detail::Connection> open_connection(const std::string& path, int flags) {
  sqlite3* handle = nullptr;
  const int result = sqlite3_open_v2(path.c_str(), &handle, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  auto connection = std::make_shared<detail::Connection>(handle, path);
  if (result != SQLITE_OK) {
    const int system_error = handle ? sqlite3_system_errno(handle) : 0;
    throw StoreError(fmt::format("{}: cannot be opened{}: {}", path,
                                 (flags & SQLITE_OPEN_CREATE) ? " or created" : "",
                                 system_error ? std::strerror(system_error)
                                              : (handle ? sqlite3_errmsg(handle)
                                                        : sqlite3_errstr(result))));
  }
  sqlite3_extended_result_codes(handle, 1);
  sqlite3_busy_timeout(handle, detail::kBusyTimeoutMs);
  return connection;
}

// Settings of this connection only (nothing here changes the file).
// synchronous=NORMAL: in WAL mode a committed run survives a crash of the process; a power
// loss may lose the last commits but never corrupts the file.
void configure_connection(detail::Connection& connection) {
  detail::execute(connection,
                  "PRAGMA synchronous = NORMAL;"
                  "PRAGMA cache_size = -65536;"      // 64 MiB: a whole run's pages stay in memory
                  "PRAGMA temp_store = MEMORY;"
                  "PRAGMA journal_size_limit = 67108864;",   // truncate the WAL back to 64 MiB
                  "configuring the connection");
}

// A new database: pages big enough for bulk appends, the schema in one transaction, then WAL
// (persistent in the file; readers never block the writer). Returns nullptr if another process
// created the schema first.
std::shared_ptr<detail::Connection> create_database(const std::string& path) {
  auto connection = open_connection(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // 32 KiB: fewer pages a run, so fewer WAL frames, checkpoint copies and B-tree splits
  // (store_bench, events/s of CPU time: one run 1.25M at 16 KiB, 1.4M at 32 KiB; 1000 runs of
  // 1000, 1.2M and 1.28M). 64 KiB is faster for one big run but slower for many short ones:
  // every commit writes whole the last, partly filled page of events.
  detail::execute(*connection, "PRAGMA page_size = 32768", "setting the page size");
  if (!create_schema_if_empty(*connection)) return nullptr;
  detail::execute(*connection, "PRAGMA journal_mode = WAL", "switching to WAL journal mode");
  configure_connection(*connection);
  return connection;
}

std::shared_ptr<detail::Connection> open_rjsim_database(const std::string& path) {
  check_rjsim_database(path);
  // READWRITE falls back to read-only by itself when the file is write-protected.
  auto connection = open_connection(path, SQLITE_OPEN_READWRITE);
  configure_connection(*connection);
  return connection;
}

// A rollback journal beside the file: a writer was killed inside a transaction in rollback-journal
// mode, which rjsim uses only while it creates a database (the schema, then WAL).
bool has_rollback_journal(const std::string& path) {
  std::error_code error;
  return fs::file_size(path + "-journal", error) > 0 && !error;
}

}  // namespace

Database Database::open(const std::string& path) {
  // New, empty, or left by a process killed while creating it: create_database takes the write
  // lock first, which rolls back what the killed process left, and creates the schema only if
  // the database then has no tables.
  if (file_state(path) != FileState::has_content || has_rollback_journal(path)) {
    if (auto connection = create_database(path)) return Database(std::move(connection));
  }
  return Database(open_rjsim_database(path));
}

Database Database::open_existing(const std::string& path) {
  switch (file_state(path)) {
    case FileState::missing:
      throw StoreError(fmt::format("{}: no such file", path));
    case FileState::empty:
      throw StoreError(fmt::format("{}: not an rjsim database (the file is empty)", path));
    case FileState::has_content:
      break;
  }
  return Database(open_rjsim_database(path));
}

Database::Database(std::shared_ptr<detail::Connection> connection)
    : connection_(std::move(connection)) {}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

RunWriter Database::begin_run(const RunHeader& header) {
  if (connection_->run_in_progress) {
    detail::internal_error(fmt::format(
        "{}: begin_run while another run is being written on this connection", path()));
  }
  if (!is_run_kind(header.kind)) {
    detail::internal_error(fmt::format("begin_run: run kind '{}' is not one of run, explore, "
                                       "shrink, replay, trace", header.kind));
  }
  return RunWriter(connection_, header);
}

EventReader Database::events(std::int64_t run_id) const {
  require_run(run_id);
  return EventReader(connection_, run_id);
}

const std::string& Database::path() const { return connection_->path; }

}  // namespace rjsim::store
