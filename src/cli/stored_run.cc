#include "cli/stored_run.h"

#include <fmt/format.h>

namespace rjsim::cli {

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
