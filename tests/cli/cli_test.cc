// The rjsim command line (DESIGN.md §6), driven in-process through run_cli.
#include "cli/cli.h"
#include "cli_test_support.h"
#include "store/store_error.h"

#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cli_test {
namespace {

using rjsim::cli::testing::contains;
using rjsim::cli::testing::invoke;
using rjsim::cli::testing::Result;

const std::vector<std::string> all_commands = {"run",     "check", "explore", "replay",  "import",
                                               "conform", "show",  "diff",    "compare", "merge"};

}  // namespace

TEST_CASE("rjsim --help lists every command of DESIGN §6 and exits 0") {
  Result result = invoke({"--help"});
  CHECK(result.code == 0);
  CHECK(result.err.empty());
  for (const std::string& command : all_commands) {
    INFO("command: ", command);
    CHECK(contains(result.out, "\n  " + command + " "));
  }
}

TEST_CASE("every command's --help shows its usage and an example invocation") {
  for (const std::string& command : all_commands) {
    INFO("command: ", command);
    Result result = invoke({command, "--help"});
    CHECK(result.code == 0);
    CHECK(contains(result.out, "Usage: rjsim " + command));
    CHECK(contains(result.out, "Example"));
    CHECK(contains(result.out, "\n  rjsim " + command + " "));
  }
}

TEST_CASE("rjsim --version prints the version") {
  Result result = invoke({"--version"});
  CHECK(result.code == 0);
  CHECK(result.out == "rjsim " RJSIM_VERSION "\n");
  CHECK(std::string(RJSIM_VERSION) == "0.1.0");
}

TEST_CASE("a command not built yet exits 3 and names its issue") {
  // Take a command out of this list when it is built.
  struct Pending {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Pending> pending = {};
  for (const Pending& command : pending) {
    INFO("args[0]: ", command.args[0]);
    Result result = invoke(command.args);
    CHECK(result.code == 3);
    CHECK(result.out.empty());
    CHECK(result.err == command.message);
  }
}

TEST_CASE("every flag of DESIGN §6 parses") {
  // Parsing only (parse_cli): this holds whatever each command does today.
  const std::vector<std::vector<std::string>> invocations = {
      {"run", "s.yaml", "--db", "f.db", "--seed", "7", "--controller", "kuberay-1.7", "--faults",
       "--json"},
      {"run", "--demo", "--db", "f.db", "--seed", "18446744073709551615", "--faults", "--json"},
      {"check", "a/", "b.yaml", "--junit", "j.xml", "--jobs", "2", "--explore-budget", "500",
       "--update-golden", "--json"},
      {"check", "a/", "--explore-budget", "5s"},
      {"explore", "s.yaml", "--strategy", "exhaustive", "--runs", "10", "--time", "2m", "--seed",
       "3", "--all", "--jobs", "4", "--shard", "3/4", "--from-trace", "t.db", "--db", "f.db",
       "--json"},
      {"explore", "s.yaml", "--strategy", "pct", "--time", "500ms"},
      {"replay", "f.db", "--run", "12"},
      {"import", "a.log", "b.log", "--format", "audit", "--db", "f.db", "--skip-bad", "--json"},
      {"import", "a.log", "--format", "watch-stream"},
      {"conform", "f.db", "--run", "1", "--controller", "kuberay-latest"},
      {"conform", "f.db", "--json", "--show-scenario"},
      {"show", "f.db", "--run", "2", "--format", "mermaid"},
      {"show", "f.db", "--format", "kubectl-watch"},
      {"diff", "f.db", "1", "2"},
      {"diff", "f.db", "1", "2", "--json"},
      {"compare", "--models", "kuberay-1.0,kuberay-1.1,kuberay-1.7", "a/", "b/"},
      {"merge", "out.db", "in.db"},
  };
  for (const auto& args : invocations) {
    INFO("args: ", args[0], " ", args[1]);
    std::ostringstream out;
    std::ostringstream err;
    rjsim::cli::ParsedCommandLine parsed = rjsim::cli::parse_cli(args, out, err);
    CHECK(parsed.command == args[0]);
    CHECK(parsed.exit_code == 0);
    CHECK(err.str().empty());
  }
}

TEST_CASE("an unknown flag is a usage error: exit 2, CLI11's message on stderr") {
  Result result = invoke({"run", "--bogus"});
  CHECK(result.code == 2);
  CHECK(result.out.empty());
  CHECK(contains(result.err, "rjsim run: "));
  CHECK(contains(result.err, "--bogus"));

  Result top = invoke({"--bogus"});
  CHECK(top.code == 2);
  CHECK(contains(top.err, "--bogus"));
}

TEST_CASE("a missing or unknown command, or a missing argument, is a usage error (exit 2)") {
  Result none = invoke({});
  CHECK(none.code == 2);
  CHECK(contains(none.err, "rjsim: a COMMAND is required (one of run, check, explore"));
  Result unknown = invoke({"nosuchcommand"});
  CHECK(unknown.code == 2);
  CHECK(contains(unknown.err, "rjsim: \"nosuchcommand\" is not a command (use one of run, "));
  Result check = invoke({"check"});
  CHECK(check.code == 2);
  CHECK(contains(check.err, "PATH is required"));
  Result import = invoke({"import", "w.log"});
  CHECK(import.code == 2);
  CHECK(contains(import.err, "--format is required"));
  CHECK(invoke({"diff", "f.db", "1"}).code == 2);
  CHECK(invoke({"merge", "out.db"}).code == 2);
  CHECK(invoke({"run", "--db"}).code == 2);
}

TEST_CASE("a bad flag value exits 2 with a message naming the flag and what would be right") {
  struct Bad {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Bad> bad = {
      {{"check", "a/", "--jobs", "0"}, "--jobs: \"0\" is not a whole number of 1 or more"},
      {{"explore", "s.yaml", "--jobs", "many"}, "--jobs: \"many\""},
      {{"explore", "s.yaml", "--strategy", "dfs"},
       "--strategy: \"dfs\" is not one of random, pct, exhaustive, targeted"},
      {{"explore", "s.yaml", "--shard", "4/4"}, "--shard: \"4/4\" is not a shard (use I/N"},
      {{"explore", "s.yaml", "--shard", "1"}, "--shard: \"1\" is not a shard"},
      {{"explore", "s.yaml", "--time", "10x"}, "--time: \"10x\" is not a duration"},
      {{"explore", "s.yaml", "--runs", "0"}, "--runs: \"0\""},
      {{"show", "f.db", "--format", "xml"},
       "--format: \"xml\" is not one of text, json, dot, mermaid, kubectl-watch, html"},
      {{"import", "w.log", "--format", "json"},
       "--format: \"json\" is not one of kubectl-watch, audit, watch-stream"},
      {{"run", "s.yaml", "--controller", "kuberay-2.0"},
       "--controller: \"kuberay-2.0\" is not a model (use one of kuberay-1.0"},
      {{"run", "s.yaml", "--seed", "-1"}, "--seed: \"-1\" is not a seed"},
      {{"replay", "f.db", "--run", "0"}, "--run: \"0\" is not a run id"},
      {{"diff", "f.db", "1", "two"}, "RUN_B: \"two\" is not a run id"},
      {{"check", "a/", "--explore-budget", "lots"}, "--explore-budget: \"lots\" is not a budget"},
      {{"compare", "--models", "kuberay-1.1", "a/"}, "--models: \"kuberay-1.1\" names one model"},
      {{"compare", "--models", "kuberay-1.1,nope", "a/"}, "--models: \"nope\" is not a model"},
  };
  for (const Bad& invocation : bad) {
    INFO("expected message: ", invocation.message);
    Result result = invoke(invocation.args);
    CHECK(result.code == 2);
    CHECK(result.out.empty());
    CHECK(contains(result.err, invocation.message));
  }
}

TEST_CASE("rjsim run needs exactly one of SCENARIO and --demo") {
  Result neither = invoke({"run"});
  CHECK(neither.code == 2);
  CHECK(contains(neither.err, "rjsim run: a SCENARIO is required"));

  Result both = invoke({"run", "--demo", "s.yaml"});
  CHECK(both.code == 2);
  CHECK(contains(both.err, "give either a SCENARIO or --demo, not both"));

  Result controller = invoke({"run", "--demo", "--controller", "kuberay-1.1"});
  CHECK(controller.code == 2);
  CHECK(contains(controller.err, "--controller does not apply to --demo"));
}

TEST_CASE("an exception escaping a command is an internal error: exit 3") {
  std::ostringstream err;
  int code = rjsim::cli::run_guarded(
      "run", []() -> int { throw std::runtime_error("the world broke"); }, err);
  CHECK(code == 3);
  CHECK(err.str() == "rjsim: internal error: the world broke\n");
}

TEST_CASE("a StoreError is bad input: exit 2 with the store's message") {
  std::ostringstream err;
  int code = rjsim::cli::run_guarded(
      "replay", []() -> int { throw rjsim::store::StoreError("x.db: not an rjsim database"); },
      err);
  CHECK(code == 2);
  CHECK(err.str() == "rjsim replay: x.db: not an rjsim database\n");
}

TEST_CASE("a DatabaseError (SQLite failed on a good file) is an internal error: exit 3") {
  std::ostringstream err;
  int code = rjsim::cli::run_guarded(
      "run", []() -> int { throw rjsim::store::DatabaseError("x.db: disk I/O error"); }, err);
  CHECK(code == 3);
  CHECK(err.str() == "rjsim: internal error: x.db: disk I/O error\n");
}

TEST_CASE("a command returns its action's exit code when nothing escapes") {
  std::ostringstream err;
  CHECK(rjsim::cli::run_guarded("diff", [] { return 1; }, err) == 1);
  CHECK(err.str().empty());
}

}  // namespace cli_test
