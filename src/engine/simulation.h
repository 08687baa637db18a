// The scheduler: runs a World forward one atomic step at a time (DESIGN §1). At each step it
// lists the enabled steps in a fixed order, asks the chooser which one runs (the fault-free
// default takes the first), applies it, and hands the step's events to the sink and to the
// observers. Steps, in the fixed order:
//   deliver      an informer applies its next pop; its handlers enqueue keys (For, Owns)
//   notify       an initial-list notification reaches the queue (legacy start-up, §2.7)
//   actor        an actor does one piece of work (garbage collector, ...)
//   timers       due queue timers (RequeueAfter, backoff) add their keys
//   resume       a pass stopped between two client calls goes on (faults.interleaveCalls;
//                listed right after the deliveries, so the default runs the pass straight on)
//   reconcile    the worker takes the next ready key and runs the model to the end (or, when
//                passes stop between calls, to its first client call: pass_clients.h)
//   restart      a crashed controller's successor starts: re-list, enqueue, start the worker
//   clock        virtual time advances to the earliest timer (only when nothing else can run,
//                or, with faults.latency, while what can run is reactions that may still wait)
//   crash        the controller process dies (a fault, within the restart budget)
// Without the squash or staleReads faults, watch deliveries are urgent: while one is pending
// nothing else runs, so every event is delivered at once and in order.
// Reactions take time (DESIGN §1.1): an actor's work is offered from its latency's min after it
// was first listed (World::reactions remembers since when), and with faults.latency the clock is
// offered beside it, up to the earliest time by which a waiting reaction must be done (its max).
// A crashed controller restarts within the operator-restart latency the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/actor.h"
#include "engine/actor_answers.h"
#include "engine/chooser.h"
#include "engine/controller.h"
#include "engine/pass_runner.h"
#include "engine/ray_dashboard.h"
#include "engine/scenario_behaviour.h"
#include "engine/step_context.h"
#include "engine/world.h"
#include "events/event.h"
#include "events/event_types.h"

namespace rjsim::engine {

// What the chooser may inject (DESIGN §4 `faults`); all off by default.
inline constexpr int kDefaultMaxRewind = 3;   // `timeTravel: true`

struct FaultBudget {
  int max_lag = 0;            // staleReads.maxLag: events a read may lag its kind's log
  bool squash = false;        // deliveries may be held so that events coalesce
  int conflicts = 0;          // injected 409s on controller writes
  int write_failures = 0;     // 5xx, or applied-but-reported-failed
  int http_errors = 0;        // dashboard call errors and timeouts
  int restarts = 0;           // controller crash + re-list
  int max_rewind = 0;         // timeTravel.maxRewind: a restart may re-list up to this many events back
  bool latency = false;       // reactions may take any time within their latency (DESIGN §1.1)
  bool interleave_calls = false;   // other steps may run between a reconcile's client calls
  bool mid_reconcile = false;      // restarts.midReconcile: a crash may land after any client call
  // world.latency.watch's max (the scenario loader copies it here): while deliveries may wait,
  // each event is applied within this of its write. Not a fault: the bound of one.
  std::int64_t watch_latency_max_ms = kDefaultWatchLatencyMaxMs;
  bool deliveries_may_wait() const { return squash || max_lag > 0; }
  bool time_travel() const { return max_rewind > 0; }
};

struct Limits {
  std::int64_t steps = 100'000;
  std::int64_t time_ms = 3'600'000;
};

// (A new field must be reset in reuse_as, simulation.cc: listing reuses Step slots.)
struct Step {
  StepKind kind = StepKind::clock;
  Kind informer_kind = Kind::RayJob;   // deliver
  int actor = 0;                       // actor: index into the simulation's actors
  ActorWork work;                      // actor
  std::int64_t clock_to_ms = 0;        // clock
  std::string describe() const;
  StepOption option() const;

  static Step of(StepKind kind) {
    Step step;
    step.kind = kind;
    return step;
  }
};

enum class RunEnd : std::uint8_t {
  quiescent,     // nothing enabled, no timer pending
  time_limit,    // virtual time reached limits.time
  step_limit,    // limits.steps reached: incomplete (a livelock is likely)
  stopped,       // the driver stopped it (exploration: at the first violation)
};
std::string_view to_string(RunEnd end);

// True when a step of this kind may ask the chooser within it (cache lag, write and HTTP faults,
// relist points, name suffixes); false for the kinds that never do (Simulation::step asserts it).
// A step of such a kind with no other step enabled makes no decision at all.
bool may_decide_within(StepKind kind);

// Where a restarted process's first list of a kind may be served from, with faults.timeTravel
// (kubernetes-semantics §1.7, §7.2 item 9): the head first (the fault-free choice); then, if the
// kind changed since the dead process's cursor `reached`, the cursor; then the revision just
// before each of the last `max_rewind` events of the kind at or before the cursor, newest first,
// so that rewinding k events leaves out the last k (and rewinding every event of a kind lists
// none of its objects). `log` is the kind's watch log, in revision order.
std::vector<std::int64_t> relist_points(const std::vector<WatchEvent>& log, std::int64_t head,
                                        std::int64_t reached, int max_rewind);

// Checks (src/checks) observe each step through this; they must not change anything.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  // The event types the observer reads in after_step, fixed for its lifetime: a step's events
  // of other types may be left out of StepLog::events (every type, unless it says otherwise).
  virtual events::EventTypes reads() const { return events::EventTypes::all(); }
  // Before a step chosen from `steps` (empty: a step the driver runs itself, run_as_step).
  virtual void before_step(const World& world, std::span<const Step> steps) {
    (void)world;
    (void)steps;
  }
  virtual void after_step(const World& world, const StepLog& step) = 0;
};

class Simulation {
 public:
  // `controller`, `chooser`, `sink` and the actors must outlive the simulation.
  Simulation(World world, Controller& controller, std::vector<const Actor*> actors,
             Chooser& chooser, events::EventSink& sink, FaultBudget faults = {}, Limits limits = {});

  // The initial world for a controller: its informers (one per watched kind, with the release's
  // FIFO and the cache selectors) and its queue, at time 0.
  static World initial_world(const Controller& controller);

  void add_observer(StepObserver* observer);
  // The Ray side the controller's dashboard calls reach (none: every call fails to connect).
  // It is usually also one of the actors.
  void set_dashboard(const RayDashboard* dashboard) { dashboard_ = dashboard; }
  // The operator's env and feature gates the model may read (none: all unset, gates at defaults).
  void set_operator_settings(const OperatorSettings* settings) { operator_settings_ = settings; }
  // How long a crashed controller stays down (default: the release's leader-election delay).
  void set_operator_restart(Latency latency) { operator_restart_ = allowed_latency(latency); }
  // Keeps the actors' answers in `answers`, which must outlive the simulation, instead of its
  // own: they go on being used while they hold, also by a later simulation of the same
  // scenario (exhaustive exploration). Answers for other actors are dropped. Requires a world
  // whose API server takes digests (they tell the runs' objects apart).
  void remember_answers_in(ActorAnswers& answers);
  // Tests: each reused actor answer is compared with a fresh one, and a difference throws
  // std::logic_error naming the actor (one that reads more than its ActorInputs declare).
  void check_reused_answers(bool check) { check_reused_answers_ = check; }
  // Tests: a stopped pass goes on by running its model again from the start at every resume,
  // instead of from where it waits (pass_runner.h); the two give the same runs.
  void rerun_stopped_passes(bool rerun) { passes_.set_go_on_where_stopped(!rerun); }

  // Appends an event that belongs to no step (the run's header, a check's verdict): it gets the
  // next seq and the current virtual time and goes to the sink only, not to the observers.
  // Observers may call it from after_step.
  void record(events::Event event);

  const World& world() const { return world_; }
  // For set-up and tests. The actors' reused answers (actor_answers.h) are dropped here; later
  // changes through the reference must go through the API server's writes or the clock.
  World& mutable_world() {
    forget_actor_answers();
    return world_;
  }
  std::int64_t events_emitted() const { return next_seq_; }
  // Starts another run on this simulation, from `world` under `chooser`, which must outlive it:
  // events are numbered from 0 again and no stop is pending. The controller, actors, sink,
  // observers, budget, limits and settings stay, and so do the answers kept in
  // remember_answers_in (its own are dropped). Exhaustive exploration makes thousands of runs a
  // few steps long: building a simulation for each, and growing the buffers its steps reuse
  // again, was a twentieth of them.
  void start_over(World&& world, Chooser& chooser);
  // The same from a copy of `world`, copied into this simulation's: its vectors keep their room,
  // where a copy made apart allocated them again (exploration continues a run from a snapshot's
  // world at every run).
  void start_over(const World& world, Chooser& chooser);
  // Numbers the next event `seq`: a simulation that continues a run from a copy of its world
  // (exhaustive exploration forks runs) goes on with that run's numbering.
  void continue_numbering_from(std::int64_t seq) { next_seq_ = seq; }

  std::vector<Step> enabled_steps() const;
  // Runs one step; false when none is enabled.
  bool step();
  // Runs until quiescence, the time limit, the step limit or a stop() request.
  RunEnd run();
  // Ends run() after the current step (an observer that has seen enough calls it).
  void stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

  // Runs `apply` as one step of its own (scenario set-up, tests): its events are logged and
  // observed like any step's.
  void run_as_step(const std::function<void(StepContext&)>& apply);
  // Crashes the controller process now, as one step (tests, targeted exploration).
  void inject_crash();

 private:
  // What start_over does besides setting the world.
  void begin_another_run(Chooser& chooser);
  // One step chosen from `steps`, which enabled_steps() just listed.
  void step(std::span<const Step> steps);
  void apply(const Step& step, StepContext& context);
  void deliver(Kind kind, StepContext& context);
  void notify(StepContext& context);
  void fire_timers(StepContext& context);
  void reconcile(StepContext& context);
  void resume(StepContext& context);
  // Runs the model for `pass` (of `request`, its key) until it ends or stops after a client call
  // (then kept in the world).
  void run_pass(StepContext& context, const Request& request, PassInFlight pass);
  // The queue's part of a pass's end (reconcileHandler, §2.4).
  void end_pass(StepContext& context, const Request& request, const PassInFlight& pass,
                const ReconcileResult& result, std::int64_t blocked_ms);
  // A controller event (reconcile.*) naming the reconciled object.
  EventBuilder controller_event(StepContext& context, std::string_view type, const Request& request);
  // The same for the event that begins or resumes a pass, which also names the object as the
  // step's StepLog::reconciled.
  EventBuilder pass_event(StepContext& context, std::string_view type, const Request& request);
  // Passes stop after each client call: other steps may run there, or a crash may land there.
  bool passes_stop_between_calls() const;
  void restart(StepContext& context);
  void crash(StepContext& context, std::string_view reason);
  void finish_step(std::int64_t first_seq);

  // enabled_steps() into the first slots of `slots`, which it returns how many; with `work` for
  // the actors' lists (buffers reused by run()). Slots past those are kept, not destroyed, so
  // that their strings' buffers serve the next listing.
  std::size_t list_enabled_steps(std::vector<Step>& slots, std::vector<ActorWork>& work) const;
  // `latency` as this run may use it: its max is its min unless faults.latency lets reactions wait.
  Latency allowed_latency(Latency latency) const;
  // The time since which `actor` has had `work` pending (World::reactions); now when it is new.
  std::int64_t reaction_since(std::size_t actor, const ActorWork& work) const;
  // World::reactions made anew from the actors' current work, after each step.
  void record_reactions();
  // Only within a listing, after it refreshed the actors' answers against the world.
  std::optional<std::int64_t> next_timer_ms() const;
  // An actor's enabled work and next timer, reused while what it reads is unchanged.
  // `kept` is answers(), refreshed against this world.
  const std::vector<ActorWork>& actor_work(ActorAnswers& kept, std::size_t actor,
                                           std::vector<ActorWork>& scratch) const;
  std::optional<std::int64_t> actor_timer_ms(ActorAnswers& kept, std::size_t actor) const;
  void forget_actor_answers();
  void check_reused_answer(std::size_t actor, const ActorAnswers::Answer& answer) const;
  // How long a timed-out dashboard call holds the worker: the scenario's, else the release's.
  std::int64_t dashboard_timeout_ms() const;
  bool has_due_timers() const;

  World world_;
  Controller& controller_;
  ReleaseEnvironment environment_;
  const Watches& watches_;
  std::vector<const Actor*> actors_;
  Chooser* chooser_;   // never null
  events::EventSink& sink_;
  FaultBudget faults_;
  Limits limits_;
  std::vector<Latency> latencies_;   // each actor's reaction_latency(), as allowed_latency() allows it
  // Some actor's work waits (a latency min above 0), or may (faults.latency): World::reactions
  // is kept. Off, listing takes every enabled piece of work at once, as the first engine did.
  bool tracks_reactions_ = false;
  Latency operator_restart_;          // as allowed_latency() allows it
  std::vector<StepObserver*> observers_;
  const RayDashboard* dashboard_ = nullptr;
  const OperatorSettings* operator_settings_ = nullptr;
  std::int64_t next_seq_ = 0;
  StepEvents step_events_;
  std::string reconciled_;   // the step's StepLog::reconciled, its memory reused
  // Reused by every step, so that listing and choosing a step allocates no vector or string.
  std::vector<Step> enabled_buffer_;
  std::vector<ActorWork> work_buffer_;
  std::vector<StepOption> option_buffer_;
  std::vector<PendingReaction> reaction_buffer_;   // record_reactions' list, its slots reused
  std::vector<SharedString> fired_keys_buffer_;   // the keys of the queue's timers a step fired
  events::EventTypes built_;   // the types the sink and the observers read
  bool stop_requested_ = false;

  // The actors' last answers: those given to it (remember_answers_in), else its own, fitted to
  // the actors when first used (a simulation given answers makes none of its own).
  ActorAnswers& answers() const {
    if (remembered_answers_) return *remembered_answers_;
    if (!own_answers_fitted_) {
      own_answers_.adopt(actors_);
      own_answers_fitted_ = true;
    }
    return own_answers_;
  }
  mutable ActorAnswers own_answers_;
  mutable bool own_answers_fitted_ = false;
  ActorAnswers* remembered_answers_ = nullptr;
  bool check_reused_answers_ = false;
  // Runs the passes that may stop between their calls, keeping a stopped one where it stopped.
  PassRunner passes_;
};

}  // namespace rjsim::engine
