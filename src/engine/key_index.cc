#include "engine/key_index.h"

#include <algorithm>
#include <cassert>

// Inlined here: most keys hashed are short names, whose hash costs less than the call.
#define XXH_INLINE_ALL
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
  // Places move and hashes do not, so every entry keeps its slot: renumber, then place the new one.
  // Without a branch: which slots hold a later place is random, so a branch there mispredicts at
  // about every other occupied slot. An empty slot (0) is never above `place`.
  const auto first_moved = static_cast<std::uint32_t>(place + 1);
  for (Slot& slot : slots_) slot.place_plus_one += static_cast<std::uint32_t>(slot.place_plus_one >= first_moved);
  if ((size_ + 1) * 2 > slots_.size()) rebuild(live_entries(), capacity_for(size_ + 1, slots_.size()));
  place_entry({hash, static_cast<std::uint32_t>(place + 1)});
}

void KeyIndex::erased(std::size_t place) {
  const std::size_t mask = slots_.size() - 1;
  // Renumbered without a branch, as in inserted(); the erased entry's slot is noted by a select.
  const auto erased_place = static_cast<std::uint32_t>(place + 1);
  std::size_t hole = slots_.size();
  for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
    Slot& entry = slots_[slot];
    hole = entry.place_plus_one == erased_place ? slot : hole;
    entry.place_plus_one -= static_cast<std::uint32_t>(entry.place_plus_one > erased_place);
  }
  assert(hole < slots_.size() && "rjsim bug: an erase at a place the index does not hold");
  // Backward-shift deletion: each later entry of the probe run that could stand in the hole moves
  // there, so that no lookup stops at an empty slot before the entry it looks for.
  slots_[hole] = Slot{};
  for (std::size_t next = (hole + 1) & mask; slots_[next].place_plus_one != 0; next = (next + 1) & mask) {
    const std::size_t home = slots_[next].hash & mask;
    const bool home_between = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (home_between) continue;   // it may not move before its home
    slots_[hole] = slots_[next];
    slots_[next] = Slot{};
    hole = next;
  }
  --size_;
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

// When the table grows, or for assign().
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
