// Runs in an event log (DESIGN §3), as the commands store and read them.
// Storing: a scenario run while recording it: the run row, every event and every violation go
// into one transaction that commits when the run has ended, so a run is stored whole or not at
// all (`rjsim run`, and `rjsim check` for its failing scenarios).
// Reading, for the commands that take `DB [--run ID]` (replay, show, diff, conform, explore
// --from-trace): which run is meant, its events in seq order, and what replay needs of it. A
// database with no runs, or no run of that id, is bad input: StoreError naming the file and the
// run (exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/scenario.h"
#include "events/event.h"
#include "explore/replay.h"
#include "explore/scenario_run.h"
#include "explore/schedule.h"
#include "store/database.h"

namespace rjsim::cli {

struct StoredRun {
  explore::RunReport report;
  std::int64_t run_id = 0;
};

// Throws explore::UnknownController (before anything is written) when the model does not exist.
StoredRun run_and_store(store::Database& database, const engine::Scenario& scenario,
                        explore::RunOptions options, std::string_view kind = "run",
                        std::optional<std::int64_t> parent_run = std::nullopt);

// Runs `schedule` again exactly (a run is a function of its decisions; past them, the default
// chooser seeded `seed` answers) with a writer attached: how explore and hunt store a
// counterexample they found without events.
std::int64_t store_schedule(store::Database& database, const engine::Scenario& scenario, std::string_view kind,
                            std::optional<std::int64_t> parent, std::uint64_t seed, const explore::Schedule& schedule,
                            bool faults, bool stop_at_violation);

// Adds the report's violations to the run being written and commits it, with `outcome` when
// given (a replay that diverged), else the report's own; returns the run_id.
std::int64_t commit_run(store::RunWriter& writer, const explore::RunReport& report, std::string_view outcome = {});

// The run `run_id`, or the last one of the database when `run_id` is 0.
store::RunInfo find_run(const store::Database& database, std::int64_t run_id);

// The trace run `run_id` (any other kind is bad input), or the last trace run of the database
// when `run_id` is 0 (none is bad input): what conform and explore --from-trace read.
store::RunInfo find_trace_run(const store::Database& database, std::int64_t run_id);

std::vector<events::Event> read_events(const store::Database& database, std::int64_t run_id);

explore::RecordedRun recorded_run(const store::Database& database, const store::RunInfo& run);

}  // namespace rjsim::cli
