// Where a reader stopped in one kind's watch log (api_server.h), so that it can ask next time
// which objects changed since, instead of reading every object again (issue 30: with 20 RayJobs
// an actor that walked its kinds' objects at every listing spent most of the listing on objects
// no step had touched). Every change to a kind's objects appends one event to its log, and each
// event names its object by WatchEvent::key_hash, so the events after the mark name every object
// created, changed or deleted since.
//
// The log a reader sees next may not continue the one it marked: exhaustive search goes on from
// snapshots, and a new run starts from the first world. The mark keeps the last event's
// write_serial, which no other write of the process takes; a log that holds that event at the
// mark's place shares every event before it (a fork copies its log, and writes after the fork
// take new serials), so its events after the mark are what changed. Any other log gives nullopt:
// the reader starts afresh. A mark of an empty log is continued by every log of the same
// scenario's runs, which start with no objects (the API server stores nothing but by a write).
//
// A reader's cache, not state: it takes no part in a World's value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/api_server.h"

namespace rjsim::engine {

class WatchLogMark {
 public:
  // The events of `log` after the mark, when `log` continues the log it was taken of; nullopt
  // when no mark was taken or `log` went another way.
  std::optional<std::span<const WatchEvent>> events_since(const std::vector<WatchEvent>& log) const {
    if (!size_ || log.size() < *size_) return std::nullopt;
    if (*size_ > 0 && log[*size_ - 1].write_serial != last_serial_) return std::nullopt;
    return std::span<const WatchEvent>(log).subspan(*size_);
  }
  // Whether `log` is the log the mark was taken of, with nothing after it.
  bool at_end_of(const std::vector<WatchEvent>& log) const {
    const std::optional<std::span<const WatchEvent>> events = events_since(log);
    return events && events->empty();
  }
  // events_since(log), and the mark moved to the end of `log` (which the events stay part of).
  std::optional<std::span<const WatchEvent>> advance(const std::vector<WatchEvent>& log) {
    const std::optional<std::span<const WatchEvent>> events = events_since(log);
    take(log);
    return events;
  }
  // The write serial of the last event at the mark (0 for an empty log or no mark): every event a
  // log that continues the mark holds after it took a larger one (api_server.cc next_write_serial).
  std::uint64_t last_serial() const { return last_serial_; }
  // Moves the mark to the end of `log`.
  void take(const std::vector<WatchEvent>& log) {
    size_ = log.size();
    last_serial_ = log.empty() ? 0 : log.back().write_serial;
  }

 private:
  std::optional<std::size_t> size_;
  std::uint64_t last_serial_ = 0;
};

}  // namespace rjsim::engine
