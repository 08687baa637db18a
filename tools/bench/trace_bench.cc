// trace_bench: how fast recorded traces are imported and conformed (DESIGN §8, issue 7).
//   - input: each bundled scenario run fault-free, its RayJob, RayCluster and Job watch logs
//     printed as `kubectl get KIND -w --output-watch-events -o json` prints them (one compact
//     JSON event a line, no managedFields: kubectl hides them by default), one file per kind.
//     The runs are repeated with distinct names, uids and resourceVersions (each copy's
//     resourceVersions after the previous copy's) until the three files hold about SIZE_MB. Built
//     from the scenarios alone: the same bytes on every machine and every run.
//   - import: MB/s of watch JSON through build_trace (parse, merge, render), and through
//     import_trace (read the files, build, write one run to a fresh SQLite file in one
//     transaction), as `rjsim import --format kubectl-watch` does; target: 50 MB/s. Events/s
//     counts the events of the trace run (inputs and status.transition effects).
//   - conform: conform_trace over the trace of each bundled run (one RayJob with its RayCluster
//     and Job, as imported) and over the long trace the import built (conform follows its first
//     RayJob and reads past the others); target: 100,000 events/s, counting the events of the
//     trace runs conformed.
// Each figure is printed beside its target with wall and CPU time, for the last of ROUNDS (the
// first ones warm the allocator and the caches).
//
//   trace_bench [SIZE_MB] [ROUNDS]   (default 40 MB, 3 rounds)
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/scenario_files.h"
#include "engine/object_json.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"
#include "stopwatch.h"
#include "trace/conform.h"
#include "trace/import.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using rjsim::bench::Stopwatch;
using rjsim::engine::Kind;
using rjsim::trace::Format;
using rjsim::trace::TraceInput;

constexpr double import_target_mb_per_s = 50;
constexpr double conform_target_per_s = 100'000;

constexpr Kind kWatched[] = {Kind::RayJob, Kind::RayCluster, Kind::Job};
const char* file_of(Kind kind) {
  return kind == Kind::RayJob ? "rayjobs.json" : kind == Kind::RayCluster ? "rayclusters.json" : "jobs.json";
}

// Keeps the API server's watch logs of the last step: what a kubectl watch started before the
// run would have printed.
class WatchRecorder final : public rjsim::engine::StepObserver {
 public:
  rjsim::events::EventTypes reads() const override { return rjsim::events::EventTypes::none(); }
  void after_step(const rjsim::engine::World& world, const rjsim::engine::StepLog&) override {
    for (Kind kind : kWatched) logs[kind] = world.api.watch_log(kind);
  }
  std::map<Kind, std::vector<rjsim::engine::WatchEvent>> logs;
};

// One bundled run's watch events, ready to be printed with another copy's names.
struct RecordedRun {
  std::string scenario;
  std::map<Kind, std::vector<std::pair<std::string, json>>> events;   // (type, object) in log order
  std::set<std::string> names;   // every object's name and uid: a copy gives each a suffix
  std::int64_t max_resource_version = 0;
};

RecordedRun record(const std::string& file) {
  const rjsim::engine::Scenario scenario = rjsim::engine::load_scenario(file);
  WatchRecorder watches;
  rjsim::explore::RunOptions options;
  options.keep_events = false;
  options.hash_log = false;
  options.observers.push_back(&watches);
  (void)rjsim::explore::run_scenario(scenario, options);
  RecordedRun run;
  run.scenario = scenario.name;
  for (const auto& [kind, log] : watches.logs) {
    for (const rjsim::engine::WatchEvent& event : log) {
      json object = rjsim::engine::to_json(event.object);
      run.names.insert(object["metadata"]["name"].get<std::string>());
      run.names.insert(object["metadata"]["uid"].get<std::string>());
      run.max_resource_version = std::max(run.max_resource_version, event.resource_version);
      run.events[kind].emplace_back(std::string(rjsim::engine::to_string(event.type)), std::move(object));
    }
  }
  return run;
}

// Every string that is one of the run's names or uids (metadata, owner references, labels,
// status.rayClusterName, ...) gets the copy's prefix: a prefix keeps the forms the model is told
// by (<rayjob>-<5 characters>, <rayjob>-raycluster-<5>).
void rename(json& value, const std::set<std::string>& names, const std::string& prefix) {
  if (value.is_string()) {
    if (names.contains(value.get_ref<const std::string&>())) value = prefix + value.get<std::string>();
  } else if (value.is_structured()) {
    for (json& item : value) rename(item, names, prefix);
  }
}

struct WatchFiles {
  std::map<Kind, std::string> text;
  std::int64_t bytes = 0;
  std::int64_t lines = 0;
  std::int64_t copies = 0;
};

// Appends `run` to the files, its names and uids given `prefix` (none: as they were), its
// resourceVersions after `rv_offset`.
void append_copy(const RecordedRun& run, const std::string& prefix, std::int64_t rv_offset, WatchFiles& files) {
  for (const auto& [kind, events] : run.events) {
    std::string& text = files.text[kind];
    for (const auto& [type, original] : events) {
      json object = original;
      if (!prefix.empty()) rename(object, run.names, prefix);
      json& rv = object["metadata"]["resourceVersion"];
      rv = std::to_string(std::stoll(rv.get<std::string>()) + rv_offset);
      const std::size_t before = text.size();
      text += "{\"type\":\"" + type + "\",\"object\":" + object.dump() + "}\n";
      files.bytes += static_cast<std::int64_t>(text.size() - before);
      ++files.lines;
    }
  }
}

// Copies of every run until the files hold `min_bytes`.
WatchFiles watch_files(const std::vector<RecordedRun>& runs, std::int64_t min_bytes) {
  WatchFiles files;
  std::int64_t rv_offset = 0;
  while (files.bytes < min_bytes) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      append_copy(runs[i], fmt::format("c{}r{}-", files.copies, i), rv_offset, files);
      rv_offset += runs[i].max_resource_version;
    }
    ++files.copies;
  }
  return files;
}

std::vector<TraceInput> inputs_of(const WatchFiles& files) {
  std::vector<TraceInput> inputs;
  for (Kind kind : kWatched) inputs.push_back(TraceInput{file_of(kind), files.text.at(kind)});
  return inputs;
}

// Returns the events of the trace.
std::vector<rjsim::events::Event> measure_import(const WatchFiles& files, int rounds) {
  const std::vector<TraceInput> inputs = inputs_of(files);
  std::vector<rjsim::events::Event> events;
  for (int round = 0; round < rounds; ++round) {
    Stopwatch watch;
    rjsim::trace::Trace trace = rjsim::trace::build_trace(Format::kubectl_watch, inputs, false);
    if (round == rounds - 1) {
      watch.report_megabytes("import: build_trace", files.bytes, import_target_mb_per_s);
      watch.report_rate("import: build_trace", static_cast<std::int64_t>(trace.events.size()), "events", 0);
      events = std::move(trace.events);
    }
  }

  const fs::path dir = fs::temp_directory_path() / fmt::format("rjsim-trace-bench-{}", ::getpid());
  fs::create_directories(dir);
  std::vector<std::string> paths;
  for (const TraceInput& input : inputs) {
    paths.push_back((dir / input.file).string());
    std::ofstream(paths.back(), std::ios::binary) << input.text;
  }
  const std::string db_path = (dir / "traces.db").string();
  for (int round = 0; round < rounds; ++round) {
    fs::remove(db_path);
    Stopwatch watch;
    const rjsim::trace::ImportSummary summary =
        rjsim::trace::import_trace(Format::kubectl_watch, paths, db_path, false);
    if (round == rounds - 1) {
      watch.report_megabytes("import: files to SQLite", files.bytes, import_target_mb_per_s);
      watch.report_rate("import: files to SQLite", static_cast<std::int64_t>(summary.trace.events.size()), "events",
                        0);
    }
  }
  fs::remove_all(dir);
  return events;
}

// Conforms each trace `rounds` times; the last round is reported.
void measure_conform(const char* what, const std::vector<std::vector<rjsim::events::Event>>& traces, int rounds) {
  std::int64_t events = 0;
  for (const auto& trace : traces) events += static_cast<std::int64_t>(trace.size());
  int agreed = 0;
  int differs = 0;
  for (int round = 0; round < rounds; ++round) {
    agreed = differs = 0;
    std::int64_t simulated = 0;   // the events of the model's final run of each trace
    Stopwatch watch;
    for (const auto& trace : traces) {
      const rjsim::trace::ConformReport report = rjsim::trace::conform_trace(trace, "");
      agreed += report.alignment.agreed;
      differs += report.alignment.differs;
      simulated += report.run.events;
    }
    if (round == rounds - 1) {
      watch.report_rate(what, events, "events", conform_target_per_s);
      // What a trace of a few events costs is the model's run: its events, at least (a spec
      // change a watch does not time adds a run, not counted here), per second of conform.
      watch.report_rate("  of which the model ran", simulated, "events", 0);
    }
  }
  fmt::print("  ({} traces, {} events; recorded transitions: {} agreed, {} differ)\n", traces.size(), events, agreed,
             differs);
}

}  // namespace

int main(int argc, char** argv) {
  const double size_mb = argc > 1 ? std::max(1.0, std::atof(argv[1])) : 40;
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const fs::path root = fs::path(RJSIM_SOURCE_DIR) / "scenarios";

  std::vector<RecordedRun> runs;
  for (const std::string& file : rjsim::cli::scenario_files({root.string()})) runs.push_back(record(file));
  const WatchFiles files = watch_files(runs, static_cast<std::int64_t>(size_mb * 1e6));
  fmt::print("input: {} bundled runs under {} x {} copies as kubectl watch JSON: {:.1f} MB in {} lines\n",
             runs.size(), root.string(), files.copies, static_cast<double>(files.bytes) / 1e6, files.lines);
  const std::vector<rjsim::events::Event> imported = measure_import(files, rounds);

  std::vector<std::vector<rjsim::events::Event>> one_rayjob;
  for (const RecordedRun& run : runs) {
    WatchFiles own;
    append_copy(run, "", 0, own);
    for (Kind kind : kWatched) own.text[kind];   // a kind the run never wrote is an empty file
    one_rayjob.push_back(rjsim::trace::build_trace(Format::kubectl_watch, inputs_of(own), false).events);
  }
  measure_conform("conform: one RayJob a trace", one_rayjob, rounds);

  measure_conform("conform: the imported trace", {imported}, rounds);
  // No cluster runs three KubeRay releases at once, but this trace mixes the RayJobs of all the
  // bundled scenarios: the model picked from its fields (v1.0.0's among them) is not the one the
  // first RayJob ran under, so its transitions differ. The figure is about speed.
  fmt::print("  (the long trace mixes RayJobs of kuberay-1.0, 1.1 and 1.7: the picked model differs from the first "
             "RayJob's)\n");
  return 0;
}
