#include "cli/trace_derivation.h"

#include <ostream>

#include <fmt/format.h>

namespace rjsim::cli {

void print_trace_derivation(std::ostream& out, std::string_view command, const store::RunInfo& run,
                            const std::string& db_path, const trace::ConformReport& report) {
  out << fmt::format("{}: trace run {} ({}) in {}, RayJob {}\n", command, run.run_id, run.scenario, db_path,
                     report.derived.rayjob);
  out << fmt::format("model: {} ({})\n", report.model.controller, report.model.why);
  out << "assumed:\n";
  for (const std::string& line : report.derived.assumptions) out << "  - " << line << "\n";
}

}  // namespace rjsim::cli
