// What an exploration's "complete" covers (DESIGN §1.1): which fault dimensions of the
// scenario's `faults:` block it explored, which it held at their defaults, and which
// interleavings of a real cluster the engine does not model yet, so that "no violation within
// these bounds" says which bounds.
#pragma once

#include <string>
#include <vector>

#include "engine/simulation.h"

namespace rjsim::explore {

struct SearchBounds {
  std::vector<std::string> explored;      // "restarts: {max: 1}", "latency", ...
  std::vector<std::string> within;        // how far an explored dimension reaches ("deliveries held up to ...")
  std::vector<std::string> held;          // the `faults:` keys left at their defaults
  std::vector<std::string> not_modelled;  // what a real cluster does that no budget reaches yet
};

SearchBounds search_bounds(const engine::FaultBudget& faults);

// "explored: restarts {max: 1}, latency; held at defaults: staleReads, ...; not modelled yet: ..."
std::string describe_bounds(const SearchBounds& bounds);

}  // namespace rjsim::explore
