// A scenario as loaded from its YAML file (DESIGN §4): the objects that exist at the start, how
// the environment behaves, the stimuli and when, the fault budget, the limits, which invariants
// are checked and what is expected. Plain values with every default of DESIGN §4 filled in; the
// loader (scenario_loader.h) is the only place that reads YAML. Times are virtual milliseconds.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/objects.h"
#include "engine/scenario_behaviour.h"
#include "engine/simulation.h"

namespace rjsim::engine {

// A stimulus at a virtual time. Exactly one of the kinds is set.
struct Action {
  enum class Type : std::uint8_t { patch, delete_, head_restart, stop_submitter };
  std::int64_t at_ms = 0;
  Type type = Type::patch;
  std::string rayjob;              // the RayJob it acts on (the only one when the file names none)
  nlohmann::json patch;            // JSON merge patch on the RayJob (Type::patch)
  int line = 0;                    // where it stands in the file, for messages
};

struct ScenarioLimits {
  std::int64_t steps = 100'000;
  std::int64_t time_ms = 3'600'000;
  std::int64_t eventually_ms = 600'000;
};

// `invariants: all`, a list of names, or {all: true, except: [...]}.
struct InvariantSelection {
  bool all = true;
  std::vector<std::string> names;    // when !all
  std::vector<std::string> except;   // when all
  bool includes(const std::string& name) const;
};

// `expect.final` for one RayJob: each key optional.
struct FinalExpectation {
  std::optional<std::string> job_deployment_status;
  std::optional<std::string> job_status;
  std::optional<std::string> reason;
  std::optional<int> ray_jobs;
  std::optional<int> ray_clusters;
  std::optional<int> submitter_jobs;
  std::optional<std::string> job_id;             // "set" | "empty"
  std::optional<std::string> ray_cluster_name;   // "set" | "empty"
  std::optional<int> succeeded;
  std::optional<int> failed;
  std::optional<int> worker_groups_suspended;
};

struct Expectation {
  std::optional<std::string> outcome;                       // pass | violation
  std::optional<std::vector<std::string>> violations;       // invariant names that must fire
  // Keyed by RayJob name (a single-RayJob file's lists are keyed by that RayJob's name).
  std::map<std::string, std::vector<std::string>> transitions;
  std::map<std::string, FinalExpectation> final;
};

// The keys of `faults:`, in the order docs/scenarios.md lists them (messages and labels follow it).
inline constexpr std::array<std::string_view, 9> kFaultKeys = {
    "staleReads", "squash", "conflicts", "writeFailures", "httpErrors", "restarts", "timeTravel", "latency", "interleaveCalls"};

struct Scenario {
  std::string file;                 // as given on the command line
  std::string text;                 // the whole file, stored with the run
  std::string name;
  std::string description;
  std::string controller = "kuberay-1.1";
  std::uint64_t seed = 1;
  std::vector<RayJob> rayjobs;      // created at time 0, in file order
  std::vector<RayCluster> rayclusters;   // pre-existing clusters (clusterSelector scenarios)
  WorldBehaviour world;
  std::vector<Action> actions;      // in time order (file order for equal times)
  FaultBudget faults;
  bool has_faults = false;          // the file has a `faults:` key
  ScenarioLimits limits;
  InvariantSelection invariants;
  Expectation expect;
};

}  // namespace rjsim::engine
