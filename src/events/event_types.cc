#include "events/event_types.h"

#include <algorithm>
#include <array>

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
  for (std::string_view type : types) result.insert(type);
  return result;
}

bool EventTypes::entry_matches(std::string_view type, unsigned char first) const {
  std::size_t i = 0;
  while (first_bytes_[i] != first) ++i;   // in the set, so some entry begins with it
  for (; i < size_ && first_bytes_[i] == first; ++i) {
    if (matches(entries_[i], type)) return true;
  }
  return false;
}

bool EventTypes::about_kind(std::string_view kind) const {
  const auto end = kinds_.begin() + static_cast<std::ptrdiff_t>(kind_count_);
  return any_object_ || std::find(kinds_.begin(), end, kind) != end;
}

EventTypes& EventTypes::about(std::initializer_list<std::string_view> kinds) {
  any_object_ = false;
  kind_count_ = 0;
  for (std::string_view kind : kinds) add_kind(kind);
  return *this;
}

void EventTypes::add_kind(std::string_view kind) {
  if (about_kind(kind)) return;
  if (kind_count_ == kMaxKinds) {   // more kinds than kept: about any object
    any_object_ = true;
    return;
  }
  kinds_[kind_count_++] = kind;
}

EventTypes& EventTypes::add(const EventTypes& other) {
  if (other.all_) *this = all();
  if (all_) return *this;
  add_kinds(other);
  // Both lists are sorted and hold each entry once: their union is one merge.
  std::array<std::string_view, 2 * kMaxEntries> merged;
  const auto merged_end =
      std::set_union(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(size_), other.entries_.begin(),
                     other.entries_.begin() + static_cast<std::ptrdiff_t>(other.size_), merged.begin());
  const auto size = static_cast<std::size_t>(merged_end - merged.begin());
  if (size > kMaxEntries) return *this = all();
  std::copy(merged.begin(), merged_end, entries_.begin());
  size_ = size;
  index();
  return *this;
}

void EventTypes::add_kinds(const EventTypes& other) {
  // A reader of nothing adds no kind, and takes the other's; one about any object makes the
  // union about any.
  if (other.is_none()) return;
  if (is_none()) {
    any_object_ = other.any_object_;
    kind_count_ = other.kind_count_;
    kinds_ = other.kinds_;
    return;
  }
  if (other.any_object_) {
    any_object_ = true;
    return;
  }
  for (std::size_t i = 0; i < other.kind_count_; ++i) add_kind(other.kinds_[i]);
}

void EventTypes::insert(std::string_view entry) {
  if (all_) return;
  const auto end = entries_.begin() + static_cast<std::ptrdiff_t>(size_);
  const auto at = std::lower_bound(entries_.begin(), end, entry);
  if (at != end && *at == entry) return;
  if (size_ == kMaxEntries) {
    *this = all();
    return;
  }
  std::move_backward(at, end, end + 1);
  *at = entry;
  ++size_;
  index();
}

void EventTypes::index() {
  first_byte_set_ = {};
  first_bytes_ = {};
  for (std::size_t i = 0; i < size_; ++i) {
    if (entries_[i].empty()) continue;   // matches no type (contains() rejects "" first)
    const auto first = static_cast<unsigned char>(entries_[i].front());
    first_bytes_[i] = first;
    first_byte_set_[first / 64] |= std::uint64_t{1} << (first % 64);
  }
}

}  // namespace rjsim::events
