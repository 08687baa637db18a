// A reconcile pass that stopped between two of its client calls (DESIGN §1.1): with
// faults.interleaveCalls other steps may run there, and with faults.restarts.midReconcile the
// process may die there. It is part of the world, so it is a plain value: the key being
// reconciled and what each call the pass has made so far gave back. The pass goes on by running
// the model's reconcile again from its start, answering those calls from the replies (no
// effect, no decision, no event), and making the next call live: the model stays ordinary code
// that reads like the Go, and a world holding a stopped pass can be copied, compared and hashed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/copy_on_write.h"
#include "engine/dashboard_api.h"
#include "engine/error.h"
#include "engine/hash128.h"
#include "engine/object_version.h"
#include "engine/objects.h"
#include "engine/shared_string.h"

namespace rjsim::engine {

// Every method of the clients (controller.h) whose replies a pass keeps, in the order they are
// declared. The first nine are the points where a pass may stop: cache reads, API writes,
// dashboard calls. The operator's environment and feature gates are the scenario's, answered
// alike at every call of a run, and not kept (pass_clients.cc).
enum class ClientCall : std::uint8_t {
  read, list, create, update, update_status, remove, dashboard, read_from_api, list_from_api,
  now, random_string,
};

// True for the calls a pass may stop after (the cluster or Ray answered); false for the process's
// own (its clock, its random source).
constexpr bool stops_after(ClientCall call) { return call <= ClientCall::list_from_api; }

// What one call gave back to the model.
struct CallReply {
  ClientCall call = ClientCall::read;
  Error error;
  // read, read_from_api: the cached (stored) object, if found; list, list_from_api: the objects; a write that succeeded: the server's
  // reply (a failed write leaves the model's object as it was, so none is kept).
  std::vector<ObjectVersion> objects;   // shared with the cache or the server, not copied
  DashboardResponse response;           // dashboard
  std::int64_t number = 0;              // now: ms
  std::optional<std::string> text;      // random_string
  friend bool operator==(const CallReply&, const CallReply&) = default;
};

// When a pass stops, as this step's faults say.
struct PassTiming {
  bool stop_after_calls = false;     // stop after this step's live call
  bool dashboard_takes_time = false; // a stopping dashboard call holds the pass (interleaveCalls)
  std::int64_t dashboard_latency_ms = 0;
  std::int64_t dashboard_timeout_ms = 0;
};

struct PassInFlight {
  SharedString key;             // the work queue's (shared_string.h)
  int priority = 0;             // the queue priority the key was taken with
  // Only ever appended to, while the pass lasts. Each reply is shared by the world's copies
  // (copy_on_write.h): exploration copies a world with a stopped pass at every snapshot and every
  // continued run, and copying each reply's strings and dashboard answer was 5% of its search.
  std::vector<CopyOnWrite<CallReply>> replies;
  // The digest of the first `replies` replies, which a fingerprint extends to all of them and
  // hashes in their place (fingerprint.cc): a pass stopped at every call is fingerprinted at every
  // step, and hashing all its replies each time was 5% of an exhaustive search. A cache filled
  // while the world is read, as FingerprintMemo is, for one thread; == leaves it out.
  struct RepliesDigest {
    Hash128 digest;
    std::size_t replies = 0;
    friend bool operator==(const RepliesDigest&, const RepliesDigest&) { return true; }
  };
  mutable RepliesDigest replies_digest;
  // The pass waits for a dashboard reply until then (its latency, or the client's timeout).
  std::int64_t resume_at_ms = 0;
  // What timed-out dashboard calls held the worker when the clock does not move within a pass
  // (restarts.midReconcile without interleaveCalls): the pass ends, and its requeue counts, that late.
  std::int64_t blocked_ms = 0;
  friend bool operator==(const PassInFlight&, const PassInFlight&) = default;
};

}  // namespace rjsim::engine
