// Every subcommand of DESIGN.md §6, one file each (src/cli/<name>_command.cc). Each defines its
// flags and its action beside each other; run_cli calls these in the order of §6.
#pragma once

#include "cli/subcommand.h"

namespace rjsim::cli {

void add_run_command(CLI::App& rjsim, CommandTable& commands);
void add_check_command(CLI::App& rjsim, CommandTable& commands);
void add_explore_command(CLI::App& rjsim, CommandTable& commands);
void add_replay_command(CLI::App& rjsim, CommandTable& commands);
void add_import_command(CLI::App& rjsim, CommandTable& commands);
void add_conform_command(CLI::App& rjsim, CommandTable& commands);
void add_show_command(CLI::App& rjsim, CommandTable& commands);
void add_diff_command(CLI::App& rjsim, CommandTable& commands);
void add_compare_command(CLI::App& rjsim, CommandTable& commands);
void add_merge_command(CLI::App& rjsim, CommandTable& commands);
void add_hunt_command(CLI::App& rjsim, CommandTable& commands);

}  // namespace rjsim::cli
