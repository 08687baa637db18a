#include "explore/scenario_run.h"

#include <algorithm>
#include <cassert>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/invariant_checker.h"
#include "engine/garbage_collector.h"
#include "engine/job_controller.h"
#include "engine/kubelet.h"
#include "engine/pod_termination.h"
#include "engine/ray_dashboard.h"
#include "engine/raycluster_controller.h"
#include "engine/submitter.h"
#include "engine/user_actions.h"
#include "models/registry.h"

namespace rjsim::explore {

using namespace rjsim::engine;
using events::Event;

// Named, not anonymous: ScenarioRunner::Parts and ::Simulated hold these types, and a class
// every file can name may not hold a type only this file can (GCC's -Wsubobject-linkage, which
// the unity build turns on).
namespace scenario_run_detail {

// The environment of a scenario: every actor, built from its `world:` and `actions:`.
struct Environment {
  Environment(const Scenario& scenario, const ReleaseEnvironment& release)
      : ray(scenario.world.dashboard, scenario.world.ray, scenario.world.ray_cluster.head_ready_ms()),
        raycluster_controller(scenario.world.ray_cluster, release.ray_cluster_readiness,
                              scenario.world.latency.ray_cluster_controller),
        job_controller(release.job_pod_tracking, scenario.world.latency.job_controller),
        kubelet(scenario.world.ray_cluster, scenario.world.latency.kubelet),
        submitter(scenario.world.submitter, &ray, scenario.world.latency.kubelet),
        user(scenario.actions, &ray),
        gc(scenario.world.latency.garbage_collector),
        pod_termination(scenario.world.pods.termination_grace_period_ms) {}

  std::vector<const Actor*> actors() const {
    return {&user, &raycluster_controller, &job_controller, &kubelet, &submitter, &ray, &gc, &pod_termination};
  }

  RayDashboard ray;
  RayClusterController raycluster_controller;
  JobController job_controller;
  Kubelet kubelet;
  Submitter submitter;
  UserActions user;
  GarbageCollector gc;
  PodTermination pod_termination;
};

class HashSink final : public events::EventSink {
 public:
  void emit(const Event& event) override { hasher.add(event); }
  events::LogHasher hasher;
};

class TransitionSink final : public events::EventSink {
 public:
  void emit(const Event& event) override {
    if (std::optional<Transition> transition = transition_of(event)) transitions.push_back(std::move(*transition));
  }
  events::EventTypes reads() const override {
    static const events::EventTypes types = events::EventTypes::only({"status.transition"}).about({"RayJob"});
    return types;
  }
  std::vector<Transition> transitions;
};

// Puts the checker's verdicts into the log as `invariant.violated` effects, right after the step
// that broke the invariant (or at the end, for liveness), so that a replay compares them too.
// The checker itself only observes; this is the driver writing down what it said.
// One recorder serves every run of a simulation that starts over: start() gives it the run's.
class VerdictRecorder final : public StepObserver {
 public:
  explicit VerdictRecorder(Simulation& simulation) : simulation_(simulation) {}

  // A run from its start, or (resume) from a snapshot. `checker` and `options` must outlive it.
  void start(checks::InvariantChecker& checker, const RunOptions& options) {
    checker_ = &checker;
    options_ = &options;
    recorded_ = 0;
    resumed_at_steps_ = -1;
  }

  // A snapshot is taken before a step only when the step can make a decision: a run continues
  // from the snapshot before the step of its last decision, so the others would never be used
  // (they were 6 in 7). None before a step the driver runs itself (scenario set-up: continuing
  // skips it) or at the point the run itself continued from (that snapshot exists).
  void before_step(const World& world, std::span<const engine::Step> steps) override {
    if (!options_->on_snapshot || steps.empty() || world.steps == resumed_at_steps_) return;
    if (steps.size() == 1 && !engine::may_decide_within(steps.front().kind)) return;
    if (options_->snapshot_pool) {
      options_->on_snapshot(options_->snapshot_pool->take(world, simulation_.events_emitted(), *checker_, recorded_));
      return;
    }
    // Made in place: no temporary to destroy.
    options_->on_snapshot(std::make_shared<const RunSnapshot>(world, simulation_.events_emitted(), *checker_, recorded_));
  }
  // The checker's, known before start() gives it one.
  events::EventTypes reads() const override { return checks::InvariantChecker::types_read(); }
  void after_step(const World& world, const engine::StepLog& step) override {
    if (options_->before_checks) options_->before_checks(world);
    checker_->after_step(world, step);
    record_new_violations();
    if (options_->stop_at_violation && recorded_ > 0) simulation_.stop();
    if (options_->stop_when && options_->stop_when(world)) simulation_.stop();
  }
  // Continues from a snapshot: its count of violations already logged, and where it was taken.
  void resume(const RunSnapshot& snapshot) {
    recorded_ = snapshot.violations_recorded;
    resumed_at_steps_ = snapshot.world.steps;
  }
  void finish(const World& world, RunEnd end) {
    checker_->finish(world, end);
    record_new_violations();
  }

 private:
  void record_new_violations() {
    const std::vector<checks::Violation>& found = checker_->violations();
    for (; recorded_ < found.size(); ++recorded_) {
      const checks::Violation& violation = found[recorded_];
      Event event;
      event.origin = events::Origin::effect;
      event.type = "invariant.violated";
      event.actor = "checker";
      event.object = violation.rayjob;
      event.with("invariant", violation.invariant).with("step_seq", violation.seq).with("message", violation.message);
      simulation_.record(std::move(event));
    }
  }

  Simulation& simulation_;
  checks::InvariantChecker* checker_ = nullptr;
  const RunOptions* options_ = nullptr;
  std::size_t recorded_ = 0;
  std::int64_t resumed_at_steps_ = -1;   // world.steps of the snapshot the run continued from
};

// The run's header in the log: what a replay needs besides the scenario text and the choices.
Event run_start_event(const Scenario& scenario, const Controller& model, std::uint64_t seed, const RunOptions& options) {
  Event event;
  event.origin = events::Origin::input;
  event.type = "run.start";
  event.actor = "rjsim";
  event.with("scenario", scenario.name)
      .with("controller", model.name())
      .with("seed", static_cast<std::int64_t>(seed))   // as the runs table stores it
      .with("faults", options.faults)
      .with("stop_at_violation", options.stop_at_violation);
  return event;
}

// The objects of the scenario exist at time 0: one step that creates them, each a user stimulus.
void create_initial_objects(Simulation& simulation, const Scenario& scenario) {
  simulation.run_as_step([&](StepContext& context) {
    LoggedApi api(context, "user");
    auto create = [&](Object object) {
      context.emit(events::Origin::input, "action.create", "user", object_ref(object));
      api.create(object);
    };
    for (const RayCluster& cluster : scenario.rayclusters) create(cluster);
    for (const RayJob& rayjob : scenario.rayjobs) create(rayjob);
  });
}

FinalState final_state_of(const World& world, const RayJob& wanted) {
  FinalState state;
  const std::string& namespace_ = wanted.metadata.namespace_;
  const std::string& name = wanted.metadata.name;
  if (const RayJob* rayjob = world.api.find<RayJob>(namespace_, name)) {
    state.exists = true;
    state.job_deployment_status = rayjob->status.job_deployment_status;
    state.job_status = rayjob->status.job_status;
    state.reason = rayjob->status.reason;
    state.job_id = rayjob->status.job_id;
    state.ray_cluster_name = rayjob->status.ray_cluster_name;
    state.succeeded = rayjob->status.succeeded;
    state.failed = rayjob->status.failed;
  }
  auto owned_by_rayjob = [&](const Object& object) {
    const OwnerReference* owner = controller_owner(meta(object));
    return meta(object).namespace_ == namespace_ && owner && owner->kind == Kind::RayJob && owner->name == name;
  };
  const auto clusters = world.api.objects(Kind::RayCluster);
  const auto jobs = world.api.objects(Kind::Job);
  state.ray_clusters = static_cast<int>(std::count_if(clusters.begin(), clusters.end(), owned_by_rayjob));
  state.submitter_jobs = static_cast<int>(std::count_if(jobs.begin(), jobs.end(), owned_by_rayjob));
  auto workers_suspended = [&](const Object& object) {   // DeleteWorkers done (kuberay-1.7)
    const auto& groups = std::get<RayCluster>(object).spec->worker_group_specs;
    return owned_by_rayjob(object) && !groups.empty() &&
           std::all_of(groups.begin(), groups.end(),
                       [](const WorkerGroupSpec& g) { return g.suspend.value_or(false); });
  };
  state.worker_groups_suspended = static_cast<int>(std::count_if(clusters.begin(), clusters.end(), workers_suspended));
  return state;
}

World initial_world(const Scenario& scenario, const Controller& model, const RunOptions& options) {
  World world = Simulation::initial_world(model);
  world.api.take_digests(options.fingerprintable);
  for (Kind kind : kAllKinds) {
    if (options.full_watch_logs) continue;
    // An informer reads the events its watch sends; without a selector that is every event.
    world.api.keep_watch_objects(kind, world.informer(kind) ? WatchLogObjects::sent_events : WatchLogObjects::no_event);
  }
  world.api.set_pod_termination_grace_period_seconds(scenario.world.pods.termination_grace_period_ms / 1000);
  return world;
}

// no-leaked-cluster's allowance: a run whose deliveries may wait may also learn of a finished
// RayJob as late as world.latency.watch allows before it deletes the cluster.
std::int64_t cleanup_allowance_ms(const Scenario& scenario, const RunOptions& options) {
  const bool deliveries_may_wait = options.faults && scenario.faults.deliveries_may_wait();
  return checks::kCleanupAllowanceMs + (deliveries_may_wait ? scenario.faults.watch_latency_max_ms : 0);
}

std::string outcome_of(RunEnd end, bool violated) {
  if (end == RunEnd::step_limit) return "incomplete";
  return violated ? "violation" : "pass";
}

std::unique_ptr<Controller> model_named(const Scenario& scenario, const std::string& controller) {
  const std::string& name = controller.empty() ? scenario.controller : controller;
  std::unique_ptr<Controller> model = models::make_model(name);
  if (!model) {
    throw UnknownController(
        fmt::format("no model named \"{}\" (models: {})", name, fmt::join(models::model_names(), ", ")));
  }
  if (std::optional<std::string> why = unsupported_fault(scenario, *model)) throw UnsupportedFault(*why);
  return model;
}

}  // namespace scenario_run_detail

using namespace scenario_run_detail;

std::optional<std::string> unsupported_fault(const Scenario& scenario, const Controller& model) {
  if (scenario.faults.time_travel() && model.environment().initial_list_is_consistent) {
    return fmt::format("{}: faults.timeTravel: {} cannot time-travel: its client lists through watch-list, a "
                       "consistent read at the head, so a restart never sees an older state (drop timeTravel, or "
                       "run an older model)",
                       scenario.file, model.name());
  }
  return std::nullopt;
}

// The model, and the actors built from the scenario (they read the model's release).
struct ScenarioRunner::Parts {
  Parts(const Scenario& scenario, std::unique_ptr<Controller> controller)
      : model(std::move(controller)), environment(scenario, model->environment()) {}
  std::unique_ptr<Controller> model;
  Environment environment;
};

// A simulation of the scenario with the sinks and the verdict recorder its runs report through.
struct ScenarioRunner::Simulated {
  Simulated(const Scenario& scenario, Parts& parts, World world, Chooser& chooser, const RunOptions& options)
      : sink(sinks_for(options)),
        simulation(std::move(world), *parts.model, parts.environment.actors(), chooser, sink,
                   options.faults ? scenario.faults : FaultBudget{},
                   Limits{.steps = scenario.limits.steps, .time_ms = scenario.limits.time_ms}),
        verdicts(simulation),
        faults(options.faults),
        keeps_transitions(options.keep_transitions),
        answers(options.actor_answers) {
    if (options.actor_answers) simulation.remember_answers_in(*options.actor_answers);
    simulation.set_dashboard(&parts.environment.ray);
    simulation.set_operator_settings(&scenario.world.operator_settings);
    simulation.set_operator_restart(
        operator_restart_latency(scenario.world.latency, parts.model->environment().leader_election_ms));
    simulation.add_observer(&verdicts);
    for (StepObserver* observer : options.observers) simulation.add_observer(observer);
  }

  // Whether a run with `options` may start over on this simulation: exploration's fast path
  // (nothing but the transitions, if kept, and the verdicts read the run) with the same fault
  // budget, the same transitions kept and the same kept answers. Other runs get a simulation of their own.
  bool serves(const RunOptions& options) const {
    return is_fast_path(options) && options.faults == faults && options.keep_transitions == keeps_transitions &&
           options.actor_answers == answers;
  }
  static bool is_fast_path(const RunOptions& options) {
    return !options.hash_log && !options.keep_events && options.sinks.empty() && options.observers.empty();
  }

  std::vector<events::EventSink*> sinks_for(const RunOptions& options) {
    std::vector<events::EventSink*> sinks;
    if (options.keep_transitions) sinks.push_back(&transitions);
    if (options.hash_log) sinks.push_back(&hash);
    if (options.keep_events) sinks.push_back(&memory);
    sinks.insert(sinks.end(), options.sinks.begin(), options.sinks.end());
    return sinks;
  }

  events::MemorySink memory;
  HashSink hash;
  TransitionSink transitions;
  events::TeeSink sink;
  Simulation simulation;
  std::optional<checks::InvariantChecker> checker;   // the last run's
  VerdictRecorder verdicts;
  bool faults;                    // what it was built for (serves)
  bool keeps_transitions;
  ActorAnswers* answers;
};

std::shared_ptr<const RunSnapshot> SnapshotPool::take(const World& world, std::int64_t events_emitted,
                                                      const checks::InvariantChecker& checker,
                                                      std::size_t violations_recorded) {
  std::unique_ptr<RunSnapshot> snapshot;
  if (free_.empty()) {
    snapshot = std::make_unique<RunSnapshot>(world, events_emitted, checker, violations_recorded);
  } else {
    snapshot = std::move(free_.back());
    free_.pop_back();
    snapshot->world = world;
    snapshot->events_emitted = events_emitted;
    snapshot->checker = checker;
    snapshot->violations_recorded = violations_recorded;
  }
  return std::shared_ptr<const RunSnapshot>(snapshot.release(), [this](const RunSnapshot* done) { give_back(done); });
}

void SnapshotPool::give_back(const RunSnapshot* snapshot) {
  // Handed out as const to its holders; the pool made it and takes it back.
  std::unique_ptr<RunSnapshot> owned(const_cast<RunSnapshot*>(snapshot));
  if (free_.size() < kKept) free_.push_back(std::move(owned));
}

ScenarioRunner::ScenarioRunner(const Scenario& scenario, const std::string& controller)
    : scenario_(scenario), parts_(std::make_unique<Parts>(scenario, model_named(scenario, controller))) {}

ScenarioRunner::~ScenarioRunner() = default;

RunReport run_scenario(const Scenario& scenario, const RunOptions& options) {
  return ScenarioRunner(scenario, options.controller).run(options);
}

ScenarioRunner::Simulated& ScenarioRunner::simulated_for(const RunOptions& options, const RunSnapshot* resume,
                                                         Chooser& chooser, std::unique_ptr<Simulated>& own) {
  if (last_ && last_->serves(options)) {
    last_->transitions.transitions.clear();
    if (resume) {
      last_->simulation.start_over(resume->world, chooser);   // copied into the last run's world
    } else {
      last_->simulation.start_over(initial_world(scenario_, *parts_->model, options), chooser);
    }
    return *last_;
  }
  World world = resume ? resume->world : initial_world(scenario_, *parts_->model, options);
  auto simulated = std::make_unique<Simulated>(scenario_, *parts_, std::move(world), chooser, options);
  std::unique_ptr<Simulated>& keeper = Simulated::is_fast_path(options) ? last_ : own;
  keeper = std::move(simulated);
  return *keeper;
}

RunReport ScenarioRunner::run(const RunOptions& options) {
  const Scenario& scenario = scenario_;
  const Controller* model = parts_->model.get();
  const std::uint64_t seed = options.seed.value_or(scenario.seed);
  DefaultChooser fault_free(seed);
  RandomChooser random(seed);
  Chooser& chooser = options.chooser ? *options.chooser
                     : options.faults ? static_cast<Chooser&>(random)
                                      : static_cast<Chooser&>(fault_free);
  const RunSnapshot* resume = options.resume_from.get();
  std::unique_ptr<Simulated> own;
  Simulated& simulated = simulated_for(options, resume, chooser, own);
  Simulation& simulation = simulated.simulation;
  assert(simulation.world().api.takes_digests() == options.fingerprintable &&
         "rjsim bug: a run continued from a snapshot taken with other digest settings");
  simulation.check_reused_answers(options.check_reused_answers);
  simulation.rerun_stopped_passes(options.rerun_stopped_passes);
  // A continued run goes on with the checks' memory of the steps before it, copied into the
  // last run's checker where there is one (its vectors keep their room).
  std::optional<checks::InvariantChecker>& kept_checker = simulated.checker;
  if (resume && kept_checker) {
    *kept_checker = resume->checker;
  } else if (resume) {
    kept_checker.emplace(resume->checker);
  } else {
    kept_checker.emplace(scenario.invariants, model->transition_table(), scenario.limits.eventually_ms,
                         cleanup_allowance_ms(scenario, options));
  }
  checks::InvariantChecker& checker = *kept_checker;
  VerdictRecorder& verdicts = simulated.verdicts;
  verdicts.start(checker, options);
  if (resume) {
    simulation.continue_numbering_from(resume->events_emitted);
    verdicts.resume(*resume);
  } else {
    simulation.record(run_start_event(scenario, *model, seed, options));
    create_initial_objects(simulation, scenario);
  }
  const RunEnd end = simulation.run();
  if (end != RunEnd::stopped) verdicts.finish(simulation.world(), end);

  RunReport report;
  report.scenario = scenario.name;
  report.controller = std::string(model->name());
  report.seed = seed;
  report.end = end;
  report.steps = simulation.world().steps;
  report.virtual_ms = simulation.world().now_ms;
  report.events = simulation.events_emitted() - (resume ? resume->events_emitted : 0);
  if (options.hash_log) report.log_hash = simulated.hash.hasher.hex();
  report.transitions = std::move(simulated.transitions.transitions);
  if (options.judge_expectations) {
    for (const RayJob& rayjob : scenario.rayjobs) {
      report.final[rayjob.metadata.name] = final_state_of(simulation.world(), rayjob);
    }
  }
  for (const checks::Violation& violation : checker.violations()) {
    report.violations.push_back(ViolationReport{violation.seq, violation.invariant, violation.message});
  }
  report.outcome = outcome_of(end, !report.violations.empty());
  if (options.keep_events) report.event_log = std::move(simulated.memory.events);
  if (options.judge_expectations) {
    const bool judge_outcome = !scenario.has_faults && !options.faults;
    report.unmet = unmet_expectations(scenario.expect, report, judge_outcome);
  }
  return report;
}

RunOptions exploration_run(Chooser& chooser) {
  RunOptions options;
  options.faults = true;
  options.chooser = &chooser;
  options.keep_events = false;
  options.hash_log = false;
  options.judge_expectations = false;
  options.keep_transitions = false;
  options.fingerprintable = false;
  return options;
}

std::optional<Transition> transition_of(const Event& event) {
  if (event.type != "status.transition") return std::nullopt;
  Transition transition;
  transition.seq = event.seq;
  transition.at_ms = event.at_ms;
  ObjectRef ref;
  transition.rayjob = parse_object_ref(event.object, ref) ? ref.name : event.object;
  transition.from = event.text("from_deployment");
  transition.to = event.text("to_deployment");
  transition.job_status = event.text("to_job_status");
  transition.reason = event.text("reason");
  return transition;
}

std::vector<std::string> deployment_sequence(const std::vector<Transition>& transitions,
                                             const std::string& rayjob) {
  std::vector<std::string> sequence = {""};
  for (const Transition& transition : transitions) {
    if (transition.rayjob == rayjob && transition.to != sequence.back()) sequence.push_back(transition.to);
  }
  return sequence;
}

namespace {

template <class T>
void expect_equal(std::vector<std::string>& unmet, const std::string& what, const std::optional<T>& wanted,
                  const T& actual) {
  if (wanted && *wanted != actual) unmet.push_back(fmt::format("{}: expected {}, got {}", what, *wanted, actual));
}

void expect_set_or_empty(std::vector<std::string>& unmet, const std::string& what,
                         const std::optional<std::string>& wanted, const std::string& actual) {
  if (!wanted) return;
  const std::string got = actual.empty() ? "empty" : "set";
  if (*wanted != got) unmet.push_back(fmt::format("{}: expected {}, got {} (\"{}\")", what, *wanted, got, actual));
}

std::string quoted_sequence(const std::vector<std::string>& sequence) {
  std::vector<std::string> quoted;
  for (const std::string& state : sequence) quoted.push_back(state.empty() ? "\"\"" : state);
  return fmt::format("[{}]", fmt::join(quoted, ", "));
}

void check_final(std::vector<std::string>& unmet, const std::string& rayjob, const FinalExpectation& wanted,
                 const FinalState& state) {
  const std::string prefix = fmt::format("final.{}", rayjob);
  expect_equal(unmet, prefix + ".jobDeploymentStatus", wanted.job_deployment_status, state.job_deployment_status);
  expect_equal(unmet, prefix + ".jobStatus", wanted.job_status, state.job_status);
  expect_equal(unmet, prefix + ".reason", wanted.reason, state.reason);
  expect_equal(unmet, prefix + ".rayJobs", wanted.ray_jobs, state.exists ? 1 : 0);
  expect_equal(unmet, prefix + ".rayClusters", wanted.ray_clusters, state.ray_clusters);
  expect_equal(unmet, prefix + ".submitterJobs", wanted.submitter_jobs, state.submitter_jobs);
  expect_set_or_empty(unmet, prefix + ".jobId", wanted.job_id, state.job_id);
  expect_set_or_empty(unmet, prefix + ".rayClusterName", wanted.ray_cluster_name, state.ray_cluster_name);
  expect_equal(unmet, prefix + ".succeeded", wanted.succeeded, state.succeeded.value_or(0));
  expect_equal(unmet, prefix + ".failed", wanted.failed, state.failed.value_or(0));
  expect_equal(unmet, prefix + ".workerGroupsSuspended", wanted.worker_groups_suspended,
               state.worker_groups_suspended);
}

}  // namespace

std::vector<std::string> unmet_expectations(const Expectation& expect, const RunReport& report,
                                            bool judge_outcome) {
  std::vector<std::string> unmet;
  if (report.outcome == "incomplete") {
    unmet.push_back(fmt::format("the run hit the step limit after {} steps (a livelock is likely)", report.steps));
  }
  for (const auto& [rayjob, wanted] : expect.transitions) {
    const std::vector<std::string> actual = deployment_sequence(report.transitions, rayjob);
    if (actual != wanted) {
      unmet.push_back(fmt::format("transitions.{}: expected {}, got {}", rayjob, quoted_sequence(wanted),
                                  quoted_sequence(actual)));
    }
  }
  for (const auto& [rayjob, wanted] : expect.final) {
    auto state = report.final.find(rayjob);
    if (state == report.final.end()) {
      unmet.push_back(fmt::format("final.{}: the scenario has no RayJob of that name", rayjob));
      continue;
    }
    check_final(unmet, rayjob, wanted, state->second);
  }
  if (!judge_outcome) return unmet;
  std::vector<std::string> fired;
  for (const ViolationReport& violation : report.violations) fired.push_back(violation.invariant);
  if (expect.outcome && *expect.outcome != report.outcome && report.outcome != "incomplete") {
    unmet.push_back(fmt::format("outcome: expected {}, got {}{}", *expect.outcome, report.outcome,
                                fired.empty() ? "" : fmt::format(" ({})", fmt::join(fired, ", "))));
  }
  if (expect.violations) {
    for (const std::string& name : *expect.violations) {
      if (std::find(fired.begin(), fired.end(), name) == fired.end()) {
        unmet.push_back(fmt::format("violations: expected {} to fire, it did not", name));
      }
    }
  }
  if (!expect.outcome && !expect.violations && !report.violations.empty()) {
    const ViolationReport& first = report.violations.front();
    unmet.push_back(fmt::format("invariant {} violated at seq {}: {}", first.invariant, first.seq, first.message));
  }
  return unmet;
}

}  // namespace rjsim::explore
