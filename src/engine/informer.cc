#include "engine/informer.h"

#include <algorithm>
#include <cassert>

namespace rjsim::engine {

Informer::Informer(Kind kind, FifoBehaviour fifo, LabelSelector selector)
    : kind_(kind), fifo_(fifo), selector_(std::move(selector)) {}

void Informer::receive(const std::vector<WatchEvent>& log) {
  for (; received_ < log.size(); ++received_) {
    if (log[received_].sent) pending_.push_back(received_);
  }
}

namespace {
std::string_view name_of(const WatchEvent& event) { return meta(event.object).name; }
std::string_view namespace_of(const WatchEvent& event) { return meta(event.object).namespace_; }
bool same_key(const WatchEvent& a, const WatchEvent& b) {
  return name_of(a) == name_of(b) && namespace_of(a) == namespace_of(b);
}
}  // namespace

std::size_t Informer::pending_pops(const std::vector<WatchEvent>& log) const {
  if (fifo_ == FifoBehaviour::real_fifo) return pending_.size();
  // DeltaFIFO: one pop per distinct key; pending keys are few, so a quadratic count is fine.
  std::size_t keys = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    bool first_of_key = true;
    for (std::size_t j = 0; j < i && first_of_key; ++j) {
      first_of_key = !same_key(log[pending_[i]], log[pending_[j]]);
    }
    keys += first_of_key ? 1 : 0;
  }
  return keys;
}

std::optional<std::int64_t> Informer::oldest_unapplied_written_at(const std::vector<WatchEvent>& log) const {
  // pending_ is in log order: arrival order, and pops only take entries out of it.
  if (!pending_.empty()) return log[pending_.front()].written_at_ms;
  if (!has_unreceived(log)) return std::nullopt;
  // The first event from received_ on that the watch sends: sent_through rises there.
  const std::uint32_t sent = sent_events_before(log, received_);
  const auto first = std::partition_point(log.begin() + static_cast<std::ptrdiff_t>(received_), log.end(),
                                          [&](const WatchEvent& event) { return event.sent_through == sent; });
  return first->written_at_ms;
}

std::optional<std::int64_t> Informer::deliveries_due_by(const std::vector<WatchEvent>& log,
                                                        std::int64_t watch_latency_max_ms) const {
  if (catching_up()) return std::nullopt;
  const std::optional<std::int64_t> written_at = oldest_unapplied_written_at(log);
  if (!written_at) return std::nullopt;
  return *written_at + watch_latency_max_ms;
}

std::size_t Informer::pending_catch_up_events(const std::vector<WatchEvent>& log) const {
  if (!catching_up()) return 0;
  return static_cast<std::size_t>(std::count_if(pending_.begin(), pending_.end(), [&](std::size_t position) {
    return log[position].resource_version <= rewound_until_;
  }));
}

std::vector<ObjectVersion>::iterator Informer::find_slot(std::string_view namespace_,
                                                  std::string_view name) {
  return std::lower_bound(cache_.begin(), cache_.end(), 0, [&](const Object& o, int) {
    const ObjectMeta& m = meta(o);
    if (m.namespace_ != namespace_) return m.namespace_ < namespace_;
    return m.name < name;
  });
}

std::optional<std::size_t> Informer::find_cached(std::uint64_t hash, std::string_view namespace_,
                                                 std::string_view name) const {
  return index_->find(hash, [&](std::size_t place) {
    const ObjectMeta& m = meta(*cache_[place]);
    return m.name == name && m.namespace_ == namespace_;
  });
}

void Informer::index_cache() {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(cache_.size());
  for (const ObjectVersion& object : cache_) hashes.push_back(KeyIndex::hash_key(meta(*object).namespace_, meta(*object).name));
  index_.edit().assign(hashes);
}

const ObjectVersion* Informer::get_version(std::string_view namespace_, std::string_view name) const {
  const std::optional<std::size_t> place = find_cached(KeyIndex::hash_key(namespace_, name), namespace_, name);
  return place ? &cache_[*place] : nullptr;
}

std::optional<Notification> Informer::apply(const WatchEvent& event) {
  assert(kind_of(event.object) == kind_ && "rjsim bug: a watch event of another kind");
  // The newest rv applied: with DeltaFIFO a later pop can apply an older event of another key,
  // and lastSyncResourceVersion must still never go backwards (§7.3).
  last_sync_resource_version_ = std::max(last_sync_resource_version_, event.resource_version);
  const ObjectMeta& m = meta(event.object);
  const std::uint64_t hash = KeyIndex::hash_key(m.namespace_, m.name);
  const std::optional<std::size_t> cached = find_cached(hash, m.namespace_, m.name);
  const bool visible = event.type != WatchType::Deleted && selector_.matches(m);
  if (!visible) {
    // A delete, or an object that left the selector: gone from this cache (§1.7).
    if (!cached) return std::nullopt;
    Notification notification{WatchType::Deleted, std::nullopt, event.object};
    if (event.type != WatchType::Deleted) {
      // The watch cache sends an object that left the selector as DELETED with its previous
      // content, stamped with the event's resourceVersion (cacheWatcher.convertToWatchEvent).
      Object previous = *cache_[*cached];
      meta(previous).resource_version = event.resource_version;
      notification.object = ObjectVersion(std::move(previous), false, cache_[*cached]);
    }
    cache_.erase(cache_.begin() + static_cast<std::ptrdiff_t>(*cached));
    index_.edit().erased(*cached);
    return notification;
  }
  if (cached) {
    ObjectVersion& slot = cache_[*cached];
    Notification notification{WatchType::Modified, std::move(slot), event.object};
    slot = event.object;
    return notification;
  }
  const auto slot = find_slot(m.namespace_, m.name);
  index_.edit().inserted(static_cast<std::size_t>(slot - cache_.begin()), hash);
  cache_.insert(slot, event.object);
  return Notification{WatchType::Added, std::nullopt, event.object};
}

std::vector<Notification> Informer::pop(const std::vector<WatchEvent>& log) {
  assert(!pending_.empty() && "rjsim bug: pop from an informer with nothing pending");
  std::vector<Notification> notifications;
  const WatchEvent& head = log[pending_.front()];
  if (fifo_ == FifoBehaviour::real_fifo) {
    if (auto n = apply(head)) notifications.push_back(std::move(*n));
    pending_.erase(pending_.begin());
    return notifications;
  }
  // DeltaFIFO: all of the head key's deltas, in their order, in one pop.
  std::vector<std::size_t> rest;
  for (std::size_t position : pending_) {
    if (same_key(log[position], head)) {
      if (auto n = apply(log[position])) notifications.push_back(std::move(*n));
    } else {
      rest.push_back(position);
    }
  }
  pending_ = std::move(rest);
  return notifications;
}

std::vector<Notification> Informer::relist(const ApiServer& api, std::int64_t resource_version) {
  const std::vector<WatchEvent>& log = api.watch_log(kind_);
  pending_.clear();
  cache_.clear();
  index_ = CopyOnWrite<KeyIndex>();
  received_ = 0;
  rewound_until_ = 0;
  if (resource_version >= api.resource_version()) {
    for (const ObjectVersion& object : api.objects(kind_)) {
      if (selector_.matches(meta(*object))) cache_.push_back(object);
    }
    index_cache();
    received_ = log.size();
  } else {
    // The state as of an older revision: fold the log up to it (time travel, §1.7).
    for (; received_ < log.size() && log[received_].resource_version <= resource_version;
         ++received_) {
      if (log[received_].sent) apply(log[received_]);
    }
  }
  last_sync_resource_version_ = resource_version;
  std::vector<Notification> notifications;
  notifications.reserve(cache_.size());
  for (const ObjectVersion& object : cache_) {
    notifications.push_back(Notification{WatchType::Added, std::nullopt, object});
  }
  return notifications;
}

bool Informer::has_unreceived(const std::vector<WatchEvent>& log) const {
  return sent_events_before(log, log.size()) > sent_events_before(log, received_);
}

}  // namespace rjsim::engine
