// The swimlanes of a stored run: who did what, in step order, collected from its events as plain
// values for a drawing (cli/swimlane_svg.h) to lay out. One lane per actor that did something (the
// user, the API server, each informer cache, the work queue, the controller, the simulated
// RayCluster and Job controllers, the kubelet, the garbage collector, the submitter, Ray, the
// chooser, the checker); a mark per event worth seeing (writes with the resourceVersion they
// made, deliveries with the one they applied, cache reads with the one they saw, squashes,
// injected faults, crashes, the chooser's departures from the fault-free run, violations); the
// controller's reconciles as bars from begin to end; a band per RayJob with its
// jobDeploymentStatus over the steps. A cache read whose cache was behind the API server is a
// stale mark whose label names both versions. Quiet bookkeeping (the clock, the queue's adds and
// gets, fault-free choices) gets no mark, so the picture shows the race, not the plumbing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace rjsim::cli {

// What a mark stands for; the drawing gives each its shape and colour.
enum class MarkKind : std::uint8_t {
  action,        // the user's (or the scenario's) stimulus
  write,         // an API write that was applied; `number` is the resourceVersion it made
  stored,        // the API server's side of a write: the object's new resourceVersion
  fault,         // an injected failure: a 409, a 5xx, a lost reply, a dashboard error or timeout
  read,          // a cache read that saw the API server's latest version; `number` is its rv
  stale_read,    // a cache read whose cache was behind the API server
  api_read,      // an uncached read or list (the API reader)
  deliver,       // a watch event applied to a cache; `number` is its rv
  relist,        // an informer's list after a restart
  squash,        // a queue add merged into the key's pending entry
  backoff,       // a failed reconcile requeued with backoff
  dashboard,     // a call to Ray's dashboard
  ray,           // Ray: a head coming up, a job's status changing
  crash,         // the operator crashed or panicked
  restart,       // the operator came back
  departure,     // a chooser decision that departs from the fault-free run
  violation,     // an invariant fired
};
std::string_view to_string(MarkKind kind);

struct SwimlaneMark {
  std::int64_t seq = 0;
  std::int64_t at_ms = 0;
  std::string lane;
  MarkKind kind = MarkKind::write;
  std::optional<std::int64_t> number;   // the resourceVersion drawn in the mark, when it has one
  std::string label;                    // drawn beside the mark; most marks have none
  std::string detail;                   // the event in one line: the mark's tooltip
  std::string link;                     // "#seq-N" (its timeline row) or "#violation-K"
};

// A reconcile of the controller: from its reconcile.begin to its reconcile.end (or the crash or
// the end of the window that cut it short).
struct ReconcileBar {
  std::int64_t begin_seq = 0;
  std::int64_t end_seq = 0;
  std::string key;      // the RayJob it reconciled
  std::string result;   // reconcile.end's result; "crashed" or "" (cut by the window)
};

// A watch event on its way from the API server to an informer's cache: from the write that made
// resourceVersion `rv` to its delivery (none when it was still held at the window's end). A long
// one is a cache lagging the API server.
struct WatchInFlight {
  std::string lane;   // "informer/<Kind>"
  std::int64_t rv = 0;
  std::int64_t written_seq = 0;
  std::optional<std::int64_t> delivered_seq;
};

// A RayJob's jobDeploymentStatus from one persisted transition to the next.
struct StatusSegment {
  std::int64_t from_seq = 0;
  std::string deployment;   // "" is New
  std::string job_status;
};
struct StatusBand {
  std::string rayjob;   // "RayJob/namespace/name"
  std::vector<StatusSegment> segments;
};

struct Swimlanes {
  std::vector<std::string> lanes;       // those with a mark or a bar, in display order
  std::vector<SwimlaneMark> marks;      // in seq order
  std::vector<ReconcileBar> bars;       // in seq order
  std::vector<WatchInFlight> in_flight; // in order of the writes
  std::vector<StatusBand> bands;        // in order of first transition
  // Every seq a mark, a bar's end or a band's change is drawn at, with its virtual time: the
  // picture's columns, in order.
  std::map<std::int64_t, std::int64_t> time_of_seq;
  std::int64_t first_seq = 0;           // the window's first event
  std::int64_t last_seq = 0;            // and last
  std::int64_t events = 0;              // events in the window
};

// Seqs [first, last] of a run.
struct SeqWindow {
  std::int64_t first = 0;
  std::int64_t last = 0;
};

// The swimlanes of the run whose events `events` streams, limited to `window` when given (with the
// checker's verdicts on the window's steps, which come after them). `violations` are the run's,
// in seq order: violation K links to "#violation-K".
Swimlanes collect_swimlanes(store::EventReader events, const std::vector<store::Violation>& violations,
                            std::optional<SeqWindow> window = std::nullopt);

// The window a long run is best seen through: from a little before the earliest step of
// `shown_seqs` (the excerpt `show` prints under a violation) to the last violation. None when
// there is nothing to show.
std::optional<SeqWindow> violation_window(const std::vector<std::vector<std::int64_t>>& shown_seqs,
                                          const std::vector<store::Violation>& violations);

}  // namespace rjsim::cli
