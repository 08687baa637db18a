// rjsim replay: re-execute a recorded run from its inputs and compare every effect
// (DESIGN.md §6). Issue 4.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct ReplayOptions {
  std::string db_path;
  std::int64_t run_id = 0;  // 0: the last run in the database
};

}  // namespace

void add_replay_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ReplayOptions>();
  CLI::App* replay = commands.add(
      rjsim, "replay",
      "re-execute a recorded run from its inputs and compare every effect (exit 1 if it "
      "diverges)",
      {"rjsim replay rjsim.db --run 12"});
  replay->add_option("DB", options->db_path, "the database that holds the run")
      ->type_name("")
      ->required();
  add_run_id_option(*replay, options->run_id, "the run to replay (default: the last one)");

  commands.set_action(replay, [options](Io& io) { return not_implemented(io, "replay", 4); });
}

}  // namespace rjsim::cli
