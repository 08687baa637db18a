// Answers an actor keeps per object of one kind, each for the stored version of the object it was
// computed from (issue 30): with 20 RayJobs, most listings follow a write to one of them, and an
// actor that kept nothing would ask its question of every object again. Kept per place in the
// kind's list (ApiServer::objects), where most listings find each object where the last one did (a
// create or delete moves the objects after it, whose answers are then computed again). An answer
// may read more than its object (another object, the clock, the Ray state): the actor then keeps
// beside it what that was, and tells with `holds` whether it still is (write_stamps.h,
// CopyOnWrite::shares_value_with).
//
// Versions are compared by identity and held, so a kept answer holds in any world that shows the
// same version, of this run or another: exhaustive search's runs from snapshots share them. A
// cache: it takes no part in a World's value. An actor belongs to one runner, which one thread
// uses.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/object_version.h"

namespace rjsim::engine {

template <class Answer>
class VersionAnswers {
 public:
  // The answer for `object` at `place`: the kept one when it was computed for this version and
  // `holds(answer)`, else the one `compute(answer)` writes over the answer kept there (whose
  // buffers it may reuse), kept.
  template <class Holds, class Compute>
  const Answer& get(std::size_t place, const ObjectVersion& object, Holds&& holds, Compute&& compute) {
    if (entries_.size() <= place) entries_.resize(place + 1);
    Entry& entry = entries_[place];
    if (entry.object.same_version(object) && holds(entry.answer)) return entry.answer;
    ++computed_;
    compute(entry.answer);
    entry.object = object;
    return entry.answer;
  }
  // How many answers were computed rather than kept (for tests).
  std::size_t computed() const { return computed_; }

 private:
  struct Entry {
    ObjectVersion object;
    Answer answer{};
  };
  std::vector<Entry> entries_;
  std::size_t computed_ = 0;
};

}  // namespace rjsim::engine
