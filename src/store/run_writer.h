// Writes one run as one SQLite transaction: the run is stored whole (commit) or not at all
// (destroyed without commit, or an exception on the way: the destructor rolls back, and no run
// row, event or violation of it remains). Events must arrive with seq 0, 1, 2, ... (a gap is a
// bug in rjsim and aborts). Events are written rows_per_insert at a time, so a failed write
// may surface at a later emit or at commit; either way the run is failed and nothing of it is
// kept. Made by Database::begin_run; usable after the Database is gone.
#pragma once

#include "events/event.h"
#include "store/records.h"

#include <cstdint>
#include <memory>

namespace rjsim::store {

namespace detail {
struct Connection;
}

class RunWriter final : public events::EventSink {
 public:
  // Events per INSERT statement (a power of two); emit holds events until it has this many.
  static constexpr int rows_per_insert = 64;

  RunWriter(RunWriter&&) noexcept;
  RunWriter& operator=(RunWriter&&) = delete;
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;
  ~RunWriter() override;   // not committed: ROLLBACK

  void emit(const events::Event& event) override;
  void add_violation(const Violation& violation);
  // Fills in the run row's summary, commits, and returns the run_id. Once only.
  std::int64_t commit(const RunSummary& summary);

  std::int64_t run_id() const;
  std::int64_t events_written() const;   // emitted so far, held ones included

 private:
  friend class Database;
  RunWriter(std::shared_ptr<detail::Connection> connection, const RunHeader& header);

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace rjsim::store
