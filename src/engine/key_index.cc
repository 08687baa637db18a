#include "engine/key_index.h"

#include <algorithm>
#include <cassert>

#include <xxhash.h>

namespace rjsim::engine {

namespace {

constexpr std::size_t kSmallestCapacity = 16;

// The smallest power of two, at least `capacity`, that keeps `entries` at most half full.
std::size_t capacity_for(std::size_t entries, std::size_t capacity) {
  capacity = std::max(capacity, kSmallestCapacity);
  while (entries * 2 > capacity) capacity *= 2;
  return capacity;
}

}  // namespace

// The name alone: namespaces are few (most scenarios have one), and a lookup compares the whole
// key of the candidate it finds.
std::uint64_t KeyIndex::hash_key(std::string_view /*namespace_*/, std::string_view name) {
  return XXH3_64bits(name.data(), name.size());
}

void KeyIndex::inserted(std::size_t place, std::uint64_t hash) {
  std::vector<Slot> entries = live_entries();
  for (Slot& entry : entries) {
    if (entry.place_plus_one - 1 >= place) ++entry.place_plus_one;
  }
  entries.push_back({hash, static_cast<std::uint32_t>(place + 1)});
  rebuild(entries, capacity_for(entries.size(), slots_.size()));
}

void KeyIndex::erased(std::size_t place) {
  std::vector<Slot> entries = live_entries();
  std::erase_if(entries, [place](const Slot& entry) { return entry.place_plus_one - 1 == place; });
  assert(entries.size() + 1 == size_ && "rjsim bug: an erase at a place the index does not hold");
  for (Slot& entry : entries) {
    if (entry.place_plus_one - 1 > place) --entry.place_plus_one;
  }
  rebuild(entries, slots_.size());
}

void KeyIndex::assign(const std::vector<std::uint64_t>& hashes) {
  std::vector<Slot> entries;
  entries.reserve(hashes.size());
  for (std::size_t place = 0; place < hashes.size(); ++place) {
    entries.push_back({hashes[place], static_cast<std::uint32_t>(place + 1)});
  }
  rebuild(entries, capacity_for(entries.size(), kSmallestCapacity));
}

std::vector<KeyIndex::Slot> KeyIndex::live_entries() const {
  std::vector<Slot> entries;
  entries.reserve(size_ + 1);
  for (const Slot& slot : slots_) {
    if (slot.place_plus_one != 0) entries.push_back(slot);
  }
  return entries;
}

// A rebuild, not an edit in place: linear probing cannot simply empty a slot, and inserts and
// erases are rare beside lookups (a step writes once or twice; the actors look up hundreds of keys).
void KeyIndex::rebuild(const std::vector<Slot>& entries, std::size_t capacity) {
  slots_.assign(capacity, Slot{});
  size_ = 0;
  for (const Slot& entry : entries) place_entry(entry);
}

void KeyIndex::place_entry(const Slot& entry) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = entry.hash & mask;
  while (slots_[slot].place_plus_one != 0) slot = (slot + 1) & mask;
  slots_[slot] = entry;
  ++size_;
}

}  // namespace rjsim::engine
