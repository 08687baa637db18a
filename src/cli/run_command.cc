// rjsim run: one run of a scenario (DESIGN.md §6). Until the scenarios and models exist
// (issue 3), only `rjsim run --demo` works: the built-in kernel demo of cli/demo.h.
#include "cli/commands.h"
#include "cli/demo.h"

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
      return run_kernel_demo(demo);
    }
    if (options->scenario.empty()) {
      throw UsageError(
          "a SCENARIO is required (a scenario file such as scenarios/demo.yaml), or --demo for "
          "the built-in kernel demo");
    }
    return not_implemented(io, "run", 3);
  });
}

}  // namespace rjsim::cli
