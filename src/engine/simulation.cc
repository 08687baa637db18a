#include "engine/simulation.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/controller_process.h"
#include "engine/pass_clients.h"
#include "engine/reconcile_context.h"

namespace rjsim::engine {

using events::Event;

std::string_view to_string(RunEnd end) {
  switch (end) {
    case RunEnd::quiescent: return "quiescent";
    case RunEnd::time_limit: return "time_limit";
    case RunEnd::step_limit: return "step_limit";
    case RunEnd::stopped: return "stopped";
  }
  return "quiescent";
}

StepOption Step::option() const {
  switch (kind) {
    case StepKind::deliver: return {kind, static_cast<std::uint8_t>(informer_kind)};
    case StepKind::actor: return {kind, static_cast<std::uint8_t>(actor)};
    default: return {kind, 0};
  }
}

std::string Step::describe() const {
  switch (kind) {
    case StepKind::deliver: return fmt::format("deliver {}", to_string(informer_kind));
    case StepKind::actor: return std::string(work.what).append(" ").append(work.object);
    case StepKind::clock: return fmt::format("clock to {}ms", clock_to_ms);
    default: return std::string(to_string(kind));
  }
}

namespace {

// The kinds the controller caches: For, Owns and the selectors' kinds, each once, in Kind order.
std::vector<Kind> cached_kinds(const Watches& watches) {
  std::vector<Kind> kinds = {watches.for_kind};
  kinds.insert(kinds.end(), watches.owns.begin(), watches.owns.end());
  for (const auto& [kind, selector] : watches.cache_selectors) kinds.push_back(kind);
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  return kinds;
}

LabelSelector selector_for(const Watches& watches, Kind kind) {
  for (const auto& [selected, selector] : watches.cache_selectors) {
    if (selected == kind) return selector;
  }
  return {};
}

int initial_list_priority(const ReleaseEnvironment& environment) {
  return environment.queue == QueueBehaviour::priority ? kLowPriority : 0;
}

// Makes a listed slot the step Step::of(kind) makes; an actor step's work is left for its lister
// to set, which leaves a slot that holds it already as it is.
void reuse_as(Step& step, StepKind kind) {
  step.kind = kind;
  step.informer_kind = Kind::RayJob;
  step.actor = 0;
  if (kind != StepKind::actor) {
    step.work.what = {};
    step.work.object = {};
    step.work.index = 0;
  }
  step.clock_to_ms = 0;
}

}  // namespace

std::vector<std::int64_t> relist_points(const std::vector<WatchEvent>& log, std::int64_t head,
                                        std::int64_t reached, int max_rewind) {
  std::vector<std::int64_t> points = {head};
  if (!log.empty() && log.back().resource_version > reached) points.push_back(reached);
  int rewound = 0;
  for (auto it = log.rbegin(); it != log.rend() && rewound < max_rewind; ++it) {
    if (it->resource_version > reached) continue;
    const std::int64_t before = it->resource_version - 1;
    if (before != points.back()) points.push_back(before);
    ++rewound;
  }
  return points;
}

World Simulation::initial_world(const Controller& controller) {
  const ReleaseEnvironment environment = controller.environment();
  const Watches& watches = controller.watches();
  World world;
  world.process.queue = WorkQueue(environment.queue);
  for (Kind kind : cached_kinds(watches)) {
    const LabelSelector selector = selector_for(watches, kind);
    world.process.informers.emplace_back(Informer(kind, environment.fifo, selector));
    world.api.watch_with_selector(kind, selector);   // the server filters the watch (§1.7)
  }
  return world;
}

Simulation::Simulation(World world, Controller& controller, std::vector<const Actor*> actors,
                       Chooser& chooser, events::EventSink& sink, FaultBudget faults, Limits limits)
    : world_(std::move(world)),
      controller_(controller),
      environment_(controller.environment()),
      watches_(controller.watches()),
      actors_(std::move(actors)),
      chooser_(&chooser),
      sink_(sink),
      faults_(faults),
      limits_(limits),
      operator_restart_(allowed_latency({environment_.leader_election_ms, environment_.leader_election_ms})),
      built_(sink.reads()) {
  for (const Actor* actor : actors_) {
    latencies_.push_back(allowed_latency(actor->reaction_latency()));
    if (latencies_.back() != Latency{}) tracks_reactions_ = true;
  }
}

Latency Simulation::allowed_latency(Latency latency) const {
  // Without faults.latency the schedule takes every min (the fault-free run's choice).
  if (!faults_.latency) latency.max_ms = latency.min_ms;
  return latency;
}

void Simulation::start_over(World&& world, Chooser& chooser) {
  world_ = std::move(world);
  begin_another_run(chooser);
}

void Simulation::start_over(const World& world, Chooser& chooser) {
  world_ = world;
  begin_another_run(chooser);
}

void Simulation::begin_another_run(Chooser& chooser) {
  chooser_ = &chooser;
  next_seq_ = 0;
  stop_requested_ = false;
  if (remembered_answers_) {
    remember_answers_in(*remembered_answers_);   // a new run: see ActorAnswers::adopt
  } else {
    own_answers_ = ActorAnswers();
    own_answers_fitted_ = false;
  }
}

void Simulation::remember_answers_in(ActorAnswers& answers) {
  assert(world_.api.takes_digests() && "rjsim bug: answers kept across runs are told apart by the logs' digests");
  answers.adopt(actors_);
  remembered_answers_ = &answers;
}

void Simulation::add_observer(StepObserver* observer) {
  observers_.push_back(observer);
  built_.add(observer->reads());
}

// ---- what can happen next ----

std::optional<std::int64_t> Simulation::next_timer_ms() const {
  std::optional<std::int64_t> next;
  auto consider = [&](std::optional<std::int64_t> at) {
    if (at && *at > world_.now_ms && (!next || *at < *next)) next = at;
  };
  if (world_.process.up) consider(world_.process.queue.next_timer_ms());
  if (world_.process.up) consider(world_.process.worker_busy_until_ms);
  if (world_.process.up && world_.process.pass) consider(world_.process.pass->resume_at_ms);
  if (!world_.process.up) consider(world_.process.restart_at_ms);
  ActorAnswers& kept = answers();
  for (std::size_t i = 0; i < actors_.size(); ++i) consider(actor_timer_ms(kept, i));
  return next;
}

// Inline: asked for each actor at every listing, and used in this file only.
inline const std::vector<ActorWork>& Simulation::actor_work(ActorAnswers& kept, std::size_t actor,
                                                            std::vector<ActorWork>& scratch) const {
  if (kept.inputs(actor).whole_world) {
    scratch.clear();
    actors_[actor]->enabled(world_, scratch);
    return scratch;
  }
  // list_enabled_steps refreshed the answers against this world.
  ActorAnswers::Answer& answer = kept.checked(actor);
  if (!answer.has_work) {
    answer.work.clear();
    actors_[actor]->enabled(world_, answer.work);
    answer.has_work = true;
  } else if (check_reused_answers_) {
    check_reused_answer(actor, answer);
  }
  return answer.work;
}

inline std::optional<std::int64_t> Simulation::actor_timer_ms(ActorAnswers& kept, std::size_t actor) const {
  if (kept.inputs(actor).whole_world) return actors_[actor]->next_timer_ms(world_);
  ActorAnswers::Answer& answer = kept.checked(actor);
  if (!answer.has_timer) {
    answer.timer_ms = actors_[actor]->next_timer_ms(world_);
    answer.has_timer = true;
  } else if (check_reused_answers_) {
    check_reused_answer(actor, answer);
  }
  return answer.timer_ms;
}

void Simulation::check_reused_answer(std::size_t actor, const ActorAnswers::Answer& answer) const {
  std::vector<ActorWork> work;
  if (answer.has_work) actors_[actor]->enabled(world_, work);
  const bool same_work = !answer.has_work || work == answer.work;
  const bool same_timer = !answer.has_timer || actors_[actor]->next_timer_ms(world_) == answer.timer_ms;
  if (same_work && same_timer) return;
  throw std::logic_error(fmt::format("rjsim bug: actor {} answered differently at step {} for what its inputs() "
                                     "declare unchanged: it reads more than it declares",
                                     actors_[actor]->name(), world_.steps));
}

void Simulation::forget_actor_answers() { answers().forget(); }

std::int64_t Simulation::dashboard_timeout_ms() const {
  const std::optional<std::int64_t> scenario = dashboard_ ? dashboard_->behaviour().timeout_ms : std::nullopt;
  return scenario.value_or(environment_.dashboard_timeout_ms);
}

bool Simulation::has_due_timers() const {
  if (!world_.process.up) return false;
  const std::optional<std::int64_t> at = world_.process.queue.next_timer_ms();
  return at && *at <= world_.now_ms;
}

std::vector<Step> Simulation::enabled_steps() const {
  std::vector<Step> steps;
  std::vector<ActorWork> work;
  steps.resize(list_enabled_steps(steps, work));
  return steps;
}

std::size_t Simulation::list_enabled_steps(std::vector<Step>& slots, std::vector<ActorWork>& work) const {
  std::size_t listed = 0;
  const auto add = [&](StepKind kind) -> Step& {
    if (listed == slots.size()) slots.emplace_back();
    Step& step = slots[listed++];
    reuse_as(step, kind);
    return step;
  };
  const Process& process = world_.process;

  // A stopped pass with nothing allowed to run beside it but a crash (restarts.midReconcile
  // without interleaveCalls): it goes on at once, as an atomic pass would.
  if (process.up && process.pass && !faults_.interleave_calls) {
    add(StepKind::resume);
    if (world_.faults_used.restarts < faults_.restarts) add(StepKind::crash);
    return listed;
  }

  // Deliveries: an informer has events (received or still in flight) it has not applied. They
  // are urgent unless the faults let them wait, or the informer is catching up after a relist
  // that went back in time. One that may wait is held no longer than world.latency.watch after
  // its oldest event's write: then it is overdue, and time may not pass until it has run.
  std::size_t deliveries = 0;
  std::size_t urgent_deliveries = 0;
  std::size_t overdue_deliveries = 0;
  std::optional<std::int64_t> deliveries_due_by;
  const auto earliest = [](std::optional<std::int64_t>& at, std::int64_t candidate) {
    if (!at || candidate < *at) at = candidate;
  };
  if (process.up) {
    for (const CopyOnWrite<Informer>& informer : process.informers) {
      const std::vector<WatchEvent>& log = world_.api.watch_log(informer->kind());
      if (!informer->has_pending(log)) continue;
      add(StepKind::deliver).informer_kind = informer->kind();
      ++deliveries;
      if (informer->catching_up()) continue;
      ++urgent_deliveries;
      const std::int64_t due = *informer->deliveries_due_by(log, faults_.watch_latency_max_ms);
      if (world_.now_ms >= due) {
        ++overdue_deliveries;
      } else {
        earliest(deliveries_due_by, due);
      }
    }
  }
  if (urgent_deliveries > 0 && !faults_.deliveries_may_wait()) return listed;

  if (process.up && process.pass && process.pass->resume_at_ms <= world_.now_ms) add(StepKind::resume);
  if (process.up && !process.pending_notifications.empty()) add(StepKind::notify);

  // Reactions (DESIGN §1.1): `waiting` counts the steps that may wait for time to pass; time
  // may pass no further than `must_run_by`; `ripens_at` is when the next waiting one may run.
  std::size_t waiting = 0;
  std::optional<std::int64_t> must_run_by;
  std::optional<std::int64_t> ripens_at;
  ActorAnswers& kept = answers();
  kept.refresh(world_);
  for (std::size_t i = 0; i < actors_.size(); ++i) {
    for (const ActorWork& item : actor_work(kept, i, work)) {
      if (latencies_[i] != Latency{}) {
        const std::int64_t since = reaction_since(i, item);
        if (world_.now_ms < since + latencies_[i].min_ms) {
          earliest(ripens_at, since + latencies_[i].min_ms);
          continue;
        }
        if (world_.now_ms < since + latencies_[i].max_ms) {
          ++waiting;
          earliest(must_run_by, since + latencies_[i].max_ms);
        }
      }
      Step& step = add(StepKind::actor);
      step.actor = static_cast<int>(i);
      // A slot mostly holds the same work as at the last step: assigning it again would touch the
      // shared object's reference count (an atomic add and subtract) for nothing.
      if (!(step.work == item)) step.work = item;
    }
  }
  if (has_due_timers()) add(StepKind::timers);
  const bool workers_started =
      !environment_.workers_wait_for_handlers || process.pending_notifications.empty();
  if (process.up && workers_started && !process.pass && process.worker_busy_until_ms <= world_.now_ms &&
      process.queue.has_ready()) {
    add(StepKind::reconcile);
  }
  if (!process.up && process.restart_at_ms <= world_.now_ms) {
    add(StepKind::restart);
    if (world_.now_ms < process.restart_deadline_ms) {
      ++waiting;
      earliest(must_run_by, process.restart_deadline_ms);
    }
  }

  // The clock: when nothing but held deliveries and reactions that may wait can run, up to the
  // earliest timer, reaction ripening or reaction deadline. An informer catching up after time
  // travel may let a reconcile run first, but not let time pass: that would be a stale read.
  // Held deliveries only bound how far: with nothing else to come, holding them while time
  // passes would change nothing but the clock.
  const std::size_t held_deliveries = faults_.deliveries_may_wait() ? deliveries - overdue_deliveries : 0;
  if (listed == held_deliveries + waiting) {
    std::optional<std::int64_t> at = next_timer_ms();
    if (ripens_at) earliest(at, *ripens_at);
    if (must_run_by) earliest(at, *must_run_by);
    if (at && deliveries_due_by) earliest(at, *deliveries_due_by);
    if (at) add(StepKind::clock).clock_to_ms = *at;
  }
  // A crash is offered only beside other work, so that it never keeps a finished run alive and
  // the fault-free default (the first step) never picks it.
  // Inside a pass only with restarts.midReconcile.
  if (listed > 0 && process.up && world_.faults_used.restarts < faults_.restarts &&
      (!process.pass || faults_.mid_reconcile)) {
    add(StepKind::crash);
  }
  return listed;
}

// ---- running ----

bool Simulation::step() {
  const std::vector<Step> steps = enabled_steps();
  if (steps.empty()) return false;
  step(steps);
  return true;
}

bool may_decide_within(StepKind kind) {
  switch (kind) {
    case StepKind::actor:       // name suffixes (Pod names, submission ids)
    case StepKind::reconcile:   // cache lag, write and HTTP faults, name suffixes
    case StepKind::resume:      // the same
    case StepKind::restart:     // the relist point
      return true;
    case StepKind::deliver:
    case StepKind::notify:
    case StepKind::timers:
    case StepKind::clock:
    case StepKind::crash:
      return false;
  }
  return true;
}

std::int64_t Simulation::reaction_since(std::size_t actor, const ActorWork& work) const {
  for (const PendingReaction& reaction : world_.reactions) {
    if (reaction.actor == static_cast<int>(actor) && reaction.index == work.index && reaction.what == work.what &&
        reaction.object == work.object) {
      return reaction.since_ms;
    }
  }
  return world_.now_ms;
}

void Simulation::record_reactions() {
  // Listed into slots kept from step to step, and copied into the world only when the list
  // changed: most steps leave it as it was, and a list made afresh allocated each reaction's
  // object name at every step.
  std::vector<PendingReaction>& pending = reaction_buffer_;
  std::size_t count = 0;
  ActorAnswers& kept = answers();
  kept.refresh(world_);
  for (std::size_t i = 0; i < actors_.size(); ++i) {
    if (latencies_[i] == Latency{}) continue;
    for (const ActorWork& item : actor_work(kept, i, work_buffer_)) {
      if (count == pending.size()) pending.emplace_back();
      PendingReaction& reaction = pending[count++];
      reaction.actor = static_cast<int>(i);
      reaction.what = item.what;
      // Mostly the same object as at the last step: assigning it again would touch the shared
      // text's reference count (an atomic add and subtract) for nothing.
      if (!(reaction.object == item.object)) reaction.object = item.object;
      reaction.index = item.index;
      reaction.since_ms = reaction_since(i, item);
    }
  }
  const auto listed = pending.begin() + static_cast<std::ptrdiff_t>(count);
  if (!std::equal(pending.begin(), listed, world_.reactions.begin(), world_.reactions.end())) {
    world_.reactions.assign(pending.begin(), listed);
  }
}

void Simulation::step(std::span<const Step> steps) {
  for (StepObserver* observer : observers_) observer->before_step(world_, steps);
  step_events_.clear();
  reconciled_.clear();
  const std::int64_t first_seq = next_seq_;
  StepContext context(world_, *chooser_, next_seq_, step_events_, built_);
  std::vector<StepOption>& options = option_buffer_;
  options.clear();
  for (const Step& step : steps) options.push_back(step.option());
  const std::size_t picked = context.decide_step(options);
  if (steps.size() > 1 && context.builds("choice")) step_events_.back().with("step", steps[picked].describe());
  [[maybe_unused]] const int decisions_before_apply = context.decisions_logged();
  apply(steps[picked], context);
  assert((may_decide_within(steps[picked].kind) || context.decisions_logged() == decisions_before_apply) &&
         "rjsim bug: a step of a kind that may_decide_within says never decides made a decision");
  ++world_.steps;
  finish_step(first_seq);
}

void Simulation::run_as_step(const std::function<void(StepContext&)>& apply_step) {
  for (StepObserver* observer : observers_) observer->before_step(world_, {});
  step_events_.clear();
  reconciled_.clear();
  const std::int64_t first_seq = next_seq_;
  StepContext context(world_, *chooser_, next_seq_, step_events_, built_);
  apply_step(context);
  ++world_.steps;
  finish_step(first_seq);
}

void Simulation::inject_crash() {
  run_as_step([this](StepContext& context) { crash(context, "injected"); });
}

void Simulation::record(Event event) {
  event.seq = next_seq_++;
  event.at_ms = world_.now_ms;
  sink_.emit(event);
}

void Simulation::finish_step(std::int64_t first_seq) {
  // The work the step made possible starts waiting now; the work it did, or undid, waits no more.
  if (tracks_reactions_) record_reactions();
  const StepLog step{first_seq, next_seq_, step_events_.view(), reconciled_};
  for (const Event& event : step.events) sink_.emit(event);
  for (StepObserver* observer : observers_) observer->after_step(world_, step);
}

RunEnd Simulation::run() {
  while (true) {
    if (stop_requested_) return RunEnd::stopped;
    if (world_.steps >= limits_.steps) return RunEnd::step_limit;
    // Listed first: listing may grow the buffer, and the order in which a constructor's arguments
    // are evaluated is unspecified (Clang took data() first, from the buffer before it grew).
    const std::size_t enabled = list_enabled_steps(enabled_buffer_, work_buffer_);
    const std::span<const Step> steps(enabled_buffer_.data(), enabled);
    if (steps.empty()) return RunEnd::quiescent;
    // The clock is offered only when nothing but held deliveries can run; past the time limit
    // the run ends there.
    const auto clock = std::find_if(steps.begin(), steps.end(),
                                    [](const Step& s) { return s.kind == StepKind::clock; });
    if (clock != steps.end() && clock->clock_to_ms > limits_.time_ms) return RunEnd::time_limit;
    step(steps);
  }
}

void Simulation::apply(const Step& step, StepContext& context) {
  switch (step.kind) {
    case StepKind::deliver:
      deliver_one(context, watches_, step.informer_kind);
      return;
    case StepKind::notify:
      notify(context);
      return;
    case StepKind::actor:
      actors_[static_cast<std::size_t>(step.actor)]->apply(step.work, context);
      return;
    case StepKind::timers:
      fire_timers(context);
      return;
    case StepKind::reconcile:
      reconcile(context);
      return;
    case StepKind::resume:
      resume(context);
      return;
    case StepKind::restart:
      restart(context);
      return;
    case StepKind::clock:
      world_.now_ms = step.clock_to_ms;
      context.effect("clock.advance", "clock").with("to_ms", step.clock_to_ms);
      return;
    case StepKind::crash:
      ++world_.faults_used.restarts;
      crash(context, "injected");
      return;
  }
}

void Simulation::notify(StepContext& context) {
  std::vector<std::string>& pending = world_.process.pending_notifications;
  const std::string key = pending.front();
  pending.erase(pending.begin());
  enqueue(context, key, initial_list_priority(environment_), "initial-list");
}

void Simulation::fire_timers(StepContext& context) {
  fired_keys_buffer_.clear();
  world_.process.queue.fire_due_timers(world_.now_ms, fired_keys_buffer_);
  for (const std::string& key : fired_keys_buffer_) {
    context.effect("queue.timer", "workqueue").with("key", key);
  }
}

namespace {

std::string describe_result(const ReconcileResult& result) {
  if (result.err) return "error";
  if (result.requeue_after_ms > 0) return "requeue_after";
  return result.requeue ? "requeue" : "done";
}

Request request_for(const std::string& key) {
  const auto slash = key.find('/');
  return Request{key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace

bool Simulation::passes_stop_between_calls() const {
  return faults_.interleave_calls || (faults_.mid_reconcile && world_.faults_used.restarts < faults_.restarts);
}

void Simulation::reconcile(StepContext& context) {
  PassInFlight pass;
  pass.key = world_.process.queue.get(&pass.priority);
  const Request request = request_for(pass.key);
  context.effect("queue.get", "workqueue").with("key", pass.key.str());
  pass_event(context, "reconcile.begin", request).with("incarnation", world_.process.incarnation);
  run_pass(context, request, std::move(pass));
}

void Simulation::resume(StepContext& context) {
  PassInFlight pass = std::move(*world_.process.pass);
  world_.process.pass.reset();
  const Request request = request_for(pass.key);
  pass_event(context, "reconcile.resume", request)
      .with("incarnation", world_.process.incarnation)
      .with("calls", static_cast<std::int64_t>(pass.replies.size()));
  run_pass(context, request, std::move(pass));
}

EventBuilder Simulation::controller_event(StepContext& context, std::string_view type, const Request& request) {
  return context.effect(type, "controller").object(watches_.for_kind, request.namespace_, request.name);
}

EventBuilder Simulation::pass_event(StepContext& context, std::string_view type, const Request& request) {
  assign_object_ref(reconciled_, watches_.for_kind, request.namespace_, request.name);
  return controller_event(context, type, request);
}

void Simulation::run_pass(StepContext& context, const Request& request, PassInFlight pass) {
  ReconcileContext live(context, watches_, faults_, dashboard_, operator_settings_, dashboard_timeout_ms());
  PassClients::Timing timing;
  timing.stop_after_calls = passes_stop_between_calls();
  timing.dashboard_takes_time = faults_.interleave_calls;
  timing.dashboard_latency_ms = dashboard_ ? dashboard_->behaviour().latency_ms : 0;
  timing.dashboard_timeout_ms = dashboard_timeout_ms();
  // A pass that cannot stop and has made no call yet runs on the live clients, as the first
  // engine's did: nothing to replay, nothing to keep.
  const bool straight = !timing.stop_after_calls && pass.replies.empty();
  // When the clock does not move within a pass, a timed-out call holds the worker after it.
  const auto blocked_now = [&] { return pass.blocked_ms + (faults_.interleave_calls ? 0 : live.blocked_ms()); };
  std::optional<ReconcileResult> result;
  try {
    if (straight) {
      Clients clients{live, live, live};
      result = controller_.reconcile(request, clients);
    } else {
      result = passes_.run(controller_, request, live, pass, timing);
    }
  } catch (const ModelPanic& panic) {
    controller_event(context, "reconcile.panic", request).with("message", panic.what());
    if (environment_.panic_kills_process) {
      crash(context, "panic");
      return;
    }
    result = ReconcileResult::error(Error(ErrorCode::other, fmt::format("panic: {}", panic.what())));
  }
  if (!result) {   // the pass stopped after a call: it waits in the world for a resume step
    pass.blocked_ms = blocked_now();
    world_.process.pass = std::move(pass);
    return;
  }
  end_pass(context, request, pass, *result, blocked_now());
}

void Simulation::end_pass(StepContext& context, const Request& request, const PassInFlight& pass,
                          const ReconcileResult& result, std::int64_t blocked_ms) {
  WorkQueue& queue = world_.process.queue;
  const std::string& key = pass.key;
  EventBuilder end = controller_event(context, "reconcile.end", request);
  if (end.kept()) {
    end.with("result", describe_result(result));
    if (result.requeue_after_ms > 0) end.with("requeue_after_ms", result.requeue_after_ms);
    if (result.err) end.with("error", result.err.message());
  }
  // A timed-out dashboard call held the worker: the pass ends, and its requeue counts, that late.
  if (blocked_ms > 0) {
    end.with("blocked_ms", blocked_ms);
    world_.process.worker_busy_until_ms = world_.now_ms + blocked_ms;
  }

  // reconcileHandler (§2.4): an error ignores RequeueAfter; RequeueAfter forgets, then waits;
  // Requeue (without either) is a rate-limited re-add that keeps the failure count.
  if (result.err || (result.requeue && result.requeue_after_ms <= 0)) {
    std::int64_t delay_ms = 0;
    queue.add_rate_limited(key, world_.now_ms, pass.priority, &delay_ms);   // picked up when the worker is free
    EventBuilder backoff = context.effect("queue.backoff", "workqueue");
    if (backoff.kept()) backoff.with("key", key).with("delay_ms", delay_ms).with("failures", queue.num_requeues(key));
  } else if (result.requeue_after_ms > 0) {
    queue.forget(key);
    queue.add_after(key, result.requeue_after_ms + blocked_ms, world_.now_ms, pass.priority);
    context.effect("queue.requeue_after", "workqueue")
        .with("key", key)
        .with("delay_ms", result.requeue_after_ms);
  } else {
    queue.forget(key);
  }
  queue.done(key);
  context.effect("queue.done", "workqueue").with("key", key);
}

void Simulation::crash(StepContext& context, std::string_view reason) {
  Process& process = world_.process;
  process.up = false;
  process.restart_at_ms = world_.now_ms + operator_restart_.min_ms;
  process.restart_deadline_ms = world_.now_ms + operator_restart_.max_ms;
  process.worker_busy_until_ms = 0;   // the blocked call dies with the process
  process.pass.reset();                // and so does a pass stopped between two calls
  process.queue = WorkQueue(environment_.queue);   // pending keys, timers and failures are lost
  process.pending_notifications.clear();
  context.effect("process.crash", "controller")
      .with("reason", reason)
      .with("incarnation", process.incarnation)
      .with("restart_at_ms", process.restart_at_ms);
}

void Simulation::restart(StepContext& context) {
  Process& process = world_.process;
  ++process.incarnation;
  process.up = true;
  context.effect("process.restart", "controller").with("incarnation", process.incarnation);
  const std::int64_t head = world_.api.resource_version();
  for (CopyOnWrite<Informer>& shared : process.informers) {
    Informer& informer = shared.edit();
    // A relist at "0" may be served by a lagging apiserver: any revision up to where the dead
    // process had got to (time travel, §1.7, §7.2 item 9); the head otherwise.
    const std::int64_t reached = informer.last_sync_resource_version();
    const std::vector<std::int64_t> points =
        faults_.time_travel()
            ? relist_points(world_.api.watch_log(informer.kind()), head, reached, faults_.max_rewind)
            : std::vector<std::int64_t>{head};
    const std::int64_t at = points[context.decide(ChoicePoint::relist_point, points.size(),
                                                  to_string(informer.kind()))];
    const std::vector<Notification> listed = informer.relist(world_.api, at);
    if (at < reached) informer.mark_rewound(reached);
    context.effect("informer.relist", informer_actor(informer.kind()))
        .with("rv", at)
        .with("objects", static_cast<std::int64_t>(listed.size()));
    for (const Notification& notification : listed) {
      for (const std::string& key : keys_for(watches_, informer.kind(), notification)) {
        if (environment_.workers_wait_for_handlers) {
          enqueue(context, key, initial_list_priority(environment_), "initial-list");
        } else {
          process.pending_notifications.push_back(key);
        }
      }
    }
  }
}

}  // namespace rjsim::engine
