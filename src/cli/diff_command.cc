// rjsim diff: where two recorded runs first differ (DESIGN.md §6). Issue 4.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct DiffOptions {
  std::string db_path;
  std::int64_t run_a = 0;
  std::int64_t run_b = 0;
};

}  // namespace

void add_diff_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* diff = commands.add(
      rjsim, "diff",
      "where two runs (or one scenario under two models) first differ (exit 1 if they do)",
      {"rjsim diff rjsim.db 12 13"});
  diff->add_option("DB", options->db_path, "the database that holds both runs")
      ->type_name("")
      ->required();
  diff->add_option("RUN_A", options->run_a, "the first run's id")
      ->type_name("")
      ->required()
      ->check(run_id());
  diff->add_option("RUN_B", options->run_b, "the second run's id")
      ->type_name("")
      ->required()
      ->check(run_id());

  commands.set_action(diff, [options](Io& io) { return not_implemented(io, "diff", 4); });
}

}  // namespace rjsim::cli
