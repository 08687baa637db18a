// Work queue rules (kubernetes-semantics §3): squash, one follow-up after done, delayed adds,
// the rate limiter, and the priority queue's merge and ordering rules. Each test builds the
// smallest queue that shows one rule and asserts what get() would hand out.
#include "engine/work_queue.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace work_queue_test {
namespace {

using rjsim::engine::AddOutcome;
using rjsim::engine::kLowPriority;
using rjsim::engine::QueueBehaviour;
using rjsim::engine::SharedString;
using rjsim::engine::WorkQueue;

constexpr QueueBehaviour kBothBehaviours[] = {QueueBehaviour::legacy, QueueBehaviour::priority};

const char* name(QueueBehaviour behaviour) {
  return behaviour == QueueBehaviour::legacy ? "legacy" : "priority";
}

using Keys = std::vector<std::string>;

// Hands out every ready key, marking each done at once; returns them in hand-out order.
Keys drain(WorkQueue& queue) {
  Keys keys;
  while (queue.has_ready()) {
    keys.push_back(queue.get());
    queue.done(keys.back());
  }
  return keys;
}

}  // namespace

TEST_SUITE("work_queue") {

// ---- Both behaviours -----------------------------------------------------------------------

TEST_CASE("three adds of a queued key are squashed into one get") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    CHECK(queue.add("ns/job", 0) == AddOutcome::queued);
    CHECK(queue.add("ns/job", 1) == AddOutcome::squashed);
    CHECK(queue.add("ns/job", 2) == AddOutcome::squashed);
    CHECK(queue.pending_count() == 1);
    CHECK(drain(queue) == Keys{"ns/job"});
  }
}

TEST_CASE("adds during processing give exactly one follow-up, after done and not before") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    queue.add("ns/job", 0);
    REQUIRE(queue.get() == "ns/job");
    CHECK(queue.add("ns/job", 1) == AddOutcome::deferred);
    CHECK(queue.add("ns/job", 2) == AddOutcome::squashed);
    CHECK_FALSE(queue.has_ready());
    CHECK(queue.pending_count() == 1);
    queue.done("ns/job");
    CHECK(drain(queue) == Keys{"ns/job"});
  }
}

TEST_CASE("a key is never handed out twice before done, even when its timer fires") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    queue.add("ns/job", 0);
    REQUIRE(queue.get() == "ns/job");
    queue.add_after("ns/job", 10, 0);
    queue.fire_due_timers(10);
    queue.add("ns/job", 10);
    CHECK_FALSE(queue.has_ready());
    CHECK(queue.ready_keys().empty());
    CHECK(queue.is_processing("ns/job"));
    queue.done("ns/job");
    CHECK_FALSE(queue.is_processing("ns/job"));
    CHECK(queue.ready_keys() == Keys{"ns/job"});
  }
}

TEST_CASE("firing timers appends the due keys in ready-time order and keeps the rest as they were") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour), not_due_only(behaviour);
    const std::pair<const char*, int> delays[] = {{"ns/d", 30}, {"ns/a", 20}, {"ns/c", 10},
                                                  {"ns/b", 40}, {"ns/e", 20}};
    for (const auto& [key, delay_ms] : delays) queue.add_after(key, delay_ms, 0);
    not_due_only.add_after("ns/d", 30, 0);
    not_due_only.add_after("ns/b", 40, 0);
    std::vector<SharedString> fired = {SharedString("earlier")};
    queue.fire_due_timers(20, fired);
    // Ready time first, then key (legacy) or the order of adding (priority): alike here.
    CHECK(Keys(fired.begin(), fired.end()) == Keys{"earlier", "ns/c", "ns/a", "ns/e"});
    CHECK(drain(queue) == Keys{"ns/c", "ns/a", "ns/e"});
    CHECK(queue.next_timer_ms() == 30);
    if (behaviour == QueueBehaviour::legacy) CHECK(queue == not_due_only);   // waiting keys still sorted
    CHECK(queue.fire_due_timers(40) == Keys{"ns/d", "ns/b"});
  }
}

TEST_CASE("add_after keeps the earliest ready time") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    CHECK(queue.add_after("ns/job", 100, 0) == AddOutcome::queued);
    CHECK(queue.add_after("ns/job", 50, 0) == AddOutcome::squashed);
    CHECK(queue.add_after("ns/job", 200, 0) == AddOutcome::squashed);
    CHECK(queue.next_timer_ms() == 50);
    CHECK(queue.fire_due_timers(49).empty());
    CHECK(queue.fire_due_timers(50) == Keys{"ns/job"});
    CHECK(drain(queue) == Keys{"ns/job"});
    CHECK_FALSE(queue.next_timer_ms().has_value());
  }
}

TEST_CASE("add_after with a delay of zero or less is an immediate add") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    queue.add_after("ns/a", 0, 0);
    queue.add_after("ns/b", -5, 0);
    CHECK_FALSE(queue.next_timer_ms().has_value());
    CHECK(queue.ready_keys() == Keys{"ns/a", "ns/b"});
  }
}

TEST_CASE("pending_count counts each pending key once, whether ready, waiting or deferred") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    queue.add("ns/a", 0);
    queue.add_after("ns/a", 10, 0);
    queue.add_after("ns/b", 10, 0);
    queue.add("ns/c", 0);
    CHECK(queue.pending_count() == 3);
    REQUIRE(queue.get() == "ns/a");
    queue.add("ns/a", 1);  // deferred until done
    CHECK(queue.pending_count() == 3);
  }
}

TEST_CASE("a rate-limited add counts a failure even when the add is squashed") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    std::int64_t delay_ms = 0;
    CHECK(queue.add_rate_limited("ns/job", 0, 0, &delay_ms) == AddOutcome::queued);
    CHECK(delay_ms == 5);
    CHECK(queue.add_rate_limited("ns/job", 0, 0, &delay_ms) == AddOutcome::squashed);
    CHECK(delay_ms == 10);
    CHECK(queue.num_requeues("ns/job") == 2);
    queue.add_rate_limited("ns/job", 0, 0, &delay_ms);
    CHECK(delay_ms == 20);
  }
}

TEST_CASE("forget resets the failure count, so the next backoff is 5 ms again") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    std::int64_t delay_ms = 0;
    for (int i = 0; i < 4; ++i) queue.add_rate_limited("ns/job", 0, 0, &delay_ms);
    REQUIRE(delay_ms == 40);
    queue.forget("ns/job");
    CHECK(queue.num_requeues("ns/job") == 0);
    queue.add_rate_limited("ns/job", 0, 0, &delay_ms);
    CHECK(delay_ms == 5);
  }
}

TEST_CASE("failure counts are per key") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    std::int64_t delay_ms = 0;
    queue.add_rate_limited("ns/a", 0, 0, &delay_ms);
    queue.add_rate_limited("ns/a", 0, 0, &delay_ms);
    queue.add_rate_limited("ns/b", 0, 0, &delay_ms);
    CHECK(delay_ms == 5);
    CHECK(queue.num_requeues("ns/a") == 2);
    CHECK(queue.num_requeues("ns/b") == 1);
  }
}

TEST_CASE("exponential backoff is 5 ms doubling, 655.36 s at the 18th failure, then 1000 s") {
  CHECK(WorkQueue::exponential_backoff_ms(0) == 5);
  CHECK(WorkQueue::exponential_backoff_ms(1) == 10);
  CHECK(WorkQueue::exponential_backoff_ms(2) == 20);
  CHECK(WorkQueue::exponential_backoff_ms(3) == 40);
  CHECK(WorkQueue::exponential_backoff_ms(16) == 327'680);
  CHECK(WorkQueue::exponential_backoff_ms(17) == 655'360);
  CHECK(WorkQueue::exponential_backoff_ms(18) == 1'000'000);
  CHECK(WorkQueue::exponential_backoff_ms(63) == 1'000'000);
  CHECK(WorkQueue::exponential_backoff_ms(64) == 1'000'000);
  CHECK(WorkQueue::exponential_backoff_ms(1'000'000) == 1'000'000);
}

TEST_CASE("consecutive rate-limited adds of one key follow the backoff sequence to the cap") {
  // Priority behaviour, so no bucket can lengthen the delays.
  WorkQueue queue(QueueBehaviour::priority);
  std::vector<std::int64_t> delays;
  for (int failure = 0; failure < 20; ++failure) {
    std::int64_t delay_ms = 0;
    queue.add_rate_limited("ns/job", 0, 0, &delay_ms);
    delays.push_back(delay_ms);
  }
  CHECK(delays[0] == 5);
  CHECK(delays[3] == 40);
  CHECK(delays[17] == 655'360);
  CHECK(delays[18] == 1'000'000);
  CHECK(delays[19] == 1'000'000);
  CHECK(queue.num_requeues("ns/job") == 20);
}

TEST_CASE("copies of a queue compare equal and diverge independently") {
  for (QueueBehaviour behaviour : kBothBehaviours) {
    CAPTURE(name(behaviour));
    WorkQueue queue(behaviour);
    queue.add("ns/a", 0);
    queue.add_after("ns/b", 30, 0);
    queue.add_rate_limited("ns/c", 0);
    WorkQueue copy = queue;
    CHECK(copy == queue);
    CHECK(copy.get() == "ns/a");
    CHECK_FALSE(copy == queue);
    CHECK(queue.ready_keys() == Keys{"ns/a"});
    CHECK_FALSE(WorkQueue(QueueBehaviour::legacy) == WorkQueue(QueueBehaviour::priority));
  }
}

// ---- Legacy (client-go rate-limiting queue, KubeRay 1.0/1.1) --------------------------------

TEST_CASE("legacy: an immediate add does not cancel add_after; the key runs now and at the timer") {
  WorkQueue queue(QueueBehaviour::legacy);
  queue.add_after("ns/job", 3000, 0);
  CHECK(queue.add("ns/job", 10) == AddOutcome::queued);
  CHECK(drain(queue) == Keys{"ns/job"});
  CHECK(queue.next_timer_ms() == 3000);
  CHECK(queue.fire_due_timers(3000) == Keys{"ns/job"});
  CHECK(drain(queue) == Keys{"ns/job"});
}

TEST_CASE("legacy: a timer firing for a key that is already queued is squashed") {
  WorkQueue queue(QueueBehaviour::legacy);
  queue.add_after("ns/job", 100, 0);
  queue.add("ns/job", 50);
  CHECK(queue.fire_due_timers(100) == Keys{"ns/job"});
  CHECK(drain(queue) == Keys{"ns/job"});
}

TEST_CASE("legacy: keys are handed out in FIFO order and ignore priorities") {
  WorkQueue queue(QueueBehaviour::legacy);
  queue.add("ns/low", 0, kLowPriority);
  queue.add("ns/high", 0, 10);
  queue.add("ns/normal", 0);
  int priority = -1;
  CHECK(queue.get(&priority) == "ns/low");
  CHECK(priority == 0);
  CHECK(queue.ready_keys() == Keys{"ns/high", "ns/normal"});
}

TEST_CASE("legacy: due timers fire in ready-time order, ties broken by key") {
  WorkQueue queue(QueueBehaviour::legacy);
  queue.add_after("ns/c", 20, 0);
  queue.add_after("ns/b", 10, 0);
  queue.add_after("ns/a", 20, 0);
  CHECK(queue.fire_due_timers(20) == Keys{"ns/b", "ns/a", "ns/c"});
  CHECK(queue.ready_keys() == Keys{"ns/b", "ns/a", "ns/c"});
}

TEST_CASE("legacy: the 101st rapid rate-limited add waits 100 ms for the bucket, not 5 ms") {
  WorkQueue queue(QueueBehaviour::legacy);
  std::int64_t delay_ms = 0;
  for (int i = 0; i < 100; ++i) {
    queue.add_rate_limited("ns/job-" + std::to_string(i), 1000, 0, &delay_ms);
    REQUIRE(delay_ms == 5);  // the burst of 100 is free; each key's own backoff is 5 ms
  }
  queue.add_rate_limited("ns/job-100", 1000, 0, &delay_ms);
  CHECK(delay_ms == 100);
  queue.add_rate_limited("ns/job-101", 1000, 0, &delay_ms);
  CHECK(delay_ms == 200);
  CHECK(queue.num_requeues("ns/job-100") == 1);
}

TEST_CASE("legacy: the bucket refills at 10 tokens per second up to the burst of 100") {
  WorkQueue queue(QueueBehaviour::legacy);
  std::int64_t delay_ms = 0;
  for (int i = 0; i < 101; ++i) queue.add_rate_limited("ns/job-" + std::to_string(i), 0);
  // 1 token in debt at t=0; 30 ms later 0.3 tokens have come back, and one more is taken.
  queue.add_rate_limited("ns/late", 30, 0, &delay_ms);
  CHECK(delay_ms == 170);
  // Far later the bucket is full again but no fuller: 100 free reservations, then a wait.
  for (int i = 0; i < 100; ++i) {
    queue.add_rate_limited("ns/again-" + std::to_string(i), 1'000'000, 0, &delay_ms);
    REQUIRE(delay_ms == 5);
  }
  queue.add_rate_limited("ns/again-100", 1'000'000, 0, &delay_ms);
  CHECK(delay_ms == 100);
}

TEST_CASE("legacy: the bucket is taken even when the per-key backoff is longer") {
  WorkQueue queue(QueueBehaviour::legacy);
  std::int64_t delay_ms = 0;
  for (int i = 0; i < 20; ++i) queue.add_rate_limited("ns/slow", 0, 0, &delay_ms);
  REQUIRE(delay_ms == WorkQueue::exponential_backoff_ms(19));
  for (int i = 0; i < 80; ++i) queue.add_rate_limited("ns/job-" + std::to_string(i), 0);
  queue.add_rate_limited("ns/job-80", 0, 0, &delay_ms);
  CHECK(delay_ms == 100);
}

// ---- Priority (controller-runtime priority queue, KubeRay 1.7) -----------------------------

TEST_CASE("priority: an immediate add absorbs a pending timer; no second hand-out at its time") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add_after("ns/job", 3000, 0);
  CHECK(queue.add("ns/job", 10) == AddOutcome::squashed);
  CHECK_FALSE(queue.next_timer_ms().has_value());
  CHECK(drain(queue) == Keys{"ns/job"});
  CHECK(queue.fire_due_timers(3000).empty());
  CHECK_FALSE(queue.has_ready());
}

TEST_CASE("priority: a delayed add does not postpone a key that is already ready") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add("ns/job", 0);
  CHECK(queue.add_after("ns/job", 3000, 0) == AddOutcome::squashed);
  CHECK_FALSE(queue.next_timer_ms().has_value());
  CHECK(drain(queue) == Keys{"ns/job"});
}

TEST_CASE("priority: rate-limited adds have no overall bucket, only the per-key backoff") {
  WorkQueue queue(QueueBehaviour::priority);
  std::int64_t delay_ms = 0;
  for (int i = 0; i < 101; ++i) {
    queue.add_rate_limited("ns/job-" + std::to_string(i), 0, 0, &delay_ms);
  }
  CHECK(delay_ms == 5);
}

TEST_CASE("priority: higher priority is handed out first, FIFO within a priority") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add("ns/a", 0, 0);
  queue.add("ns/b", 0, 5);
  queue.add("ns/c", 0, 0);
  queue.add("ns/d", 0, 5);
  CHECK(queue.ready_keys() == Keys{"ns/b", "ns/d", "ns/a", "ns/c"});
  int priority = 0;
  CHECK(queue.get(&priority) == "ns/b");
  CHECK(priority == 5);
}

TEST_CASE("priority: low-priority initial-list adds are served after normal adds") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add("ns/listed-1", 0, kLowPriority);
  queue.add("ns/listed-2", 0, kLowPriority);
  queue.add("ns/event", 5);
  CHECK(drain(queue) == Keys{"ns/event", "ns/listed-1", "ns/listed-2"});
}

TEST_CASE("priority: raising a pending key's priority moves it to the tail of the new level") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add("ns/listed", 0, kLowPriority);
  queue.add("ns/a", 0);
  CHECK(queue.add("ns/listed", 1) == AddOutcome::squashed);
  CHECK(queue.ready_keys() == Keys{"ns/a", "ns/listed"});
  int priority = kLowPriority;
  queue.get();
  CHECK(queue.get(&priority) == "ns/listed");
  CHECK(priority == 0);
}

TEST_CASE("priority: a lower-priority add keeps the pending entry's priority and place") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add("ns/a", 0);
  queue.add("ns/b", 0);
  queue.add("ns/a", 1, kLowPriority);
  CHECK(queue.ready_keys() == Keys{"ns/a", "ns/b"});
}

TEST_CASE("priority: a key readied by its timer is ordered by when it became ready") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add_after("ns/timer", 10, 0);  // counted first...
  queue.add("ns/event", 5);            // ...but this one became ready first
  CHECK(queue.fire_due_timers(10) == Keys{"ns/timer"});
  CHECK(queue.ready_keys() == Keys{"ns/event", "ns/timer"});
}

TEST_CASE("priority: an immediate add that readies a waiting key keeps its first counter") {
  // lockedAddWithOpts moves the item itself to the ready tree without a new AddedCounter
  // (only handleWaitingItems re-counts), so it goes ahead of keys added after its timer.
  WorkQueue queue(QueueBehaviour::priority);
  queue.add_after("ns/timer", 3000, 0);
  queue.add("ns/event", 5);
  queue.add("ns/timer", 6);
  CHECK(queue.ready_keys() == Keys{"ns/timer", "ns/event"});
}

TEST_CASE("priority: due timers move in ready-time order, then by priority") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add_after("ns/late", 20, 0, 10);
  queue.add_after("ns/low", 10, 0, kLowPriority);
  queue.add_after("ns/high", 10, 0, 10);
  CHECK(queue.fire_due_timers(20) == Keys{"ns/high", "ns/low", "ns/late"});
  CHECK(queue.ready_keys() == Keys{"ns/high", "ns/late", "ns/low"});
}

TEST_CASE("priority: a delayed add while processing waits for both its time and done") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add("ns/job", 0);
  REQUIRE(queue.get() == "ns/job");
  CHECK(queue.add_after("ns/job", 10, 0) == AddOutcome::queued);
  queue.done("ns/job");
  CHECK_FALSE(queue.has_ready());
  CHECK(queue.fire_due_timers(10) == Keys{"ns/job"});
  CHECK(drain(queue) == Keys{"ns/job"});
}

TEST_CASE("priority: a locked key's pending entry does not block other ready keys") {
  WorkQueue queue(QueueBehaviour::priority);
  queue.add("ns/a", 0, 5);
  REQUIRE(queue.get() == "ns/a");
  queue.add("ns/a", 1, 5);
  queue.add("ns/b", 1);
  CHECK(queue.ready_keys() == Keys{"ns/b"});
  CHECK(queue.get() == "ns/b");
  CHECK_FALSE(queue.has_ready());
}

}  // TEST_SUITE

}  // namespace work_queue_test
