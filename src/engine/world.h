// The world of one run: everything that changes while it runs, as one plain value (DESIGN §1).
// It can be copied (exploration forks it), compared and hashed (fingerprint.h); nothing in it
// refers to another part of it except by key or index. The only pointers it holds are to object
// versions, which are immutable and shared between worlds and their copies (object_version.h),
// and to the parts its copies share until one changes them (copy_on_write.h: each kind's objects
// and watch log, each informer, the Ray and environment state), which behave as values. Behaviour
// lives in the Simulation and the actors, which take a World and change it one step at a time.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api_server.h"
#include "engine/copy_on_write.h"
#include "engine/environment_state.h"
#include "engine/informer.h"
#include "engine/pass_in_flight.h"
#include "engine/ray_state.h"
#include "engine/shared_string.h"
#include "engine/work_queue.h"

namespace rjsim::engine {

// The controller process under test (kubernetes-semantics §2.7, §7.1).
struct Process {
  int incarnation = 1;
  bool up = true;
  std::int64_t restart_at_ms = 0;          // when down: the new leader may start then
  std::int64_t restart_deadline_ms = 0;    // ... and has started by then (faults.latency)
  // The single worker is still inside a reconcile whose dashboard call timed out: it takes no
  // other key before then (the reconcile's effects are at its start; kuberay-rayjob §3.5).
  std::int64_t worker_busy_until_ms = 0;
  // One per cached kind, in Kind order. Each is shared by the world's copies until changed
  // (copy_on_write.h): a delivery changes one informer, and a fork copies none.
  std::vector<CopyOnWrite<Informer>> informers;
  WorkQueue queue;
  // Initial-list handler notifications not yet in the queue (releases whose workers start once
  // the caches synced, before every notification is delivered).
  std::vector<std::string> pending_notifications;
  // The worker's reconcile, stopped between two client calls (faults.interleaveCalls,
  // restarts.midReconcile): it takes no other key before the pass ends.
  std::optional<PassInFlight> pass;
  friend bool operator==(const Process&, const Process&) = default;
};

// What the chooser may still inject; counted down as faults happen (DESIGN §4 `faults`).
struct FaultsUsed {
  int conflicts = 0;
  int write_failures = 0;
  int http_errors = 0;
  int restarts = 0;
  friend bool operator==(const FaultsUsed&, const FaultsUsed&) = default;
};

// A piece of an actor's work that has been possible since since_ms and is not done yet
// (DESIGN §1.1): it may be done from since_ms + the actor's latency min, and time may not pass
// since_ms + its max before it is. Kept only while some latency can matter (Simulation).
struct PendingReaction {
  int actor = 0;                   // index into the simulation's actors
  std::string_view what;           // the ActorWork it is (its `what`, a literal of the actor's)
  SharedString object;
  int index = 0;
  std::int64_t since_ms = 0;
  friend bool operator==(const PendingReaction&, const PendingReaction&) = default;
};

struct World {
  std::int64_t now_ms = 0;
  std::int64_t steps = 0;
  ApiServer api;
  Process process;
  FaultsUsed faults_used;
  // Shared by the world's copies until changed (copy_on_write.h): a fork copies no Ray job table,
  // and the Simulation tells their changes apart by sharing (actor_answers.h).
  CopyOnWrite<RayState> ray;
  CopyOnWrite<EnvironmentState> environment;
  std::vector<PendingReaction> reactions;   // in the order the actors list their work
  friend bool operator==(const World&, const World&) = default;

  // The informer of `kind`, or null when the controller does not cache it.
  const Informer* informer(Kind kind) const;
  // The informer of `kind`, to change: this world's own (copied first when a copy shares it).
  // Requires the controller to cache the kind.
  Informer& edit_informer(Kind kind);
};

inline const Informer* World::informer(Kind kind) const {
  for (const CopyOnWrite<Informer>& informer : process.informers) {
    if (informer->kind() == kind) return &*informer;
  }
  return nullptr;
}

inline Informer& World::edit_informer(Kind kind) {
  for (CopyOnWrite<Informer>& informer : process.informers) {
    if (informer->kind() == kind) return informer.edit();
  }
  assert(false && "rjsim bug: no informer for a kind the controller uses");
  std::abort();
}

}  // namespace rjsim::engine
