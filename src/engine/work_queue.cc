// The controller work queue in its two behaviours (kubernetes-semantics §3). Legacy follows
// client-go's queue.go (Add/Get/Done), delaying_queue.go (AddAfter, waitingLoop, insert) and
// default_rate_limiters.go; priority follows controller-runtime v0.24.1
// pkg/controller/priorityqueue/priorityqueue.go (lockedAddWithOpts, handleWaitingItems,
// handleReadyItems, Done, lessReady, lessWaiting).
#include "engine/work_queue.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <tuple>
#include <utility>

namespace rjsim::engine {
namespace {

// The per-key exponential limiter: 5 ms doubling, at most 1000 s (§2.5).
constexpr std::int64_t kBaseDelayMs = 5;
constexpr std::int64_t kMaxDelayMs = 1'000'000;

// The legacy overall bucket, rate.NewLimiter(10, 100) (§2.5), in milli-tokens so that the
// refill per virtual millisecond is an integer: 10 tokens/s = 10 milli-tokens/ms.
constexpr std::int64_t kMilliTokensPerToken = 1'000;
constexpr std::int64_t kBucketBurstMilliTokens = 100 * kMilliTokensPerToken;
constexpr std::int64_t kBucketRefillMilliTokensPerMs = 10;

// A broken precondition is a bug in rjsim (the engine misused the queue), never a finding
// about KubeRay; say so and stop, in every build type.
void require(bool ok, const char* what, const std::string& key) {
  if (ok) return;
  std::fprintf(stderr, "rjsim bug: work queue: %s (key \"%s\")\n", what, key.c_str());
  std::abort();
}

// A held key against a sought one. Most callers pass a key the queue handed out or holds (a
// SharedString's text), and one text is one key, so its address tells without a compare.
bool same_key(const SharedString& held, const std::string& sought) {
  return &held.str() == &sought || held.str() == sought;
}
bool key_before(const SharedString& held, const std::string& sought) {
  return &held.str() != &sought && held.str() < sought;
}

// The place of `key` in a sorted set of keys: where it is, or where it would go.
auto lower_bound_of(const std::vector<SharedString>& sorted, const std::string& key) {
  return std::lower_bound(sorted.begin(), sorted.end(), key, key_before);
}

// `key` in a sorted set of keys, or end().
auto find_sorted(const std::vector<SharedString>& sorted, const std::string& key) {
  auto it = lower_bound_of(sorted, key);
  return (it != sorted.end() && same_key(*it, key)) ? it : sorted.end();
}

bool contains(const std::vector<SharedString>& sorted, const std::string& key) {
  return find_sorted(sorted, key) != sorted.end();
}

void insert_sorted(std::vector<SharedString>& sorted, SharedString key) {
  auto it = lower_bound_of(sorted, key.str());
  if (it == sorted.end() || *it != key) sorted.insert(it, std::move(key));
}

void erase_sorted(std::vector<SharedString>& sorted, const std::string& key) {
  if (auto it = find_sorted(sorted, key); it != sorted.end()) sorted.erase(it);
}

// An entry's key, by reference: a projection that returned it by value would copy the key at
// every comparison.
constexpr auto key_of_entry = [](const auto& entry) -> const std::string& { return entry.key.str(); };

// The entry for `key` in a vector of structs sorted by `.key`, or end().
template <typename Entries>
auto find_by_key(Entries& entries, const std::string& key) {
  auto it = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const auto& entry, const std::string& sought) { return key_before(entry.key, sought); });
  return (it != entries.end() && same_key(it->key, key)) ? it : entries.end();
}

// The entry for `key`, whose hash is `key_hash`, in a vector of entries that carry their key's
// hash, in any order, or end(): the hashes tell most entries apart without reading a text.
template <typename Entries>
auto find_hashed(Entries& entries, const std::string& key, std::uint64_t key_hash) {
  return std::ranges::find_if(entries, [&](const auto& entry) {
    return entry.key_hash == key_hash && same_key(entry.key, key);
  });
}

template <typename Entries>
auto insertion_point(Entries& entries, const std::string& key) {
  return std::ranges::lower_bound(entries, key, {}, key_of_entry);
}

}  // namespace

WorkQueue::WorkQueue(QueueBehaviour behaviour) : behaviour_(behaviour) {}

// ---- Adds ----------------------------------------------------------------------------------

AddOutcome WorkQueue::add(const std::string& key, std::int64_t /*now_ms*/, int priority) {
  // An immediate add is ready now whatever the time (§3.1, §3.4).
  if (behaviour_ == QueueBehaviour::legacy) return legacy_add(shared_key(key));
  return priority_add(key, std::nullopt, priority);
}

SharedString WorkQueue::shared_key(const std::string& key) const {
  // The sets a key most often is in when it is added again: processing (a reconcile's requeue),
  // waiting (its timer fired or an event came first), dirty.
  for (const std::vector<SharedString>* set : {&processing_, &dirty_}) {
    if (auto it = find_sorted(*set, key); it != set->end()) return *it;
  }
  if (auto it = find_by_key(waiting_, key); it != waiting_.end()) return it->key;
  return SharedString(key);
}

AddOutcome WorkQueue::add_after(const std::string& key, std::int64_t delay_ms,
                                std::int64_t now_ms, int priority) {
  // §3.2: AddAfter with d <= 0 is Add; the priority queue likewise sets ReadyAt only for d > 0.
  if (delay_ms <= 0) return add(key, now_ms, priority);
  require(delay_ms <= std::numeric_limits<std::int64_t>::max() - now_ms,
          "add_after: ready time overflows int64 milliseconds", key);
  const std::int64_t ready_at_ms = now_ms + delay_ms;
  if (behaviour_ == QueueBehaviour::legacy) return legacy_add_waiting(shared_key(key), ready_at_ms);
  return priority_add(key, ready_at_ms, priority);
}

AddOutcome WorkQueue::add_rate_limited(const std::string& key, std::int64_t now_ms,
                                       int priority, std::int64_t* delay_ms) {
  // §3.3: When(key) counts the failure before the add, so it counts even if the add squashes.
  const std::int64_t delay = when(key, now_ms);
  if (delay_ms != nullptr) *delay_ms = delay;
  return add_after(key, delay, now_ms, priority);
}

// client-go Typed.Add (§3.1).
AddOutcome WorkQueue::legacy_add(const SharedString& key) {
  if (contains(dirty_, key)) return AddOutcome::squashed;
  insert_sorted(dirty_, key);
  if (contains(processing_, key)) return AddOutcome::deferred;  // done() pushes it again
  ready_.push_back(Ready{key, key.hash(), 0, 0});
  return AddOutcome::queued;
}

// delaying_queue.go insert (§3.2): one waiting entry per key, moved only if the new time is
// earlier. It is independent of the dirty set, so an immediate add does not cancel it.
AddOutcome WorkQueue::legacy_add_waiting(const SharedString& key, std::int64_t ready_at_ms) {
  if (auto it = find_by_key(waiting_, key); it != waiting_.end()) {
    it->ready_at_ms = std::min(it->ready_at_ms, ready_at_ms);
    return AddOutcome::squashed;
  }
  waiting_.insert(insertion_point(waiting_, key), Waiting{key, key.hash(), ready_at_ms, 0, 0});
  return AddOutcome::queued;
}

// priorityqueue.go lockedAddWithOpts (§3.4): at most one pending entry per key; ready-now beats
// delayed, the earlier ReadyAt wins, the higher priority wins and raising it takes a new
// counter. A pending entry may exist while the key is locked; get() skips it until done().
AddOutcome WorkQueue::priority_add(const std::string& key, std::optional<std::int64_t> ready_at_ms,
                                   int priority) {
  const std::uint64_t key_hash = hash_of_key(key);
  auto ready_it = find_hashed(ready_, key, key_hash);
  if (ready_it != ready_.end()) {
    // Already ready: a delay cannot postpone it; only a higher priority changes anything.
    if (priority > ready_it->priority) {
      Ready raised{std::move(ready_it->key), key_hash, priority, next_added_counter_++};
      ready_.erase(ready_it);
      insert_ready_by_priority(std::move(raised));
    }
    return AddOutcome::squashed;
  }
  if (auto waiting_it = find_hashed(waiting_, key, key_hash); waiting_it != waiting_.end()) {
    if (priority > waiting_it->priority) {
      waiting_it->priority = priority;
      waiting_it->added_counter = next_added_counter_++;
    }
    if (!ready_at_ms) {
      // The immediate add absorbs the timer: no second hand-out when it would have fired.
      // Go moves the item itself to the ready tree, so it keeps its AddedCounter (unlike a
      // timer firing, which re-counts it in handleWaitingItems).
      Ready readied{std::move(waiting_it->key), key_hash, waiting_it->priority, waiting_it->added_counter};
      waiting_.erase(waiting_it);
      insert_ready_by_priority(std::move(readied));
    } else {
      waiting_it->ready_at_ms = std::min(waiting_it->ready_at_ms, *ready_at_ms);
    }
    return AddOutcome::squashed;
  }
  const std::uint64_t counter = next_added_counter_++;
  // processing_ holds one key per worker: a scan by hash finds it without reading a text.
  const auto processing = std::ranges::find_if(
      processing_, [&](const SharedString& held) { return held.hash() == key_hash && same_key(held, key); });
  SharedString shared = processing != processing_.end() ? *processing : SharedString(key);
  if (ready_at_ms) {
    waiting_.insert(insertion_point(waiting_, key), Waiting{std::move(shared), key_hash, *ready_at_ms, priority, counter});
    return AddOutcome::queued;
  }
  insert_ready_by_priority(Ready{std::move(shared), key_hash, priority, counter});
  return processing != processing_.end() ? AddOutcome::deferred : AddOutcome::queued;
}

std::uint64_t WorkQueue::hash_of_key(const std::string& key) const {
  for (const SharedString& held : processing_) {
    if (&held.str() == &key) return held.hash();
  }
  return SharedString::hash_of(key);
}

// lessReady: priority descending, then AddedCounter ascending (FIFO within a priority).
void WorkQueue::insert_ready_by_priority(Ready entry) {
  auto it = std::ranges::upper_bound(ready_, entry, [](const Ready& a, const Ready& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.added_counter < b.added_counter;
  });
  ready_.insert(it, std::move(entry));
}

// ---- Rate limiter --------------------------------------------------------------------------

std::int64_t WorkQueue::exponential_backoff_ms(int failures) {
  require(failures >= 0, "exponential_backoff_ms: negative failure count", "");
  // Double until the cap instead of shifting, so no failure count can overflow.
  std::int64_t delay_ms = kBaseDelayMs;
  for (int n = 0; n < failures && delay_ms < kMaxDelayMs; ++n) delay_ms *= 2;
  return std::min(delay_ms, kMaxDelayMs);
}

// The limiter's When(key) (§2.5, §3.3). The exponential part returns the delay for the
// failures so far and then counts one more.
std::int64_t WorkQueue::when(const std::string& key, std::int64_t now_ms) {
  auto it = find_by_key(failures_, key);
  if (it == failures_.end()) {
    it = failures_.insert(insertion_point(failures_, key), Failures{shared_key(key), 0});
  }
  const std::int64_t backoff_ms = exponential_backoff_ms(it->count);
  if (it->count < std::numeric_limits<int>::max()) ++it->count;
  // §2.5: with the priority queue the default limiter is the exponential one alone.
  if (behaviour_ == QueueBehaviour::priority) return backoff_ms;
  // MaxOfRateLimiter asks every limiter, so the bucket reservation is taken even when the
  // per-key backoff is the longer delay.
  return std::max(backoff_ms, bucket_reserve_delay_ms(now_ms));
}

// rate.Limiter.Reserve() for 10 qps, burst 100 (§2.5): refill for the time since the last
// reservation, never above the burst (a clock that went back refills nothing); take one token
// even into debt; the delay is the time until the balance is back at zero. In milli-tokens
// and whole milliseconds every step is exact.
std::int64_t WorkQueue::bucket_reserve_delay_ms(std::int64_t now_ms) {
  const std::int64_t elapsed_ms = std::max<std::int64_t>(0, now_ms - bucket_last_ms_);
  const std::int64_t missing = kBucketBurstMilliTokens - bucket_milli_tokens_;
  // Capping elapsed at `missing` keeps the product small; it still refills the bucket fully.
  const std::int64_t refill = std::min(elapsed_ms, missing) * kBucketRefillMilliTokensPerMs;
  bucket_milli_tokens_ += std::min(refill, missing);
  bucket_last_ms_ = now_ms;
  bucket_milli_tokens_ -= kMilliTokensPerToken;
  if (bucket_milli_tokens_ >= 0) return 0;
  const std::int64_t debt = -bucket_milli_tokens_;
  return (debt + kBucketRefillMilliTokensPerMs - 1) / kBucketRefillMilliTokensPerMs;
}

void WorkQueue::forget(const std::string& key) {
  if (auto it = find_by_key(failures_, key); it != failures_.end()) failures_.erase(it);
}

int WorkQueue::num_requeues(const std::string& key) const {
  auto it = find_by_key(failures_, key);
  return it == failures_.end() ? 0 : it->count;
}

// ---- Timers --------------------------------------------------------------------------------

std::vector<std::string> WorkQueue::fire_due_timers(std::int64_t now_ms) {
  std::vector<SharedString> fired;
  fire_due_timers(now_ms, fired);
  return {fired.begin(), fired.end()};
}

void WorkQueue::fire_due_timers(std::int64_t now_ms, std::vector<SharedString>& fired) {
  const auto due = move_due_to_end(now_ms);
  if (behaviour_ == QueueBehaviour::legacy) {
    legacy_fire(due, fired);
  } else {
    priority_fire(due, fired);
  }
  waiting_.erase(due, waiting_.end());
}

// waitingLoop (§3.2): pop every due entry in ready-time order and Add it, which may squash.
void WorkQueue::legacy_fire(std::vector<Waiting>::iterator due, std::vector<SharedString>& fired) {
  std::sort(due, waiting_.end(), [](const Waiting& a, const Waiting& b) {
    return std::tie(a.ready_at_ms, a.key) < std::tie(b.ready_at_ms, b.key);
  });
  for (auto entry = due; entry != waiting_.end(); ++entry) {
    legacy_add(entry->key);
    fired.push_back(std::move(entry->key));
  }
}

// handleWaitingItems (§3.4): move due items in lessWaiting order (ReadyAt, then priority
// descending, then counter), each with a fresh counter so that it is ordered by when it
// became ready.
void WorkQueue::priority_fire(std::vector<Waiting>::iterator due, std::vector<SharedString>& fired) {
  std::sort(due, waiting_.end(), [](const Waiting& a, const Waiting& b) {
    if (a.ready_at_ms != b.ready_at_ms) return a.ready_at_ms < b.ready_at_ms;
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.added_counter < b.added_counter;
  });
  for (auto entry = due; entry != waiting_.end(); ++entry) {
    insert_ready_by_priority(Ready{entry->key, entry->key_hash, entry->priority, next_added_counter_++});
    fired.push_back(std::move(entry->key));
  }
}

// Moves the entries whose time has come (ready_at <= now) to the end of waiting_, in place, and
// returns where they begin; the others stay sorted by key before them.
std::vector<WorkQueue::Waiting>::iterator WorkQueue::move_due_to_end(std::int64_t now_ms) {
  const auto due = std::partition(waiting_.begin(), waiting_.end(),
                                  [now_ms](const Waiting& entry) { return entry.ready_at_ms > now_ms; });
  if (due != waiting_.end()) std::ranges::sort(waiting_.begin(), due, {}, key_of_entry);
  return due;
}

std::optional<std::int64_t> WorkQueue::next_timer_ms() const {
  if (waiting_.empty()) return std::nullopt;
  return std::ranges::min_element(waiting_, {}, &Waiting::ready_at_ms)->ready_at_ms;   // no copy of a key
}

// ---- Hand-out ------------------------------------------------------------------------------

std::vector<WorkQueue::Ready>::const_iterator WorkQueue::next_ready() const {
  // Legacy never queues a processing key (§3.1); the priority queue skips locked keys (§3.4).
  if (processing_.empty()) return ready_.begin();
  return std::ranges::find_if(ready_,
                              [this](const Ready& r) { return !contains(processing_, r.key); });
}

bool WorkQueue::has_ready() const { return next_ready() != ready_.end(); }

SharedString WorkQueue::get(int* priority) {
  const auto next = next_ready();
  require(next != ready_.end(), "get() called with no key ready", "");
  const auto it = ready_.begin() + (next - ready_.cbegin());
  Ready entry = std::move(*it);
  ready_.erase(it);
  // Legacy: Get removes the key from dirty, so its copy there moves to processing; the
  // priority queue keeps no dirty set.
  erase_sorted(dirty_, entry.key);
  insert_sorted(processing_, entry.key);
  if (priority != nullptr) *priority = entry.priority;
  return std::move(entry.key);
}

void WorkQueue::done(const std::string& key) {
  require(contains(processing_, key), "done() of a key that is not processing", key);
  erase_sorted(processing_, key);
  // Legacy: a key re-added while processing is dirty and goes back on the queue (§3.1). The
  // priority queue already holds its pending entry; unlocking makes it eligible (§3.4).
  if (behaviour_ == QueueBehaviour::legacy) {
    if (auto dirty = find_sorted(dirty_, key); dirty != dirty_.end()) ready_.push_back(Ready{*dirty, dirty->hash(), 0, 0});
  }
}

// ---- Observers -----------------------------------------------------------------------------

std::vector<std::string> WorkQueue::ready_keys() const {
  std::vector<std::string> keys;
  for (const Ready& entry : ready_) {
    if (!contains(processing_, entry.key)) keys.push_back(entry.key);
  }
  return keys;
}

bool WorkQueue::is_processing(const std::string& key) const {
  return contains(processing_, key);
}

std::size_t WorkQueue::pending_count() const {
  // Priority: ready and waiting entries are one per key and never both (§3.4).
  if (behaviour_ == QueueBehaviour::priority) return ready_.size() + waiting_.size();
  // Legacy: dirty keys (queued or deferred) plus waiting keys not also dirty (§3.1, §3.2).
  const auto waiting_only = std::ranges::count_if(
      waiting_, [this](const Waiting& w) { return !contains(dirty_, w.key); });
  return dirty_.size() + static_cast<std::size_t>(waiting_only);
}

}  // namespace rjsim::engine
