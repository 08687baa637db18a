// How `rjsim run` shows a run: the timeline, the transitions, the violations and the verdict on
// the scenario's expectations as text, or the DESIGN §6 `run` JSON object.
#pragma once

#include <cstdint>
#include <ostream>

#include <nlohmann/json.hpp>

#include "explore/scenario_run.h"

namespace rjsim::cli {

void print_run_text(std::ostream& out, const explore::RunReport& report, std::int64_t run_id,
                    const std::string& db_path);
// One event as JSON: seq, at_ms, origin, type, actor, object (null when none), body (an object).
nlohmann::ordered_json event_json(const events::Event& event);
nlohmann::ordered_json run_json(const explore::RunReport& report, std::int64_t run_id);

}  // namespace rjsim::cli
