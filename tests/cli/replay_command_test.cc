// rjsim replay (DESIGN §6): a stored run replays as identical (exit 0); a stored run whose events
// differ from what the code does now is shown at its first differing seq, with the transition
// that changed (exit 1); --json and --store; runs that cannot be replayed are bad input (exit 2).
#include "cli/cli.h"
#include "cli_test_support.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "store/database.h"

#include "../store/store_test_support.h"

namespace replay_command_test {
namespace {

namespace fs = std::filesystem;

using rjsim::cli::testing::Result;
using rjsim::cli::testing::contains;
using rjsim::cli::testing::invoke;

using rjsim::store::testing::RawSqlite;
using rjsim::store::testing::ScratchDirectory;

std::string scenario(const char* name) {
  return (fs::path(RJSIM_SOURCE_DIR) / "scenarios" / name).string();
}

// Runs one SQL statement on the database file (to make a recording differ from the code).
void execute(const std::string& db_path, const std::string& sql) { RawSqlite(db_path).execute(sql); }

TEST_CASE("rjsim replay of a stored run prints identical and the log hash, exit 0") {
  ScratchDirectory dir;
  const std::string db = dir.file("identical.db");
  REQUIRE(invoke({"run", scenario("head-restart-while-running.yaml"), "--db", db, "--json"}).code != 2);
  const std::string hash = *rjsim::store::Database::open_existing(db).run(1)->log_hash;
  const Result result = invoke({"replay", db, "--run", "1"});
  CHECK(result.code == 0);
  CHECK(contains(result.out, "identical: "));
  CHECK(contains(result.out, hash));
}

TEST_CASE("rjsim replay shows the first differing seq and the transition that changed, exit 1") {
  ScratchDirectory dir;
  const std::string db = dir.file("diverged.db");
  REQUIRE(invoke({"run", scenario("head-restart-while-running.yaml"), "--db", db}).code != 2);
  // Pretend the recorded model had persisted Failed where the code now persists Running.
  execute(db,
          "UPDATE events SET body = replace(body, '\"to_deployment\":\"Running\"', '\"to_deployment\":\"Failed\"') "
          "WHERE run_id = 1 AND type = 'status.transition' AND body LIKE '%\"to_deployment\":\"Running\"%'");
  const Result result = invoke({"replay", db});
  CHECK(result.code == 1);
  CHECK(contains(result.out, "diverged at seq "));
  CHECK(contains(result.out, "  recorded "));
  CHECK(contains(result.out, "  replayed "));
  CHECK(contains(result.out, "transitions that changed"));
  CHECK(contains(result.out, "rayjob-sample #"));
  CHECK(contains(result.out, "Initializing -> Failed"));
  CHECK(contains(result.out, "Initializing -> Running"));
}

TEST_CASE("rjsim replay --json has the DESIGN §6 fields") {
  ScratchDirectory dir;
  const std::string db = dir.file("json.db");
  REQUIRE(invoke({"run", scenario("head-restart-while-running.yaml"), "--db", db}).code != 2);
  execute(db, "UPDATE events SET actor = 'someone-else' WHERE run_id = 1 AND seq = 3");
  const Result result = invoke({"replay", db, "--run", "1", "--json"});
  CHECK(result.code == 1);
  const nlohmann::json replay = nlohmann::json::parse(result.out);
  CHECK(replay["run_id"] == 1);
  CHECK(replay["identical"] == false);
  CHECK(replay["events"].get<std::int64_t>() > 3);
  CHECK(replay["log_hash"].get<std::string>().size() == 32);
  CHECK(replay["first_difference"]["seq"] == 3);
  CHECK(replay["first_difference"]["recorded"]["actor"] == "someone-else");
  CHECK(replay["first_difference"]["replayed"]["actor"] != "someone-else");
}

TEST_CASE("rjsim replay --json of a damaged event that is not UTF-8 prints valid JSON, not an internal error") {
  // Found by the database fuzzer: nlohmann's dump() throws on a byte that is not UTF-8.
  ScratchDirectory dir;
  const std::string db = dir.file("not-utf8.db");
  REQUIRE(invoke({"run", scenario("head-restart-while-running.yaml"), "--db", db}).code != 2);
  execute(db, "UPDATE events SET actor = CAST(X'75FF72' AS TEXT) WHERE run_id = 1 AND seq = 3");
  const Result result = invoke({"replay", db, "--run", "1", "--json"});
  CHECK(result.code == 1);
  const nlohmann::json replay = nlohmann::json::parse(result.out);
  CHECK(replay["first_difference"]["recorded"]["actor"] == "u\xEF\xBF\xBDr");   // U+FFFD stands for the byte
}

TEST_CASE("rjsim replay --store records the replay as a child run of kind replay") {
  ScratchDirectory dir;
  const std::string db = dir.file("store.db");
  REQUIRE(invoke({"run", scenario("head-restart-while-running.yaml"), "--db", db}).code != 2);
  const Result result = invoke({"replay", db, "--run", "1", "--store"});
  CHECK(result.code == 0);
  CHECK(contains(result.out, "stored as run 2"));
  const rjsim::store::Database database = rjsim::store::Database::open_existing(db);
  const auto replayed = database.run(2);
  REQUIRE(replayed.has_value());
  CHECK(replayed->kind == "replay");
  CHECK(replayed->parent_run == std::optional<std::int64_t>(1));
  CHECK(replayed->log_hash == database.run(1)->log_hash);
}

TEST_CASE("rjsim replay of a missing run, an empty database or the kernel demo is bad input") {
  ScratchDirectory dir;
  const std::string db = dir.file("bad.db");
  CHECK(invoke({"replay", db}).code == 2);   // no such file
  REQUIRE(invoke({"run", "--demo", "--db", db}).code == 0);
  const Result demo = invoke({"replay", db, "--run", "1"});
  CHECK(demo.code == 2);
  CHECK(contains(demo.err, "no run.start header"));
  const Result missing = invoke({"replay", db, "--run", "9"});
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, "no run 9"));
}

}  // namespace

}  // namespace replay_command_test
