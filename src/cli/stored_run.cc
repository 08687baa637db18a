#include "cli/stored_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/registry.h"

namespace rjsim::cli {

StoredRun run_and_store(store::Database& database, const engine::Scenario& scenario,
                        explore::RunOptions options, std::string_view kind) {
  const std::string model = options.controller.empty() ? scenario.controller : options.controller;
  const std::string canonical_model = models::canonical_model_name(model);
  if (canonical_model.empty()) {
    throw explore::UnknownController(
        fmt::format("no model named \"{}\" (models: {})", model, fmt::join(models::model_names(), ", ")));
  }
  store::RunWriter writer = database.begin_run(store::RunHeader{
      std::nullopt, std::string(kind), scenario.name, scenario.text, canonical_model,
      static_cast<std::int64_t>(options.seed.value_or(scenario.seed))});
  options.sinks.push_back(&writer);
  StoredRun stored{explore::run_scenario(scenario, options), 0};
  for (const explore::ViolationReport& v : stored.report.violations) {
    writer.add_violation(store::Violation{v.seq, v.invariant, v.message});
  }
  const explore::RunReport& report = stored.report;
  stored.run_id = writer.commit(store::RunSummary{report.outcome, report.steps, report.virtual_ms, report.log_hash});
  return stored;
}

}  // namespace rjsim::cli
