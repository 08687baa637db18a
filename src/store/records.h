// The rows of the event log (DESIGN §3) as plain values: what a run is recorded with
// (RunHeader, RunSummary), what is read back about it (RunInfo), and the derived rows
// (Violation, Transition). No behaviour here; see database.h and run_writer.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rjsim::store {

// What is known when a run begins.
struct RunHeader {
  std::optional<std::int64_t> parent_run;   // a shrunk counterexample points at its original
  std::string kind;                          // run | explore | shrink | replay | trace
  std::string scenario;                      // scenario name
  std::string scenario_text;                 // the whole scenario file as given
  std::string controller;                    // model name
  std::int64_t seed = 0;
};

// What is known when a run ends.
struct RunSummary {
  std::string outcome;   // pass | violation | diverged | error | incomplete
  std::int64_t steps = 0;
  std::int64_t virtual_ms = 0;
  std::string log_hash;  // LogHasher::hex() over every event of the run
};

// One row of `runs`. The summary fields are empty only while the run is being written.
struct RunInfo {
  std::int64_t run_id = 0;
  std::optional<std::int64_t> parent_run;
  std::string kind;
  std::string scenario;
  std::string scenario_text;
  std::string controller;
  std::int64_t seed = 0;
  std::optional<std::string> outcome;
  std::optional<std::int64_t> steps;
  std::optional<std::int64_t> virtual_ms;
  std::optional<std::string> log_hash;
  std::string created_at;   // ISO-8601 UTC wall clock; informational, never read by a simulation
  friend bool operator==(const RunInfo&, const RunInfo&) = default;
};

// An invariant that failed at the step of event `seq`.
struct Violation {
  std::int64_t seq = 0;
  std::string invariant;
  std::string message;
  friend bool operator==(const Violation&, const Violation&) = default;
};

// One row of the `transitions` view: a persisted RayJob status change (a status.transition
// event). A key missing from the event body reads as "".
struct Transition {
  std::int64_t seq = 0;
  std::int64_t at_ms = 0;
  std::string rayjob;   // "RayJob/namespace/name"
  std::string from_deployment;
  std::string to_deployment;
  std::string from_job_status;
  std::string to_job_status;
  std::string reason;
  friend bool operator==(const Transition&, const Transition&) = default;
};

bool is_run_kind(std::string_view kind);        // run | explore | shrink | replay | trace
bool is_run_outcome(std::string_view outcome);  // pass | violation | diverged | error | incomplete

}  // namespace rjsim::store
