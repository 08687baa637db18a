#include "checks/invariant.h"

#include <algorithm>
#include <array>

#include "checks/judgements.h"

namespace rjsim::checks {

namespace {

namespace j = judgements;

// DESIGN §5, in its order.
constexpr std::array<Invariant, 22> kInvariants = {{
    {"single-submission", j::single_submission, nullptr},
    {"single-cluster", j::single_cluster, nullptr},
    {"no-leaked-cluster", nullptr, j::no_leaked_cluster},
    {"terminal-is-terminal", j::terminal_is_terminal, nullptr},
    {"legal-transition", j::legal_transition, nullptr},
    {"suspend-atomic", j::suspend_atomic, nullptr},
    {"suspended-is-clean", j::suspended_is_clean, nullptr},
    {"status-mirrors-ray", j::status_mirrors_ray, nullptr},
    {"eventually-terminal", nullptr, j::eventually_terminal},
    {"no-stuck-state", nullptr, j::no_stuck_state},
    {"no-rerun-after-terminal", j::no_rerun_after_terminal, nullptr},
    {"jobstatus-monotone", j::jobstatus_monotone, nullptr},
    {"retry-is-clean", j::retry_is_clean, nullptr},
    {"validation-recoverable", j::validation_recoverable_step, j::validation_recoverable_end},
    {"no-model-panic", j::no_model_panic, nullptr},
    // Added 2026-12-03 (issue 31).
    {"outcome-follows-ray", j::outcome_follows_ray, nullptr},
    {"terminal-only-when-job-done", j::terminal_only_when_job_done, nullptr},
    {"submitter-finished-implies-terminal", nullptr, j::submitter_finished_implies_terminal},
    {"terminal-after-submitter", j::terminal_after_submitter, nullptr},
    {"suspended-only-when-requested", j::suspended_only_when_requested, nullptr},
    {"suspended-means-released", j::suspended_means_released, nullptr},
    {"one-execution-at-a-time", j::one_execution_at_a_time, nullptr},
}};

}  // namespace

bool Reporter::reported(std::string_view invariant, std::string_view rayjob) const {
  return std::any_of(violations_.begin(), violations_.end(), [&](const Violation& v) {
    return v.invariant == invariant && v.rayjob == rayjob;
  });
}

void Reporter::report(std::string_view invariant, std::string_view rayjob, std::int64_t seq,
                      std::string message) {
  if (reported(invariant, rayjob)) return;
  violations_.push_back({seq, std::string(invariant), std::string(rayjob), std::move(message)});
}

std::span<const Invariant> invariants() { return kInvariants; }

const Invariant* find_invariant(std::string_view name) {
  const auto it = std::find_if(kInvariants.begin(), kInvariants.end(),
                               [&](const Invariant& invariant) { return invariant.name == name; });
  return it == kInvariants.end() ? nullptr : &*it;
}

std::string show_status(std::string_view deployment_status) {
  return deployment_status.empty() ? std::string("New (\"\")") : std::string(deployment_status);
}

std::string show_job_status(std::string_view job_status) {
  return job_status.empty() ? std::string("\"\"") : std::string(job_status);
}

}  // namespace rjsim::checks
