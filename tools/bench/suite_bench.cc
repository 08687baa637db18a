// suite_bench: how fast the bundled scenario suite is checked and how fast stored runs replay
// (DESIGN §8, issue 4).
//   - check: every scenario under SCENARIOS loaded and run fault-free against its expectations,
//     every invariant on, as `rjsim check` does with one job; target: the suite in under 2 s.
//   - replay: each of those runs stored in a fresh SQLite file, then read back and replayed with
//     every event compared and every invariant on, as `rjsim replay` does; target: at least
//     100,000 events/s (events of the recorded runs over the time to read and replay them).
// Each figure is printed beside its target with wall and CPU time.
//
//   suite_bench [SCENARIOS_DIR] [ROUNDS]   (default: scenarios/ of the source tree, 5 rounds)
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <string>
#include <vector>

#include "cli/stored_run.h"
#include "engine/scenario_loader.h"
#include "explore/replay.h"
#include "explore/scenario_run.h"
#include "stopwatch.h"
#include "store/database.h"

namespace {

namespace fs = std::filesystem;
using rjsim::bench::Stopwatch;

constexpr double check_target_s = 2.0;
constexpr double replay_target_per_s = 100'000;

std::vector<std::string> scenario_files(const fs::path& root) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One `rjsim check` of the suite: load, run, judge. Returns how many scenarios failed.
int check_suite(const std::vector<std::string>& files, std::int64_t& steps) {
  int failed = 0;
  for (const std::string& file : files) {
    const rjsim::engine::Scenario scenario = rjsim::engine::load_scenario(file);
    rjsim::explore::RunOptions options;
    options.keep_events = false;
    const rjsim::explore::RunReport report = rjsim::explore::run_scenario(scenario, options);
    steps += report.steps;
    if (!report.expectations_hold()) ++failed;
  }
  return failed;
}

// Stores one fault-free run of each scenario in `database`; returns their run ids.
std::vector<std::int64_t> store_runs(const std::vector<std::string>& files, rjsim::store::Database& database) {
  std::vector<std::int64_t> run_ids;
  for (const std::string& file : files) {
    rjsim::explore::RunOptions options;
    options.keep_events = false;
    run_ids.push_back(rjsim::cli::run_and_store(database, rjsim::engine::load_scenario(file), options).run_id);
  }
  return run_ids;
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path root = argc > 1 ? fs::path(argv[1]) : fs::path(RJSIM_SOURCE_DIR) / "scenarios";
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::vector<std::string> files = scenario_files(root);
  if (files.empty()) {
    fmt::print(stderr, "suite_bench: no *.yaml scenarios under {}\n", root.string());
    return 2;
  }

  fmt::print("check: {} scenarios under {}, {} rounds (the best round counts)\n", files.size(), root.string(), rounds);
  double best_wall_s = 1e9;
  std::int64_t steps = 0;
  for (int round = 0; round < rounds; ++round) {
    Stopwatch watch;
    steps = 0;
    if (const int failed = check_suite(files, steps); failed > 0) {
      fmt::print(stderr, "suite_bench: {} scenarios failed their expectations\n", failed);
      return 1;
    }
    best_wall_s = std::min(best_wall_s, watch.wall_seconds());
    if (round == rounds - 1) watch.report_duration("check: bundled suite (last round)", check_target_s);
  }
  fmt::print("check: best round {:.3f} s for {} scenarios, {} steps ({:.0f} steps/s)  target <= {:.1f} s  {}\n",
             best_wall_s, files.size(), steps, static_cast<double>(steps) / best_wall_s, check_target_s,
             best_wall_s <= check_target_s ? "ok" : "ABOVE");

  const fs::path db_path = fs::temp_directory_path() / fmt::format("rjsim-suite-bench-{}.db", ::getpid());
  fs::remove(db_path);
  {
    rjsim::store::Database database = rjsim::store::Database::open(db_path.string());
    const std::vector<std::int64_t> run_ids = store_runs(files, database);
    for (int round = 0; round < rounds; ++round) {
      Stopwatch watch;
      std::int64_t events = 0;
      for (std::int64_t run_id : run_ids) {
        const rjsim::explore::RecordedRun recorded =
            rjsim::cli::recorded_run(database, rjsim::cli::find_run(database, run_id));
        const rjsim::explore::ReplayReport report = rjsim::explore::replay_run(recorded);
        if (!report.identical) {
          fmt::print(stderr, "suite_bench: run {} did not replay as identical\n", run_id);
          return 1;
        }
        events += report.recorded_events;
      }
      if (round == rounds - 1) watch.report_rate("replay: read + re-run + compare", events, "events", replay_target_per_s);
    }
  }
  fs::remove(db_path);
  return 0;
}
