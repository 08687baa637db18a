// rjsim explore: search a scenario's schedules for invariant violations, shrink and store what
// is found (DESIGN.md §6). Issue 5.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct ExploreOptions {
  std::string scenario;
  std::string strategy = "random";
  std::int64_t runs = 0;  // 0: until --time or the search is complete
  std::string time;
  std::uint64_t seed = 1;
  bool all = false;
  int jobs = 0;  // 0: one per core
  std::string shard;
  std::string from_trace;
  std::string db_path = "rjsim.db";
  bool json = false;
};

}  // namespace

void add_explore_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ExploreOptions>();
  CLI::App* explore = commands.add(
      rjsim, "explore",
      "search the schedules within a scenario's faults for violations; shrink, store and print "
      "the replay command",
      {"rjsim explore scenarios/suspend-while-initializing.yaml --strategy pct --time 30s",
       "rjsim explore scenarios/x.yaml --shard 0/4 --db shard0.db   # then: rjsim merge"});
  explore->add_option("SCENARIO", options->scenario, "the scenario file (YAML, DESIGN.md §4)")
      ->type_name("")
      ->required();
  explore
      ->add_option("--strategy", options->strategy,
                   "how to search: random, pct, exhaustive or targeted")
      ->type_name("S")
      ->check(one_of({"random", "pct", "exhaustive", "targeted"}))
      ->capture_default_str();
  explore->add_option("--runs", options->runs, "stop after N schedules (1 or more)")
      ->type_name("N")
      ->check(at_least_one());
  explore->add_option("--time", options->time, "stop after D of wall time (500ms, 30s, 2m, 1h)")
      ->type_name("D")
      ->check(duration());
  add_seed_option(*explore, options->seed, "the seed of the search")->capture_default_str();
  explore->add_flag("--all", options->all,
                    "keep searching after the first violation and report every invariant found");
  add_jobs_option(*explore, options->jobs);
  explore
      ->add_option("--shard", options->shard,
                   "search only shard I of N (0 <= I < N), to split a search over machines")
      ->type_name("I/N")
      ->check(shard());
  explore
      ->add_option("--from-trace", options->from_trace,
                   "start from the schedules of the trace runs in database DB")
      ->type_name("DB");
  add_db_option(*explore, options->db_path, "where the counterexamples are stored");
  add_json_flag(*explore, options->json);

  commands.set_action(explore, [options](Io& io) { return not_implemented(io, "explore", 5); });
}

}  // namespace rjsim::cli
