// How `rjsim check` shows its results: a table (scenario, model, result, steps, virtual time,
// wall ms), then each failure in full (every unmet expectation, the golden's differences, the
// replay command), then a summary line; or, with --json, the DESIGN §6 `check` object with, per
// result, also "steps", "virtual_ms", "log_hash", "run_id" (null when not stored), "golden"
// (match | differs | written | none), "unmet", "golden_differences", "replay" and "wall_ms".
// Apart from the wall ms column and "wall_ms", the output depends only on the results.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/check_result.h"

namespace rjsim::cli {

void print_check_text(std::ostream& out, const std::vector<CheckResult>& results);
nlohmann::ordered_json check_json(const std::vector<CheckResult>& results);

}  // namespace rjsim::cli
