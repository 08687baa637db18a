// Conformance of a recorded trace (DESIGN §6 `rjsim conform`; docs/traces.md "Conforming a
// trace"): drive a model with the stimuli a trace shows and compare the RayJob transitions the
// model persists with the recorded ones. Three pure steps and one that runs them:
//
//  - derive_conform_scenario: the events of a trace run (import.h) become an engine::Scenario.
//    The first RayJob the trace shows is created at time 0 with its first recorded spec and
//    metadata (status, uid, resourceVersion dropped); later spec changes (suspend, ...) become
//    merge-patch actions and a deletion a delete action; the world's timings come from the other
//    recorded objects. Times come from the trace's own clock when it has one (audit logs),
//    else from the timestamps inside the objects (creationTimestamp, deletionTimestamp,
//    RayCluster status.lastUpdateTime, rayJobInfo, ...); what the trace cannot tell takes
//    the scenario default, and every such choice is one line of `assumptions`.
//  - pick_conform_model: the model whose release could have written the recorded fields.
//  - align_transitions: the model's transitions matched, in order, to the recorded ones.
//  - conform_trace: the three with explore::run_scenario in between (fault-free runs); when the
//    model differs, the derived timings are first tried within the recorded resolution
//    (conform_timing.h) and the first that agrees is taken and named. A spec
//    change or head restart the trace does not time (a watch has no clock) is first placed after
//    the latest time the trace showed, then anchored: moved to 1ms after the model's transition
//    that matches the last recorded transition before it (one extra run per such action).
//
// Bad input (events that are not a trace run, no RayJob object in it, an unknown model) throws
// ConformError: exit 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/scenario.h"
#include "events/event.h"
#include "explore/scenario_run.h"

namespace rjsim::trace {

class ConformError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelChoice {
  std::string controller;   // canonical model name
  std::string why;          // one line: the field that decided, or that nothing did
};

// When a derived action fires. A watch does not time spec changes or head restarts: such an
// action is `estimated`, and conform_trace moves it to just after the model's transition that
// matches the last recorded transition before it (`after_recorded` is how many recorded
// transitions precede it).
struct ActionTime {
  std::int64_t at_ms = 0;
  int after_recorded = 0;
  bool estimated = false;
  // Timed by the trace, but recorded after a transition made at that same time (a deletion
  // after Complete): kept at least 1ms after the model's matching transition.
  bool not_before_anchor = false;
  std::size_t assumption = 0;                    // its line in `assumptions` (estimated ones)
  std::string what;                              // "the user deleted the RayJob", "the Ray head restarted"
  std::string untimed_because;                   // estimated ones: why the trace does not time it
  // Inferred rather than recorded (a head restart, an outage): when it cannot be anchored it is
  // left out rather than placed at its estimate.
  bool inferred = false;
  bool left_out = false;
};

struct ConformScenario {
  engine::Scenario scenario;                     // the scenario text is set (a JSON document)
  nlohmann::json document;                       // the scenario as JSON, its actions in derivation order
  std::vector<ActionTime> action_times;          // one per document action
  std::string rayjob;                            // the RayJob followed: its name
  std::vector<explore::Transition> recorded;     // its recorded transitions, in order
  std::string first_deployment;                  // the first recorded state: where the history starts
  std::string first_job_status;
  std::vector<std::string> assumptions;          // what was inferred or defaulted, one line each
  std::size_t faults_assumption = 0;             // the line that says the model runs fault-free
};

// The RayJobs of a trace run that have an object, NAMESPACE/NAME in the order first seen. Throws
// ConformError when `trace_events` is not a trace run.
std::vector<std::string> trace_rayjobs(const std::vector<events::Event>& trace_events);

// Throws ConformError when `trace_events` is not a trace run (seq 0 is not trace.import), holds
// no RayJob object, or none named `rayjob`. `controller` is the model the scenario names
// (pick_conform_model's, or --controller). `rayjob` is the RayJob to follow, as NAME or
// NAMESPACE/NAME; empty: the first one the trace shows.
ConformScenario derive_conform_scenario(const std::vector<events::Event>& trace_events,
                                        const std::string& controller, const std::string& rayjob = "");

// The derived scenario with only the first `count` actions (in derivation order), each at its
// action_times' time, those left out excepted. Throws ConformError when it does not load.
engine::Scenario scenario_with_actions(const ConformScenario& derived, std::size_t count);

// Which release wrote the recorded RayJob: v1.0.0-only deployment statuses (WaitForDashboard,
// WaitForK8sJob, FailedToGetOrCreateRayCluster, ...) → kuberay-1.0; v1.7-only ones
// (ValidationFailed, Retrying, Waiting), status.rayJobInfo, status.succeeded/failed, or a RayCluster
// named "<rayjob>-<5 characters>" (not "<rayjob>-raycluster-<5>") → kuberay-1.7; else kuberay-1.1.
ModelChoice pick_conform_model(const std::vector<events::Event>& trace_events);

struct ConformDetail {
  int index = 0;                                  // of the recorded transition, from 0
  explore::Transition recorded;
  std::optional<explore::Transition> model;       // the model's transition matched or in its place
  bool agreed = false;
  std::string note;
};

struct Alignment {
  std::vector<ConformDetail> details;             // one per recorded transition
  std::vector<explore::Transition> model_after;   // the model's transitions after the last match
  int agreed = 0;
  int differs = 0;
};

// Pure. Transitions agree on (from, to, job_status). The model's transitions before it reached
// (first_deployment, first_job_status) are skipped when the recording started later than the
// RayJob's creation. Each recorded transition is matched to the model's next one; when they
// differ, the model's later transitions are searched for it (the model made extra transitions:
// the recorded one differs, the note names what the model did instead) and, when found,
// matching goes on from there; when not found, the model's position stays.
Alignment align_transitions(const std::vector<explore::Transition>& recorded,
                            const std::vector<explore::Transition>& model, const std::string& first_deployment,
                            const std::string& first_job_status);

struct ConformReport {
  ModelChoice model;
  ConformScenario derived;
  explore::RunReport run;
  Alignment alignment;
  // The timing taken within the recorded resolution when the derived one differed and another
  // agreed (conform_timing.h): "ray.runsFor 1s taken as 0.75s"; empty otherwise.
  std::string timing;
};

// `controller` empty: pick_conform_model. `rayjob`: as derive_conform_scenario's. Throws
// ConformError for an unknown model or RayJob.
ConformReport conform_trace(const std::vector<events::Event>& trace_events, const std::string& controller,
                            const std::string& rayjob = "");

// The recording of `derived` aligned with the transitions its RayJob made in `run`.
Alignment align_run(const ConformScenario& derived, const explore::RunReport& run);

// The fault-free run of `scenario` (derived's own, or a variant of it) aligned with the recording
// of `derived`; `report`, when given, receives the run (its log hashed).
Alignment align_fault_free(const ConformScenario& derived, const engine::Scenario& scenario,
                           explore::RunReport* report = nullptr);

// The transitions of the RayJob named `rayjob` that `run` persisted, in order.
std::vector<explore::Transition> rayjob_transitions(const explore::RunReport& run, const std::string& rayjob);

// "Running -> Complete (SUCCEEDED, reason AppFailed)".
std::string transition_label(const explore::Transition& transition);

}  // namespace rjsim::trace
