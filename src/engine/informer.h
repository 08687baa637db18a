// One kind's informer in one controller process: the watch events received and not yet applied,
// and the cache (indexer) they are applied to (kubernetes-semantics §1.1–§1.5, §7.1). Applying
// updates the cache first and then yields the handler notifications, so a handler never runs
// before its event is in the cache (§1.1). Two FIFO behaviours, chosen per release (§0.1, §1.3):
//  - RealFIFO (KubeRay 1.7): events are applied in log order; the cache is always a prefix of
//    the kind's watch log.
//  - DeltaFIFO (KubeRay 1.0/1.1): keys are popped in the order each key first arrived, all of a
//    key's pending events at once; each object's cache is a prefix of its own history, and
//    A1, B1, A2 is applied as A1, A2, B1.
// An optional label selector hides non-matching objects, as KubeRay's ByObject cache selectors
// do (§1.7): an object leaving the selector reads as deleted. Within one incarnation the cache
// never goes backwards; a relist (restart) may start from an older revision (time travel).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/api_server.h"
#include "engine/copy_on_write.h"
#include "engine/key_index.h"
#include "engine/label_selector.h"
#include "engine/objects.h"

namespace rjsim::engine {

enum class FifoBehaviour : std::uint8_t { real_fifo, delta_fifo };

// A handler call: OnAdd(object), OnUpdate(old_object, object) or OnDelete(object).
struct Notification {
  WatchType type = WatchType::Added;
  std::optional<ObjectVersion> old_object;   // OnUpdate only
  ObjectVersion object;
};

class Informer {
 public:
  Informer(Kind kind, FifoBehaviour fifo, LabelSelector selector = {});

  Kind kind() const { return kind_; }
  FifoBehaviour fifo() const { return fifo_; }

  // The reflector receives every log entry it has not seen yet that the watch sends
  // (WatchEvent::sent: the server filters by the selector, §1.7). A watch never drops events;
  // lag comes from how late they are applied.
  void receive(const std::vector<WatchEvent>& log);
  // True when events are received and not applied, or in the log and not yet received.
  bool has_pending(const std::vector<WatchEvent>& log) const {
    return !pending_.empty() || has_unreceived(log);
  }
  // True when the log holds events the watch sends that the reflector has not received yet.
  bool has_unreceived(const std::vector<WatchEvent>& log) const;
  // Events received and not yet applied.
  std::size_t pending_events() const { return pending_.size(); }
  // When the oldest event not yet applied (received or not) was written; none when caught up.
  // Events are applied oldest first (RealFIFO), or with the key of the oldest (DeltaFIFO), so a
  // bound on this bounds how late every event is applied (world.latency.watch).
  std::optional<std::int64_t> oldest_unapplied_written_at(const std::vector<WatchEvent>& log) const;
  // When its deliveries must have run: `watch_latency_max_ms` (world.latency.watch) after that
  // write. None when it is caught up, or catching up after a rewound relist (those events predate
  // the relist and are bounded by the catch-up, not by their writes).
  std::optional<std::int64_t> deliveries_due_by(const std::vector<WatchEvent>& log,
                                                std::int64_t watch_latency_max_ms) const;
  // How many pops are possible now: events (RealFIFO) or distinct keys (DeltaFIFO).
  std::size_t pending_pops(const std::vector<WatchEvent>& log) const;
  // Applies the next pop to the cache and returns its handler notifications, in order.
  std::vector<Notification> pop(const std::vector<WatchEvent>& log);

  // Replaces the cache with the kind's state as of `resource_version` (the head when it is the
  // server's current rv), drops pending events, and continues from there. Returns the
  // initial-list notifications (one OnAdd per cached object, in key order).
  std::vector<Notification> relist(const ApiServer& api, std::int64_t resource_version);
  // After a relist that went back in time: until the cache has caught up to `resource_version`
  // (where the dead process had got to), its deliveries are not urgent, so that a reconcile may
  // read the rewound cache whether or not stale reads are allowed (DESIGN §1.1).
  void mark_rewound(std::int64_t resource_version) { rewound_until_ = resource_version; }
  bool catching_up() const { return last_sync_resource_version_ < rewound_until_; }
  // Pending events the dead process had already seen (rv up to mark_rewound's): a read may leave
  // them unapplied, stale reads allowed or not.
  std::size_t pending_catch_up_events(const std::vector<WatchEvent>& log) const;

  // ---- the cache (indexer) ----
  const Object* get(std::string_view namespace_, std::string_view name) const {
    const ObjectVersion* version = get_version(namespace_, name);
    return version ? &**version : nullptr;
  }
  // The cached version itself, for a reader that keeps it (shares it instead of copying).
  const ObjectVersion* get_version(std::string_view namespace_, std::string_view name) const;
  const std::vector<ObjectVersion>& cached() const { return cache_; }
  // The rv of the newest event applied (or of the relist snapshot); never decreases between
  // relists, also with DeltaFIFO, whose pops may apply an older event after a newer one.
  std::int64_t last_sync_resource_version() const { return last_sync_resource_version_; }

  friend bool operator==(const Informer&, const Informer&) = default;
  // fingerprint.cc hashes every member (and stops compiling when one is added here).
  friend class Fingerprinter;

 private:
  std::optional<Notification> apply(const WatchEvent& event);
  // Where an object of this key would stand in the cache (the first place not before it).
  std::vector<ObjectVersion>::iterator find_slot(std::string_view namespace_, std::string_view name);
  // The place of the cached object of this key (its KeyIndex::hash_key is `hash`), if any.
  std::optional<std::size_t> find_cached(std::uint64_t hash, std::string_view namespace_, std::string_view name) const;
  // Rebuilds index_ from the cache.
  void index_cache();

  Kind kind_;
  FifoBehaviour fifo_;
  LabelSelector selector_;
  std::vector<ObjectVersion> cache_;       // sorted by namespace, name; versions of the log
  // The places of cache_ by key (key_index.h), as the API server keeps its store's: a read
  // hashes the key once where a binary search compared names with long shared prefixes at every
  // halving (a fifth of a read's cost with 20 RayJobs). Derived from cache_, shared by the
  // informer's copies until a create or a delete, and left out of == and the fingerprint.
  CopyOnWrite<KeyIndex> index_;
  std::vector<std::size_t> pending_;       // watch-log positions received, in arrival order
  std::size_t received_ = 0;               // log positions below this were received
  std::int64_t last_sync_resource_version_ = 0;
  std::int64_t rewound_until_ = 0;         // mark_rewound
};

}  // namespace rjsim::engine
