// Invariants over what Suspended promises the user: suspended-only-when-requested, judged at the
// step that persists Suspended, from spec.suspend as the write's sender had read the RayJob
// (PersistedTransition::suspend_read): a controller that acts on what it read is judged by it,
// not by a user edit it could not have seen yet.
#include <fmt/format.h>

#include "checks/judgements.h"

namespace rjsim::checks::judgements {

void suspended_only_when_requested(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (t.to_deployment != "Suspended" || t.from_deployment == t.to_deployment || t.suspend_read) continue;
    const RayJobHistory& rayjob = view.history.rayjobs()[static_cast<std::size_t>(t.rayjob)];
    reporter.report("suspended-only-when-requested", rayjob.ref, t.at.seq,
                    fmt::format("{}: Suspended was persisted at seq {} (from {}) by a write based on a read of the "
                                "RayJob whose spec.suspend was false",
                                rayjob.ref, t.at.seq, show_status(t.from_deployment)));
  }
}

}  // namespace rjsim::checks::judgements
