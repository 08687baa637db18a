// Replay (DESIGN §1, §6 `replay`): drives a recorded run again from its inputs alone (the stored
// scenario text, the `run.start` header, the recorded `choice` decisions) and compares every
// event of the new run with the recorded one at the same seq. Identical means every event is
// equal (so is the log hash). Otherwise the report holds the first differing event on each side
// and, per RayJob, the first persisted transition that changed: a run recorded before a change
// to a model and replayed after it shows what the change did. A model that now asks for
// different decisions does not stop the replay: from there the fault-free choice answers.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "events/event.h"
#include "explore/scenario_run.h"

namespace rjsim::explore {

// What replay needs of a stored run (store::RunInfo and its events, without the store).
struct RecordedRun {
  std::int64_t run_id = 0;
  std::string source;          // names the run in messages, e.g. "runs.db run 3"
  std::string scenario_text;
  std::string controller;
  std::vector<events::Event> events;
};

// The run cannot be replayed: it has no `run.start` header (a trace, the kernel demo), or its
// stored scenario no longer parses. Bad input (exit 2).
class NotReplayable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct EventDifference {
  std::int64_t seq = 0;
  std::optional<events::Event> recorded;   // absent: the replay has more events
  std::optional<events::Event> replayed;   // absent: the replay ended earlier
};

// The first persisted transition of one RayJob that differs (index into its transitions).
struct TransitionChange {
  std::string rayjob;
  std::size_t index = 0;
  std::optional<Transition> recorded;
  std::optional<Transition> replayed;
};

struct ReplayReport {
  bool identical = false;
  std::int64_t recorded_events = 0;
  std::optional<EventDifference> first_difference;
  std::vector<Transition> recorded_transitions;
  std::vector<TransitionChange> transition_changes;   // RayJobs in name order
  bool decisions_diverged = false;   // the model asked for other decisions than recorded
  RunReport run;                     // the replayed run (its events are not kept)
};

// Replays `recorded`; the replayed events also go to `sinks` (to store the replay, say), and
// `observers` see the world after each step (to export its watch logs, say: with observers,
// every kind's watch log keeps its versions, RunOptions::full_watch_logs).
ReplayReport replay_run(const RecordedRun& recorded, const std::vector<events::EventSink*>& sinks = {},
                        const std::vector<engine::StepObserver*>& observers = {});

// The persisted transitions among `events` (status.transition), as RunReport lists them.
std::vector<Transition> transitions_of(const std::vector<events::Event>& events);

}  // namespace rjsim::explore
