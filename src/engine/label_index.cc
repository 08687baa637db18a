#include "engine/label_index.h"

#include <algorithm>
#include <cassert>

// Inlined here: most keys hashed are short names, whose hash costs less than the call.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace rjsim::engine {

std::uint64_t LabelIndex::hash_value(std::string_view namespace_, std::string_view value) {
  const std::uint64_t seed = XXH3_64bits(namespace_.data(), namespace_.size());
  return XXH3_64bits_withSeed(value.data(), value.size(), seed);
}

std::vector<LabelIndex::Entry>::const_iterator LabelIndex::lower_bound(std::uint64_t hash) const {
  return std::lower_bound(entries_.begin(), entries_.end(), hash,
                          [](const Entry& entry, std::uint64_t wanted) { return entry.hash < wanted; });
}

void LabelIndex::inserted(std::size_t place, std::optional<std::uint64_t> hash) {
  for (Entry& entry : entries_) {
    if (entry.place >= place) ++entry.place;   // keeps each hash's entries in place order
  }
  if (hash) add(place, *hash);
}

void LabelIndex::erased(std::size_t place) {
  std::erase_if(entries_, [place](const Entry& entry) { return entry.place == place; });
  for (Entry& entry : entries_) {
    if (entry.place > place) --entry.place;
  }
}

void LabelIndex::relabelled(std::size_t place, std::optional<std::uint64_t> before,
                            std::optional<std::uint64_t> after) {
  if (before == after) return;
  if (before) remove(place, *before);
  if (after) add(place, *after);
}

void LabelIndex::add(std::size_t place, std::uint64_t hash) {
  const Entry entry{hash, static_cast<std::uint32_t>(place)};
  const auto at = std::upper_bound(entries_.begin(), entries_.end(), entry, [](const Entry& a, const Entry& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.place < b.place;
  });
  entries_.insert(at, entry);
}

void LabelIndex::remove(std::size_t place, std::uint64_t hash) {
  const auto found = std::find_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& entry) { return entry.hash == hash && entry.place == place; });
  assert(found != entries_.end() && "rjsim bug: a relabel of a place the index does not hold");
  if (found != entries_.end()) entries_.erase(found);
}

}  // namespace rjsim::engine
