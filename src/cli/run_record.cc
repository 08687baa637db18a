#include "cli/run_record.h"

#include <fmt/format.h>

#include "cli/run_output.h"
#include "engine/objects.h"
#include "explore/scenario_run.h"

namespace rjsim::cli {

RunRecord read_run_record(const store::Database& database, const store::RunInfo& run) {
  return RunRecord{run, database.transitions(run.run_id), database.violations(run.run_id)};
}

std::string object_name(std::string_view ref) {
  engine::ObjectRef parsed;
  return engine::parse_object_ref(ref, parsed) ? parsed.name : std::string(ref);
}

std::string deployment_label(std::string_view deployment_status) {
  return deployment_status.empty() ? "New" : std::string(deployment_status);
}

std::uint64_t recorded_seed(const store::RunInfo& info) {
  return static_cast<std::uint64_t>(info.seed);
}

std::string describe_run(const store::RunInfo& info) {
  return fmt::format("run {}: {} under {}, seed {}", info.run_id, info.scenario, info.controller,
                     recorded_seed(info));
}

namespace {

// What `rjsim run` would have reported of the stored run, as far as the store keeps it.
explore::RunReport report_of(const RunRecord& run) {
  explore::RunReport report;
  report.scenario = run.info.scenario;
  report.controller = run.info.controller;
  report.seed = recorded_seed(run.info);
  report.outcome = run.info.outcome.value_or("");
  report.steps = run.info.steps.value_or(0);
  report.virtual_ms = run.info.virtual_ms.value_or(0);
  report.log_hash = run.info.log_hash.value_or("");
  for (const store::Transition& t : run.transitions) {
    report.transitions.push_back(explore::Transition{t.seq, t.at_ms, object_name(t.rayjob), t.from_deployment,
                                                     t.to_deployment, t.to_job_status, t.reason});
  }
  for (const store::Violation& v : run.violations) {
    report.violations.push_back(explore::ViolationReport{v.seq, v.invariant, v.message});
  }
  return report;
}

}  // namespace

nlohmann::ordered_json run_record_json(const RunRecord& run) {
  nlohmann::ordered_json json = run_json(report_of(run), run.info.run_id);
  json.erase("expectations_met");
  json.erase("unmet");
  json["kind"] = run.info.kind;
  json["parent_run"] = run.info.parent_run ? nlohmann::ordered_json(*run.info.parent_run)
                                           : nlohmann::ordered_json(nullptr);
  return json;
}

}  // namespace rjsim::cli
