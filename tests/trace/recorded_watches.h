// A simulated run written out as what a user records on a real cluster: the kubectl watches
// (`kubectl get KIND -w --output-watch-events -o json`, one per kind) or the audit log of the
// RayJob's writes, and those imported as a trace run's events. For the tests of conform and
// explore --from-trace, which start from a bundled scenario's run as if it were a recording.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../cli/recorded_runs.h"
#include "engine/object_json.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"
#include "trace/import.h"
#include "trace/kubectl_watch_export.h"
#include "trace_test_support.h"

namespace rjsim::trace::testing {

// Keeps the API server's watch logs of the last step: what a `kubectl get KIND -w
// --output-watch-events -o json` started before the run would have printed.
class WatchRecorder final : public engine::StepObserver {
 public:
  events::EventTypes reads() const override { return events::EventTypes::none(); }
  void after_step(const engine::World& world, const engine::StepLog&) override {
    for (engine::Kind kind : {engine::Kind::RayJob, engine::Kind::RayCluster, engine::Kind::Job}) {
      logs[kind] = world.api.watch_log(kind);
      std::vector<std::int64_t>& at = times[kind];
      at.resize(logs[kind].size(), world.now_ms);
    }
  }
  // The RayJob's changes as an audit log at level RequestResponse logs them: one write each,
  // its stageTimestamp the virtual time of the step that made it.
  std::string audit_log() const {
    std::string text;
    const std::vector<engine::WatchEvent>& log = logs.at(engine::Kind::RayJob);
    for (std::size_t i = 0; i < log.size(); ++i) {
      const json object = engine::to_json(log[i].object);
      const std::string verb = log[i].type == engine::WatchType::Added     ? "create"
                               : log[i].type == engine::WatchType::Deleted ? "delete"
                                                                           : "update";
      json event = {{"kind", "Event"},
                    {"apiVersion", "audit.k8s.io/v1"},
                    {"level", "RequestResponse"},
                    {"auditID", fmt::format("a-{}", i)},
                    {"stage", "ResponseComplete"},
                    {"requestURI", "/apis/ray.io/v1/namespaces/default/rayjobs"},
                    {"verb", verb},
                    {"user", {{"username", "system:serviceaccount:default:kuberay-operator"}}},
                    {"objectRef", {{"resource", "rayjobs"}, {"namespace", "default"},
                                   {"name", object["metadata"]["name"]}, {"apiGroup", "ray.io"}, {"apiVersion", "v1"}}},
                    {"responseStatus", {{"metadata", json::object()}, {"code", 200}}},
                    {"responseObject", object},
                    {"requestReceivedTimestamp", engine::format_timestamp(times.at(engine::Kind::RayJob)[i])},
                    {"stageTimestamp", engine::format_timestamp(times.at(engine::Kind::RayJob)[i])}};
      text += event.dump() + "\n";
    }
    return text;
  }
  std::string kubectl_watch(engine::Kind kind) const {
    auto it = logs.find(kind);
    return it == logs.end() ? std::string() : kubectl_watch_text(it->second);
  }
  std::map<engine::Kind, std::vector<engine::WatchEvent>> logs;
  std::map<engine::Kind, std::vector<std::int64_t>> times;   // when each watch event was appended
};

struct RecordedScenario {
  explore::RunReport run;
  WatchRecorder watches;
};

inline RecordedScenario record(const engine::Scenario& scenario, const std::string& controller = "") {
  RecordedScenario out;
  explore::RunOptions options;
  options.controller = controller;
  options.keep_events = false;
  options.observers.push_back(&out.watches);
  out.run = explore::run_scenario(scenario, options);
  return out;
}

inline RecordedScenario record_bundled(const std::string& name, const std::string& controller = "") {
  return record(engine::load_scenario(cli::testing::bundled_scenario(name)), controller);
}

inline std::vector<events::Event> trace_of(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<TraceInput> inputs;
  for (const auto& [file, text] : files) inputs.push_back(TraceInput{file, text});
  return build_trace(Format::kubectl_watch, inputs, false).events;
}

// The trace of the RayJob watch alone, or of the RayJob and RayCluster watches.
enum class Watched { rayjobs, rayjobs_and_clusters, rayjobs_clusters_and_jobs };
inline std::vector<events::Event> trace_of(const RecordedScenario& recorded, Watched watched) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"rayjobs.json", recorded.watches.kubectl_watch(engine::Kind::RayJob)}};
  if (watched == Watched::rayjobs_and_clusters) {
    files.emplace_back("rayclusters.json", recorded.watches.kubectl_watch(engine::Kind::RayCluster));
  }
  if (watched == Watched::rayjobs_clusters_and_jobs) {
    files.emplace_back("rayclusters.json", recorded.watches.kubectl_watch(engine::Kind::RayCluster));
    files.emplace_back("jobs.json", recorded.watches.kubectl_watch(engine::Kind::Job));
  }
  return trace_of(files);
}

}  // namespace rjsim::trace::testing
