// rjsim merge: combines the databases written by explore shards (DESIGN.md §6). Every run of
// every input is copied whole into OUT (created if missing), inputs in the order given and runs
// in run_id order, each under a new run_id; parent_run links are mapped to the new ids, so a
// shrunk counterexample still points at its original. Each run is one transaction of OUT.
// An input that is missing or not an rjsim database is bad input (exit 2), found before
// anything is written.
#include "cli/commands.h"

#include <map>
#include <memory>

#include <fmt/format.h>

#include "store/copy_run.h"
#include "store/database.h"

namespace rjsim::cli {
namespace {

struct MergeOptions {
  std::string out_path;
  std::vector<std::string> in_paths;
};

int merge_databases(const MergeOptions& options, Io& io) {
  std::vector<store::Database> inputs;
  for (const std::string& path : options.in_paths) {
    if (path == options.out_path) throw UsageError(fmt::format("IN.db {} is also OUT.db; merge into a new file", path));
    inputs.push_back(store::Database::open_existing(path));
  }
  store::Database out = store::Database::open(options.out_path);
  std::int64_t copied = 0;
  for (const store::Database& input : inputs) {
    std::map<std::int64_t, std::int64_t> new_ids;   // this input's run_id -> OUT's
    for (const store::RunInfo& run : input.runs()) {
      std::optional<std::int64_t> parent;
      if (run.parent_run) {
        auto mapped = new_ids.find(*run.parent_run);
        if (mapped != new_ids.end()) parent = mapped->second;
      }
      new_ids[run.run_id] = store::copy_run(input, run.run_id, out, parent);
      ++copied;
    }
  }
  io.out << fmt::format("merged {} runs from {} databases into {}\n", copied, inputs.size(), options.out_path);
  return 0;
}

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

  commands.set_action(merge, [options](Io& io) { return merge_databases(*options, io); });
}

}  // namespace rjsim::cli
