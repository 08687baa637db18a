// The rjsim command line (DESIGN.md §6). run_cli parses the arguments with CLI11, runs the chosen
// subcommand and turns every outcome into the documented exit code; main() only forwards argv,
// so tests drive the whole command in-process. Output for people goes to `out`, messages to `err`.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace rjsim::cli {

// Exit codes of every subcommand (DESIGN.md §6).
inline constexpr int exit_ok = 0;           // expectations hold, runs identical, nothing found
inline constexpr int exit_found = 1;        // a violation, a difference, a failed check
inline constexpr int exit_bad_input = 2;    // bad input or usage
inline constexpr int exit_internal_error = 3;

// Runs `rjsim ARGS...`; `args` excludes the program name. Returns the exit code.
int run_cli(std::vector<std::string> args, std::ostream& out, std::ostream& err);

// Parses `rjsim ARGS...` exactly as run_cli does but runs no command: for tests of the command
// line itself, whatever each command does today.
struct ParsedCommandLine {
  std::string command;  // the command that would run; empty when parsing settled the exit
  int exit_code = 0;    // when it did: 0 for --help and --version, 2 for a usage error
};
ParsedCommandLine parse_cli(std::vector<std::string> args, std::ostream& out, std::ostream& err);

// Runs one subcommand's action and maps what escapes it to an exit code with one message on
// `err`: UsageError -> 2, rjsim::store::StoreError -> 2 (bad input), any other exception,
// rjsim::store::DatabaseError included, -> 3 (internal error).
int run_guarded(std::string_view command, const std::function<int()>& action, std::ostream& err);

}  // namespace rjsim::cli
