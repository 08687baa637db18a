// An actor is a part of the environment other than the controller under test: the garbage
// collector, the RayCluster and Job controllers, the Ray dashboard, the user. It is behaviour
// only; its state lives in the World. At each step it lists the work it could do now, each item
// one atomic step the chooser may pick, and the time of its next timer; the Simulation applies
// the work it picks (DESIGN §1, kubernetes-semantics §7.2 item 7).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/scenario_behaviour.h"
#include "engine/shared_string.h"
#include "engine/step_context.h"
#include "engine/world.h"

namespace rjsim::engine {

// Two names of work: a `what` is one of an actor's constants, so the same text is mostly at the same
// address, told apart without comparing characters.
inline bool same_what(std::string_view a, std::string_view b) {
  return (a.data() == b.data() && a.size() == b.size()) || a == b;
}

// One thing an actor can do now. `what` and `object` name it for the log; `index` is the actor's
// own reference to it. `what` is one of the actor's names for its work, a constant (it refers to
// text that lives as long as the program); `object` is shared by its copies: a listing is copied
// into each actor's kept answers and into the enabled steps at every step, and with 20 RayJobs
// copying and freeing those texts was a large part of a listing (issue 30).
struct ActorWork {
  std::string_view what;
  SharedString object;
  int index = 0;
  // A listing compares each slot's work with the work listed again at every step.
  friend bool operator==(const ActorWork& a, const ActorWork& b) {
    return a.index == b.index && same_what(a.what, b.what) && a.object == b.object;
  }
};

// The parts of the World that an actor's enabled() and next_timer_ms() read. The Simulation
// reuses an actor's last answers while those parts are unchanged (actor_answers.h), so an actor
// must not read more than it declares (Simulation::check_reused_answers finds one that does).
// A set of kinds, one bit each: whether an actor reads a change is one AND per part of the world
// (ActorAnswers asks it of every actor at every step).
class KindSet {
 public:
  void add(Kind kind) { bits_ |= bit(kind); }
  bool contains(Kind kind) const { return (bits_ & bit(kind)) != 0; }
  bool intersects(KindSet other) const { return (bits_ & other.bits_) != 0; }
  friend bool operator==(KindSet, KindSet) = default;

 private:
  static std::uint8_t bit(Kind kind) { return static_cast<std::uint8_t>(1U << kind_index(kind)); }
  std::uint8_t bits_ = 0;
};
static_assert(kKindCount <= 8, "KindSet holds a bit per kind in a byte");

struct ActorInputs {
  bool whole_world = true;                       // anything: asked again at every listing
  KindSet objects;                               // the API server's objects of these kinds
  KindSet ownership;                             // only which of them exist and what owns them
  // World::now_ms. Such an actor answers alike at every time from the one it was asked at up
  // to its next timer, not including it: its work comes due only at the times next_timer_ms()
  // names (and none when it names none), and no answer carries the time itself.
  bool clock = false;
  bool ray_and_environment = false;              // World::ray and World::environment
  friend bool operator==(const ActorInputs&, const ActorInputs&) = default;

  // Reads the objects of `kinds` (and nothing else unless told below).
  static ActorInputs objects_of(std::initializer_list<Kind> kinds) {
    ActorInputs inputs;
    inputs.whole_world = false;
    for (Kind kind : kinds) inputs.objects.add(kind);
    return inputs;
  }
  // Reads only which objects of `kinds` exist, their keys, uids, ownerReferences, finalizers and
  // deletion (ApiServer::ownership_digest): not asked again after a write of status or spec.
  static ActorInputs ownership_of(std::initializer_list<Kind> kinds) {
    ActorInputs inputs;
    inputs.whole_world = false;
    for (Kind kind : kinds) inputs.ownership.add(kind);
    return inputs;
  }
  ActorInputs and_clock() const {
    ActorInputs inputs = *this;
    inputs.clock = true;
    return inputs;
  }
  ActorInputs and_ray_and_environment() const {
    ActorInputs inputs = *this;
    inputs.ray_and_environment = true;
    return inputs;
  }
};

// Appends works to `out`, each `what` on an object at most once: for actors whose one step does
// the work of every object of a group (a cluster's Pods), named by the group. Every work of the
// `what`s it adds must come through it. An object is a SharedString the caller keeps (shared,
// not copied) or a text (made into one only when the work is new). A `what` is one of the
// actor's constants: the same text at the same address, told at once.
class WorkOnce {
 public:
  explicit WorkOnce(std::vector<ActorWork>& out) : out_(out), first_(out.size()) {}
  WorkOnce(const WorkOnce&) = delete;
  WorkOnce& operator=(const WorkOnce&) = delete;

  template <class Text>
  void add(std::string_view what, const Text& object) {
    const std::uint64_t hash = hash_of(object);
    if (listed(what, object, hash)) return;
    if constexpr (std::is_same_v<Text, SharedString>) {
      out_.push_back({what, object, 0});
    } else {
      out_.push_back({what, SharedString(std::string(object)), 0});
    }
    if (!seen_.empty() || out_.size() - first_ > kSearched) note_seen();
  }

 private:
  // Up to this many works are searched; past it, their objects' hashes are kept in a set, so
  // that the 300 clusters of a large scenario, each listed once, are not compared pairwise.
  static constexpr std::size_t kSearched = 16;

  static std::uint64_t hash_of(const SharedString& object) { return object.hash(); }
  static std::uint64_t hash_of(std::string_view object) { return SharedString::hash_of(object); }

  template <class Text>
  bool listed(std::string_view what, const Text& object, std::uint64_t hash) const {
    // A hash not seen is a work not listed; one seen is searched for (hashes may collide).
    if (!seen_.empty() && !std::binary_search(seen_.begin(), seen_.end(), hash)) return false;
    // From the end: a group's members are mostly listed one after another, so a repeat is
    // found at the first look.
    return std::any_of(out_.rbegin(), out_.rend() - static_cast<std::ptrdiff_t>(first_), [&](const ActorWork& work) {
      return same_what(work.what, what) && work.object.hash() == hash && work.object == object;
    });
  }

  // Keeps the hashes of every work added so far, sorted.
  void note_seen() {
    if (seen_.empty()) {
      for (std::size_t i = first_; i < out_.size(); ++i) seen_.push_back(out_[i].object.hash());
      std::sort(seen_.begin(), seen_.end());
      return;
    }
    const std::uint64_t hash = out_.back().object.hash();
    seen_.insert(std::upper_bound(seen_.begin(), seen_.end(), hash), hash);
  }

  std::vector<ActorWork>& out_;
  const std::size_t first_;
  std::vector<std::uint64_t> seen_;
};

// The earliest of the times an actor's next_timer_ms() considers that is still to come.
class EarliestTimer {
 public:
  explicit EarliestTimer(std::int64_t now_ms) : now_ms_(now_ms) {}
  void consider(std::int64_t at_ms) {
    if (at_ms > now_ms_ && (!next_ms_ || at_ms < *next_ms_)) next_ms_ = at_ms;
  }
  std::optional<std::int64_t> next_ms() const { return next_ms_; }

 private:
  std::int64_t now_ms_;
  std::optional<std::int64_t> next_ms_;
};

class Actor {
 public:
  virtual ~Actor() = default;
  virtual std::string_view name() const = 0;
  virtual ActorInputs inputs() const { return ActorInputs{}; }
  // Appends the work that can be done at world.now_ms, in a fixed order.
  virtual void enabled(const World& world, std::vector<ActorWork>& out) const = 0;
  // The earliest future time at which new work becomes enabled, if any.
  virtual std::optional<std::int64_t> next_timer_ms(const World& world) const = 0;
  virtual void apply(const ActorWork& work, StepContext& context) const = 0;
  // How long the actor takes to do a piece of work once it is enabled (DESIGN §1.1): the
  // Simulation offers it no sooner than min after it was first listed, and lets time pass no
  // further than max while it waits. Zero for actors that keep their own timeline.
  virtual Latency reaction_latency() const { return {}; }
};

}  // namespace rjsim::engine
