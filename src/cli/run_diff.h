// Two recorded runs compared, for `rjsim diff`. Events are aligned by position (the same index
// is the same seq, seqs being dense) up to the first pair that differs in at_ms, origin, type,
// actor, object or body, or where one run has ended; a few events of context around it are kept,
// nothing else (the runs are streamed). Transitions are paired per RayJob, by name, row by row:
// the n-th persisted transition of A beside the n-th of B.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "store/database.h"

namespace rjsim::cli {

struct EventDifference {
  std::int64_t seq = 0;
  std::optional<events::Event> a;   // nullopt: run A has no event at this seq (it ended)
  std::optional<events::Event> b;
  std::vector<std::string> fields;  // what differs: "at_ms", "origin", ...; "end" when a run ended
};

struct EventComparison {
  std::int64_t events_a = 0;
  std::int64_t events_b = 0;
  std::optional<EventDifference> first_difference;   // nullopt: the runs are identical
  std::vector<events::Event> common_before;          // the events both have just before it
  std::vector<events::Event> after_a;                // each run's events just after it
  std::vector<events::Event> after_b;
};

// Streams both runs; keeps `context` events before and after the first difference.
EventComparison compare_events(store::EventReader a, store::EventReader b, std::size_t context);
// The fields of DESIGN §3 in which two events differ, in schema order.
std::vector<std::string> differing_fields(const events::Event& a, const events::Event& b);

// How the n-th transitions of a RayJob in A and in B compare.
enum class RowDifference {
  same,        // the same change (deploymentStatus from -> to, jobStatus, reason) at the same time
  timing,      // the same change at another virtual time
  transition,  // another change, or none in one of the runs
};

struct TransitionPair {
  std::optional<store::Transition> a;
  std::optional<store::Transition> b;
  RowDifference difference = RowDifference::same;
};

struct RayJobTransitions {
  std::string rayjob;                 // the RayJob's name
  std::vector<TransitionPair> rows;
};

// Every RayJob of either run, by name; each one's transitions paired row by row.
std::vector<RayJobTransitions> pair_transitions(const std::vector<store::Transition>& a,
                                                const std::vector<store::Transition>& b);

}  // namespace rjsim::cli
