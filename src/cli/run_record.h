// What `show` and `diff` read of a stored run besides its events: its `runs` row, its persisted
// transitions (the transitions view) and its violations, and its JSON form. Which run is
// meant, and the events themselves, come from cli/stored_run.h; reading changes nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/database.h"

namespace rjsim::cli {

struct RunRecord {
  store::RunInfo info;
  std::vector<store::Transition> transitions;   // in seq order, every RayJob of the run
  std::vector<store::Violation> violations;     // in seq order
};

// `run` (from find_run) with its transitions and violations.
RunRecord read_run_record(const store::Database& database, const store::RunInfo& run);

// "rayjob-sample" for "RayJob/default/rayjob-sample"; the text itself when it is no object ref.
std::string object_name(std::string_view ref);
// A persisted deploymentStatus as people read it: "" is New.
std::string deployment_label(std::string_view deployment_status);
// The chooser's seed: a uint64 that the runs table stores as its int64 bit pattern.
std::uint64_t recorded_seed(const store::RunInfo& info);
// "run 3: head-restart-while-running under kuberay-1.1, seed 1"
std::string describe_run(const store::RunInfo& info);

// The DESIGN §6 `run` object of a stored run, the very shape `rjsim run --json` prints
// (run_output.h) less its verdict on the scenario's expectations, which a stored run does not
// keep; kind and parent_run added.
nlohmann::ordered_json run_record_json(const RunRecord& run);

}  // namespace rjsim::cli
