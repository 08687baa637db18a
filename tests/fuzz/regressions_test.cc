// Every input a fuzzer once crashed on (tests/fuzz/regressions/<target>/), and every seed
// (tests/fuzz/seeds/<target>/), run through its target as a plain test: each must load or be
// refused with a message that says where (fuzz_targets.h). A target that meets a defect aborts,
// which fails the test binary and names the input in the line before.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "cli/cli.h"
#include "fuzz_targets.h"
#include "test_files.h"

namespace rjsim::fuzz {
namespace regressions_test {
namespace {

// Changes a database the way another program could: one SQL script, outside rjsim's store.
void execute_sql(const std::string& db, const char* sql) {
  sqlite3* handle = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &handle) == SQLITE_OK);
  CHECK(sqlite3_exec(handle, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(handle);
}

// A copy of `db` at `copy`, changed by `sql`; returns its path.
std::string changed_copy(const std::string& db, const std::filesystem::path& copy, const char* sql) {
  std::filesystem::copy_file(db, copy);
  execute_sql(copy.string(), sql);
  return copy.string();
}

// Runs the database target on the file (it must not abort on it), then `rjsim COMMAND file`,
// which must refuse it as bad input (exit 2); returns what the command printed on stderr.
std::string refusal(const std::string& command, const std::string& file) {
  find_fuzz_target("database")->run(testing::read_bytes(file));
  std::ostringstream out, err;
  CHECK(cli::run_cli({command, file}, out, err) == 2);
  return err.str();
}

// The files under tests/fuzz/<folder>/<target>/, sorted.
std::vector<std::filesystem::path> inputs(const std::string& folder, std::string_view target) {
  const std::filesystem::path dir = std::filesystem::path(RJSIM_SOURCE_DIR) / "tests" / "fuzz" / folder / target;
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("fuzz regressions and seeds: every input loads or is refused with a message that says where") {
  for (const FuzzTarget& target : fuzz_targets()) {
    for (const std::string folder : {"regressions", "seeds"}) {
      for (const std::filesystem::path& file : inputs(folder, target.name)) {
        INFO("fuzz target ", target.name, ": ", file.string());   // reported if the target aborts
        target.run(testing::read_bytes(file));
      }
    }
    // Every text format has a seed here; the database target's seeds are runs tools/fuzz records.
    if (target.name != "database") CHECK_FALSE(inputs("seeds", target.name).empty());
  }
}

TEST_CASE("fuzz target database: a database rjsim wrote is shown and replayed; a damaged one is bad input") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rjsim-fuzz-regressions-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "seed.db").string();
  const std::string scenario = std::string(RJSIM_SOURCE_DIR) + "/tests/fuzz/seeds/scenario/minimal.yaml";
  std::ostringstream out, err;
  REQUIRE(cli::run_cli({"run", scenario, "--db", db}, out, err) == 0);
  const std::string bytes = testing::read_bytes(db);
  find_fuzz_target("database")->run(bytes);

  // Cut short, as libFuzzer's length limit cut the first seed (the database fuzzer's first find):
  // SQLite finds it corrupt, which is bad input (exit 2) naming the file, not an internal error.
  const std::string damaged = (dir / "damaged.db").string();
  testing::write_bytes(damaged, bytes.substr(0, bytes.size() * 9 / 10));
  CHECK(refusal("show", damaged).find(damaged + ": not a readable SQLite database: it is damaged (") !=
        std::string::npos);

  // A header whose schema format number (bytes 44-47) no SQLite knows: the fuzzer's second find,
  // a plain SQLITE_ERROR ("unsupported file format") on the first read.
  const std::string unsupported = (dir / "unsupported.db").string();
  std::string header_damaged = bytes;
  header_damaged[47] = 9;
  testing::write_bytes(unsupported, header_damaged);
  const std::string unsupported_refusal = refusal("show", unsupported);
  CHECK(unsupported_refusal.find(unsupported + ": not a readable ") != std::string::npos);
  CHECK(unsupported_refusal.find("unsupported file format") != std::string::npos);

  // A schema changed under rjsim (the fuzzer rewrote the transitions view to call a function that
  // does not exist): its statements no longer prepare, which is bad input too.
  const std::string changed =
      changed_copy(db, dir / "changed.db", "DROP VIEW transitions; CREATE VIEW transitions AS SELECT 1 AS run_id");
  CHECK(refusal("show", changed).find(changed + ": not a readable rjsim database: its schema was changed (") !=
        std::string::npos);

  // An event body that is not JSON (the fuzzer's fourth find): the transitions view's json_extract
  // fails while stepping, "malformed JSON", which is bad input too.
  const std::string body_damaged = changed_copy(db, dir / "body-damaged.db",
                                                "UPDATE events SET body = '{\"from\":' WHERE type = 'status.transition'");
  CHECK(refusal("show", body_damaged)
            .find(body_damaged + ": not a readable rjsim database: a stored event's body is not JSON") !=
        std::string::npos);
  CHECK(refusal("replay", body_damaged).find("body is not a valid event body") != std::string::npos);

  // A view rewritten with a JSON path that is not one (the fuzzer's fifth find): it prepares, and
  // fails while stepping ("JSON path error"); bad input as well.
  const std::string path_damaged = changed_copy(
      db, dir / "path-damaged.db",
      "DROP VIEW transitions; CREATE VIEW transitions AS SELECT run_id, seq, at_ms, object AS rayjob, "
      "json_extract(body, 'x.to') AS from_deployment, '' AS to_deployment, '' AS from_job_status, "
      "'' AS to_job_status, '' AS reason FROM events WHERE type = 'status.transition'");
  CHECK(refusal("show", path_damaged)
            .find(path_damaged + ": not a readable rjsim database: its schema or contents were changed (JSON path "
                                 "error") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("fuzz targets: a defect is what the targets are for, so refusals must not be one") {
  // Bad input of each kind is refused quietly: these would abort the test binary if not.
  find_fuzz_target("scenario")->run("apiVersion: rjsim/v1\nkind: Scenario\nname: [\n");
  find_fuzz_target("rayjob_manifest")->run("spec: {entrypoint: [1, 2]}\n");
  find_fuzz_target("kubectl_watch_json")->run("{\"type\": \"ADDED\", \"object\": 7}\nnot json\n");
  find_fuzz_target("audit")->run("{\"kind\": \"Event\"}\n");
  find_fuzz_target("watch_stream")->run("\x01\x02\n{}\n");
  find_fuzz_target("database")->run("SQLite format 3\0 not really");
  CHECK(find_fuzz_target("no-such-target") == nullptr);
}

}  // namespace regressions_test
}  // namespace rjsim::fuzz
