// A hash index over one kind's objects in the API server (api_server.h): from an object's key
// (namespace, name) to its place in the kind's store, which stays ordered by namespace then name
// for listing. A lookup costs one hash of the key and, almost always, one comparison of the key
// found, where a binary search compared keys at every halving, and generated names share long
// prefixes (rayjob-07-raycluster-…-head): with twenty RayJobs that search was a third of all the
// time a step took (docs/performance.md).
//
// The index holds places, not objects: the store tells it where an object was inserted or
// erased, and a lookup confirms a candidate place through the caller's `matches`, so a change of
// an object in place (same key, same place) needs no word to the index. It is derived from the
// store's keys and their order alone and takes no part in a world's value: any two indexes
// compare equal, the store beside them is what == and the fingerprint compare.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace rjsim::engine {

class KeyIndex {
 public:
  static std::uint64_t hash_key(std::string_view namespace_, std::string_view name);

  // The place of the object whose key hashes to `hash` and for which `matches(place)` holds
  // (the caller compares the key itself: two keys may share a hash).
  template <class Matches>
  std::optional<std::size_t> find(std::uint64_t hash, Matches matches) const {
    if (slots_.empty()) return std::nullopt;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const Slot& candidate = slots_[slot];
      if (candidate.place_plus_one == 0) return std::nullopt;
      const std::size_t place = candidate.place_plus_one - 1;
      if (candidate.hash == hash && matches(place)) return place;
    }
  }
  // Calls visit(place) for every object whose key hashes to `hash`.
  template <class Visit>
  void for_each(std::uint64_t hash, Visit visit) const {
    find(hash, [&](std::size_t place) {
      visit(place);
      return false;   // on to the next candidate
    });
  }
  // An object whose key hashes to `hash` now stands at `place`; those at `place` and after it
  // moved one place up. Edits the table in place (one pass over it), rebuilding it only to grow.
  void inserted(std::size_t place, std::uint64_t hash);
  // The object at `place` is gone; those after it moved one place down. In place: the later
  // entries of its probe run shift back into the hole (backward-shift deletion), where a rebuild
  // of the table allocated and rehashed every entry at each delete.
  void erased(std::size_t place);
  // Holds exactly the objects whose key hashes `hashes` lists, each at its place in the list.
  void assign(const std::vector<std::uint64_t>& hashes);
  std::size_t size() const { return size_; }

  friend bool operator==(const KeyIndex&, const KeyIndex&) { return true; }   // see above

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t place_plus_one = 0;   // 0: an empty slot
  };
  std::vector<Slot> live_entries() const;
  // Places every entry of `entries` into a table of `capacity` slots (a power of two).
  void rebuild(const std::vector<Slot>& entries, std::size_t capacity);
  void place_entry(const Slot& entry);

  std::vector<Slot> slots_;   // open addressing with linear probing; at most half full
  std::size_t size_ = 0;
};

}  // namespace rjsim::engine
