#include "events/event_types.h"

#include <algorithm>

namespace rjsim::events {

namespace {

bool matches(std::string_view entry, std::string_view type) {
  return entry.ends_with('.') ? type.starts_with(entry) : type == entry;
}

}  // namespace

EventTypes EventTypes::all() {
  EventTypes types;
  types.all_ = true;
  return types;
}

EventTypes EventTypes::only(std::initializer_list<std::string_view> types) {
  EventTypes result;
  for (std::string_view type : types) result.entries_.emplace_back(type);
  std::sort(result.entries_.begin(), result.entries_.end());
  result.entries_.erase(std::unique(result.entries_.begin(), result.entries_.end()), result.entries_.end());
  return result;
}

bool EventTypes::contains(std::string_view type) const {
  if (all_) return true;
  return std::any_of(entries_.begin(), entries_.end(),
                     [type](const std::string& entry) { return matches(entry, type); });
}

EventTypes& EventTypes::add(const EventTypes& other) {
  if (all_ || other.all_) {
    *this = all();
    return *this;
  }
  entries_.insert(entries_.end(), other.entries_.begin(), other.entries_.end());
  std::sort(entries_.begin(), entries_.end());
  entries_.erase(std::unique(entries_.begin(), entries_.end()), entries_.end());
  return *this;
}

}  // namespace rjsim::events
