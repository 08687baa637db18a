// What one step may touch: the world, the clock, the chooser (every decision logged as a
// `choice` input event), and the event log of the step. Effects are recorded through it, never
// written to a sink directly, so that the Simulation hands each step's events to the sink and
// the observers (checks) together, after the step is complete. An event of a type that neither
// the sink nor an observer reads takes its seq but is not built.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api_server.h"
#include "engine/chooser.h"
#include "engine/world.h"
#include "events/event.h"
#include "events/event_types.h"

namespace rjsim::engine {

// The events of one step. Events are kept when the step is over and reused by the next steps, so
// that an event's strings and body keep their memory instead of being allocated again each step.
class StepEvents {
 public:
  void clear() { size_ = 0; }
  // A new last event, emptied, with seq, at_ms and origin to be set by the caller.
  events::Event& add(std::string_view type, std::string_view actor, std::string_view object);
  events::Event& back() { return events_[size_ - 1]; }
  std::span<const events::Event> view() const { return {events_.data(), size_}; }

 private:
  std::vector<events::Event> events_;   // the first size_ are this step's
  std::size_t size_ = 0;
};

// What a step logged, as an observer sees it after the step.
struct StepLog {
  std::int64_t first_seq = 0;   // the seq of the step's first event
  std::int64_t end_seq = 0;     // one past the seq of its last (== first_seq: it logged none)
  // The step's events of the types the sink and the observers read, in seq order: the others
  // were not built, though they took their seqs.
  std::span<const events::Event> events;
  // The object ref ("RayJob/namespace/name") of the pass the step began or resumed (the object
  // of its reconcile.begin or reconcile.resume event), or empty. Given whether or not those
  // events are built: the checks want it in the few steps that write for a reconciled object
  // that is gone, and building an event at every reconcile for them cost 2-5% of a random run.
  std::string_view reconciled;
};

// An event being built by an emitter, or nothing when no one reads events of its type: then
// .with(...) drops its field. An emitter whose fields are costly to compute asks kept() first.
class EventBuilder {
 public:
  explicit EventBuilder(events::Event* event) : event_(event) {}

  template <class Value>
  EventBuilder& with(std::string_view key, Value&& value) {
    if (event_ != nullptr) event_->with(key, std::forward<Value>(value));
    return *this;
  }
  // The event's object, for an emitter that builds it only when kept().
  EventBuilder& object(std::string_view ref) {
    if (event_ != nullptr) event_->object.assign(ref);
    return *this;
  }
  // The same, naming the object by its parts ("Kind/namespace/name") without a string between.
  EventBuilder& object(Kind kind, std::string_view namespace_, std::string_view name) {
    if (event_ != nullptr) assign_object_ref(event_->object, kind, namespace_, name);
    return *this;
  }
  bool kept() const { return event_ != nullptr; }

 private:
  events::Event* event_;
};

class StepContext {
 public:
  // `built`: the event types to build (what the sink and the observers read).
  StepContext(World& world, Chooser& chooser, std::int64_t& next_seq, StepEvents& step_events,
              const events::EventTypes& built)
      : world_(world), chooser_(chooser), next_seq_(next_seq), step_events_(step_events), built_(built) {}

  World& world() { return world_; }
  const World& world() const { return world_; }
  std::int64_t now_ms() const { return world_.now_ms; }

  // Asks the chooser, logging the decision; a single option is no decision and is not logged.
  std::uint64_t decide(ChoicePoint point, std::uint64_t options, std::string_view about = {});
  // The `step` decision among `steps`, logged the same way.
  std::uint64_t decide_step(std::span<const StepOption> steps);
  // How many decisions this context has logged.
  int decisions_logged() const { return decisions_logged_; }

  // Starts an event at the current time; the caller fills the body with .with(...).
  EventBuilder emit(events::Origin origin, std::string_view type, std::string_view actor,
                    std::string_view object = {}) {
    const std::int64_t seq = next_seq_++;   // numbered whether built or not
    if (!built_.contains(type, object)) return EventBuilder(nullptr);
    return build(seq, origin, type, actor, object);
  }
  EventBuilder effect(std::string_view type, std::string_view actor, std::string_view object = {}) {
    return emit(events::Origin::effect, type, actor, object);
  }
  // An effect about an object named by its parts, made into its ref only when it is built.
  EventBuilder effect(std::string_view type, std::string_view actor, Kind kind, std::string_view namespace_,
                      std::string_view name) {
    const std::int64_t seq = next_seq_++;
    if (!built_.contains(type) || !built_.about_kind(to_string(kind))) return EventBuilder(nullptr);
    return build(seq, events::Origin::effect, type, actor, {}).object(kind, namespace_, name);
  }
  // Whether an event of this type would be built (for emitters whose object or fields are costly).
  bool builds(std::string_view type) const { return built_.contains(type); }

 private:
  EventBuilder build(std::int64_t seq, events::Origin origin, std::string_view type, std::string_view actor,
                     std::string_view object);
  void log_decision(ChoicePoint point, std::uint64_t options, std::uint64_t picked, std::string_view about);

  World& world_;
  Chooser& chooser_;
  std::int64_t& next_seq_;
  StepEvents& step_events_;
  const events::EventTypes& built_;
  int decisions_logged_ = 0;
};

// Reads back a decision that StepContext::decide logged: false when `event` is not a `choice`
// event or its body is not one decide writes.
bool decision_of(const events::Event& event, Decision& decision);

// The API server as one writer sees it: each write is logged as an api.* event with its outcome
// and resourceVersions, and a persisted change of a RayJob's deploymentStatus or jobStatus as a
// status.transition event (DESIGN §3).
class LoggedApi {
 public:
  LoggedApi(StepContext& context, std::string actor) : context_(context), actor_(std::move(actor)) {}

  WriteOutcome create(Object& object);
  WriteOutcome update(Object& object);
  WriteOutcome update_status(Object& object);
  WriteOutcome patch(Kind kind, std::string_view namespace_, std::string_view name,
                     const std::function<void(Object&)>& mutate);
  WriteOutcome patch_status(Kind kind, std::string_view namespace_, std::string_view name,
                            const std::function<void(Object&)>& mutate);
  WriteOutcome remove(Kind kind, std::string_view namespace_, std::string_view name,
                      Propagation propagation = Propagation::server_default,
                      std::optional<std::int64_t> grace_period_seconds = std::nullopt);

  // Logs a write that did not reach the server (an injected failure) the same way.
  void log_refused(std::string_view verb, Kind kind, const ObjectMeta& meta, const Error& error,
                   std::string_view injected);

 private:
  struct RayJobStatusBefore {
    bool present = false;
    std::string deployment, job_status;
  };
  RayJobStatusBefore status_before(Kind kind, std::string_view namespace_, std::string_view name) const;
  // `sent_resource_version`: the precondition an update carried (logged as rv_sent), or 0.
  void log(std::string_view verb, Kind kind, std::string_view namespace_, std::string_view name,
           const WriteOutcome& outcome, const RayJobStatusBefore& before,
           std::int64_t sent_resource_version = 0);

  StepContext& context_;
  std::string actor_;
};

}  // namespace rjsim::engine
