#include "store/copy_run.h"

#include "store/connection.h"

#include <fmt/format.h>

namespace rjsim::store {
namespace {

std::int64_t copy_run_row(detail::Connection& from, std::int64_t run_id, detail::Connection& to,
                          std::optional<std::int64_t> new_parent) {
  detail::Statement row(from,
                        "SELECT kind, scenario, scenario_text, controller, seed, outcome, steps, "
                        "virtual_ms, log_hash, created_at FROM runs WHERE run_id = ?");
  row.bind(1, run_id);
  if (!row.step()) {
    throw StoreError(fmt::format("{}: no run {}", from.path, run_id));
  }
  detail::Statement insert(
      to,
      "INSERT INTO runs(parent_run, kind, scenario, scenario_text, controller, seed, outcome, "
      "steps, virtual_ms, log_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, new_parent);
  for (int column = 0; column < 10; ++column) insert.bind_column_of(column + 2, row, column);
  insert.step();
  return sqlite3_last_insert_rowid(to.handle);
}

void copy_rows(detail::Connection& from, const char* select_sql, std::int64_t run_id,
               detail::Connection& to, const char* insert_sql, std::int64_t new_run_id,
               int columns) {
  detail::Statement row(from, select_sql);
  row.bind(1, run_id);
  detail::Statement insert(to, insert_sql);
  insert.bind(1, new_run_id);
  while (row.step()) {
    for (int column = 0; column < columns; ++column) insert.bind_column_of(column + 2, row, column);
    insert.step();
    insert.reset();
  }
}

}  // namespace

std::int64_t copy_run(const Database& from, std::int64_t run_id, Database& to,
                      std::optional<std::int64_t> new_parent) {
  from.require_run(run_id);
  if (new_parent) to.require_run(*new_parent);
  detail::Connection& destination = *to.connection_;
  if (destination.run_in_progress) {
    detail::internal_error(fmt::format("{}: copy_run while a run is being written on this "
                                       "connection", destination.path));
  }
  detail::Transaction transaction(destination);
  detail::Connection& source = *from.connection_;
  const std::int64_t new_run_id = copy_run_row(source, run_id, destination, new_parent);
  copy_rows(source,
            "SELECT seq, at_ms, origin, type, actor, object, body FROM events "
            "WHERE run_id = ? ORDER BY seq",
            run_id, destination,
            "INSERT INTO events(run_id, seq, at_ms, origin, type, actor, object, body) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            new_run_id, 7);
  copy_rows(source,
            "SELECT seq, invariant, message FROM violations WHERE run_id = ? ORDER BY rowid",
            run_id, destination,
            "INSERT INTO violations(run_id, seq, invariant, message) VALUES (?, ?, ?, ?)",
            new_run_id, 3);
  transaction.commit();
  return new_run_id;
}

}  // namespace rjsim::store
