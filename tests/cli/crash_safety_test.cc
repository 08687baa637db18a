// Crash safety of the event log (issue 34): a process writing runs is killed with SIGKILL at
// several points, before its first transaction, in the middle of one and between two; and a run
// meets a full disk. Each time the database must open cleanly, hold only whole runs (each with its
// outcome and log hash), and every stored run must replay identically.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "recorded_runs.h"
#include "store/database.h"
#include "test_files.h"

namespace rjsim::cli::testing {
namespace crash_safety_test {
namespace {

// How many runs `db` holds now, read beside the writer (WAL readers do not block it); 0 while the
// file does not exist or is still being created.
std::size_t committed_runs(const std::string& db) {
  try {
    return store::Database::open_existing(db).runs().size();
  } catch (const std::exception&) {
    return 0;
  }
}

// Where a kill lands: once `db` holds `after_runs` committed runs (0: from the start), `delay` later.
struct KillPoint {
  std::size_t after_runs = 0;
  std::chrono::milliseconds delay{0};
};

// Runs `rjsim run` into `db` over and over in a child process, and kills it at `point`.
void write_runs_then_kill(const std::string& db, KillPoint point) {
  const std::string scenario = bundled_scenario("suspend-in-running-then-resume");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {   // never returns into the test runner: it is killed, or exits on its own
    try {
      for (;;) {
        std::ostringstream out, err;
        if (run_cli({"run", scenario, "--db", db}, out, err) > 1) {
          std::ofstream(db + ".child-error") << err.str();
          _exit(3);
        }
      }
    } catch (...) {
      _exit(4);
    }
  }
  // The wall clock only places the kill; nothing is asserted about time.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (committed_runs(db) < point.after_runs && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::this_thread::sleep_for(point.delay);
  REQUIRE(kill(child, SIGKILL) == 0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  INFO("the writer's own error: ", rjsim::testing::read_bytes(db + ".child-error"));
  CHECK(WIFSIGNALED(status));   // killed while writing, not ended by an error of its own
}

// The database opens as the next writer opens it (a file killed before its schema was committed
// is taken as new), every run in it is whole, and every run replays identically. Returns how many
// runs it holds.
std::size_t check_whole_runs(const std::string& db) {
  const store::Database database = store::Database::open(db);
  const std::vector<store::RunInfo> runs = database.runs();
  for (const store::RunInfo& run : runs) {
    CAPTURE(run.run_id);
    CHECK(run.outcome.has_value());
    CHECK(run.log_hash.has_value());
    const Result replayed = invoke({"replay", db, "--run", std::to_string(run.run_id)});
    CHECK(replayed.code == 0);
  }
  return runs.size();
}

}  // namespace

TEST_CASE("SIGKILL while runs are written: the database opens, holds whole runs only, each replays") {
  ScratchDirectory scratch;
  // How long one run takes here (a sanitizer build is several times slower), to place kills
  // inside the transaction of the run after a commit.
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(invoke({"run", bundled_scenario("suspend-in-running-then-resume"), "--db", scratch.file("timed.db")}).code == 0);
  const auto one_run = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  std::vector<KillPoint> points;
  // Creating the file and its schema takes a few milliseconds: these land in the creation.
  for (const int ms : {0, 2, 4, 6, 8, 10, 15, 25}) points.push_back({0, std::chrono::milliseconds(ms)});
  // These right after a commit, and inside the next run's transaction.
  for (const int tenths : {0, 3, 6, 9}) points.push_back({1 + std::size_t(tenths / 6), one_run * tenths / 10});
  std::size_t most_runs = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto after_runs = points[i].after_runs;
    const auto ms = points[i].delay.count();
    CAPTURE(after_runs);
    CAPTURE(ms);
    const std::string db = scratch.file("killed-" + std::to_string(i) + ".db");
    write_runs_then_kill(db, points[i]);
    if (!std::filesystem::exists(db)) continue;   // killed before it created the file
    most_runs = std::max(most_runs, check_whole_runs(db));
  }
  CHECK(most_runs >= 1);   // the later kills land after a commit, and in the next run's transaction
}

TEST_CASE("a full disk: a clear error naming the file, no partial run, the earlier runs intact") {
  ScratchDirectory scratch;
  const std::string mount_point = scratch.file("small-disk");
  std::filesystem::create_directories(mount_point);
  if (std::system(("mount -t tmpfs -o size=700k tmpfs " + mount_point + " > /dev/null 2>&1").c_str()) != 0) {
    MESSAGE("skipped: cannot mount a small tmpfs here (needs root and a kernel that lets it)");
    return;
  }
  struct Unmount {
    std::string at;
    ~Unmount() { [[maybe_unused]] const int rc = std::system(("umount " + at + " > /dev/null 2>&1").c_str()); }
  } unmount{mount_point};
  const std::string db = mount_point + "/runs.db";
  Result failed;
  for (int attempt = 0; attempt < 10; ++attempt) {
    failed = invoke({"run", bundled_scenario("suspend-in-running-then-resume"), "--db", db});
    if (failed.code > 1) break;
  }
  REQUIRE(failed.code == 3);
  CHECK(contains(failed.err, db + ": SQLite failed while"));
  CHECK(contains(failed.err, "database or disk is full"));
  CHECK(contains(failed.err, "no partial run was kept"));
  CHECK(check_whole_runs(db) >= 1);
}

}  // namespace crash_safety_test
}  // namespace rjsim::cli::testing
