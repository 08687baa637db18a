// The answers an actor keeps for the objects of one kind that its listing reports (those with work
// or a timer), in store order, brought up to a world by following the kind's watch log
// (watch_log_mark.h; issue 30): a listing asks again only about the objects the events since the
// last one name, and walks the kept answers, not the kind's objects. With 20 RayJobs a step
// changes one or two objects, and an actor that walked all of them at every listing spent most of
// its listing on objects no step had touched.
//
// What an answer reads besides its own object (another kind's objects, the Ray state) the actor
// follows itself, and asks for everything afresh when it changed, or names the objects whose
// answers it changed (`also_named`). The kept answers are a cache:
// after any sequence of follow() calls they are those a walk of every object gives, in its order
// (the tests compare a kept actor with a fresh one across writes and returns to earlier worlds).
// An actor belongs to one runner, which one thread uses.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/api_server.h"
#include "engine/key_index.h"
#include "engine/object_version.h"
#include "engine/watch_log_mark.h"

namespace rjsim::engine {

template <class Answer>
class FollowedAnswers {
 public:
  struct Entry {
    ObjectVersion object;   // the stored version the answer was computed for
    std::uint64_t key_hash = 0;
    Answer answer{};
  };

  // Brings the kept answers up to `api`'s objects of `kind`. `compute(object, answer)` writes the
  // answer for one stored version over a default one and returns whether it is kept (whether the
  // listing reports anything of it). Every object is asked when `afresh` (something the answers
  // read besides their objects changed) or when the log does not continue the one followed
  // last; otherwise only those the new events name, and those whose key hashes `also_named`
  // holds (something they read besides their objects changed).
  template <class Compute>
  void follow(const ApiServer& api, Kind kind, bool afresh, Compute&& compute,
              std::span<const std::uint64_t> also_named = {}) {
    const std::vector<WatchEvent>& log = api.watch_log(kind);
    if (!afresh && also_named.empty() && mark_.at_end_of(log)) return;   // most listings: no write since
    const std::optional<std::span<const WatchEvent>> events =
        afresh ? std::nullopt : mark_.events_since(log);
    if (events) {
      follow_events(api, kind, *events, also_named, compute);
    } else {
      ask_every_object(api, kind, compute);
    }
    mark_.take(log);
  }

  // The kept answers, in the order of their objects in the store.
  std::span<const Entry> kept() const { return entries_; }
  // How many answers were computed (for tests).
  std::size_t computed() const { return computed_; }

 private:
  template <class Compute>
  void ask_every_object(const ApiServer& api, Kind kind, Compute& compute) {
    entries_.clear();
    for (const ObjectVersion& object : api.objects(kind)) {
      Answer answer{};
      if (!ask(object, answer, compute)) continue;
      const ObjectMeta& m = meta(*object);
      entries_.push_back(Entry{object, KeyIndex::hash_key(m.namespace_, m.name), std::move(answer)});
    }
  }

  // The events name each changed object by its key's hash: every kept answer under a named hash
  // goes, and every stored object under one is asked again (two keys may share a hash).
  template <class Compute>
  void follow_events(const ApiServer& api, Kind kind, std::span<const WatchEvent> events,
                     std::span<const std::uint64_t> also_named, Compute& compute) {
    changed_.clear();
    for (const WatchEvent& event : events) {
      if (!named(event.key_hash)) changed_.push_back(event.key_hash);
    }
    for (const std::uint64_t key_hash : also_named) {
      if (!named(key_hash)) changed_.push_back(key_hash);
    }
    std::erase_if(entries_, [&](const Entry& entry) { return named(entry.key_hash); });
    const std::span<const ObjectVersion> objects = api.objects(kind);
    for (const std::uint64_t hash : changed_) {
      api.for_each_with_key_hash(kind, hash, [&](std::size_t place) {
        Answer answer{};
        if (!ask(objects[place], answer, compute)) return;
        const auto stored_before = [](const Entry& entry, const ObjectMeta& key) {
          return key_less(meta(*entry.object), key.namespace_, key.name);
        };
        const auto at = std::lower_bound(entries_.begin(), entries_.end(), meta(*objects[place]), stored_before);
        entries_.insert(at, Entry{objects[place], hash, std::move(answer)});
      });
    }
  }

  bool named(std::uint64_t key_hash) const {
    return std::find(changed_.begin(), changed_.end(), key_hash) != changed_.end();
  }

  template <class Compute>
  bool ask(const ObjectVersion& object, Answer& answer, Compute& compute) {
    ++computed_;
    return compute(object, answer);
  }

  std::vector<Entry> entries_;          // ordered as the store orders their objects
  std::vector<std::uint64_t> changed_;  // follow_events' key hashes, kept for their buffer
  WatchLogMark mark_;
  std::size_t computed_ = 0;
};

// Appends to `named` the key hashes of the objects of `dependent` whose controller is an object that
// `events` (of the watch log of `owner_kind`) created or deleted: whether an object's owner exists,
// which the garbage collector and the kubelet read, changes with those only (an owner is matched
// by its uid, which ApiServer::controlled_by selects by). An answer that reads owners besides the
// controller cannot be named so. False when an event of them kept no version (api_server.h
// keep_watch_objects), so that its owner cannot be told.
inline bool name_controlled_by_created_or_deleted(const ApiServer& api, Kind owner_kind, Kind dependent,
                                                  std::span<const WatchEvent> events,
                                                  std::vector<std::uint64_t>& named) {
  for (const WatchEvent& event : events) {
    if (event.type == WatchType::Modified) continue;
    if (!api.keeps_object(owner_kind, event)) return false;
    const ObjectMeta& owner = meta(*event.object);
    for (const ObjectVersion* object : api.controlled_by(dependent, owner.namespace_, owner.uid)) {
      const ObjectMeta& m = meta(**object);
      named.push_back(KeyIndex::hash_key(m.namespace_, m.name));
    }
  }
  return true;
}

}  // namespace rjsim::engine
