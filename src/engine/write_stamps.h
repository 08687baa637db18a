// What the API server wrote last, per part of its store, as stamps that a reader which keeps
// answers compares to tell whether a part changed since it answered (the simulated RayCluster
// controller keeps one answer per cluster, and asks again whether the Pods it looked up by name
// exist only after a Pod was created or deleted; the checks' history reads a SidecarMode RayJob's
// submitter again after a Pod write; issue 30).
// The parts: each kind; the Pods of each (namespace, ray.io/cluster value); which objects of each
// kind exist.
//
// A stamp is the ObjectVersion the write's watch event announced (a DELETED event's too). Each
// write makes its version once, in one server; a server's copies (forks, snapshots) share the
// stamps made before the copy and make their own after it. So two servers, of one run or of two,
// that show the same stamp for a part made no write to that part since the write that made it:
// the part is the same in both. Stamps are compared with ObjectVersion::same_version by a reader
// that holds the stamp it keeps (so that its address is not reused), never by a counter, which
// forks and runs would repeat. No write yet reads the default version (or none for a Pod group).
//
// Each Pod group also keeps the WatchEvent::write_serial of its last write, so that a reader that
// followed the Pod log up to an event can ask which groups were written after it without looking
// each group up (a write appended after an event took a larger serial: write serials grow).
//
// Derived from the history, like the indexes: it takes no part in a server's value (any two
// compare equal) and the fingerprint leaves it out.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/object_version.h"
#include "engine/objects.h"

namespace rjsim::engine {

class WriteStamps {
 public:
  // The last write of an object of `kind`.
  const ObjectVersion& kind(Kind kind) const { return kinds_[static_cast<std::size_t>(kind_index(kind))]; }
  // The last write of a Pod labelled ray.io/cluster with a (namespace, value) that hashes to
  // `group` (LabelIndex::hash_value), before or after the write; null before any. Values that
  // hash alike share their stamp, which then moves more often than it must, never less.
  const ObjectVersion* pod_group(std::uint64_t group) const;
  // The last write that created or deleted an object of `kind`.
  const ObjectVersion& existence(Kind kind) const { return existence_[static_cast<std::size_t>(kind_index(kind))]; }

  // Calls `visit(group)` for each Pod group whose last write took a serial above `serial`.
  template <class Visit>
  void for_each_group_written_after(std::uint64_t serial, Visit&& visit) const {
    for (const Group& group : pod_groups_) {
      if (group.serial > serial) visit(group.hash);
    }
  }

  // `version` was written, by the write of `serial`: an object of its kind, one whose existence
  // changed when `existence`, and for a Pod, one of `group` (when labelled).
  void written(const ObjectVersion& version, std::optional<std::uint64_t> group, bool existence, std::uint64_t serial);
  // The Pod write of `serial` moved the Pod out of `group` (a relabel): that group changed too.
  void left_group(std::uint64_t group, const ObjectVersion& version, std::uint64_t serial);

  friend bool operator==(const WriteStamps&, const WriteStamps&) { return true; }   // see above

 private:
  struct Group {
    std::uint64_t hash = 0;
    ObjectVersion last;
    std::uint64_t serial = 0;   // the write serial of `last`
  };
  void stamp_group(std::uint64_t group, const ObjectVersion& version, std::uint64_t serial);

  std::array<ObjectVersion, kKindCount> kinds_;
  std::vector<Group> pod_groups_;   // ordered by hash
  std::array<ObjectVersion, kKindCount> existence_;
};

}  // namespace rjsim::engine
