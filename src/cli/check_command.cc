// rjsim check: every scenario under PATH as a CI regression suite (DESIGN.md §6). Issue 4.
#include "cli/commands.h"

#include <memory>

namespace rjsim::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> paths;
  std::string junit_path;
  int jobs = 0;  // 0: one per core
  std::string explore_budget;
  bool update_golden = false;
  bool json = false;
};

CLI::Validator explore_budget() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::optional<std::int64_t> schedules = parse_count(text);
        if ((schedules && *schedules >= 1) || parse_duration_ms(text)) return "";
        return "\"" + text +
               "\" is not a budget (use a number of schedules, e.g. 500, or a duration, e.g. 5s)";
      },
      "");
}

}  // namespace

void add_check_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* check = commands.add(
      rjsim, "check",
      "every scenario under PATH as a CI regression: a summary table, JUnit XML, exit 1 on any "
      "failure",
      {"rjsim check scenarios/ --junit build/junit.xml --jobs 4"});
  check->add_option("PATH", options->paths, "scenario files, or directories searched for *.yaml")
      ->type_name("")
      ->required();
  check->add_option("--junit", options->junit_path, "also write the results as JUnit XML to F")
      ->type_name("F");
  add_jobs_option(*check, options->jobs);
  check
      ->add_option("--explore-budget", options->explore_budget,
                   "how far to explore scenarios that have faults: a number of schedules (500) "
                   "or a duration (5s)")
      ->type_name("B")
      ->check(explore_budget());
  check->add_flag("--update-golden", options->update_golden,
                  "rewrite the expected results with what the runs produce");
  add_json_flag(*check, options->json);

  commands.set_action(check, [options](Io& io) { return not_implemented(io, "check", 4); });
}

}  // namespace rjsim::cli
