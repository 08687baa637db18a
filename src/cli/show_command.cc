// rjsim show: a recorded run's timeline, transition graph and violations (DESIGN.md §6). Issue 4.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct ShowOptions {
  std::string db_path;
  std::int64_t run_id = 0;  // 0: the last run in the database
  std::string format = "text";
};

}  // namespace

void add_show_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* show = commands.add(
      rjsim, "show", "a recorded run: its timeline, transition graph and violations",
      {"rjsim show rjsim.db --run 12 --format mermaid"});
  show->add_option("DB", options->db_path, "the database that holds the run")
      ->type_name("")
      ->required();
  add_run_id_option(*show, options->run_id, "the run to show (default: the last one)");
  show
      ->add_option("--format", options->format,
                   "text, json, dot, mermaid, kubectl-watch or html")
      ->type_name("FMT")
      ->check(one_of({"text", "json", "dot", "mermaid", "kubectl-watch", "html"}))
      ->capture_default_str();

  commands.set_action(show, [options](Io& io) { return not_implemented(io, "show", 4); });
}

}  // namespace rjsim::cli
