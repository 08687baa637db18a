// rjsim compare: each scenario under each model, and where their transitions and final states
// differ: a behaviour changelog between releases (DESIGN.md §6). Issue 6.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct CompareOptions {
  std::string models;  // comma-separated; split_models() gives the names
  std::vector<std::string> paths;
};

}  // namespace

void add_compare_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* compare = commands.add(
      rjsim, "compare",
      "each scenario under each model: where transitions and final states differ between "
      "releases",
      {"rjsim compare --models kuberay-1.0,kuberay-1.1,kuberay-1.7 scenarios/"});
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

  commands.set_action(compare, [options](Io& io) { return not_implemented(io, "compare", 6); });
}

}  // namespace rjsim::cli
