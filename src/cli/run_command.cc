// rjsim run: one run of a scenario (DESIGN.md §6). Until the scenarios and models exist
// (issue 3), only `rjsim run --demo` works: the built-in kernel demo of cli/demo.h.
#include "cli/commands.h"
#include "cli/demo.h"
#include "cli/json_output.h"
#include "cli/run_output.h"
#include "cli/stored_run.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"
#include "models/registry.h"
#include "store/database.h"

#include <fmt/format.h>
#include <optional>

#include <memory>

namespace rjsim::cli {
namespace {

struct RunOptions {
  std::string scenario;
  std::string db_path = "rjsim.db";
  std::uint64_t seed = 1;
  std::string controller;
  bool faults = false;
  bool json = false;
  bool demo = false;
};

// Loads the scenario (bad input throws before anything is written), runs it, stores the run
// whole, prints it. Exit 0 when the scenario's expectations hold, 1 otherwise.
int run_scenario_file(const RunOptions& options, bool seed_given, Io& io) {
  const engine::Scenario scenario = engine::load_scenario(options.scenario);
  explore::RunOptions run;
  if (seed_given) run.seed = options.seed;
  run.controller = options.controller;
  run.faults = options.faults;
  if (!options.controller.empty() && models::canonical_model_name(options.controller).empty()) {
    throw UsageError(fmt::format("--controller: no model named \"{}\"", options.controller));
  }
  StoredRun stored;
  if (options.db_path.empty()) {
    stored.report = explore::run_scenario(scenario, run);
  } else {
    store::Database database = store::Database::open(options.db_path);
    stored = run_and_store(database, scenario, run);
  }
  const explore::RunReport& report = stored.report;
  const std::int64_t run_id = stored.run_id;
  if (options.json) {
    print_json_line(io.out, run_json(report, run_id));
  } else {
    print_run_text(io.out, report, run_id, options.db_path);
  }
  return report.expectations_hold() ? 0 : 1;
}

}  // namespace

void add_run_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = commands.add(
      rjsim, "run",
      "one run of a scenario: prints a readable timeline and the transitions, records the run",
      {"rjsim run scenarios/suspend-while-initializing.yaml --seed 7 --db runs.db",
       "rjsim run --demo --db demo.db      # the built-in kernel demo (works today)"});
  run->add_option("SCENARIO", options->scenario, "the scenario file (YAML, DESIGN.md §4)")
      ->type_name("");
  add_db_option(*run, options->db_path, "the SQLite database the run is recorded in");
  CLI::Option* seed = add_seed_option(
      *run, options->seed, "the chooser's seed (default: the scenario's seed, else 1)");
  CLI::Option* controller = add_controller_option(
      *run, options->controller, "the model to run (default: the scenario's, else kuberay-1.1)");
  run->add_flag("--faults", options->faults,
                "let the chooser draw faults within the scenario's budget, from --seed "
                "(default: the fault-free run)");
  add_json_flag(*run, options->json);
  run->add_flag("--demo", options->demo,
                "run the built-in kernel demo instead of a scenario (until bundled scenarios "
                "exist)");

  commands.set_action(run, [options, seed, controller](Io& io) -> int {
    if (options->demo) {
      if (!options->scenario.empty()) {
        throw UsageError("give either a SCENARIO or --demo, not both");
      }
      if (controller->count() > 0) {
        throw UsageError("--controller does not apply to --demo (the demo has its own tiny "
                         "controller); drop one of them");
      }
      DemoOptions demo;
      demo.db_path = options->db_path;
      demo.seed = seed->count() > 0 ? options->seed : 1;
      demo.random_schedule = options->faults;
      demo.json = options->json;
      return run_kernel_demo(demo, io.out);
    }
    if (options->scenario.empty()) {
      throw UsageError(
          "a SCENARIO is required (a scenario file such as scenarios/demo.yaml), or --demo for "
          "the built-in kernel demo");
    }
    return run_scenario_file(*options, seed->count() > 0, io);
  });
}

}  // namespace rjsim::cli
