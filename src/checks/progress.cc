// Invariants about where a RayJob comes to rest: no-stuck-state (judged at the end of a run that
// ended quiescent) and validation-recoverable (ValidationFailed never replaces Complete, Failed
// or Suspending: judged at the step; and it is left within limits.eventually once the spec is
// valid again: judged at the end).
#include <fmt/format.h>

#include "checks/judgements.h"

namespace rjsim::checks::judgements {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

// The manager KubeRay answers to (kuberay-rayjob §1.2 spec.managedBy); any other hands it off.
constexpr std::string_view kKubeRayManager = "ray.io/kuberay-operator";

}  // namespace

void no_stuck_state(const EndView& view, Reporter& reporter) {
  if (view.end != engine::RunEnd::quiescent) return;
  for (const RayJobHistory& rayjob : view.history.rayjobs()) {
    if (rayjob.gone) continue;
    const auto* stored = view.world.api.find<engine::RayJob>(rayjob.namespace_, rayjob.name);
    if (!stored) continue;
    const std::string& status = stored->status.job_deployment_status;
    if (status == "Complete"sv || status == "Failed"sv || status == "Suspended"sv) continue;
    if (stored->spec->managed_by && *stored->spec->managed_by != kKubeRayManager) continue;
    reporter.report("no-stuck-state", rayjob.ref, view.last_seq,
                    fmt::format("{}: the run ended with nothing enabled and no timer pending (seq {}, {} ms) while "
                                "the RayJob rests in jobDeploymentStatus {} (persisted at seq {})",
                                rayjob.ref, view.last_seq, view.world.now_ms, show_status(status),
                                rayjob.deployment_since.seq));
  }
}

void validation_recoverable_step(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (t.to_deployment != "ValidationFailed"sv) continue;
    if (t.from_deployment != "Complete"sv && t.from_deployment != "Failed"sv &&
        t.from_deployment != "Suspending"sv) {
      continue;
    }
    const RayJobHistory& rayjob = view.history.rayjobs()[static_cast<std::size_t>(t.rayjob)];
    reporter.report("validation-recoverable", rayjob.ref, t.at.seq,
                    fmt::format("{}: ValidationFailed replaced {} at seq {}", rayjob.ref, t.from_deployment,
                                t.at.seq));
  }
}

void validation_recoverable_end(const EndView& view, Reporter& reporter) {
  for (const RayJobHistory& rayjob : view.history.rayjobs()) {
    if (rayjob.gone || rayjob.deployment_status != "ValidationFailed"sv || !rayjob.valid_again) continue;
    const std::int64_t deadline_ms = rayjob.valid_again->at_ms + view.settings.eventually_ms;
    if (view.world.now_ms < deadline_ms) continue;
    reporter.report("validation-recoverable", rayjob.ref, view.last_seq,
                    fmt::format("{}: still ValidationFailed (persisted at seq {}) at the end of the run (seq {}, {} ms), "
                                "although its spec was valid again (the spec last accepted) from seq {} ({} ms); it "
                                "should have left ValidationFailed within {} ms",
                                rayjob.ref, rayjob.deployment_since.seq, view.last_seq, view.world.now_ms,
                                rayjob.valid_again->seq, rayjob.valid_again->at_ms, view.settings.eventually_ms));
  }
}

}  // namespace rjsim::checks::judgements
