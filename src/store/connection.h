// Internal to src/store: one SQLite connection, shared (std::shared_ptr) by the Database and
// every writer and reader it hands out, so none of them can outlive it; prepared statements
// whose failures throw DatabaseError naming the file, and a cache of the ones every run uses;
// and a write transaction (BEGIN IMMEDIATE) that rolls back unless committed. One connection
// is used by one thread at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rjsim::store::detail {

// How long a connection waits for another process's lock (explore shards, check --jobs, a reader
// beside a writer) before giving up with DatabaseError.
inline constexpr int kBusyTimeoutMs = 60'000;

class Statement;

struct Connection {
  Connection(sqlite3* handle, std::string path);
  ~Connection();   // finalizes the cached statements, then closes
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* handle;
  std::string path;
  bool run_in_progress = false;   // at most one write transaction (one RunWriter) at a time
  // See cached_statement.
  std::map<std::string, std::unique_ptr<Statement>, std::less<>> statement_cache;
};

// A broken contract between rjsim's own components: report it as ours and stop.
[[noreturn]] void internal_error(std::string_view message);

// Throws DatabaseError: "<file>: SQLite failed while <doing>: <SQLite's message>".
[[noreturn]] void throw_database_error(const Connection& connection, std::string_view doing);

// Runs SQL that returns no rows (pragmas, BEGIN, DDL).
void execute(Connection& connection, const char* sql, std::string_view doing);

class Statement {
 public:
  Statement(Connection& connection, std::string_view sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based. Text is bound without a copy (SQLITE_STATIC): it must stay alive
  // and unchanged until the statement is stepped to completion or reset.
  void bind(int index, std::int64_t value) {
    check(sqlite3_bind_int64(statement_, index, value), "binding a parameter");
  }
  void bind(int index, std::string_view text) {
    const char* data = text.data() != nullptr ? text.data() : "";
    check(sqlite3_bind_text64(statement_, index, data, text.size(), SQLITE_STATIC, SQLITE_UTF8),
          "binding a parameter");
  }
  void bind_null(int index) { check(sqlite3_bind_null(statement_, index), "binding a parameter"); }
  void bind(int index, const std::optional<std::int64_t>& value) {
    value ? bind(index, *value) : bind_null(index);
  }
  // Binds a copy of column `column` of `row`'s current row, type and all (copying rows).
  void bind_column_of(int index, const Statement& row, int column) {
    check(sqlite3_bind_value(statement_, index, sqlite3_column_value(row.statement_, column)),
          "binding a parameter");
  }

  // Runs the statement to its next row: true when a row is ready, false when it is done.
  bool step() {
    const int result = sqlite3_step(statement_);
    if (result == SQLITE_ROW) return true;
    if (result == SQLITE_DONE) return false;
    throw_database_error(*connection_, sql_summary());
  }
  // Makes the statement ready to run again; the bound parameters stay bound.
  void reset() { sqlite3_reset(statement_); }

  std::int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }
  bool is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
  // Valid until the next step() or reset(). NULL reads as "".
  std::string_view text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    if (data == nullptr) return {};
    return {data, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
  }
  std::optional<std::int64_t> optional_integer(int column) const {
    if (is_null(column)) return std::nullopt;
    return integer(column);
  }
  std::optional<std::string> optional_text(int column) const {
    if (is_null(column)) return std::nullopt;
    return std::string(text(column));
  }

 private:
  void check(int result, std::string_view doing) {
    if (result != SQLITE_OK) throw_database_error(*connection_, doing);
  }
  std::string sql_summary() const;

  Connection* connection_;
  sqlite3_stmt* statement_ = nullptr;
};

// The statement for `sql`, prepared on first use and kept until the connection closes, reset
// and ready to run (its parameters still hold their last values: bind them all). For the
// statements every run executes, above all the run writer's multi-row INSERTs, which take
// longer to prepare than a short run takes to write. Whoever uses one must be done with it
// before anyone else asks for it (one RunWriter per connection at a time).
Statement& cached_statement(Connection& connection, std::string_view sql);

// BEGIN IMMEDIATE: takes the write lock now (waiting up to the busy timeout for other
// writers), so that the whole transaction either commits or leaves no trace.
class Transaction {
 public:
  explicit Transaction(Connection& connection);
  ~Transaction();   // ROLLBACK unless committed
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  Connection* connection_;
  bool open_ = true;
};

}  // namespace rjsim::store::detail
