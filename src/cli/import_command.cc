// rjsim import: turn a recorded cluster trace into a `trace` run (DESIGN.md §6). Issue 7.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct ImportOptions {
  std::vector<std::string> files;
  std::string format;
  std::string db_path = "rjsim.db";
  bool skip_bad = false;
  bool json = false;
};

}  // namespace

void add_import_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* import = commands.add(
      rjsim, "import", "turn a recorded cluster trace into a trace run in the database",
      {"rjsim import watch.log --format kubectl-watch --db traces.db"});
  import->add_option("FILE", options->files, "the recorded trace files, in order")
      ->type_name("")
      ->required();
  import
      ->add_option("--format", options->format,
                   "what the files are: kubectl-watch, audit or watch-stream")
      ->type_name("FMT")
      ->check(one_of({"kubectl-watch", "audit", "watch-stream"}))
      ->required();
  add_db_option(*import, options->db_path, "the database the trace run is written to");
  import->add_flag("--skip-bad", options->skip_bad,
                   "skip records that do not parse (and count them) instead of failing");
  add_json_flag(*import, options->json);

  commands.set_action(import, [options](Io& io) { return not_implemented(io, "import", 7); });
}

}  // namespace rjsim::cli
