// The actors' last answers (their enabled work and next timer), all given for the state the last
// refresh saw, kept once as their key: per kind, the digest of the kind's watch log
// (api_server.h: every change to a kind's objects appends to it); the clock; shares of the Ray
// and environment state (copy_on_write.h: any change makes them values of their own). A refresh
// empties the answers of an actor that reads (ActorInputs) a part of the key that changed, so
// the Simulation asks it again; a change of the clock alone counts only when it reaches the
// actor's timer (actor.h: answers hold until then). A server that takes no digests
// counts each log's events instead, which tells its objects apart within one run only; digests
// tell them apart across runs, whose histories differ. So answers kept for a server that takes
// digests may outlive a Simulation: exhaustive exploration keeps one ActorAnswers for all its
// runs of a scenario (whose actors are built alike from it), so that a run continued from a
// snapshot starts with the answers of the runs before it.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/actor.h"
#include "engine/copy_on_write.h"
#include "engine/hash128.h"
#include "engine/world.h"

namespace rjsim::engine {

class ActorAnswers {
 public:
  // One actor's answers, given for the state the last refresh() saw.
  struct Answer {
    std::string actor;   // its name, and what it declared it reads
    ActorInputs inputs;
    bool known = false;   // false: nothing below was given yet (or it was forgotten)
    bool has_work = false;
    bool has_timer = false;
    std::vector<ActorWork> work;
    std::optional<std::int64_t> timer_ms;
  };

  // Fits the answers to `actors` at the start of a run: kept when they answered for actors of
  // the same names and declared inputs, in the same order; otherwise started afresh.
  void adopt(std::span<const Actor* const> actors);
  const ActorInputs& inputs(std::size_t actor) const { return answers_[actor].inputs; }
  // Brings the answers of every actor that does not read the whole world up to `world`: each is
  // emptied when what it reads is not what it was given for. Within one run, when the parts any
  // actor reads (resourceVersion, clock, Ray and environment shares) are those of the last
  // call, no answer can have changed and none is looked at (most steps change none of them).
  void refresh(const World& world);
  // Actor `actor`'s answers as refresh() last left them, for a caller that knows the world has
  // not changed since (a listing refreshes, then asks each actor's work and timer).
  Answer& checked(std::size_t actor) {
    assert(answers_[actor].known && "rjsim bug: answers used before they were checked against the world");
    return answers_[actor];
  }
  // Every actor is asked again (set-up may have changed anything, in place).
  void forget();

 private:
  // What the last refresh() in this run saw: the key every kept answer was given for.
  struct Seen {
    // None: no refresh yet in this run (a new run, whose history differs, cannot trust the
    // resourceVersion). While it stays the same, no object changed and the digests need no look.
    std::optional<std::int64_t> resource_version;
    std::array<Hash128, kKindCount> log_digests{};
    std::array<Hash128, kKindCount> ownership_digests{};
    std::int64_t now_ms = 0;
    std::uint64_t ray_serial = 0;           // CopyOnWrite::serial(): kept without keeping a share
    std::uint64_t environment_serial = 0;
  };
  // What a refresh found changed since the one before it.
  struct Changes {
    KindSet kinds;
    KindSet ownership;
    bool clock = false;
    std::int64_t clock_was_ms = 0;
    bool ray_or_environment = false;
  };
  bool seen_unchanged(const World& world) const;
  // Records `world` as seen, and returns what changed since the last refresh.
  Changes see(const World& world);
  // True when `answer`'s actor reads a part of the state among `changes`.
  static bool reads_a_change(const Answer& answer, const Changes& changes, std::int64_t now_ms);

  std::vector<Answer> answers_;
  Seen seen_;
};

}  // namespace rjsim::engine
