// rjsim compare: each scenario under each model, and where their transitions and final states
// differ: a behaviour changelog between releases (DESIGN.md §6, cli/behaviour_changelog.h). Each
// scenario's fault-free run is taken (its `faults` are ignored: exploration is `rjsim check`'s
// and `rjsim explore`'s job), whatever controller the file names. The runs go in parallel
// (--jobs) and come out in file order. Bad input (a flag, a scenario file) exits 2 before anything
// runs, listing every bad file. Nothing is written. Exit 0 whatever the models do.
#include "cli/commands.h"

#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/behaviour_changelog.h"
#include "cli/cli.h"
#include "cli/json_output.h"
#include "cli/parallel_runs.h"
#include "cli/scenario_files.h"
#include "engine/scenario_loader.h"
#include "models/registry.h"

namespace rjsim::cli {
namespace {

struct CompareOptions {
  std::string models;  // comma-separated; split_models() gives the names
  std::vector<std::string> paths;
  std::string format = "text";
  int jobs = 0;  // 0: one per core
  bool json = false;
};

// Every scenario file, loaded; each bad one adds its message to `errors`.
std::vector<engine::Scenario> load_scenarios(const std::vector<std::string>& files, std::vector<std::string>& errors) {
  std::vector<engine::Scenario> scenarios;
  for (const std::string& file : files) {
    try {
      scenarios.push_back(engine::load_scenario(file));
    } catch (const engine::ScenarioError& e) {
      errors.push_back(e.what());
    }
  }
  return scenarios;
}

// The scenario as `model` runs it: that controller, no fault budget.
engine::Scenario under_model(engine::Scenario scenario, const std::string& model) {
  scenario.controller = model;
  scenario.has_faults = false;
  scenario.faults = {};
  return scenario;
}

std::vector<ScenarioComparison> compare(const std::vector<engine::Scenario>& scenarios,
                                        const std::vector<std::string>& models, int jobs) {
  std::vector<engine::Scenario> runs;
  for (const engine::Scenario& scenario : scenarios) {
    for (const std::string& model : models) runs.push_back(under_model(scenario, model));
  }
  const std::vector<TimedRun> reports = run_in_parallel(runs, jobs);
  std::vector<ScenarioComparison> comparisons;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    std::vector<ModelBehaviour> behaviours;
    for (std::size_t m = 0; m < models.size(); ++m) {
      behaviours.push_back(behaviour_of(models[m], reports[i * models.size() + m].report));
    }
    comparisons.push_back(compare_behaviours(scenarios[i].name, scenarios[i].file, std::move(behaviours)));
  }
  return comparisons;
}

// Each model of --models must be one that can run (the validator knows every name of DESIGN §2).
void require_runnable(const std::vector<std::string>& models) {
  for (const std::string& model : models) {
    if (models::canonical_model_name(model).empty()) {
      throw UsageError(fmt::format("--models: no model named \"{}\" yet (models: {})", model,
                                   fmt::join(models::model_names(), ", ")));
    }
  }
}

int run_compare(const CompareOptions& options, Io& io) {
  const std::vector<std::string> models = split_models(options.models);
  require_runnable(models);
  const std::vector<std::string> files = scenario_files(options.paths);
  std::vector<std::string> errors;
  const std::vector<engine::Scenario> scenarios = load_scenarios(files, errors);
  if (!errors.empty()) {
    for (const std::string& error : errors) io.err << "rjsim compare: " << error << "\n";
    io.err << fmt::format("rjsim compare: {} of {} scenario files are bad input; nothing was run\n", errors.size(),
                          files.size());
    return exit_bad_input;
  }
  const std::vector<ScenarioComparison> comparisons = compare(scenarios, models, worker_threads(options.jobs));
  if (options.json) {
    print_json_line(io.out, changelog_json(models, comparisons));
  } else if (options.format == "markdown") {
    io.out << changelog_markdown(models, comparisons);
  } else {
    io.out << changelog_text(models, comparisons);
  }
  return exit_ok;
}

}  // namespace

void add_compare_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* compare = commands.add(
      rjsim, "compare",
      "each scenario under each model: where transitions and final states differ between "
      "releases",
      {"rjsim compare --models kuberay-1.0,kuberay-1.1,kuberay-1.7 scenarios/",
       "rjsim compare --models kuberay-1.1,kuberay-1.7 scenarios/ --format markdown > CHANGES.md"});
  compare
      ->add_option("--models", options->models,
                   "two or more models, separated by commas (" +
                       [] {
                         std::string names;
                         for (const std::string& name : model_names()) {
                           names += (names.empty() ? "" : ", ") + name;
                         }
                         return names;
                       }() +
                       ")")
      ->type_name("M1,M2,...")
      ->required()
      ->check(model_list());
  compare
      ->add_option("PATH", options->paths, "scenario files, or directories searched for *.yaml")
      ->type_name("")
      ->required();
  compare->add_option("--format", options->format, "text (default) or markdown")
      ->type_name("F")
      ->check(one_of({"text", "markdown"}));
  add_jobs_option(*compare, options->jobs);
  add_json_flag(*compare, options->json);

  commands.set_action(compare, [options](Io& io) { return run_compare(*options, io); });
}

}  // namespace rjsim::cli
