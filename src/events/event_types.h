// The event types a reader of a run reads: every type, none, or a list. The engine builds an event
// only when its sink or one of its observers reads the event's type (exploration's fast path
// reads a handful of the types a step logs); a skipped event still takes its seq, so the events
// that are built are numbered as in the full log.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace rjsim::events {

class EventTypes {
 public:
  static EventTypes all();
  static EventTypes none() { return {}; }
  // The types listed; an entry that ends in '.' stands for every type it begins ("api." reads
  // api.create, api.update, ...).
  static EventTypes only(std::initializer_list<std::string_view> types);

  bool contains(std::string_view type) const;
  bool is_all() const { return all_; }
  bool is_none() const { return !all_ && entries_.empty(); }

  // Adds what `other` reads (the readers of one run read the union).
  EventTypes& add(const EventTypes& other);

  friend bool operator==(const EventTypes&, const EventTypes&) = default;

 private:
  bool all_ = false;
  std::vector<std::string> entries_;   // sorted, each once
};

}  // namespace rjsim::events
