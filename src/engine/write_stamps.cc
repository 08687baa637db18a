#include "engine/write_stamps.h"

#include <algorithm>

namespace rjsim::engine {

namespace {

template <class Groups>
auto group_place(Groups& groups, std::uint64_t hash) {
  return std::lower_bound(groups.begin(), groups.end(), hash,
                          [](const auto& group, std::uint64_t wanted) { return group.hash < wanted; });
}

}  // namespace

const ObjectVersion* WriteStamps::pod_group(std::uint64_t group) const {
  const auto place = group_place(pod_groups_, group);
  return place != pod_groups_.end() && place->hash == group ? &place->last : nullptr;
}

void WriteStamps::written(const ObjectVersion& version, std::optional<std::uint64_t> group, bool existence,
                          std::uint64_t serial) {
  const auto kind = static_cast<std::size_t>(kind_index(kind_of(*version)));
  kinds_[kind] = version;
  if (existence) existence_[kind] = version;
  if (group) stamp_group(*group, version, serial);
}

void WriteStamps::left_group(std::uint64_t group, const ObjectVersion& version, std::uint64_t serial) {
  stamp_group(group, version, serial);
}

void WriteStamps::stamp_group(std::uint64_t group, const ObjectVersion& version, std::uint64_t serial) {
  const auto place = group_place(pod_groups_, group);
  if (place != pod_groups_.end() && place->hash == group) {
    place->last = version;
    place->serial = serial;
    return;
  }
  pod_groups_.insert(place, Group{group, version, serial});
}

}  // namespace rjsim::engine
