// The fingerprint of a World, for the visited set of exhaustive exploration (issue 5; DESIGN §1,
// §8): a hash of everything that determines the future of a run. Worlds that are == apart from
// World::steps have equal fingerprints, in every run and process of one rjsim build (it is not a
// stored format); so have worlds that differ only in how resourceVersions were numbered across
// kinds (below). Every member is hashed in declaration order, each length before its contents,
// into XXH3, the watch logs through the digests the API server keeps of them and the shared parts
// through digests of their contents (below); no pointer and no unordered iteration reaches it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/hash128.h"
#include "engine/world.h"

namespace rjsim::engine {

// In: every member of World and of what it contains (fingerprint.cc names each one), among them
//  - now_ms: timers are absolute (the queue's ready_at_ms, Process::restart_at_ms, a Ray job's
//    next_change_at_ms, the scenario's action times, limits.time), so the same state at another
//    virtual time has another future;
//  - what only grows (the uid counters, the watch logs, the priority queue's added counter): it is
//    read back (a time-travel relist folds a log), so it is state.
// A resourceVersion is hashed as its place among its kind's watch events, not as its number, and
// the global resourceVersion counter is left out: only the order of one kind's versions is ever
// observed (a conditional write compares one object's versions, an informer and a re-list read
// one kind's log), so two orders of writes to different kinds (a kubelet's Pod write before or
// after the controller's RayJob write) lead to one state, not two. uids are counted per kind for
// the same reason (api_server.h).
// Out: World::steps. limits.steps bounds a run but changes nothing a step does, so states that
// differ only in how many steps led to them are one state. Outside World, and so out as well:
// the chooser, the event seq counter, the checks' own memory.
//
// 64 bits: by the birthday bound n^2 / 2^65, the chance that two of n distinct states collide
// (and one of them is silently not explored) is 3e-6 for n = 10^7, 3e-4 for 10^8 and 3% for
// 10^9. That is enough for the ~10^7 states of a bounded scenario; fingerprint128() takes the
// same time and twice the visited set's memory, for searches beyond ~10^8 states. A 64-bit
// fingerprint hashes the 128-bit digests of the world's parts and logs by their low halves: a
// part collision is then as unlikely as a fingerprint collision, and there is less to hash.
//
// No member is forgotten: fingerprint.cc hashes each struct through a structured binding that
// names all its members, so adding a member anywhere in World stops that file compiling ("only N
// names provided for structured binding") until the member is hashed or left out on purpose.
// ApiServer, Informer and WorkQueue befriend its Fingerprinter for their private members. (A
// sizeof static_assert would miss a member that fits in padding and break on another standard
// library; hash functions beside each struct would still compile when a member was forgotten.)
//
// The parts of a World that its copies share until one changes them (copy_on_write.h: each kind's
// objects in the API server, each informer, the Ray state, the environment) are hashed as the
// digests of their contents, so a FingerprintMemo can remember them. With or without a memo, a
// world's fingerprint is the same.
class FingerprintMemo;
std::uint64_t fingerprint(const World& world);
std::uint64_t fingerprint(const World& world, FingerprintMemo& memo);
Hash128 fingerprint128(const World& world);

// The digests of the shared parts of the last world fingerprinted with it. A part that the next
// world still shares (a step changes few) is hashed as its remembered digest without being read
// again. The memo keeps a copy of each part it remembers, and a shared part is never changed in
// place (a world that edits it gets a copy of its own), so a remembered digest is always that of
// the part's contents. For one thread: exploration keeps one per search.
class FingerprintMemo {
 private:
  friend class Fingerprinter;
  template <class T>
  struct Remembered {
    CopyOnWrite<T> part;
    Hash128 digest;
    bool known = false;
  };
  std::array<Remembered<std::vector<ObjectVersion>>, kKindCount> objects_;
  std::vector<Remembered<Informer>> informers_;
  Remembered<RayState> ray_;
  std::vector<Remembered<RayHead>> ray_heads_;
  Remembered<EnvironmentState> environment_;
};

// The digest of a kind's watch log once `event` is appended to a log whose digest was
// `log_digest` (Hash128{} for the empty log). ApiServer extends one per kind on every append;
// fingerprints hash those digests instead of the logs, so that their cost does not grow with the
// length of the run.
Hash128 extend_watch_log_digest(const Hash128& log_digest, const WatchEvent& event);

// XXH3-128 of one object's contents, each member hashed as the fingerprint hashes it, its spec as
// spec_digest(object). Taken once per stored version (ObjectVersion::digest); fingerprints and log
// digests hash it in place of the object.
Hash128 content_digest(const Object& object);
// The same, given the object's spec_digest: most writes keep the spec, and a version shares its
// spec's digest with the version it came from instead of hashing the pod templates again.
Hash128 content_digest(const Object& object, const Hash128& spec_digest);
// XXH3-128 of the object's spec alone.
Hash128 spec_digest(const Object& object);

}  // namespace rjsim::engine
