#include "cli/run_output.h"

#include <fmt/format.h>

#include "cli/timeline.h"

namespace rjsim::cli {

namespace {
}  // namespace

void print_run_text(std::ostream& out, const explore::RunReport& report, std::int64_t run_id,
                    const std::string& db_path) {
  out << fmt::format("scenario {} under {}, seed {}\n\n", report.scenario, report.controller, report.seed);
  for (const events::Event& event : report.event_log) out << format_timeline_line(event) << "\n";
  out << fmt::format("\nTransitions ({}):\n", report.transitions.size());
  for (const explore::Transition& t : report.transitions) {
    out << fmt::format("  {:>10}  #{:<6} {}  {} -> {}  jobStatus={}{}\n", format_virtual_time(t.at_ms),
                       t.seq, t.rayjob, format_state(t.from), format_state(t.to), format_state(t.job_status),
                       t.reason.empty() ? "" : " reason=" + t.reason);
  }
  out << fmt::format("\nViolations ({}):\n", report.violations.size());
  for (const explore::ViolationReport& v : report.violations) {
    out << fmt::format("  #{:<6} {}: {}\n", v.seq, v.invariant, v.message);
  }
  out << fmt::format("\noutcome: {} ({} after {} steps, {} events, virtual time {})\nlog hash: {}\n",
                     report.outcome, engine::to_string(report.end), report.steps, report.events,
                     format_virtual_time(report.virtual_ms), report.log_hash);
  if (run_id != 0) out << fmt::format("stored as run {} in {}\n", run_id, db_path);
  if (report.unmet.empty()) {
    out << "expectations: all met\n";
  } else {
    out << fmt::format("expectations: {} not met\n", report.unmet.size());
    for (const std::string& unmet : report.unmet) out << "  - " << unmet << "\n";
  }
}

nlohmann::ordered_json event_json(const events::Event& event) {
  return {{"seq", event.seq},
          {"at_ms", event.at_ms},
          {"origin", events::to_string(event.origin)},
          {"type", event.type},
          {"actor", event.actor},
          {"object", event.object.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(event.object)},
          {"body", nlohmann::ordered_json::parse(events::body_json(event))}};
}

nlohmann::ordered_json run_json(const explore::RunReport& report, std::int64_t run_id) {
  nlohmann::ordered_json transitions = nlohmann::ordered_json::array();
  for (const explore::Transition& t : report.transitions) {
    transitions.push_back({{"rayjob", t.rayjob}, {"from", t.from}, {"to", t.to},
                           {"job_status", t.job_status}, {"at_ms", t.at_ms}, {"seq", t.seq},
                           {"reason", t.reason}});
  }
  nlohmann::ordered_json violations = nlohmann::ordered_json::array();
  for (const explore::ViolationReport& v : report.violations) {
    violations.push_back({{"invariant", v.invariant}, {"seq", v.seq}, {"message", v.message}});
  }
  return {{"run_id", run_id == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(run_id)},
          {"scenario", report.scenario},
          {"controller", report.controller},
          {"seed", report.seed},
          {"outcome", report.outcome},
          {"steps", report.steps},
          {"virtual_ms", report.virtual_ms},
          {"log_hash", report.log_hash},
          {"transitions", transitions},
          {"violations", violations},
          {"expectations_met", report.unmet.empty()},
          {"unmet", report.unmet}};
}

}  // namespace rjsim::cli
