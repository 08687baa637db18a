// An rjsim event log: one SQLite file holding any number of runs (DESIGN §3). open() creates
// the schema only in a new or zero-byte file; any other file must already be an rjsim database
// of this schema version, or StoreError is thrown and the file is left byte for byte as it was.
// Runs are written through a RunWriter (one transaction each) and read back in seq order.
// A Database and what it hands out share one connection: use them from one thread at a time.
#pragma once

#include "events/event.h"
#include "store/event_reader.h"
#include "store/records.h"
#include "store/run_writer.h"
#include "store/store_error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rjsim::store {

namespace detail {
struct Connection;
}

class Database {
 public:
  // Creates the file and the schema when the file is missing or empty; otherwise opens it if it
  // is an rjsim database. Throws StoreError (bad input) or DatabaseError (SQLite failed).
  static Database open(const std::string& path);
  // For readers: the file must exist and be an rjsim database ("F: no such file" otherwise).
  static Database open_existing(const std::string& path);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Begins a run: takes the write lock (BEGIN IMMEDIATE) and inserts the run row. Nothing is
  // visible to other connections until RunWriter::commit. One RunWriter at a time.
  RunWriter begin_run(const RunHeader& header);

  std::vector<RunInfo> runs() const;                     // every run, by run_id
  std::optional<RunInfo> run(std::int64_t run_id) const;
  std::optional<std::int64_t> latest_run_id() const;     // the highest run_id, if any

  // A run's events, streamed in seq order. Throws StoreError when the file has no such run.
  EventReader events(std::int64_t run_id) const;
  // A run's violations in seq order, and its rows of the transitions view in seq order.
  // Throw StoreError when the file has no such run.
  std::vector<Violation> violations(std::int64_t run_id) const;
  std::vector<Transition> transitions(std::int64_t run_id) const;

  const std::string& path() const;

 private:
  explicit Database(std::shared_ptr<detail::Connection> connection);
  void require_run(std::int64_t run_id) const;

  friend std::int64_t copy_run(const Database& from, std::int64_t run_id, Database& to,
                               std::optional<std::int64_t> new_parent);

  std::shared_ptr<detail::Connection> connection_;
};

}  // namespace rjsim::store
