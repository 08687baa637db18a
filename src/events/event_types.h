// The event types a reader of a run reads: every type, none, or a list, optionally only about
// objects of some kinds. The engine builds an event only when its sink or one of its observers
// reads it (exploration's fast path reads a handful of the types a step logs, about RayJobs and
// RayClusters); a skipped event still takes its seq, so the events that are built are numbered
// as in the full log. A small value: copying it allocates nothing, so that a run's readers can
// say what they read at the start of every run.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace rjsim::events {

class EventTypes {
 public:
  static constexpr std::size_t kMaxEntries = 16;

  static EventTypes all();
  static EventTypes none() { return {}; }
  // The types listed; an entry that ends in '.' stands for every type it begins ("api." reads
  // api.create, api.update, ...). The names are kept as views: pass string literals. More than
  // kMaxEntries distinct entries read every type (building more events than needed is always
  // correct, only slower).
  static EventTypes only(std::initializer_list<std::string_view> types);

  bool contains(std::string_view type) const {
    if (all_) return true;
    if (type.empty()) return false;
    // Most types an emitter asks about are told apart here, without a call.
    const auto first = static_cast<unsigned char>(type.front());
    if ((first_byte_set_[first / 64] & (std::uint64_t{1} << (first % 64))) == 0) return false;
    return entry_matches(type, first);
  }
  // The same, for an event about `object` ("Kind/namespace/name", or "" when it names none or
  // the emitter names it later): false when the reader reads no event about objects of its kind.
  bool contains(std::string_view type, std::string_view object) const {
    return contains(type) && about_kind_of(object);
  }
  // Whether the reader reads events about objects of kind `kind` (its name, "RayJob").
  bool about_kind(std::string_view kind) const;
  bool is_all() const { return all_; }
  bool is_none() const { return !all_ && size_ == 0; }

  // Reads its types only in events about objects of these kinds (their names, literals: "RayJob"),
  // or that name no object. Without it, about any object.
  EventTypes& about(std::initializer_list<std::string_view> kinds);

  // Adds what `other` reads (the readers of one run read the union; when both are about some
  // kinds only, about the kinds of both, which may build an event neither reads, never too few).
  EventTypes& add(const EventTypes& other);

  friend bool operator==(const EventTypes&, const EventTypes&) = default;

 private:
  void insert(std::string_view entry);
  void add_kind(std::string_view kind);
  void add_kinds(const EventTypes& other);   // add()'s part for the kinds, before the types
  bool about_kind_of(std::string_view object) const {
    return any_object_ || object.empty() || about_kind(object.substr(0, object.find('/')));
  }

  static constexpr std::size_t kMaxKinds = 5;
  bool all_ = false;
  bool any_object_ = true;   // else only about the first kind_count_ kinds_
  std::size_t kind_count_ = 0;
  std::array<std::string_view, kMaxKinds> kinds_{};
  std::size_t size_ = 0;
  std::array<std::string_view, kMaxEntries> entries_{};   // the first size_, sorted, each once
  // Most types are told apart by their first byte: the first bytes of the entries as a set, and
  // each entry's (sorted entries that begin alike are neighbours, so a type is compared only
  // with those). Both follow entries_ (index()).
  std::array<std::uint64_t, 4> first_byte_set_{};
  std::array<unsigned char, kMaxEntries> first_bytes_{};
  void index();
  // Whether an entry that begins with `first` (one does) matches `type`.
  bool entry_matches(std::string_view type, unsigned char first) const;
};

}  // namespace rjsim::events
