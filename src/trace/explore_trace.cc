#include "trace/explore_trace.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace rjsim::trace {
namespace {

using nlohmann::json;

using engine::kFaultKeys;   // labels follow the scenario format's order, not json's

std::string flow(const json& value) {
  if (!value.is_object()) return value.dump();
  std::string out;
  for (const auto& [key, item] : value.items()) out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", key, flow(item));
  return "{" + out + "}";
}

}  // namespace

json default_trace_faults() {
  return {{"staleReads", {{"maxLag", 1}}},
          {"squash", true},
          {"restarts", {{"max", 1}, {"midReconcile", true}}}};
}

json default_explain_faults() {
  json faults = default_trace_faults();
  faults["latency"] = true;
  return faults;
}

std::string faults_label(const json& faults) {
  if (!faults.is_object()) return flow(faults);
  std::string out;
  auto add = [&](const std::string& key, const json& value) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", key, flow(value));
  };
  for (std::string_view key : kFaultKeys) {
    if (faults.contains(key)) add(std::string(key), faults.at(std::string(key)));
  }
  for (const auto& [key, value] : faults.items()) {
    if (std::find(kFaultKeys.begin(), kFaultKeys.end(), key) == kFaultKeys.end()) add(key, value);
  }
  return "{" + out + "}";
}

TraceExploration trace_exploration(const std::vector<events::Event>& trace_events, std::int64_t run_id,
                                   const std::string& controller, const json& faults, const std::string& rayjob) {
  return trace_exploration(conform_trace(trace_events, controller, rayjob), run_id, faults);
}

TraceExploration trace_exploration(ConformReport conform, std::int64_t run_id, const json& faults) {
  TraceExploration out;
  out.conform = std::move(conform);
  out.default_faults = faults.is_null();
  out.faults = out.default_faults ? default_trace_faults() : faults;

  ConformScenario explored = out.conform.derived;
  explored.document["name"] = fmt::format("from-trace-{}", run_id);
  explored.document["description"] =
      fmt::format("derived by rjsim explore --from-trace from trace run {}, RayJob {}", run_id, explored.rayjob);
  explored.document["faults"] = out.faults;
  try {
    out.scenario = scenario_with_actions(explored, explored.action_times.size());
  } catch (const ConformError& e) {
    // The scenario without a budget loaded (conform_trace ran it): what is wrong is the budget.
    const std::string what = e.what();
    const std::size_t field = what.find("faults");
    throw ConformError(fmt::format("--faults: {}", field == std::string::npos ? what : what.substr(field)));
  }

  std::string& line = out.conform.derived.assumptions.at(out.conform.derived.faults_assumption);
  line = out.default_faults
             ? fmt::format("faults {}: the --from-trace default (Sieve's patterns: at each controller write, a "
                           "crash right after it, reads one event stale, or the written kind's deliveries held "
                           "so that its intermediate state goes unobserved)",
                           faults_label(out.faults))
             : fmt::format("faults {}: given with --faults", faults_label(out.faults));
  return out;
}

}  // namespace rjsim::trace
