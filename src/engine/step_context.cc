#include "engine/step_context.h"

#include <cassert>

#include <fmt/format.h>

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using events::Event;
using events::Origin;

namespace {

// "api.<verb>" for each verb a LoggedApi logs, without building the string per write.
std::string_view api_event_type(std::string_view verb) {
  static constexpr std::string_view kTypes[] = {"api.create", "api.update", "api.update_status",
                                                "api.patch", "api.patch_status", "api.delete"};
  for (std::string_view type : kTypes) {
    if (type.substr(4) == verb) return type;
  }
  assert(false && "rjsim bug: a write verb with no api.* event type");
  return "api.unknown";
}

}  // namespace

std::uint64_t StepContext::decide(ChoicePoint point, std::uint64_t options, std::string_view about) {
  if (options <= 1) return 0;
  const std::uint64_t picked = chooser_.choose(point, options);
  log_decision(point, options, picked, about);
  return picked;
}

std::uint64_t StepContext::decide_step(std::span<const StepOption> steps) {
  if (steps.size() <= 1) return 0;
  const std::uint64_t picked = chooser_.choose_step(steps);
  log_decision(ChoicePoint::step, steps.size(), picked, {});
  return picked;
}

void StepContext::log_decision(ChoicePoint point, std::uint64_t options, std::uint64_t picked,
                               std::string_view about) {
  ++decisions_logged_;
  EventBuilder event = emit(Origin::input, "choice", "chooser");
  event.with("point", to_string(point))
      .with("options", static_cast<std::int64_t>(options))
      .with("picked", static_cast<std::int64_t>(picked));
  if (!about.empty()) event.with("about", about);
}

bool decision_of(const Event& event, Decision& decision) {
  if (event.type != "choice"sv) return false;
  const events::Value* point = event.find("point");
  const events::Value* options = event.find("options");
  const events::Value* picked = event.find("picked");
  if (!point || !options || !picked || !std::holds_alternative<std::string>(*point) ||
      !std::holds_alternative<std::int64_t>(*options) || !std::holds_alternative<std::int64_t>(*picked)) {
    return false;
  }
  const std::int64_t option_count = std::get<std::int64_t>(*options);
  const std::int64_t picked_index = std::get<std::int64_t>(*picked);
  if (option_count < 2 || picked_index < 0 || picked_index >= option_count) return false;
  if (!parse_choice_point(std::get<std::string>(*point), decision.point)) return false;
  decision.options = static_cast<std::uint64_t>(option_count);
  decision.picked = static_cast<std::uint64_t>(picked_index);
  return true;
}

Event& StepEvents::add(std::string_view type, std::string_view actor, std::string_view object) {
  if (size_ == events_.size()) {
    events_.emplace_back().body.reserve(6);   // most bodies have up to six fields
  }
  Event& event = events_[size_++];
  event.type.assign(type);   // assign, not move: keeps the memory of the event reused
  event.actor.assign(actor);
  event.object.assign(object);
  event.body.clear();
  return event;
}

EventBuilder StepContext::build(std::int64_t seq, Origin origin, std::string_view type, std::string_view actor,
                                std::string_view object) {
  Event& event = step_events_.add(type, actor, object);
  event.seq = seq;
  event.at_ms = world_.now_ms;
  event.origin = origin;
  return EventBuilder(&event);
}

LoggedApi::RayJobStatusBefore LoggedApi::status_before(Kind kind, std::string_view namespace_,
                                                       std::string_view name) const {
  RayJobStatusBefore before;
  if (kind != Kind::RayJob) return before;
  if (const RayJob* rayjob = context_.world().api.find<RayJob>(namespace_, name)) {
    before.present = true;
    before.deployment = rayjob->status.job_deployment_status;
    before.job_status = rayjob->status.job_status;
  }
  return before;
}

void LoggedApi::log(std::string_view verb, Kind kind, std::string_view namespace_,
                    std::string_view name, const WriteOutcome& outcome,
                    const RayJobStatusBefore& before, std::int64_t sent_resource_version) {
  EventBuilder event = context_.effect(api_event_type(verb), actor_, kind, namespace_, name);
  event.with("outcome", outcome.error ? to_string(outcome.error.code()) : "ok");
  if (outcome.error) event.with("message", outcome.error.message());
  if (sent_resource_version != 0) event.with("rv_sent", sent_resource_version);
  if (outcome.error) {
    // Nothing was written: say what the server holds, which a 409 disagreed with.
    const Object* stored = context_.world().api.find(kind, namespace_, name);
    event.with("changed", false).with("rv_stored", stored ? meta(*stored).resource_version : 0);
    return;
  }
  event.with("changed", outcome.changed)
      .with("rv_before", outcome.resource_version_before)
      .with("rv_after", outcome.resource_version_after);
  if (outcome.changed) event.with("watch", to_string(outcome.watch_type));

  if (kind != Kind::RayJob || !outcome.changed || !before.present) return;
  const RayJob* after = context_.world().api.find<RayJob>(namespace_, name);
  if (!after) return;   // deleted: no status change is persisted by a delete
  const RayJobStatus& status = after->status;
  if (status.job_deployment_status == before.deployment && status.job_status == before.job_status) {
    return;
  }
  context_.effect("status.transition", "apiserver", kind, namespace_, name)
      .with("from_deployment", before.deployment)
      .with("to_deployment", status.job_deployment_status)
      .with("from_job_status", before.job_status)
      .with("to_job_status", status.job_status)
      .with("reason", status.reason)
      .with("rv", after->metadata.resource_version);
}

void LoggedApi::log_refused(std::string_view verb, Kind kind, const ObjectMeta& meta,
                            const Error& error, std::string_view injected) {
  EventBuilder event = context_.effect(api_event_type(verb), actor_, kind, meta.namespace_, meta.name);
  event.with("outcome", to_string(error.code()))
      .with("message", error.message())
      .with("rv_sent", meta.resource_version)
      .with("changed", false)
      .with("injected", injected);
}

WriteOutcome LoggedApi::create(Object& object) {
  const ObjectMeta& m = meta(object);
  const std::string namespace_ = m.namespace_, name = m.name;
  RayJobStatusBefore before;   // a create persists no transition
  WriteOutcome outcome = context_.world().api.create(object, context_.now_ms());
  log("create", kind_of(object), namespace_, name, outcome, before);
  return outcome;
}

WriteOutcome LoggedApi::update(Object& object) {
  const std::string namespace_ = meta(object).namespace_, name = meta(object).name;
  RayJobStatusBefore before = status_before(kind_of(object), namespace_, name);
  const std::int64_t sent = meta(object).resource_version;
  WriteOutcome outcome = context_.world().api.update(object, context_.now_ms());
  log("update", kind_of(object), namespace_, name, outcome, before, sent);
  return outcome;
}

WriteOutcome LoggedApi::update_status(Object& object) {
  const std::string namespace_ = meta(object).namespace_, name = meta(object).name;
  RayJobStatusBefore before = status_before(kind_of(object), namespace_, name);
  const std::int64_t sent = meta(object).resource_version;
  WriteOutcome outcome = context_.world().api.update_status(object, context_.now_ms());
  log("update_status", kind_of(object), namespace_, name, outcome, before, sent);
  return outcome;
}

WriteOutcome LoggedApi::patch(Kind kind, std::string_view namespace_, std::string_view name,
                              const std::function<void(Object&)>& mutate) {
  RayJobStatusBefore before = status_before(kind, namespace_, name);
  WriteOutcome outcome = context_.world().api.patch(kind, namespace_, name, mutate, context_.now_ms());
  log("patch", kind, namespace_, name, outcome, before);
  return outcome;
}

WriteOutcome LoggedApi::patch_status(Kind kind, std::string_view namespace_, std::string_view name,
                                     const std::function<void(Object&)>& mutate) {
  RayJobStatusBefore before = status_before(kind, namespace_, name);
  WriteOutcome outcome =
      context_.world().api.patch_status(kind, namespace_, name, mutate, context_.now_ms());
  log("patch_status", kind, namespace_, name, outcome, before);
  return outcome;
}

WriteOutcome LoggedApi::remove(Kind kind, std::string_view namespace_, std::string_view name,
                               Propagation propagation, std::optional<std::int64_t> grace_period_seconds) {
  RayJobStatusBefore before = status_before(kind, namespace_, name);
  WriteOutcome outcome = context_.world().api.remove(kind, namespace_, name, propagation, context_.now_ms(),
                                                     grace_period_seconds);
  log("delete", kind, namespace_, name, outcome, before);
  return outcome;
}

}  // namespace rjsim::engine
