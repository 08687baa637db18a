// What conform and explore --from-trace print first about a trace run (docs/traces.md): which
// run and RayJob, the model and why, and every assumption of the scenario derived from it, so
// that a reader knows what was compared or explored before reading the result.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "store/database.h"
#include "trace/conform.h"

namespace rjsim::cli {

// "<command>: trace run 2 (trace-kubectl-watch) in traces.db, RayJob demo", the "model:" line
// and the "assumed:" list.
void print_trace_derivation(std::ostream& out, std::string_view command, const store::RunInfo& run,
                            const std::string& db_path, const trace::ConformReport& report);

}  // namespace rjsim::cli
