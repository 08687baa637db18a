// rjsim check: every scenario under PATH as a CI regression suite (DESIGN.md §6). Today: each
// scenario's fault-free run against its expectations, a summary table, --json, exit 1 on any
// failure. Still to come (issue 4): --junit, --jobs, golden files; (issue 5) exploring the
// scenarios that have faults within --explore-budget.
#include "cli/commands.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/timeline.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"

namespace rjsim::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> paths;
  std::string junit_path;
  int jobs = 0;  // 0: one per core
  std::string explore_budget;
  bool update_golden = false;
  bool json = false;
};

CLI::Validator explore_budget() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::optional<std::int64_t> schedules = parse_count(text);
        if ((schedules && *schedules >= 1) || parse_duration_ms(text)) return "";
        return "\"" + text +
               "\" is not a budget (use a number of schedules, e.g. 500, or a duration, e.g. 5s)";
      },
      "");
}

// The scenario files named by `paths`: files as given, directories searched for *.yaml (not
// *.golden.json), each list sorted so that the order never depends on the file system.
std::vector<std::string> scenario_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    if (!std::filesystem::is_directory(path)) {
      if (!std::filesystem::exists(path)) throw UsageError(fmt::format("PATH: {}: no such file or directory", path));
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.is_regular_file() && entry.path().extension() == ".yaml") found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

struct CheckResult {
  std::string scenario;
  std::string file;
  std::string controller;
  std::string outcome;
  bool passed = false;
  std::string message;
  std::int64_t steps = 0;
  std::int64_t virtual_ms = 0;
  std::int64_t wall_ms = 0;
};

CheckResult check_one(const std::string& file) {
  CheckResult result;
  result.file = file;
  const auto started = std::chrono::steady_clock::now();   // wall time for the table only
  const engine::Scenario scenario = engine::load_scenario(file);
  explore::RunOptions options;
  options.keep_events = false;
  const explore::RunReport report = explore::run_scenario(scenario, options);
  result.wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  result.scenario = report.scenario;
  result.controller = report.controller;
  result.outcome = report.outcome;
  result.passed = report.expectations_hold();
  result.message = report.unmet.empty() ? "" : report.unmet.front();
  result.steps = report.steps;
  result.virtual_ms = report.virtual_ms;
  return result;
}

void print_table(std::ostream& out, const std::vector<CheckResult>& results) {
  out << fmt::format("{:<40} {:<12} {:<6} {:>7} {:>10} {:>8}\n", "scenario", "model", "result", "steps",
                     "virtual", "wall ms");
  for (const CheckResult& r : results) {
    out << fmt::format("{:<40} {:<12} {:<6} {:>7} {:>10} {:>8}\n", r.scenario, r.controller,
                       r.passed ? "pass" : "FAIL", r.steps, format_virtual_time(r.virtual_ms), r.wall_ms);
    if (!r.passed) out << fmt::format("    {}: {}\n", r.file, r.message);
  }
}

}  // namespace

void add_check_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* check = commands.add(
      rjsim, "check",
      "every scenario under PATH as a CI regression: a summary table, JUnit XML, exit 1 on any "
      "failure",
      {"rjsim check scenarios/ --junit build/junit.xml --jobs 4"});
  check->add_option("PATH", options->paths, "scenario files, or directories searched for *.yaml")
      ->type_name("")
      ->required();
  check->add_option("--junit", options->junit_path, "also write the results as JUnit XML to F")
      ->type_name("F");
  add_jobs_option(*check, options->jobs);
  check
      ->add_option("--explore-budget", options->explore_budget,
                   "how far to explore scenarios that have faults: a number of schedules (500) "
                   "or a duration (5s)")
      ->type_name("B")
      ->check(explore_budget());
  check->add_flag("--update-golden", options->update_golden,
                  "rewrite the expected results with what the runs produce");
  add_json_flag(*check, options->json);

  commands.set_action(check, [options](Io& io) {
    if (!options->junit_path.empty() || options->update_golden) return not_implemented(io, "check --junit/--update-golden", 4);
    std::vector<CheckResult> results;
    for (const std::string& file : scenario_files(options->paths)) results.push_back(check_one(file));
    const auto failed = std::count_if(results.begin(), results.end(), [](const CheckResult& r) { return !r.passed; });
    if (options->json) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const CheckResult& r : results) {
        rows.push_back({{"scenario", r.scenario}, {"file", r.file}, {"controller", r.controller},
                        {"outcome", r.outcome}, {"passed", r.passed}, {"message", r.message}});
      }
      nlohmann::ordered_json summary = {{"total", results.size()},
                                        {"passed", results.size() - static_cast<std::size_t>(failed)},
                                        {"failed", failed},
                                        {"results", rows}};
      io.out << summary.dump() << "\n";
    } else {
      print_table(io.out, results);
      io.out << fmt::format("\n{} scenarios: {} passed, {} failed\n", results.size(), results.size() - failed, failed);
    }
    return failed == 0 ? 0 : 1;
  });
}

}  // namespace rjsim::cli
