// rjsim merge: combine the databases written by explore shards (DESIGN.md §6). Issue 5.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct MergeOptions {
  std::string out_path;
  std::vector<std::string> in_paths;
};

}  // namespace

void add_merge_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<MergeOptions>();
  CLI::App* merge = commands.add(
      rjsim, "merge", "combine the databases written by explore shards into one",
      {"rjsim merge all.db shard0.db shard1.db shard2.db shard3.db"});
  merge->add_option("OUT.db", options->out_path, "the database to write (created if missing)")
      ->type_name("")
      ->required();
  merge->add_option("IN.db", options->in_paths, "the shard databases to read")
      ->type_name("")
      ->required();

  commands.set_action(merge, [options](Io& io) { return not_implemented(io, "merge", 5); });
}

}  // namespace rjsim::cli
