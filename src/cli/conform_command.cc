// rjsim conform: replay a recorded trace through a model and report each recorded transition
// as agreed or differs (DESIGN.md §6). Issue 7.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct ConformOptions {
  std::string db_path;
  std::int64_t run_id = 0;  // 0: the last trace run in the database
  std::string controller;
};

}  // namespace

void add_conform_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ConformOptions>();
  CLI::App* conform = commands.add(
      rjsim, "conform",
      "replay a recorded trace through a model: is each recorded transition agreed or different",
      {"rjsim conform traces.db --run 3 --controller kuberay-1.1"});
  conform->add_option("DB", options->db_path, "the database that holds the trace run")
      ->type_name("")
      ->required();
  add_run_id_option(*conform, options->run_id, "the trace run (default: the last one)");
  add_controller_option(*conform, options->controller, "the model to replay it through "
                                                       "(default: kuberay-1.1)");

  commands.set_action(conform, [options](Io& io) { return not_implemented(io, "conform", 7); });
}

}  // namespace rjsim::cli
