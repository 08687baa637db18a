// rjsim check: every scenario under PATH as a CI regression suite (DESIGN.md §6, issue 4). Each
// scenario's fault-free run is judged against its `expect` and, when it has one, its golden file
// (cli/golden.h). The runs go in parallel (--jobs); the results come out in file order as a table
// or --json, and as JUnit XML (--junit). Each failing scenario is run again into --db, one
// transaction each, after the parallel phase and in file order, so that its failure names the
// replay command; passing ones are not stored. --update-golden writes the golden files instead of
// comparing them. Bad input (a flag, a scenario or golden file, the database) exits 2 before
// anything runs or is written, listing every bad file. Exit 0 when every scenario passes, else 1.
#include "cli/commands.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/check_output.h"
#include "cli/check_result.h"
#include "cli/cli.h"
#include "cli/golden.h"
#include "cli/json_output.h"
#include "cli/junit.h"
#include "cli/parallel_runs.h"
#include "cli/scenario_files.h"
#include "cli/stored_run.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"
#include "models/registry.h"
#include "store/database.h"

namespace rjsim::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> paths;
  std::string junit_path;
  std::string db_path = "rjsim.db";
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

// A scenario to check, with its golden, as read before anything runs.
struct PlannedCheck {
  engine::Scenario scenario;
  std::string golden_file;
  std::optional<Golden> recorded;  // its golden, when it has one and goldens are compared
};

// Throws engine::ScenarioError or GoldenError, each naming the file.
PlannedCheck plan_check(const std::string& file, bool read_goldens) {
  PlannedCheck check{engine::load_scenario(file), "", std::nullopt};
  const std::string& controller = check.scenario.controller;
  if (models::canonical_model_name(controller).empty()) {
    throw engine::ScenarioError(fmt::format("{}: controller: no model named \"{}\" yet (models: {})", file,
                                            controller, fmt::join(models::model_names(), ", ")));
  }
  if (std::optional<std::string> why = explore::unsupported_fault(check.scenario, *models::make_model(controller))) {
    throw engine::ScenarioError(*why);
  }
  check.golden_file = golden_path(file, check.scenario.name);
  if (read_goldens) check.recorded = read_golden(check.golden_file);
  return check;
}

// Plans every file into `planned`; returns one message per bad file (empty when none is bad).
std::vector<std::string> plan_checks(const std::vector<std::string>& files, bool read_goldens,
                                     std::vector<PlannedCheck>& planned) {
  std::vector<std::string> errors;
  std::map<std::string, std::string> file_of_golden;
  for (const std::string& file : files) {
    try {
      PlannedCheck check = plan_check(file, read_goldens);
      auto [same_golden, added] = file_of_golden.emplace(check.golden_file, file);
      if (added) {
        planned.push_back(std::move(check));
        continue;
      }
      errors.push_back(fmt::format("{}: name: \"{}\" is also the name of {}, so both would have the golden file "
                                   "{} (give each scenario its own name)",
                                   file, check.scenario.name, same_golden->second, check.golden_file));
    } catch (const engine::ScenarioError& e) {
      errors.push_back(e.what());
    } catch (const GoldenError& e) {
      errors.push_back(e.what());
    }
  }
  return errors;
}

int report_bad_input(Io& io, const std::vector<std::string>& errors, std::size_t files) {
  for (const std::string& error : errors) io.err << "rjsim check: " << error << "\n";
  io.err << fmt::format("rjsim check: {} of {} scenario files are bad input; nothing was run or written\n",
                        errors.size(), files);
  return exit_bad_input;
}

// An existing database must be an rjsim database (StoreError otherwise); a missing one is
// created only when a failing run is stored.
void check_database(const std::string& db_path) {
  if (db_path.empty()) return;
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(db_path, error);
  if (!error && size > 0) store::Database::open_existing(db_path);
}

std::ofstream open_for_writing(const std::string& path, const std::string& what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw UsageError(fmt::format("{}: cannot write {}: {}", what, path, std::strerror(errno)));
  return out;
}

CheckResult result_of(const PlannedCheck& check, const TimedRun& run) {
  const explore::RunReport& report = run.report;
  CheckResult result;
  result.scenario = report.scenario;
  result.file = check.scenario.file;
  result.controller = report.controller;
  result.outcome = report.outcome;
  result.steps = report.steps;
  result.virtual_ms = report.virtual_ms;
  result.log_hash = report.log_hash;
  result.unmet = report.unmet;
  result.golden_file = check.golden_file;
  result.wall_ms = run.wall_ms;
  if (run.exploration) {
    const std::vector<std::string> unmet = explore::unmet_expectations(check.scenario.expect, *run.exploration);
    result.unmet.insert(result.unmet.end(), unmet.begin(), unmet.end());
    result.outcome = run.exploration->findings.empty() ? "pass" : "violation";
  }
  if (check.recorded) {
    result.golden_differences = golden_differences(*check.recorded, golden_of(report));
    result.golden = result.golden_differences.empty() ? GoldenVerdict::match : GoldenVerdict::differs;
  }
  return result;
}

void write_goldens(const std::vector<TimedRun>& runs, std::vector<CheckResult>& results) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::ofstream out = open_for_writing(results[i].golden_file, "the golden file");
    out << golden_text(golden_of(runs[i].report));
    if (!out.flush()) throw UsageError(fmt::format("cannot write the golden file {}", results[i].golden_file));
    results[i].golden = GoldenVerdict::written;
  }
}

// `word` as one word for a POSIX shell.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-+=:,@%", c) != nullptr;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs each failing scenario again into the database, one transaction each, in file order. The
// run is deterministic, so the stored run is the one that was checked (asserted by its hash).
void store_failing_runs(const std::vector<PlannedCheck>& planned, std::vector<CheckResult>& results,
                        const std::string& db_path) {
  if (db_path.empty()) return;
  std::optional<store::Database> database;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    CheckResult& result = results[i];
    if (result.passed()) continue;
    if (!database) database.emplace(store::Database::open(db_path));
    explore::RunOptions options;
    options.keep_events = false;
    const StoredRun stored = run_and_store(*database, planned[i].scenario, options);
    result.run_id = stored.run_id;
    result.replay_command = fmt::format("rjsim replay {} --run {}", shell_word(db_path), stored.run_id);
    if (stored.report.log_hash != result.log_hash) {
      throw std::logic_error(fmt::format("rjsim bug: {} ran twice with log hashes {} and {} (stored as run {}); "
                                         "a run must be deterministic",
                                         result.file, result.log_hash, stored.report.log_hash, stored.run_id));
    }
  }
}

ExploreBudget explore_budget_of(const CheckOptions& options) {
  ExploreBudget budget;
  if (options.explore_budget.empty()) return budget;
  if (std::optional<std::int64_t> schedules = parse_count(options.explore_budget)) {
    budget.runs = *schedules;
  } else {
    budget.time_ms = parse_duration_ms(options.explore_budget);
  }
  return budget;
}

std::int64_t ms_since(std::chrono::steady_clock::time_point started) {
  const auto elapsed = std::chrono::steady_clock::now() - started;
  return std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
}

int run_check(const CheckOptions& options, Io& io) {
  const std::vector<std::string> files = scenario_files(options.paths);
  std::vector<PlannedCheck> planned;
  const std::vector<std::string> errors = plan_checks(files, !options.update_golden, planned);
  if (!errors.empty()) return report_bad_input(io, errors, files.size());
  check_database(options.db_path);
  std::optional<std::ofstream> junit;
  if (!options.junit_path.empty()) junit.emplace(open_for_writing(options.junit_path, "--junit"));

  const auto started = std::chrono::steady_clock::now();  // wall time for JUnit only
  std::vector<engine::Scenario> scenarios;
  for (const PlannedCheck& check : planned) scenarios.push_back(check.scenario);
  const std::vector<TimedRun> runs = run_in_parallel(scenarios, worker_threads(options.jobs), explore_budget_of(options));
  std::vector<CheckResult> results;
  for (std::size_t i = 0; i < planned.size(); ++i) results.push_back(result_of(planned[i], runs[i]));
  if (options.update_golden) write_goldens(runs, results);
  store_failing_runs(planned, results, options.db_path);

  if (junit && !(*junit << junit_xml(results, ms_since(started))).flush()) {
    throw std::runtime_error(fmt::format("could not write the JUnit XML to {}", options.junit_path));
  }
  if (options.json) {
    print_json_line(io.out, check_json(results));
  } else {
    print_check_text(io.out, results);
  }
  return std::all_of(results.begin(), results.end(), [](const CheckResult& r) { return r.passed(); }) ? exit_ok
                                                                                                       : exit_found;
}

}  // namespace

void add_check_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* check = commands.add(
      rjsim, "check",
      "every scenario under PATH as a CI regression: a summary table, JUnit XML, exit 1 on any "
      "failure",
      {"rjsim check scenarios/ --junit build/junit.xml --jobs 4",
       "rjsim check scenarios/ --update-golden      # record the current behaviour as golden"});
  check->add_option("PATH", options->paths, "scenario files, or directories searched for *.yaml")
      ->type_name("")
      ->required();
  check->add_option("--junit", options->junit_path, "also write the results as JUnit XML to F")
      ->type_name("F");
  add_db_option(*check, options->db_path,
                "the SQLite database failing runs are stored in, for `rjsim replay` (\"\": none)");
  add_jobs_option(*check, options->jobs);
  check
      ->add_option("--explore-budget", options->explore_budget,
                   "how far to explore scenarios that have faults: a number of schedules (500) "
                   "or a duration (5s)")
      ->type_name("B")
      ->check(explore_budget());
  check->add_flag("--update-golden", options->update_golden,
                  "write each scenario's transitions and final state to "
                  "<dir of the yaml>/<scenario name>.golden.json instead of comparing with it");
  add_json_flag(*check, options->json);

  commands.set_action(check, [options](Io& io) { return run_check(*options, io); });
}

}  // namespace rjsim::cli
