// `rjsim diff --format html`: two runs' swimlanes on one page, A above B, each drawn from the
// same step a little before their first difference (so the common prefix lines up column for
// column), the first difference marked in both by a blue line; then the two runs' transitions.
// Self-contained like `show --format html` (cli/run_html.h).
#pragma once

#include <string>

#include "cli/run_diff.h"
#include "cli/run_record.h"
#include "store/database.h"

namespace rjsim::cli {

std::string diff_html(const RunRecord& a, const RunRecord& b, const EventComparison& comparison,
                      const store::Database& database);

}  // namespace rjsim::cli
