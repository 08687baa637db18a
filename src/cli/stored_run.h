// Reading a stored run back for the commands that take `DB [--run ID]` (replay, show, diff):
// which run is meant, its events in seq order, and what replay needs of it. A database with no
// runs, or no run of that id, is bad input: StoreError naming the file and the run (exit 2).
#pragma once

#include <cstdint>
#include <vector>

#include "events/event.h"
#include "explore/replay.h"
#include "store/database.h"

namespace rjsim::cli {

// The run `run_id`, or the last one of the database when `run_id` is 0.
store::RunInfo find_run(const store::Database& database, std::int64_t run_id);

std::vector<events::Event> read_events(const store::Database& database, std::int64_t run_id);

explore::RecordedRun recorded_run(const store::Database& database, const store::RunInfo& run);

}  // namespace rjsim::cli
