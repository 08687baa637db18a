// One run of a scenario, end to end (DESIGN §1, §4): the scenario's objects and world become a
// World and its actors, the model runs under a chooser (the fault-free default, or a seeded random
// walk within the scenario's fault budget), the invariants observe every step, and the events go
// to the given sinks. The log opens with a `run.start` input (scenario, controller, seed, whether
// the fault budget applied: what a replay needs besides the choices), and each violation is
// logged as an `invariant.violated` effect right after the step that broke the invariant. The report says how the run ended, what was persisted, what was violated,
// and which expectations of the scenario were not met. This is the single place where a scenario
// is turned into a simulation; `run`, `check`, `replay` and exploration all go through it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checks/invariant_checker.h"
#include "engine/chooser.h"
#include "engine/scenario.h"
#include "engine/simulation.h"
#include "events/event.h"

namespace rjsim::explore {

// What a run is, between two steps, besides its chooser: enough to continue it from there as
// if it had never stopped (exhaustive exploration forks runs instead of re-executing them).
// The world shares its object versions, so a snapshot costs a few KB.
struct RunSnapshot {
  // A constructor, not aggregate initialization from parentheses, which Clang before 16 lacks
  // (tools/test's sanitizer build uses Clang 14); made in place all the same.
  RunSnapshot(const engine::World& world, std::int64_t events_emitted, const checks::InvariantChecker& checker,
              std::size_t violations_recorded)
      : world(world), events_emitted(events_emitted), checker(checker), violations_recorded(violations_recorded) {}

  engine::World world;
  std::int64_t events_emitted = 0;      // the next event's seq
  checks::InvariantChecker checker;     // the checks' memory of the steps so far
  std::size_t violations_recorded = 0;  // of checker.violations(), already in the log
};

// Snapshots a search has let go, to be taken again: a snapshot copied into one that held an
// earlier world keeps the room of its vectors (the world's, its work queue's, the checks'
// history's), where a new one allocated all of them, at every decision of an exhaustive search.
// It keeps at most kKept, so that what its worlds still share is bounded. For one thread; must
// outlive every snapshot it hands out.
class SnapshotPool {
 public:
  SnapshotPool() = default;
  SnapshotPool(const SnapshotPool&) = delete;
  SnapshotPool& operator=(const SnapshotPool&) = delete;

  // A snapshot of these, which comes back to the pool when its last holder lets it go.
  std::shared_ptr<const RunSnapshot> take(const engine::World& world, std::int64_t events_emitted,
                                          const checks::InvariantChecker& checker, std::size_t violations_recorded);

 private:
  static constexpr std::size_t kKept = 256;
  void give_back(const RunSnapshot* snapshot);

  std::vector<std::unique_ptr<RunSnapshot>> free_;
};

struct RunOptions {
  std::optional<std::uint64_t> seed;         // default: the scenario's
  std::string controller;                    // default: the scenario's
  bool faults = false;                       // the scenario's fault budget applies (else none)
  engine::Chooser* chooser = nullptr;        // who decides (replay, exploration); default: the
                                             // seeded random walk with faults, else fault-free
  std::vector<events::EventSink*> sinks;     // where the events go, besides the report's hash
  bool keep_events = true;                   // keep them in RunReport::events
  bool hash_log = true;                      // compute RunReport::log_hash (exploration's fast
                                             // path skips it: it is an eighth of a run's time)
  bool judge_expectations = true;            // fill RunReport::final and unmet (exploration's
                                             // fast path skips them: it looks for violations)
  bool keep_transitions = true;              // fill RunReport::transitions (exploration's fast
                                             // path skips them: 1% of a random run)
  bool fingerprintable = true;               // the API server takes digests, so that the world
                                             // can be fingerprinted (exploration's fast path
                                             // skips them unless the search fingerprints)
  bool full_watch_logs = false;              // every watch log event keeps its version
                                             // (kubectl export reads them; else those no
                                             // informer receives are dropped:
                                             // ApiServer::keep_watch_objects)
  bool stop_at_violation = false;            // end the run after the step of the first violation
                                             // (exploration; liveness is then not judged)
  // Where the actors' answers are kept, to be reused by later runs of the same scenario and
  // controller (exhaustive exploration; actor_answers.h); default: the run's own. Requires
  // fingerprintable (the API server's digests tell the runs' objects apart).
  engine::ActorAnswers* actor_answers = nullptr;
  bool check_reused_answers = false;         // tests: Simulation::check_reused_answers
  bool rerun_stopped_passes = false;         // tests: Simulation::rerun_stopped_passes
  // Also see each step's world, after the checks (tests, benchmarks); they must not change it.
  std::vector<engine::StepObserver*> observers;
  // Asked after each step, after the checks: true ends the run there, as stop_at_violation does
  // (exhaustive exploration, at a state it has seen before).
  std::function<bool(const engine::World&)> stop_when;
  // Told of each step's world before the checks, to start what stop_when will ask for (the
  // exhaustive search fingerprints the world and prefetches its place in the visited set, so
  // that the checks run while the memory comes). It must not change the world.
  std::function<void(const engine::World&)> before_checks;
  // The run as it is before each step that can make a decision (more than one step enabled, or
  // a step that may decide within it): what a search continues from, at the step of a decision.
  std::function<void(std::shared_ptr<const RunSnapshot>)> on_snapshot;
  SnapshotPool* snapshot_pool = nullptr;   // where on_snapshot's snapshots come from (default: new ones)
  // Continue a run from a snapshot of it instead of starting at time 0 (no run.start, no
  // initial objects). The report then covers the steps from there on only: its events,
  // transitions and log hash are those of the continuation.
  std::shared_ptr<const RunSnapshot> resume_from;
};

// One persisted RayJob status change (a status.transition event).
struct Transition {
  std::int64_t seq = 0;
  std::int64_t at_ms = 0;
  std::string rayjob;          // the RayJob's name
  std::string from;
  std::string to;
  std::string job_status;
  std::string reason;
  friend bool operator==(const Transition&, const Transition&) = default;
};

struct ViolationReport {
  std::int64_t seq = 0;
  std::string invariant;
  std::string message;
};

// The end state of one RayJob, as `expect.final` names it (DESIGN §4).
struct FinalState {
  bool exists = false;
  std::string job_deployment_status;
  std::string job_status;
  std::string reason;
  std::string job_id;
  std::string ray_cluster_name;
  int ray_clusters = 0;        // RayClusters it owns that still exist (deleting ones included)
  int submitter_jobs = 0;      // submitter Jobs it owns that still exist
  int worker_groups_suspended = 0;   // owned RayClusters whose every worker group has suspend=true
  std::optional<int> succeeded;
  std::optional<int> failed;
};

struct RunReport {
  std::string scenario;
  std::string controller;
  std::uint64_t seed = 0;
  std::string outcome;         // pass | violation | incomplete
  engine::RunEnd end = engine::RunEnd::quiescent;
  std::int64_t steps = 0;
  std::int64_t virtual_ms = 0;
  std::int64_t events = 0;
  std::string log_hash;                         // empty when RunOptions::hash_log is off
  std::vector<Transition> transitions;
  std::vector<ViolationReport> violations;
  std::map<std::string, FinalState> final;      // by RayJob name
  std::vector<std::string> unmet;               // expectations not met, one line each
  std::vector<events::Event> event_log;         // when RunOptions::keep_events
  bool expectations_hold() const { return unmet.empty(); }
};

// Thrown for a controller name that no model has (bad input: exit 2).
class UnknownController : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown for a fault the model's release cannot have (bad input: exit 2): time travel under a
// release whose restarts list consistently.
class UnsupportedFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why `model` cannot run the scenario's faults (the message names the file, the key and the
// model), or nothing when it can.
std::optional<std::string> unsupported_fault(const engine::Scenario& scenario, const engine::Controller& model);

RunReport run_scenario(const engine::Scenario& scenario, const RunOptions& options = {});

// Runs one scenario under one model as often as asked, with the model and the scenario's actors
// built once, and one simulation that exploration's fast-path runs start over on: exhaustive
// exploration makes thousands of runs a few steps long, and building these was a tenth of each.
// The runs share no state: run(options) is run_scenario(scenario, options) for
// options.controller naming the runner's model (it is not read). For one thread.
class ScenarioRunner {
 public:
  // `controller`: a model's name, empty for the scenario's (throws UnknownController for a name
  // no model has, UnsupportedFault for faults its release cannot have). `scenario` must outlive
  // the runner.
  ScenarioRunner(const engine::Scenario& scenario, const std::string& controller);
  ~ScenarioRunner();
  ScenarioRunner(const ScenarioRunner&) = delete;
  ScenarioRunner& operator=(const ScenarioRunner&) = delete;

  RunReport run(const RunOptions& options);

 private:
  struct Parts;
  struct Simulated;
  // The last fast-path run's simulation, to start over (Simulated::serves), else a new one in
  // `own`; from `resume`'s world, or from time 0 when it is null.
  Simulated& simulated_for(const RunOptions& options, const RunSnapshot* resume, engine::Chooser& chooser,
                           std::unique_ptr<Simulated>& own);

  const engine::Scenario& scenario_;
  std::unique_ptr<Parts> parts_;
  std::unique_ptr<Simulated> last_;
};

// The options of exploration's fast path: the scenario's fault budget, `chooser` deciding, no
// events kept, no log hash, no expectations judged (a run that is kept is run again with all of
// them when it is stored).
RunOptions exploration_run(engine::Chooser& chooser);

// The persisted transition a `status.transition` event records; nullopt for any other event.
std::optional<Transition> transition_of(const events::Event& event);

// The persisted deploymentStatus sequence of one RayJob as `expect.transitions` lists it:
// starting with "" (New), consecutive duplicates removed.
std::vector<std::string> deployment_sequence(const std::vector<Transition>& transitions,
                                             const std::string& rayjob);

// The expectations of `expect` that `report` does not meet. `judge_outcome`: whether outcome and
// violations are judged on this run (a scenario without faults, run fault-free).
std::vector<std::string> unmet_expectations(const engine::Expectation& expect, const RunReport& report,
                                            bool judge_outcome);

}  // namespace rjsim::explore
