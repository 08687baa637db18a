// Streams the events of one run in seq order from the event log: a prepared statement stepped
// lazily, so a run of any length is read in constant memory. A body that does not parse or an
// origin that is neither input nor effect throws StoreError naming the file, run and seq.
// Made by Database::events; usable after the Database is gone.
#pragma once

#include "events/event.h"

#include <cstdint>
#include <memory>

namespace rjsim::store {

namespace detail {
struct Connection;
}

class EventReader {
 public:
  EventReader(EventReader&&) noexcept;
  EventReader& operator=(EventReader&&) noexcept;
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;
  ~EventReader();

  // Overwrites `event` with the next event and returns true, or returns false after the last.
  // Reusing one Event across calls saves allocations.
  bool next(events::Event& event);

 private:
  friend class Database;
  EventReader(std::shared_ptr<detail::Connection> connection, std::int64_t run_id);

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace rjsim::store
