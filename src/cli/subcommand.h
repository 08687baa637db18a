// What every subcommand shares: where its output goes, how it registers its action, the flags
// several subcommands take (--db, --seed, --json, ...) with their validation, and the message of
// a subcommand that is not built yet. A flag's value is checked while parsing, so a bad value
// exits 2 with a message naming the flag and what would be right.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rjsim::cli {

// Where a subcommand writes: results for people on `out`, progress and errors on `err`.
struct Io {
  std::ostream& out;
  std::ostream& err;
};

// What a subcommand does once its flags are parsed; returns the exit code.
using Action = std::function<int(Io&)>;

// A wrong combination of flags or arguments that CLI11 cannot see (say, SCENARIO and --demo
// together). run_guarded prints it with the subcommand's name and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The subcommands of one rjsim invocation and their actions.
class CommandTable {
 public:
  // Adds subcommand `name` to `rjsim` with a one-line description and an example for its
  // --help footer (one invocation per line). The action is given later with set_action.
  CLI::App* add(CLI::App& rjsim, std::string name, std::string description,
                std::vector<std::string> examples);
  void set_action(CLI::App* command, Action action);
  // The subcommand that was parsed, if any.
  std::optional<std::pair<CLI::App*, Action>> selected() const;

 private:
  std::vector<std::pair<CLI::App*, Action>> commands_;
};

// Prints "rjsim COMMAND: not implemented yet (see issue N)" on err; returns 3.
int not_implemented(Io& io, std::string_view command, int issue);

// The model names DESIGN.md §2 defines, with the fix variants of docs/findings/:
// The registry's models (models/registry.h) and the alias kuberay-latest.
const std::vector<std::string>& model_names();

// Flags several subcommands share, so that they read and check the same everywhere.
CLI::Option* add_db_option(CLI::App& command, std::string& db_path, std::string_view what);
CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& seed, std::string_view what);
CLI::Option* add_controller_option(CLI::App& command, std::string& controller, std::string_view what);
CLI::Option* add_jobs_option(CLI::App& command, int& jobs);
CLI::Option* add_json_flag(CLI::App& command, bool& json);
CLI::Option* add_run_id_option(CLI::App& command, std::int64_t& id, std::string_view what);

// Validators: each accepts the flag's text or says what is wrong and what would be right.
CLI::Validator at_least_one();                          // an integer >= 1
CLI::Validator run_id();                                // an integer >= 1
CLI::Validator seed();                                  // an integer in [0, 2^64)
CLI::Validator one_of(std::vector<std::string> values); // exactly one of `values`
CLI::Validator duration();                              // 500ms, 3s, 2m, 1h
CLI::Validator shard();                                 // I/N with 0 <= I < N
CLI::Validator model_name();                            // one of model_names()
CLI::Validator model_list();                            // two or more model names, comma-separated

// The parsers behind those validators, for the actions that use the values.
std::optional<std::int64_t> parse_count(std::string_view text);  // a decimal integer >= 0
std::optional<std::int64_t> parse_duration_ms(std::string_view text);
struct Shard {
  std::int64_t index = 0;  // this process's shard, 0 <= index < count
  std::int64_t count = 1;
};
std::optional<Shard> parse_shard(std::string_view text);
std::vector<std::string> split_models(std::string_view text);
// --jobs N: N threads, or one per core when N is 0.
int worker_threads(int jobs);

}  // namespace rjsim::cli
