// Golden files: what a scenario's fault-free run persisted, each RayJob's status transitions and
// its final state, recorded by `rjsim check --update-golden` beside the scenario as
// <dir of the yaml>/<scenario name>.golden.json and compared by every later `rjsim check`, so
// that any change of behaviour fails CI, also where the scenario's `expect` does not pin it.
// The file is pretty JSON (2-space indent, keys in a fixed order, a newline at the end) so that a
// changed golden reads well in a pull request:
//   {"scenario", "controller", "rayjobs": {NAME: {"transitions": [{"at_ms", "from", "to",
//    "job_status", "reason"}], "final": {every field of explore::FinalState}}}}
// RayJobs are in name order. A golden file that cannot be read is bad input (GoldenError).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/scenario_run.h"

namespace rjsim::cli {

struct GoldenTransition {
  std::int64_t at_ms = 0;
  std::string from;
  std::string to;
  std::string job_status;
  std::string reason;
  friend bool operator==(const GoldenTransition&, const GoldenTransition&) = default;
};

struct GoldenRayJob {
  std::vector<GoldenTransition> transitions;
  nlohmann::ordered_json final_state = nlohmann::ordered_json::object();  // explore::FinalState's fields
};

struct Golden {
  std::string scenario;
  std::string controller;
  std::map<std::string, GoldenRayJob> rayjobs;  // by RayJob name
};

// A golden file that is missing a key, has a value of the wrong type, or is not JSON. The
// message names the file and the key.
class GoldenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// <dir of scenario_file>/<scenario_name>.golden.json
std::string golden_path(const std::string& scenario_file, const std::string& scenario_name);

Golden golden_of(const explore::RunReport& report);
std::string golden_text(const Golden& golden);
// Throws GoldenError; `file` names the text in messages.
Golden parse_golden(std::string_view text, const std::string& file);
// The golden at `path`, or nullopt when there is no such file. Throws GoldenError.
std::optional<Golden> read_golden(const std::string& path);

// How `now` differs from `recorded`, as lines for people (transition diffs as -/+ lines with one
// line of context, each differing final field as a -/+ pair); empty when they are the same.
std::vector<std::string> golden_differences(const Golden& recorded, const Golden& now);

}  // namespace rjsim::cli
