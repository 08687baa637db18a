#include "store/connection.h"

#include "store/store_error.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace rjsim::store::detail {

Connection::Connection(sqlite3* handle, std::string path) : handle(handle), path(std::move(path)) {}

// close_v2: should a statement still be alive, the connection is freed with the last of them.
Connection::~Connection() {
  statement_cache.clear();
  sqlite3_close_v2(handle);
}

void internal_error(std::string_view message) {
  std::fprintf(stderr, "rjsim internal error (a bug in rjsim, not a finding about KubeRay): %.*s\n",
               static_cast<int>(message.size()), message.data());
  std::abort();
}

void throw_database_error(const Connection& connection, std::string_view doing) {
  const int code = sqlite3_extended_errcode(connection.handle);
  if ((code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB) {
    // The file is damaged (truncated, overwritten, a copy of a file being written): bad input, not
    // a failure of rjsim or of the disk. Found by the database fuzzer.
    throw StoreError(fmt::format("{}: not a readable SQLite database: it is damaged ({}, while {})", connection.path,
                                 sqlite3_errmsg(connection.handle), doing));
  }
  if ((code & 0xff) == SQLITE_ERROR) {
    // A statement of rjsim's that prepared but fails while running: the views' json_extract met a
    // body that is not JSON, or a view was rewritten with a JSON path that is not one (both found
    // by the database fuzzer). rjsim's own statements on its own schema and data do not fail so
    // (the tests run each one), so the file was changed by something else: bad input.
    const std::string_view message = sqlite3_errmsg(connection.handle);
    throw StoreError(message == "malformed JSON"
                         ? fmt::format("{}: not a readable rjsim database: a stored event's body is not JSON (while {})",
                                       connection.path, doing)
                         : fmt::format("{}: not a readable rjsim database: its schema or contents were changed ({}, "
                                       "while {})",
                                       connection.path, message, doing));
  }
  std::string advice;
  if ((code & 0xff) == SQLITE_BUSY) {
    advice = " (another process holds the database's write lock; retry when it has finished)";
  } else if ((code & 0xff) == SQLITE_FULL) {
    advice = " (free some disk space and run again; no partial run was kept)";
  }
  throw DatabaseError(fmt::format("{}: SQLite failed while {}: {}{}", connection.path, doing,
                                  sqlite3_errmsg(connection.handle), advice));
}

void execute(Connection& connection, const char* sql, std::string_view doing) {
  if (sqlite3_exec(connection.handle, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    throw_database_error(connection, doing);
  }
}

Statement::Statement(Connection& connection, std::string_view sql) : connection_(&connection) {
  const int result = sqlite3_prepare_v3(connection.handle, sql.data(), static_cast<int>(sql.size()),
                                        SQLITE_PREPARE_PERSISTENT, &statement_, nullptr);
  if ((result & 0xff) == SQLITE_ERROR) {
    // rjsim's statements all prepare against its own schema (the tests run each one); one that does
    // not means the file's schema was changed (the database fuzzer rewrote a view to call a
    // function that does not exist): bad input.
    throw StoreError(fmt::format("{}: not a readable rjsim database: its schema was changed ({}, while preparing '{}')",
                                 connection.path, sqlite3_errmsg(connection.handle), sql));
  }
  if (result != SQLITE_OK) {
    throw_database_error(connection, fmt::format("preparing '{}'", sql));
  }
}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_), statement_(std::exchange(other.statement_, nullptr)) {}

std::string Statement::sql_summary() const {
  const std::string_view sql = sqlite3_sql(statement_);
  constexpr std::size_t shown = 60;
  return fmt::format("running '{}{}'", sql.substr(0, shown), sql.size() > shown ? "..." : "");
}

Statement& cached_statement(Connection& connection, std::string_view sql) {
  auto found = connection.statement_cache.find(sql);
  if (found == connection.statement_cache.end()) {
    found = connection.statement_cache
                .emplace(std::string(sql), std::make_unique<Statement>(connection, sql))
                .first;
  }
  Statement& statement = *found->second;
  statement.reset();   // a step that threw left it unfinished
  return statement;
}

Transaction::Transaction(Connection& connection) : connection_(&connection) {
  execute(connection, "BEGIN IMMEDIATE", "beginning a write transaction");
}

Transaction::~Transaction() {
  // After some errors (disk full, I/O) SQLite has already rolled back: then there is no
  // transaction left, and a ROLLBACK would fail.
  if (open_ && connection_ != nullptr && sqlite3_get_autocommit(connection_->handle) == 0) {
    sqlite3_exec(connection_->handle, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

Transaction::Transaction(Transaction&& other) noexcept
    : connection_(std::exchange(other.connection_, nullptr)), open_(other.open_) {}

void Transaction::commit() {
  if (!open_) internal_error("Transaction::commit called twice");
  execute(*connection_, "COMMIT", "committing");
  open_ = false;
}

}  // namespace rjsim::store::detail
