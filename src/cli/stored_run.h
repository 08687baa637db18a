// Runs a scenario while recording it in an event log (DESIGN §3): the run row, every event and
// every violation go into one transaction that commits when the run has ended, so a run is
// stored whole or not at all. `rjsim run` and `rjsim check` (for its failing scenarios) store
// runs this way; `rjsim replay DB --run ID` reads them back.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/scenario.h"
#include "explore/scenario_run.h"
#include "store/database.h"

namespace rjsim::cli {

struct StoredRun {
  explore::RunReport report;
  std::int64_t run_id = 0;
};

// Throws explore::UnknownController (before anything is written) when the model does not exist.
StoredRun run_and_store(store::Database& database, const engine::Scenario& scenario,
                        explore::RunOptions options, std::string_view kind = "run");

}  // namespace rjsim::cli
