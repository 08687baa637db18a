// An index over one kind's objects in the API server (api_server.h) by the value of one label:
// the places in the kind's store of the objects that carry it, what an informer's indexer gives a
// controller that lists by label. The RayCluster controller lists the Pods of each cluster by
// ray.io/cluster at every listing; with twenty clusters, sorting every Pod by that label for
// each listing was a fifth of a step (docs/performance.md).
//
// Like KeyIndex it holds places, not objects: the store tells it where an object was inserted,
// erased, or changed its label, and a lookup hands back candidate places whose (namespace, value)
// hash alike, in store order, for the caller to confirm. It is derived from the store and takes
// no part in a world's value: any two indexes compare equal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace rjsim::engine {

class LabelIndex {
 public:
  static std::uint64_t hash_value(std::string_view namespace_, std::string_view value);

  // Calls visit(place) for every object whose (namespace, value) hashes to `hash`, in store order.
  template <class Visit>
  void for_each(std::uint64_t hash, Visit visit) const {
    for (auto it = lower_bound(hash); it != entries_.end() && it->hash == hash; ++it) visit(std::size_t{it->place});
  }
  // An object now stands at `place` (labelled: `hash`); those at `place` and after moved up one.
  void inserted(std::size_t place, std::optional<std::uint64_t> hash);
  // The object at `place` is gone; those after it moved down one.
  void erased(std::size_t place);
  // The object at `place` changed in place; its label was `before` and is `after`.
  void relabelled(std::size_t place, std::optional<std::uint64_t> before, std::optional<std::uint64_t> after);
  std::size_t size() const { return entries_.size(); }

  friend bool operator==(const LabelIndex&, const LabelIndex&) { return true; }   // see above

 private:
  struct Entry {
    std::uint64_t hash = 0;
    std::uint32_t place = 0;
  };
  std::vector<Entry>::const_iterator lower_bound(std::uint64_t hash) const;
  void add(std::size_t place, std::uint64_t hash);
  void remove(std::size_t place, std::uint64_t hash);

  std::vector<Entry> entries_;   // ordered by hash, then place
};

}  // namespace rjsim::engine
