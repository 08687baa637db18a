#include "cli/check_output.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/timeline.h"

namespace rjsim::cli {
namespace {

using Json = nlohmann::ordered_json;

std::size_t failures(const std::vector<CheckResult>& results) {
  return static_cast<std::size_t>(
      std::count_if(results.begin(), results.end(), [](const CheckResult& r) { return !r.passed(); }));
}

void print_table(std::ostream& out, const std::vector<CheckResult>& results) {
  out << fmt::format("{:<40} {:<12} {:<6} {:>7} {:>10} {:>8}\n", "scenario", "model", "result", "steps",
                     "virtual", "wall ms");
  for (const CheckResult& r : results) {
    out << fmt::format("{:<40} {:<12} {:<6} {:>7} {:>10} {:>8}\n", r.scenario, r.controller,
                       r.passed() ? "pass" : "FAIL", r.steps, format_virtual_time(r.virtual_ms), r.wall_ms);
  }
}

void print_failures(std::ostream& out, const std::vector<CheckResult>& results) {
  for (const CheckResult& r : results) {
    if (r.passed()) continue;
    out << fmt::format("\nFAIL {} ({}, {})\n", r.scenario, r.file, r.controller);
    for (const std::string& line : r.failure_lines()) out << "  " << line << "\n";
  }
}

Json result_json(const CheckResult& r) {
  return {{"scenario", r.scenario},
          {"file", r.file},
          {"controller", r.controller},
          {"outcome", r.outcome},
          {"passed", r.passed()},
          {"message", r.message()},
          {"steps", r.steps},
          {"virtual_ms", r.virtual_ms},
          {"log_hash", r.log_hash},
          {"run_id", r.run_id ? Json(*r.run_id) : Json(nullptr)},
          {"golden", to_string(r.golden)},
          {"unmet", r.unmet},
          {"golden_differences", r.golden_differences},
          {"replay", r.replay_command.empty() ? Json(nullptr) : Json(r.replay_command)},
          {"wall_ms", r.wall_ms}};
}

}  // namespace

void print_check_text(std::ostream& out, const std::vector<CheckResult>& results) {
  print_table(out, results);
  print_failures(out, results);
  const auto written = std::count_if(results.begin(), results.end(),
                                     [](const CheckResult& r) { return r.golden == GoldenVerdict::written; });
  if (written > 0) out << fmt::format("\nwrote {} golden file{}\n", written, written == 1 ? "" : "s");
  const std::size_t failed = failures(results);
  out << fmt::format("\n{} scenario{}: {} passed, {} failed\n", results.size(), results.size() == 1 ? "" : "s",
                     results.size() - failed, failed);
}

Json check_json(const std::vector<CheckResult>& results) {
  Json rows = Json::array();
  for (const CheckResult& r : results) rows.push_back(result_json(r));
  const std::size_t failed = failures(results);
  return {{"total", results.size()}, {"passed", results.size() - failed}, {"failed", failed}, {"results", rows}};
}

}  // namespace rjsim::cli
