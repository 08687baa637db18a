// The simulated API server: the source of truth (kubernetes-semantics §2.2, §7.1). Objects are
// keyed by (kind, namespace, name); every write that changes an object takes the next value of
// one global resourceVersion counter and appends exactly one (rv, ADDED|MODIFIED|DELETED,
// object) entry to that kind's watch log; a write that changes nothing keeps the rv and appends
// nothing. Update and update_status carry an rv precondition (409 Conflict, checked before the
// no-op short-circuit); status-subresource masking applies; generation moves on spec changes
// only; finalizers hold a deleted object (deletionTimestamp set) until the last one is removed,
// and none can be added once deletion started. The server is a plain value and never emits
// events: callers log what a write did from its WriteOutcome. Beside each watch log it keeps the
// log's digest, extended as each event is appended, so that a world's fingerprint covers the
// logs without hashing them again (fingerprint.h); a server that no one will fingerprint may be
// told to take no digests, which cost a random exploration about 5% of its time.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/copy_on_write.h"
#include "engine/error.h"
#include "engine/hash128.h"
#include "engine/key_index.h"
#include "engine/label_index.h"
#include "engine/label_selector.h"
#include "engine/object_version.h"
#include "engine/objects.h"
#include "engine/write_stamps.h"

namespace rjsim::engine {

enum class WatchType : std::uint8_t { Added, Modified, Deleted };
std::string_view to_string(WatchType type);

struct WatchEvent {
  std::int64_t resource_version = 0;
  WatchType type = WatchType::Added;
  // Derived, and left out of == and the fingerprint as the members below are: whether the
  // controller's watch of the kind sends this event (its label selector selects the object before
  // or after the write, §1.7; always without a selector), and how many events of the log up to
  // and including this one it sends, so that an informer finds what it has not received yet
  // without walking the events it never gets.
  bool sent = true;
  std::uint32_t sent_through = 0;
  ObjectVersion object;   // the version this event announced, shared with the store and caches
  std::int64_t written_at_ms = 0;   // virtual time of the write (world.latency.watch bounds its delivery)
  // For readers that follow the log (watch_log_mark.h), derived and left out of == and the
  // fingerprint: the object's KeyIndex::hash_key, kept when the version is dropped, and a number
  // no other write of this process took, which tells a log that continues another from one that
  // went another way after a fork.
  std::uint64_t key_hash = 0;
  std::uint64_t write_serial = 0;
  friend bool operator==(const WatchEvent& a, const WatchEvent& b) {
    return a.resource_version == b.resource_version && a.type == b.type && a.object == b.object &&
           a.written_at_ms == b.written_at_ms;
  }
};

// How many of `log`'s events before `position` its watch sends (WatchEvent::sent_through).
inline std::uint32_t sent_events_before(const std::vector<WatchEvent>& log, std::size_t position) {
  return position == 0 ? 0 : log[position - 1].sent_through;
}

// Which events of a watch log keep their versions (ApiServer::keep_watch_objects).
enum class WatchLogObjects : std::uint8_t { every_event, sent_events, no_event };

// How a delete treats dependents (kubernetes-semantics §2.2 "Propagation policy").
enum class Propagation : std::uint8_t {
  server_default,   // Background, except batch/v1 Jobs: Orphan
  background,
  foreground,
  orphan,
};

inline constexpr std::string_view kOrphanFinalizer = "orphan";
inline constexpr std::string_view kForegroundFinalizer = "foregroundDeletion";

// What a write did. `error` empty means the server accepted it; `changed` false means it was a
// no-op (no new rv, no watch event).
struct WriteOutcome {
  Error error;
  bool changed = false;
  std::int64_t resource_version_before = 0;
  std::int64_t resource_version_after = 0;
  WatchType watch_type = WatchType::Modified;   // when changed
};

class ApiServer {
 public:
  // ---- reads of the truth (actors, checks, tests; the controller reads its caches) ----
  const Object* find(Kind kind, std::string_view namespace_, std::string_view name) const;
  // The stored version itself, for a reader that keeps it (shares it instead of copying).
  const ObjectVersion* find_version(Kind kind, std::string_view namespace_, std::string_view name) const;
  template <class T>
  const T* find(std::string_view namespace_, std::string_view name) const {
    const Object* object = find(T::kind, namespace_, name);
    return object ? &std::get<T>(*object) : nullptr;
  }
  // The objects of `kind` in `namespace_` whose label `key` is `value`, in store order. Pods by
  // ray.io/cluster (what the simulated RayCluster controller and kubelet select by) come from an
  // index (label_index.h); any other label is a walk of the kind's objects.
  std::vector<const ObjectVersion*> labelled(Kind kind, std::string_view namespace_, std::string_view key,
                                             std::string_view value) const;
  // The objects of `kind` in `namespace_` whose controller ownerReference has `owner_uid`, in
  // store order. Pods (what the simulated Job controller counts) come from an index.
  std::vector<const ObjectVersion*> controlled_by(Kind kind, std::string_view namespace_,
                                                  std::string_view owner_uid) const;
  // A kind's objects, ordered by namespace then name.
  std::span<const ObjectVersion> objects(Kind kind) const { return *objects_[kind_index(kind)]; }
  // How many objects of `kind` are being deleted (deletionTimestamp set, held by finalizers or a
  // grace period): a reader that looks only at those (Pod termination) walks none while it is 0.
  std::int64_t deleting(Kind kind) const { return deleting_[static_cast<std::size_t>(kind_index(kind))]; }
  // Calls visit(place) for each object of `kind` whose key hashes to `key_hash`
  // (KeyIndex::hash_key; WatchEvent::key_hash), in no particular order.
  template <class Visit>
  void for_each_with_key_hash(Kind kind, std::uint64_t key_hash, Visit visit) const {
    key_indexes_[kind_index(kind)]->for_each(key_hash, visit);
  }
  // The last resourceVersion handed out (0 before the first write).
  std::int64_t resource_version() const { return resource_version_; }
  const std::vector<WatchEvent>& watch_log(Kind kind) const { return *watch_logs_[kind_index(kind)]; }
  // The digest of the kind's watch log. Every change to a kind's objects appends to its log, so
  // two servers whose logs of a kind have the same digest hold the same objects of that kind,
  // even when their histories differ elsewhere. A server that takes no digests counts the log's
  // events here instead, which tells its objects apart only within one history.
  const Hash128& watch_log_digest(Kind kind) const { return watch_log_digests_[kind_index(kind)]; }
  // The digest of the kind's watch events that changed which objects exist or what owns them:
  // ADDED, DELETED, and a MODIFIED that changed ownerReferences, finalizers or the deletion
  // timestamp or grace period (ownership_changed()). An actor that reads only that (the garbage
  // collector) need not be asked again after a status write. Counted as watch_log_digest is.
  const Hash128& ownership_digest(Kind kind) const { return ownership_digests_[kind_index(kind)]; }
  // What was written last: of each kind, of each cluster's Pods, of which Pods exist
  // (write_stamps.h), for a reader that keeps answers per part of the store.
  const WriteStamps& write_stamps() const { return *write_stamps_; }

  // ---- writes; `object` carries the request and receives the stored object on success ----
  // Fails with AlreadyExists when the name is taken, also by an object being deleted.
  WriteOutcome create(Object& object, std::int64_t now_ms);
  // PUT of the main resource: rv precondition, status changes ignored.
  WriteOutcome update(Object& object, std::int64_t now_ms);
  // PUT of /status: rv precondition, everything but status ignored.
  WriteOutcome update_status(Object& object, std::int64_t now_ms);
  // A merge patch of the main resource, without precondition (last writer wins); `mutate`
  // edits a copy of the stored object. Status changes are ignored, as for update.
  WriteOutcome patch(Kind kind, std::string_view namespace_, std::string_view name,
                     const std::function<void(Object&)>& mutate, std::int64_t now_ms);
  // A patch of /status without precondition (actors: the RayCluster and Job controllers).
  WriteOutcome patch_status(Kind kind, std::string_view namespace_, std::string_view name,
                            const std::function<void(Object&)>& mutate, std::int64_t now_ms);
  // DELETE. A Pod that is Running is deleted gracefully (kubernetes-semantics §4; the pod
  // registry's CheckGracefulDelete: an unscheduled or finished Pod goes at once): it gets a
  // deletionTimestamp and deletionGracePeriodSeconds (`grace_period_seconds`, else the server's
  // pod_termination_grace_period_seconds()) and stays until a delete with grace 0, which its
  // kubelet sends once the containers stopped, and until its finalizers are gone.
  WriteOutcome remove(Kind kind, std::string_view namespace_, std::string_view name,
                      Propagation propagation, std::int64_t now_ms,
                      std::optional<std::int64_t> grace_period_seconds = std::nullopt);
  // The grace period of a Pod deleted without one (world.pods.terminationGracePeriod; 0: every
  // Pod goes at once). Chosen before the first write.
  void set_pod_termination_grace_period_seconds(std::int64_t seconds) { pod_termination_grace_period_seconds_ = seconds; }
  std::int64_t pod_termination_grace_period_seconds() const { return pod_termination_grace_period_seconds_; }

  // Whether versions and watch logs get digests (the default), so that the world can be
  // fingerprinted; chosen before the first write.
  void take_digests(bool take) {
    assert(resource_version_ == 0 && "rjsim bug: digests switched after the first write");
    takes_digests_ = take;
  }
  bool takes_digests() const { return takes_digests_; }

  // Which events of `kind`'s watch log keep the version they announced (every one by default);
  // the others keep only the resourceVersion, type and key hash, with an empty version in its
  // place. A kind no informer watches (Pods under kuberay-1.0 and 1.1) needs none: its log orders
  // resourceVersions for the fingerprint and its digest is taken before the version is dropped,
  // while keeping the versions would keep every past version of every Pod alive in every world
  // (two fifths of a run's world). A kind watched through a selector needs only the events the
  // watch sends (submitter Pods under kuberay-1.7 are written but never sent). Chosen before the
  // first write.
  void keep_watch_objects(Kind kind, WatchLogObjects kept) {
    assert(resource_version_ == 0 && "rjsim bug: watch log contents switched after the first write");
    watch_log_objects_[kind_index(kind)] = kept;
  }
  WatchLogObjects watch_log_objects(Kind kind) const { return watch_log_objects_[kind_index(kind)]; }
  // Whether `event` of `kind`'s log kept its version (a reader of the log may read its object).
  bool keeps_object(Kind kind, const WatchEvent& event) const {
    const WatchLogObjects kept = watch_log_objects(kind);
    return kept == WatchLogObjects::every_event || (kept == WatchLogObjects::sent_events && event.sent);
  }
  // The label selector of the controller's watch of `kind` (its cache's ByObject selector, §1.7):
  // the watch sends an event only when the selector selects the object before or after the write
  // (WatchEvent::sent), so an object that leaves the selector is sent once more and then no more.
  // Chosen before the first write; none selects every object.
  void watch_with_selector(Kind kind, LabelSelector selector) {
    assert(resource_version_ == 0 && "rjsim bug: a watch selector chosen after the first write");
    watch_selectors_.edit()[kind_index(kind)] = std::move(selector);
  }
  const LabelSelector& watch_selector(Kind kind) const { return (*watch_selectors_)[kind_index(kind)]; }

  friend bool operator==(const ApiServer&, const ApiServer&) = default;
  // fingerprint.cc hashes every member (and stops compiling when one is added here).
  friend class Fingerprinter;

 private:
  // A kind's objects, to change: this server's own (copied first when a copy shares them).
  std::vector<ObjectVersion>& bucket(Kind kind) { return objects_[kind_index(kind)].edit(); }
  // Stores `next` in place of `stored` (or deletes it when it is deleting and has no
  // finalizers left), with a new rv and one watch event; a no-op when nothing changed. A
  // change gives the server its own copy of the kind's objects: `stored` may then be the
  // version a copy still holds, so read the result with find().
  WriteOutcome commit_change(const ObjectVersion& stored, Object&& next, std::int64_t now_ms);
  // `ownership`: the event changes existence or ownership (ownership_digest()); `was_selected`:
  // the watch selector selected the version this write replaced (WatchEvent::sent).
  void append_watch(WatchType type, const ObjectVersion& version, std::int64_t now_ms, bool ownership,
                    bool was_selected);
  // How long a delete of `object` leaves it to its kubelet: 0 but for a Running Pod.
  std::int64_t graceful_deletion_seconds(const Object& object, std::optional<std::int64_t> requested) const;
  void erase(Kind kind, const ObjectMeta& meta);
  // Erases the stored object that `last` is the final version of, and appends its DELETED event.
  void delete_now(const ObjectVersion& last, std::int64_t now_ms);
  // Whether `kind` keeps label_indexes_ and owner_indexes_ (Pods only; the others stay empty).
  static bool has_pod_indexes(Kind kind) { return kind == Kind::Pod; }
  // The hash label_indexes_ files `m` under, when its kind has an indexed label and `m` carries it.
  static std::optional<std::uint64_t> indexed_label_hash(Kind kind, const ObjectMeta& m);
  // The hash owner_indexes_ files `m` under: a Pod's controller owner's uid.
  static std::optional<std::uint64_t> indexed_owner_hash(Kind kind, const ObjectMeta& m);
  // Tells the kind's derived indexes that `next` replaced `before` at `place`.
  void reindex(Kind kind, std::size_t place, const ObjectMeta& before, const ObjectMeta& next);

  // Per kind, shared by the server's copies until changed (copy_on_write.h): a write changes one
  // kind, and a fork copies none.
  std::array<CopyOnWrite<std::vector<ObjectVersion>>, kKindCount> objects_;
  // Per kind, the places of objects_ by key (key_index.h), changed only by a create or an erase.
  std::array<CopyOnWrite<KeyIndex>, kKindCount> key_indexes_;
  // Per kind, the places of objects_ by the kind's indexed label (Pods: ray.io/cluster; the other
  // kinds none, and their indexes stay empty), changed by a create, an erase or a relabel.
  std::array<CopyOnWrite<LabelIndex>, kKindCount> label_indexes_;
  // Per kind, the places of objects_ by their controller owner's uid (Pods; the other kinds none).
  std::array<CopyOnWrite<LabelIndex>, kKindCount> owner_indexes_;
  // Shared by the server's copies until appended to (copy_on_write.h): a fork copies no log, and
  // a step appends to one or two kinds' logs.
  std::array<CopyOnWrite<std::vector<WatchEvent>>, kKindCount> watch_logs_;
  // Per kind: extend_watch_log_digest over every event of watch_logs_, in order (without
  // digests: the count of those events).
  std::array<Hash128, kKindCount> watch_log_digests_;
  // Per kind: as watch_log_digests_, over the events that change existence or ownership.
  std::array<Hash128, kKindCount> ownership_digests_;
  // Shared by the server's copies until a write (copy_on_write.h); derived, as the indexes are.
  CopyOnWrite<WriteStamps> write_stamps_;
  std::int64_t resource_version_ = 0;
  // Per kind, so that creates of two kinds in either order give each object the same uid (the
  // order of one kind's uids is creation order, which the Job controller reads; none other is).
  static_assert(kKindCount == 5, "one 1 per kind below");
  std::array<std::int64_t, kKindCount> next_uid_ = {1, 1, 1, 1, 1};
  std::array<std::int64_t, kKindCount> deleting_ = {};   // derived from objects_, as the indexes are
  bool takes_digests_ = true;
  std::array<WatchLogObjects, kKindCount> watch_log_objects_{};   // every_event
  // Set before the first write and never changed: shared, so that copying a world copies no
  // selector's strings (a tenth of what a snapshot and a continued run copied).
  CopyOnWrite<std::array<LabelSelector, kKindCount>> watch_selectors_;
  std::int64_t pod_termination_grace_period_seconds_ = 0;
};

}  // namespace rjsim::engine
