// How a run reads to a person: one line per event (virtual time, seq, actor, type, object, the
// body as key=value), with persisted RayJob status transitions standing out, and the list of
// transitions at the end. Used by `rjsim run`, the demo, and later `rjsim show`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "events/event.h"

namespace rjsim::cli {

// "12.345s": virtual milliseconds as seconds.
std::string format_virtual_time(std::int64_t ms);
// A state or status as printed: the empty string (a RayJob not yet given one) as "".
std::string format_state(const std::string& state);
// The body as `key=value ...`; strings bare unless they hold spaces or are empty.
std::string format_body(const std::vector<events::Field>& body);
// One timeline line (no newline). A status.transition gets a "==>" marker.
std::string format_timeline_line(const events::Event& event);

struct TransitionRow {
  std::int64_t at_ms = 0;
  std::int64_t seq = 0;
  std::string rayjob;
  std::string from;
  std::string to;
  std::string job_status;
  std::string reason;
};
// The persisted transitions among `events` (status.transition events), in order.
std::vector<TransitionRow> transitions_of(const std::vector<events::Event>& events);
void print_transitions(std::ostream& out, const std::vector<TransitionRow>& transitions);

}  // namespace rjsim::cli
