#include "cli/cli.h"

#include "engine/scenario_loader.h"
#include "explore/replay.h"
#include "explore/scenario_run.h"

#include "cli/commands.h"
#include "cli/subcommand.h"
#include "store/store_error.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <ostream>

namespace rjsim::cli {
namespace {

constexpr const char* rjsim_description =
    "rjsim: a deterministic, event-sourced simulator of the KubeRay RayJob controller.\n"
    "It replays informer events, stale cache reads and squashed reconciles through a model of\n"
    "the RayJob state machine and checks its invariants; every run is recorded in SQLite.\n";

// CLI11's message, prefixed with the command it is about and pointing at that command's help.
std::string usage_failure_message(const CLI::App* rjsim, const CLI::Error& error) {
  std::string command = "rjsim";
  std::vector<CLI::App*> parsed = rjsim->get_subcommands();
  if (!parsed.empty()) command += " " + parsed.front()->get_name();
  return fmt::format("{}: {}\nRun '{} --help' for usage and an example.\n", command, error.what(),
                     command);
}

// CLI11's help, but "Usage: rjsim [OPTIONS] COMMAND": a command is required, which run_cli checks
// itself after parsing (so that `rjsim --bogus` reports the flag, not the missing command).
class Formatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    if (app->get_parent() == nullptr) {
      if (std::size_t at = usage.find("[COMMAND]"); at != std::string::npos) {
        usage.replace(at, 9, "COMMAND");
      }
    }
    return usage;
  }
};

std::string command_names(const CLI::App& rjsim) {
  std::string names;
  for (const CLI::App* command : rjsim.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + command->get_name();
  }
  return names;
}

bool is_command(const CLI::App& rjsim, const std::string& name) {
  for (const CLI::App* command : rjsim.get_subcommands({})) {
    if (command->get_name() == name) return true;
  }
  return false;
}

void configure(CLI::App& rjsim) {
  rjsim.set_version_flag("--version", "rjsim " RJSIM_VERSION, "print the version and exit");
  rjsim.set_help_flag("-h,--help", "print this help and exit");
  rjsim.require_subcommand(-1);  // at most one; "none" is reported by run_cli
  rjsim.formatter(std::make_shared<Formatter>());
  rjsim.get_formatter()->label("SUBCOMMAND", "COMMAND");
  rjsim.failure_message(usage_failure_message);
  rjsim.footer("Run 'rjsim COMMAND --help' for a command's flags and an example.");
}

void add_commands(CLI::App& rjsim, CommandTable& commands) {
  add_run_command(rjsim, commands);
  add_check_command(rjsim, commands);
  add_explore_command(rjsim, commands);
  add_replay_command(rjsim, commands);
  add_import_command(rjsim, commands);
  add_conform_command(rjsim, commands);
  add_show_command(rjsim, commands);
  add_diff_command(rjsim, commands);
  add_compare_command(rjsim, commands);
  add_merge_command(rjsim, commands);
  add_hunt_command(rjsim, commands);
}

}  // namespace

int run_guarded(std::string_view command, const std::function<int()>& action, std::ostream& err) {
  std::string who = command.empty() ? "rjsim" : fmt::format("rjsim {}", command);
  try {
    return action();
  } catch (const UsageError& e) {
    err << fmt::format("{}: {}\nRun '{} --help' for usage and an example.\n", who, e.what(), who);
    return exit_bad_input;
  } catch (const engine::ScenarioError& e) {
    // The message already names the file, the line and the field.
    err << fmt::format("{}: {}\n", who, e.what());
    return exit_bad_input;
  } catch (const explore::UnknownController& e) {
    err << fmt::format("{}: {}\n", who, e.what());
    return exit_bad_input;
  } catch (const explore::UnsupportedFault& e) {
    err << fmt::format("{}: {}\n", who, e.what());
    return exit_bad_input;
  } catch (const explore::NotReplayable& e) {
    err << fmt::format("{}: {}\n", who, e.what());
    return exit_bad_input;
  } catch (const store::StoreError& e) {
    // Bad input found by the store (not an rjsim database, no such run); the message names it.
    err << fmt::format("{}: {}\n", who, e.what());
    return exit_bad_input;
  } catch (const std::exception& e) {  // store::DatabaseError (SQLite failed) included
    err << "rjsim: internal error: " << e.what() << "\n";
    return exit_internal_error;
  } catch (...) {
    err << "rjsim: internal error: an exception that is not a std::exception\n";
    return exit_internal_error;
  }
}

namespace {

// Parses `args` into `rjsim` and, once a command is chosen, returns then(command, its action).
// --help, --version and usage errors end here with their exit code and output.
int parse_then(std::vector<std::string> args, std::ostream& out, std::ostream& err,
               const std::function<int(CLI::App& command, const Action& action)>& then) {
  CLI::App rjsim{rjsim_description, "rjsim"};
  configure(rjsim);
  CommandTable commands;
  add_commands(rjsim, commands);

  if (!args.empty() && !args.front().empty() && args.front()[0] != '-' &&
      !is_command(rjsim, args.front())) {
    throw UsageError(fmt::format("\"{}\" is not a command (use one of {})", args.front(),
                                 command_names(rjsim)));
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector of arguments reversed
  try {
    rjsim.parse(args);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; every other one is usage (2).
    int code = rjsim.exit(e, out, err);
    return code == 0 ? exit_ok : exit_bad_input;
  }

  std::optional<std::pair<CLI::App*, Action>> selected = commands.selected();
  if (!selected) {
    throw UsageError(fmt::format("a COMMAND is required (one of {})", command_names(rjsim)));
  }
  if (!selected->second) {
    throw std::logic_error("rjsim bug: a subcommand was parsed but has no action");
  }
  return then(*selected->first, selected->second);
}

}  // namespace

int run_cli(std::vector<std::string> args, std::ostream& out, std::ostream& err) {
  return run_guarded(
      "",
      [&]() {
        return parse_then(std::move(args), out, err,
                          [&](CLI::App& command, const Action& action) {
                            Io io{out, err};
                            return run_guarded(command.get_name(),
                                               [&]() { return action(io); }, err);
                          });
      },
      err);
}

ParsedCommandLine parse_cli(std::vector<std::string> args, std::ostream& out, std::ostream& err) {
  ParsedCommandLine parsed;
  parsed.exit_code = run_guarded(
      "",
      [&]() {
        return parse_then(std::move(args), out, err, [&](CLI::App& command, const Action&) {
          parsed.command = command.get_name();
          return exit_ok;
        });
      },
      err);
  return parsed;
}

}  // namespace rjsim::cli
