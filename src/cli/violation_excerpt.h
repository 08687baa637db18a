// The steps that led to a violation, as `rjsim show` prints them under it. The excerpt follows
// the RayJob the message names and that RayJob's objects (those its reconciles touched, and those
// named after it: its RayCluster, submitter Job, their Pods and Services). It shows the events up
// to the violation's seq from a few reconciles of the RayJob's key back, or from the latest
// earlier seq the message names if that is further back; every seq the message names is shown,
// and so is the violation's own step. Quiet events are left out (cache reads that saw the latest
// object, queue bookkeeping, the clock, the chooser's fault-free choices), so what remains is the
// reconciles, the writes, the deliveries, stale reads, faults and the environment's moves; a run
// of identical reconciles is printed once with how often it repeated. The log is streamed twice.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace rjsim::cli {

struct ViolationExcerpt {
  std::string rayjob;               // the RayJob the message names ("" when it names none)
  std::vector<std::int64_t> seqs;   // the events shown, in seq order
  std::vector<std::string> lines;   // the excerpt as printed (no newlines); "*" marks named seqs
};

// One excerpt per violation, in the order given.
std::vector<ViolationExcerpt> violation_excerpts(const store::Database& database, std::int64_t run_id,
                                                 const std::vector<store::Violation>& violations);

// The first "RayJob/namespace/name" in `message`, or "".
std::string rayjob_named_in(std::string_view message);
// Every N of "seq N" in `message`, in order of appearance.
std::vector<std::int64_t> seqs_named_in(std::string_view message);

}  // namespace rjsim::cli
