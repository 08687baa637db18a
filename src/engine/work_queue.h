// The controller's work queue: one entry per key, deduplicated, with delayed adds and per-key
// exponential error backoff. Two behaviours, chosen by the model's release
// (kubernetes-semantics §0.1, §3):
//
//  - legacy: client-go's rate-limiting queue (controller-runtime v0.11/v0.16, KubeRay 1.0/1.1).
//    A FIFO of keys with dirty and processing sets (§3.1), a separate waiting heap for AddAfter
//    where the earliest ready time wins and an immediate Add does NOT cancel it (§3.2), and a
//    limiter that is the max of the per-key backoff and an overall 10 qps / burst 100 token
//    bucket (§2.5, §3.3).
//  - priority: controller-runtime's priority queue (v0.24, KubeRay 1.7). At most one pending
//    entry per key; ready-now beats delayed and the earlier ready time wins, so an immediate
//    add absorbs a pending RequeueAfter timer; higher priority wins; ready items are served by
//    priority, then by when they became ready (§3.4). Per-key backoff only, no bucket.
//
// Common to both: a key is handed out to at most one worker until done(); adds while it is
// processing give exactly one follow-up after done(); per-key backoff is 5 ms * 2^failures
// capped at 1000 s, reset by forget(). The queue is a plain value: copyable, comparable,
// ordered containers only. Time is virtual and passed in; the queue never reads a clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/shared_string.h"

namespace rjsim::engine {

enum class QueueBehaviour : std::uint8_t { legacy, priority };

inline constexpr int kLowPriority = -100;   // initial-list and resync adds (priority queue only)

// What an add did, for the log (queue.add / queue.squash events).
enum class AddOutcome : std::uint8_t {
  queued,      // the key became pending (ready or waiting)
  squashed,    // merged into an entry that was already pending
  deferred,    // the key is processing; it will be handed out once more after done()
};

class WorkQueue {
 public:
  explicit WorkQueue(QueueBehaviour behaviour = QueueBehaviour::legacy);

  QueueBehaviour behaviour() const { return behaviour_; }

  // An immediate add (informer handler). `priority` matters only to the priority queue.
  AddOutcome add(const std::string& key, std::int64_t now_ms, int priority = 0);
  // AddAfter(key, delay): delay <= 0 is add(). A RequeueAfter result after forget().
  AddOutcome add_after(const std::string& key, std::int64_t delay_ms, std::int64_t now_ms,
                       int priority = 0);
  // AddRateLimited: add_after(key, limiter.When(key)); When counts a failure even if the add
  // is then squashed. Returns the delay it used through `delay_ms` when not null.
  AddOutcome add_rate_limited(const std::string& key, std::int64_t now_ms, int priority = 0,
                              std::int64_t* delay_ms = nullptr);
  // Forget: reset the key's failure count.
  void forget(const std::string& key);
  int num_requeues(const std::string& key) const;

  // Moves every delayed entry whose time has come (ready_at <= now) to ready. Legacy: the
  // waiting loop calls add() for each, in ready-time order (ties by key), so a key already
  // dirty is squashed. Priority: in (ready time, priority desc, counter) order, each with a
  // fresh added counter. Appends the keys whose timers fired to `fired`, in that order.
  void fire_due_timers(std::int64_t now_ms, std::vector<SharedString>& fired);
  // The same, returning the keys.
  std::vector<std::string> fire_due_timers(std::int64_t now_ms);
  // The earliest time a delayed entry becomes ready, if any.
  std::optional<std::int64_t> next_timer_ms() const;

  // True when a key can be handed out now (ready and not processing).
  bool has_ready() const;
  // Get(): hands out the next ready key and marks it processing. Requires has_ready().
  // Sets `priority` (when not null) to the priority it was handed out with.
  SharedString get(int* priority = nullptr);
  // Done(key): the worker finished. A key re-added while processing becomes ready again.
  void done(const std::string& key);

  // The keys that are ready now, in the order get() would hand them out.
  std::vector<std::string> ready_keys() const;
  bool is_processing(const std::string& key) const;
  // Number of distinct keys pending (ready, waiting, or dirty while processing).
  std::size_t pending_count() const;

  // The per-key backoff of the exponential limiter: 5 ms * 2^failures, at most 1000 s.
  static std::int64_t exponential_backoff_ms(int failures);

  friend bool operator==(const WorkQueue&, const WorkQueue&) = default;
  // fingerprint.cc hashes every member (and stops compiling when one is added here).
  friend class Fingerprinter;

 private:
  // Implementation state: vectors kept sorted (or in queue order) so that equality and
  // iteration are deterministic. Keys are shared (shared_string.h): one key's entries in the
  // sets below hold one text.
  // Ready and waiting entries carry their key's hash (SharedString::hash) beside it: the priority
  // queue looks each added key up among them, and a scan that compares hashes held in the entries
  // reads no key's text (with 20 RayJobs the lookups by text were most of an add; issue 30).
  struct Waiting {                       // a delayed entry (§3.2 waiting heap, §3.4 `waiting`)
    SharedString key;
    std::uint64_t key_hash = 0;          // key.hash()
    std::int64_t ready_at_ms = 0;
    int priority = 0;                    // priority queue only; 0 in legacy
    std::uint64_t added_counter = 0;     // priority queue only; kept if an add readies it
    friend bool operator==(const Waiting&, const Waiting&) = default;
  };
  struct Ready {
    SharedString key;
    std::uint64_t key_hash = 0;          // key.hash()
    int priority = 0;                    // priority queue only; 0 in legacy
    std::uint64_t added_counter = 0;     // priority queue: FIFO order within a priority
    friend bool operator==(const Ready&, const Ready&) = default;
  };
  struct Failures {
    SharedString key;
    int count = 0;
    friend bool operator==(const Failures&, const Failures&) = default;
  };

  // `key` as held here: an entry's text when the queue holds the key, else a new one.
  SharedString shared_key(const std::string& key) const;
  AddOutcome legacy_add(const SharedString& key);
  AddOutcome legacy_add_waiting(const SharedString& key, std::int64_t ready_at_ms);
  AddOutcome priority_add(const std::string& key, std::optional<std::int64_t> ready_at_ms, int priority);
  // The hash of `key`: the held one when it is a processing key's text (a reconcile's requeue),
  // else taken from the text.
  std::uint64_t hash_of_key(const std::string& key) const;
  std::vector<Waiting>::iterator move_due_to_end(std::int64_t now_ms);
  void legacy_fire(std::vector<Waiting>::iterator due, std::vector<SharedString>& fired);
  void priority_fire(std::vector<Waiting>::iterator due, std::vector<SharedString>& fired);
  void insert_ready_by_priority(Ready entry);
  std::int64_t when(const std::string& key, std::int64_t now_ms);
  std::int64_t bucket_reserve_delay_ms(std::int64_t now_ms);
  // The first ready entry get() may hand out (not processing), or ready_.end().
  std::vector<Ready>::const_iterator next_ready() const;

  QueueBehaviour behaviour_;
  // Legacy: the FIFO `queue` (never holds a processing key). Priority: every ready entry,
  // sorted by priority descending then added_counter, including entries of locked keys, which
  // get() skips until done() (§3.4).
  std::vector<Ready> ready_;
  std::vector<SharedString> dirty_;       // legacy dirty set (sorted); empty in priority mode
  std::vector<SharedString> processing_;  // legacy `processing` / priority `locked` (sorted)
  std::vector<Waiting> waiting_;         // delayed entries, one per key (sorted by key)
  std::vector<Failures> failures_;       // per-key failure counts > 0 (sorted by key)
  std::uint64_t next_added_counter_ = 0; // priority queue's addedCounter
  // Legacy overall bucket (golang.org/x/time/rate, 10 qps, burst 100), in milli-tokens; may be
  // negative after reservations (§2.5).
  std::int64_t bucket_milli_tokens_ = 100'000;
  std::int64_t bucket_last_ms_ = 0;
};

}  // namespace rjsim::engine
