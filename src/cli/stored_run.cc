#include "cli/stored_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/registry.h"
#include "store/store_error.h"

namespace rjsim::cli {

StoredRun run_and_store(store::Database& database, const engine::Scenario& scenario,
                        explore::RunOptions options, std::string_view kind,
                        std::optional<std::int64_t> parent_run) {
  const std::string model = options.controller.empty() ? scenario.controller : options.controller;
  const std::string canonical_model = models::canonical_model_name(model);
  if (canonical_model.empty()) {
    throw explore::UnknownController(
        fmt::format("no model named \"{}\" (models: {})", model, fmt::join(models::model_names(), ", ")));
  }
  store::RunWriter writer = database.begin_run(store::RunHeader{
      parent_run, std::string(kind), scenario.name, scenario.text, canonical_model,
      static_cast<std::int64_t>(options.seed.value_or(scenario.seed))});
  options.sinks.push_back(&writer);
  StoredRun stored{explore::run_scenario(scenario, options), 0};
  stored.run_id = commit_run(writer, stored.report);
  return stored;
}

std::int64_t store_schedule(store::Database& database, const engine::Scenario& scenario, std::string_view kind,
                            std::optional<std::int64_t> parent, std::uint64_t seed, const explore::Schedule& schedule,
                            bool faults, bool stop_at_violation) {
  engine::DefaultChooser fallback(seed);
  engine::ReplayChooser chooser(schedule, &fallback);
  explore::RunOptions options;
  options.seed = seed;
  options.faults = faults;
  options.chooser = &chooser;
  options.keep_events = false;
  options.stop_at_violation = stop_at_violation;
  return run_and_store(database, scenario, options, kind, parent).run_id;
}

std::int64_t commit_run(store::RunWriter& writer, const explore::RunReport& report, std::string_view outcome) {
  for (const explore::ViolationReport& v : report.violations) {
    writer.add_violation(store::Violation{v.seq, v.invariant, v.message});
  }
  return writer.commit(store::RunSummary{outcome.empty() ? report.outcome : std::string(outcome), report.steps,
                                         report.virtual_ms, report.log_hash});
}

store::RunInfo find_run(const store::Database& database, std::int64_t run_id) {
  if (run_id == 0) {
    std::optional<std::int64_t> latest = database.latest_run_id();
    if (!latest) throw store::StoreError(fmt::format("{}: the database holds no runs yet", database.path()));
    run_id = *latest;
  }
  std::optional<store::RunInfo> run = database.run(run_id);
  if (!run) throw store::StoreError(fmt::format("{}: no run {} (see `rjsim show {}` for the last one)",
                                                database.path(), run_id, database.path()));
  return *run;
}

store::RunInfo find_trace_run(const store::Database& database, std::int64_t run_id) {
  if (run_id != 0) {
    store::RunInfo run = find_run(database, run_id);
    if (run.kind != "trace") {
      throw store::StoreError(fmt::format("{}: run {} is a {} run of scenario {}, not a trace (`rjsim import` "
                                          "stores traces)",
                                          database.path(), run_id, run.kind, run.scenario));
    }
    return run;
  }
  std::optional<store::RunInfo> last;
  for (store::RunInfo& run : database.runs()) {
    if (run.kind == "trace") last = std::move(run);
  }
  if (!last) {
    throw store::StoreError(fmt::format("{}: the database holds no trace run (store one with `rjsim import`)",
                                        database.path()));
  }
  return *last;
}

std::vector<events::Event> read_events(const store::Database& database, std::int64_t run_id) {
  std::vector<events::Event> events;
  store::EventReader reader = database.events(run_id);
  events::Event event;
  while (reader.next(event)) events.push_back(event);
  return events;
}

explore::RecordedRun recorded_run(const store::Database& database, const store::RunInfo& run) {
  explore::RecordedRun recorded;
  recorded.run_id = run.run_id;
  recorded.source = fmt::format("{} run {}", database.path(), run.run_id);
  recorded.scenario_text = run.scenario_text;
  recorded.controller = run.controller;
  recorded.events = read_events(database, run.run_id);
  return recorded;
}

}  // namespace rjsim::cli
