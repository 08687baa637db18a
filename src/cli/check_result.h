// The verdict of `rjsim check` on one scenario: its fault-free run judged against the scenario's
// `expect` and, where the scenario has one, its golden file (cli/golden.h). The table, --json
// and the JUnit XML all show these. A scenario passes when every expectation holds and its
// behaviour matches its golden (or it has none, or the golden was just written).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rjsim::cli {

enum class GoldenVerdict { none, match, differs, written };
std::string_view to_string(GoldenVerdict verdict);   // "none", "match", "differs", "written"

struct CheckResult {
  std::string scenario;
  std::string file;
  std::string controller;
  std::string outcome;                       // pass | violation | incomplete
  std::int64_t steps = 0;
  std::int64_t virtual_ms = 0;
  std::string log_hash;
  std::vector<std::string> unmet;            // expectations not met, one line each
  GoldenVerdict golden = GoldenVerdict::none;
  std::string golden_file;                   // where the golden is (or would be)
  std::vector<std::string> golden_differences;   // when it differs (cli/golden.h)
  std::optional<std::int64_t> run_id;        // a failing run, stored so that it can be replayed
  std::string replay_command;                // "rjsim replay DB --run N" once stored
  std::int64_t wall_ms = 0;                  // wall clock: the wall ms column and JUnit time only

  bool passed() const { return unmet.empty() && golden != GoldenVerdict::differs; }
  // Why it failed, in one line: the first unmet expectation, else the golden; "" when it passed.
  std::string message() const;
  // Why it failed, in full: every unmet expectation, the golden's differences (indented), and
  // the replay command when the run was stored.
  std::vector<std::string> failure_lines() const;
};

}  // namespace rjsim::cli
