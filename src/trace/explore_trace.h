// Exploring around a recorded trace (DESIGN §6 `rjsim explore --from-trace`; docs/traces.md
// "Exploring around a trace"): Sieve's idea (kubernetes-semantics §5) with a recording as its
// reference workload. The trace becomes the scenario conform derives from it (conform.h: the
// RayJob, the user's spec changes anchored to the model's transitions, the world's timings), run
// fault-free and aligned with the recording as conform does; then the scenario gets a fault
// budget for Sieve's three perturbations, so that explore's targeted strategy (explore/targeted.h)
// tries, at each write the controller made, a crash right after it, stale reads of what it
// depends on, and held deliveries of the written kind (an unobserved intermediate state).
// Pure: nothing is stored here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/scenario.h"
#include "events/event.h"
#include "trace/conform.h"

namespace rjsim::trace {

// The budget a trace is explored within unless one is given: what Sieve's patterns need and no
// more. staleReads maxLag 1 (a read one event behind: the targeted stale-read plan reads as
// stale as the budget allows, and one event is the smallest staleness, the one most races need),
// squash (deliveries held so that the written kind's intermediate state is never observed), one
// restart that may land inside a pass (a crash right after a write, before the pass's next one).
// Not latency: every kuberay-1.7 trace would then show the known slow-restart race
// (scenarios/interleavings/v17-operator-outage-after-submitter-finished); `--faults` adds it, and
// with it the plans that slow the environment's reactions after each write. No conflicts, write failures or HTTP errors: the
// recording shows none of the failed writes a watch cannot see.
nlohmann::json default_trace_faults();

// conform --explain's budget: default_trace_faults() and reactions that take their time within
// world.latency (a slow reaction explains a recording before a stale read or a crash does).
nlohmann::json default_explain_faults();

struct TraceExploration {
  ConformReport conform;        // the derivation and its fault-free run aligned with the recording
  engine::Scenario scenario;    // the derived scenario with the budget; scenario.text is stored with every run
  nlohmann::json faults;        // the budget, as the scenario's `faults:` block
  bool default_faults = true;   // the budget is default_trace_faults()
};

// `run_id` names the scenario (from-trace-<run_id>). `controller` empty: pick_conform_model.
// `faults` null: default_trace_faults(). `rayjob`: the RayJob to follow (NAME or
// NAMESPACE/NAME; empty: the first one the trace shows). Throws ConformError when the events are
// not a trace run with that RayJob, the model is unknown, or `faults` is not a valid `faults:`
// block (the message then starts with "--faults: ").
TraceExploration trace_exploration(const std::vector<events::Event>& trace_events, std::int64_t run_id,
                                   const std::string& controller, const nlohmann::json& faults = nullptr,
                                   const std::string& rayjob = "");
// The same from a conformance already made (conform_trace's report), which is not run again.
TraceExploration trace_exploration(ConformReport conform, std::int64_t run_id, const nlohmann::json& faults = nullptr);

// The budget in the scenario format's flow style: "{staleReads: {maxLag: 1}, squash: true, ...}".
std::string faults_label(const nlohmann::json& faults);

}  // namespace rjsim::trace
