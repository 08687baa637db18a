#include "store/run_writer.h"

#include "store/connection.h"
#include "store/store_error.h"

#include <fmt/format.h>

#include <utility>

namespace rjsim::store {

namespace {

// Marks the connection as writing a run from construction until release() or destruction, so
// that a second begin_run on it is caught.
class RunInProgress {
 public:
  explicit RunInProgress(detail::Connection& connection) : connection_(&connection) {
    connection.run_in_progress = true;
  }
  ~RunInProgress() { release(); }
  RunInProgress(const RunInProgress&) = delete;
  RunInProgress& operator=(const RunInProgress&) = delete;
  void release() {
    if (held_) connection_->run_in_progress = false;
    held_ = false;
  }

 private:
  detail::Connection* connection_;
  bool held_ = true;
};

}  // namespace

// Member order matters: the statements are finalized before the transaction rolls back, and
// the transaction before the connection is released.
struct RunWriter::State {
  State(std::shared_ptr<detail::Connection> connection_in, const RunHeader& header);

  // After a failed write SQLite may have rolled the transaction back by itself; from then on
  // every write must fail too, or later rows would be stored one by one outside the run's
  // transaction.
  void require_usable(std::string_view doing) const;

  std::shared_ptr<detail::Connection> connection;
  RunInProgress in_progress;
  detail::Transaction transaction;
  std::int64_t run_id = 0;
  std::int64_t next_seq = 0;
  bool committed = false;
  bool failed = false;
  std::string body_json;   // reused for every event: no allocation once it has grown
  detail::Statement insert_event;
  detail::Statement insert_violation;
};

namespace {

void require_parent_exists(detail::Connection& connection, std::int64_t parent_run) {
  detail::Statement statement(connection, "SELECT 1 FROM runs WHERE run_id = ?");
  statement.bind(1, parent_run);
  if (!statement.step()) {
    throw StoreError(fmt::format("{}: parent run {} does not exist", connection.path, parent_run));
  }
}

std::int64_t insert_run_row(detail::Connection& connection, const RunHeader& header) {
  if (header.parent_run) require_parent_exists(connection, *header.parent_run);
  detail::Statement statement(
      connection,
      "INSERT INTO runs(parent_run, kind, scenario, scenario_text, controller, seed, created_at) "
      "VALUES (?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
  statement.bind(1, header.parent_run);
  statement.bind(2, header.kind);
  statement.bind(3, header.scenario);
  statement.bind(4, header.scenario_text);
  statement.bind(5, header.controller);
  statement.bind(6, header.seed);
  statement.step();
  return sqlite3_last_insert_rowid(connection.handle);
}

}  // namespace

RunWriter::State::State(std::shared_ptr<detail::Connection> connection_in, const RunHeader& header)
    : connection(std::move(connection_in)),
      in_progress(*connection),
      transaction(*connection),
      run_id(insert_run_row(*connection, header)),
      insert_event(*connection,
                   "INSERT INTO events(run_id, seq, at_ms, origin, type, actor, object, body) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
      insert_violation(*connection,
                       "INSERT INTO violations(run_id, seq, invariant, message) "
                       "VALUES (?, ?, ?, ?)") {
  // The run_id stays bound: reset() keeps bindings.
  insert_event.bind(1, run_id);
  insert_violation.bind(1, run_id);
}

void RunWriter::State::require_usable(std::string_view doing) const {
  if (committed) detail::internal_error(fmt::format("run {}: {} after commit", run_id, doing));
  if (failed) {
    throw DatabaseError(fmt::format("{}: run {}: cannot {}: an earlier write of this run failed, "
                                    "and nothing of the run was kept", connection->path, run_id,
                                    doing));
  }
}

RunWriter::RunWriter(std::shared_ptr<detail::Connection> connection, const RunHeader& header)
    : state_(std::make_unique<State>(std::move(connection), header)) {}

RunWriter::RunWriter(RunWriter&&) noexcept = default;
RunWriter::~RunWriter() = default;

void RunWriter::emit(const events::Event& event) {
  State& state = *state_;
  state.require_usable("emit");
  if (event.seq != state.next_seq) {
    detail::internal_error(fmt::format("run {}: event seq {} where {} was due (seq must be dense "
                                       "from 0)", state.run_id, event.seq, state.next_seq));
  }
  state.body_json.clear();
  events::append_fields_json(event.body, state.body_json);

  detail::Statement& insert = state.insert_event;
  insert.bind(2, event.seq);
  insert.bind(3, event.at_ms);
  insert.bind(4, events::to_string(event.origin));
  insert.bind(5, event.type);
  insert.bind(6, event.actor);
  if (event.object.empty()) {
    insert.bind_null(7);
  } else {
    insert.bind(7, event.object);
  }
  insert.bind(8, state.body_json);
  try {
    insert.step();
  } catch (...) {
    state.failed = true;
    throw;
  }
  insert.reset();
  ++state.next_seq;
}

void RunWriter::add_violation(const Violation& violation) {
  State& state = *state_;
  state.require_usable("add_violation");
  detail::Statement& insert = state.insert_violation;
  insert.bind(2, violation.seq);
  insert.bind(3, violation.invariant);
  insert.bind(4, violation.message);
  try {
    insert.step();
  } catch (...) {
    state.failed = true;
    throw;
  }
  insert.reset();
}

std::int64_t RunWriter::commit(const RunSummary& summary) {
  State& state = *state_;
  state.require_usable("commit");
  if (!is_run_outcome(summary.outcome)) {
    detail::internal_error(fmt::format("run {}: outcome '{}' is not one of pass, violation, "
                                       "diverged, error, incomplete", state.run_id,
                                       summary.outcome));
  }
  detail::Statement update(*state.connection,
                           "UPDATE runs SET outcome = ?, steps = ?, virtual_ms = ?, log_hash = ? "
                           "WHERE run_id = ?");
  update.bind(1, summary.outcome);
  update.bind(2, summary.steps);
  update.bind(3, summary.virtual_ms);
  update.bind(4, summary.log_hash);
  update.bind(5, state.run_id);
  try {
    update.step();
    state.transaction.commit();
  } catch (...) {
    state.failed = true;
    throw;
  }
  state.committed = true;
  state.in_progress.release();   // the next run may begin while this writer still exists
  return state.run_id;
}

std::int64_t RunWriter::run_id() const { return state_->run_id; }
std::int64_t RunWriter::events_written() const { return state_->next_seq; }

}  // namespace rjsim::store
