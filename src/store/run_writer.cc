#include "store/run_writer.h"

#include "store/connection.h"
#include "store/store_error.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <iterator>
#include <string>
#include <utility>

namespace rjsim::store {

// Named, not anonymous: RunWriter::State hold these types, and a class every file can name may not hold
// a type only this file can (GCC's -Wsubobject-linkage, which the unity build turns on).
namespace run_writer_detail {

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

// Inserting one row per statement spends most of its time on the statement rather than the
// row: starting it, opening a cursor, seeking the B-tree from its root. A statement of many
// rows keeps its cursor on the last leaf, where each next (run_id, seq) goes (store_bench, one
// run: 0.78M events/s of CPU time one row at a time, 1.0M at 64 rows, 1.3M with OR ROLLBACK
// below; 16 to 128 rows do about equally well). Held events are written with one statement per
// bit of their count: rows_per_insert rows, then 32, 16, ... 1.
static_assert(std::has_single_bit(static_cast<unsigned>(RunWriter::rows_per_insert)));
constexpr int insert_sizes =
    std::countr_zero(static_cast<unsigned>(RunWriter::rows_per_insert)) + 1;
constexpr int columns_per_row = 7;   // every column but run_id, which all rows share as ?1

// The statement that inserts rows_per_insert >> size rows, built once (a run asks for each).
// OR ROLLBACK: a failing row rolls back the whole run, which a failed write dooms anyway. With
// the default (ABORT) SQLite journals each multi-row statement so as to undo only its own rows.
const std::string& insert_events_sql(int size) {
  static const std::array<std::string, insert_sizes> sql = [] {
    std::array<std::string, insert_sizes> all;
    for (int index = 0; index < insert_sizes; ++index) {
      std::string& text = all[index];
      text = "INSERT OR ROLLBACK INTO events(run_id, seq, at_ms, origin, type, actor, object, "
             "body) VALUES ";
      for (int row = 0; row < (RunWriter::rows_per_insert >> index); ++row) {
        const int first = 2 + row * columns_per_row;
        fmt::format_to(std::back_inserter(text), "{}(?1,?{},?{},?{},?{},?{},?{},?{})",
                       row == 0 ? "" : ",", first, first + 1, first + 2, first + 3, first + 4,
                       first + 5, first + 6);
      }
    }
    return all;
  }();
  return sql[size];
}

// An emitted event waiting for its INSERT. Its strings are copied (the caller's Event may
// change once emit returns) into State::held_text, back to back: each runs from its offset to
// the next one.
struct HeldEvent {
  std::int64_t seq;
  std::int64_t at_ms;
  events::Origin origin;
  std::size_t type_at;
  std::size_t actor_at;
  std::size_t object_at;   // object_at == body_at: no object, stored as NULL
  std::size_t body_at;
  std::size_t end_at;
};

}  // namespace run_writer_detail

using namespace run_writer_detail;

// Member order matters: the transaction rolls back before the connection is released. The
// statements belong to the connection's cache.
struct RunWriter::State {
  State(std::shared_ptr<detail::Connection> connection_in, const RunHeader& header);

  // After a failed write SQLite may have rolled the transaction back by itself; from then on
  // every write must fail too, or later rows would be stored one by one outside the run's
  // transaction.
  void require_usable(std::string_view doing) const;

  void hold(const events::Event& event);
  // Inserts the held events and forgets them. Any failure marks the run failed: held events
  // may be lost, so the run must never commit.
  void write_held();
  void insert_held(detail::Statement& insert, int first, int rows);
  std::string_view held(std::size_t from, std::size_t to) const {
    return std::string_view(held_text).substr(from, to - from);
  }

  std::shared_ptr<detail::Connection> connection;
  RunInProgress in_progress;
  detail::Transaction transaction;
  std::int64_t run_id = 0;
  std::int64_t next_seq = 0;
  bool committed = false;
  bool failed = false;
  std::array<HeldEvent, rows_per_insert> held_events;
  int held_count = 0;
  std::string held_text;   // reused for every batch: no allocation once it has grown
  // insert_events[k] inserts rows_per_insert >> k rows.
  std::array<detail::Statement*, insert_sizes> insert_events;
  detail::Statement* insert_violation;
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
  detail::Statement& statement = detail::cached_statement(
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
      insert_violation(&detail::cached_statement(
          *connection, "INSERT INTO violations(run_id, seq, invariant, message) "
                       "VALUES (?, ?, ?, ?)")) {
  for (int size = 0; size < insert_sizes; ++size) {
    insert_events[size] =
        &detail::cached_statement(*connection, insert_events_sql(size));
  }
}

void RunWriter::State::require_usable(std::string_view doing) const {
  if (committed) detail::internal_error(fmt::format("run {}: {} after commit", run_id, doing));
  if (failed) {
    throw DatabaseError(fmt::format("{}: run {}: cannot {}: an earlier write of this run failed, "
                                    "and nothing of the run was kept", connection->path, run_id,
                                    doing));
  }
}

void RunWriter::State::hold(const events::Event& event) {
  HeldEvent& held_event = held_events[held_count];
  held_event.seq = event.seq;
  held_event.at_ms = event.at_ms;
  held_event.origin = event.origin;
  held_event.type_at = held_text.size();
  held_text += event.type;
  held_event.actor_at = held_text.size();
  held_text += event.actor;
  held_event.object_at = held_text.size();
  held_text += event.object;
  held_event.body_at = held_text.size();
  events::append_fields_json(event.body, held_text);
  held_event.end_at = held_text.size();
  ++held_count;   // last: should copying throw, the slot is not taken
}

void RunWriter::State::write_held() {
  try {
    int first = 0;
    for (int size = 0; size < insert_sizes; ++size) {
      const int rows = rows_per_insert >> size;
      if ((held_count & rows) == 0) continue;
      insert_held(*insert_events[size], first, rows);
      first += rows;
    }
  } catch (...) {
    failed = true;
    throw;
  }
  held_count = 0;
  held_text.clear();
}

void RunWriter::State::insert_held(detail::Statement& insert, int first, int rows) {
  insert.bind(1, run_id);
  int parameter = 2;
  for (int index = first; index < first + rows; ++index) {
    const HeldEvent& event = held_events[index];
    insert.bind(parameter++, event.seq);
    insert.bind(parameter++, event.at_ms);
    insert.bind(parameter++, events::to_string(event.origin));
    insert.bind(parameter++, held(event.type_at, event.actor_at));
    insert.bind(parameter++, held(event.actor_at, event.object_at));
    if (event.object_at == event.body_at) {
      insert.bind_null(parameter++);
    } else {
      insert.bind(parameter++, held(event.object_at, event.body_at));
    }
    insert.bind(parameter++, held(event.body_at, event.end_at));
  }
  insert.step();
  insert.reset();
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
  state.hold(event);
  ++state.next_seq;
  if (state.held_count == rows_per_insert) state.write_held();
}

void RunWriter::add_violation(const Violation& violation) {
  State& state = *state_;
  state.require_usable("add_violation");
  detail::Statement& insert = *state.insert_violation;
  insert.bind(1, state.run_id);
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
  try {
    state.write_held();
    detail::Statement& update = detail::cached_statement(
        *state.connection,
        "UPDATE runs SET outcome = ?, steps = ?, virtual_ms = ?, log_hash = ? WHERE run_id = ?");
    update.bind(1, summary.outcome);
    update.bind(2, summary.steps);
    update.bind(3, summary.virtual_ms);
    update.bind(4, summary.log_hash);
    update.bind(5, state.run_id);
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
