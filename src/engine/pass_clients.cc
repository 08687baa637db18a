#include "engine/pass_clients.h"

#include <stdexcept>

#include <fmt/format.h>

namespace rjsim::engine {

namespace {

std::string_view to_string(ClientCall call) {
  switch (call) {
    case ClientCall::read: return "read";
    case ClientCall::list: return "list";
    case ClientCall::create: return "create";
    case ClientCall::update: return "update";
    case ClientCall::update_status: return "update_status";
    case ClientCall::remove: return "delete";
    case ClientCall::dashboard: return "dashboard";
    case ClientCall::read_from_api: return "read_from_api";
    case ClientCall::list_from_api: return "list_from_api";
    case ClientCall::now: return "now";
    case ClientCall::random_string: return "random_string";
  }
  return "?";
}

// What a stopped pass's calls answer: nothing was read, written or sent.
Error stopped_error() { return Error(ErrorCode::other, "rjsim: the pass stopped before this call"); }

DashboardResponse stopped_response() {
  DashboardResponse response;
  response.connected = false;
  response.text = stopped_error().message();
  return response;
}

}  // namespace

void PassClients::go_on(ReconcileContext& live, PassInFlight& pass, Timing timing) {
  live_ = &live;
  pass_ = &pass;
  timing_ = timing;
  next_ = pass.replies.size();
}

const CallReply* PassClients::replayed(ClientCall call) {
  if (next_ >= pass_->replies.size()) return nullptr;
  const CallReply& reply = *pass_->replies[next_++];
  // Given the same replies a model makes the same calls (Controller::reconcile reads the world
  // only through its clients); a model that does not cannot be resumed.
  if (reply.call != call) {
    throw std::logic_error(fmt::format("rjsim bug: resuming the pass of {}, call {} was {} and is now {}: the "
                                       "model reads something besides its clients",
                                       pass_->key.str(), next_, to_string(reply.call), to_string(call)));
  }
  return &reply;
}

CallReply& PassClients::keep(ClientCall call) {
  // Made where it is kept: a reply holds a dashboard answer (six strings and a map), which
  // moving in twice per call cost 2% of a random run of the all-faults scenarios.
  CallReply& reply = pass_->replies.emplace_back(std::in_place).edit();
  reply.call = call;
  next_ = pass_->replies.size();
  return reply;
}

void PassClients::stop_if_due(const CallReply& reply) {
  if (!timing_.stop_after_calls || !stops_after(reply.call)) return;
  stopped_at_ms_ = live_->now_ms();
  if (reply.call == ClientCall::dashboard && timing_.dashboard_takes_time) {
    const std::int64_t took = reply.response.timed_out ? timing_.dashboard_timeout_ms : timing_.dashboard_latency_ms;
    pass_->resume_at_ms = stopped_at_ms_ + took;
  }
  wait_();   // back in a later step, or draining
}

const Object* PassClients::read(Kind kind, std::string_view namespace_, std::string_view name, Error& error) {
  return read_one(ClientCall::read, &ReconcileContext::read_version, kind, namespace_, name, error);
}

const Object* PassClients::read_from_api(Kind kind, std::string_view namespace_, std::string_view name,
                                         Error& error) {
  return read_one(ClientCall::read_from_api, &ReconcileContext::read_version_from_api, kind, namespace_, name, error);
}

const Object* PassClients::read_one(ClientCall call, LiveRead live_read, Kind kind, std::string_view namespace_,
                                    std::string_view name, Error& error) {
  if (draining_) {
    error = stopped_error();
    return nullptr;
  }
  if (const CallReply* reply = replayed(call)) {
    error = reply->error;
    return reply->objects.empty() ? nullptr : &*reply->objects.front();
  }
  const ObjectVersion* found = (live_->*live_read)(kind, namespace_, name, error);
  CallReply& kept = keep(call);
  kept.error = error;
  if (found) kept.objects.push_back(*found);
  // The kept reply, not the cache: a pass that waited goes on in a later world.
  stop_if_due(kept);
  return kept.objects.empty() ? nullptr : &*kept.objects.front();
}

Error PassClients::list(Kind kind, std::string_view namespace_, const StringMap& labels, std::vector<Object>& out) {
  return list_many(ClientCall::list, &ReconcileContext::list_versions, kind, namespace_, labels, out);
}

Error PassClients::list_from_api(Kind kind, std::string_view namespace_, const StringMap& labels,
                                 std::vector<Object>& out) {
  return list_many(ClientCall::list_from_api, &ReconcileContext::list_versions_from_api, kind, namespace_, labels,
                   out);
}

Error PassClients::list_many(ClientCall call, LiveList live_list, Kind kind, std::string_view namespace_,
                             const StringMap& labels, std::vector<Object>& out) {
  if (draining_) {
    out.clear();
    return stopped_error();
  }
  if (const CallReply* reply = replayed(call)) {
    out.assign(reply->objects.begin(), reply->objects.end());
    return reply->error;
  }
  std::vector<ObjectVersion> objects;
  const Error error = (live_->*live_list)(kind, namespace_, labels, objects);
  out.assign(objects.begin(), objects.end());
  CallReply& reply = keep(call);
  reply.error = error;
  reply.objects = std::move(objects);
  stop_if_due(reply);
  return error;
}

Error PassClients::write(ClientCall call, Object& object, Error (ReconcileContext::*live_write)(Object&)) {
  if (draining_) return stopped_error();
  if (const CallReply* reply = replayed(call)) {
    if (!reply->error) object = *reply->objects.front();
    return reply->error;
  }
  const Error error = (live_->*live_write)(object);
  CallReply& reply = keep(call);
  reply.error = error;
  if (!error) reply.objects.push_back(live_->version_of(object));
  stop_if_due(reply);
  return error;
}

Error PassClients::create(Object& object) {
  return write(ClientCall::create, object, &ReconcileContext::create);
}

Error PassClients::update(Object& object) {
  return write(ClientCall::update, object, &ReconcileContext::update);
}

Error PassClients::update_status(Object& object) {
  return write(ClientCall::update_status, object, &ReconcileContext::update_status);
}

Error PassClients::remove(Kind kind, std::string_view namespace_, std::string_view name, Propagation propagation) {
  if (draining_) return stopped_error();
  if (const CallReply* reply = replayed(ClientCall::remove)) return reply->error;
  const Error error = live_->remove(kind, namespace_, name, propagation);
  CallReply& reply = keep(ClientCall::remove);
  reply.error = error;
  stop_if_due(reply);
  return error;
}

DashboardResponse PassClients::dashboard(const std::function<DashboardResponse()>& live_call) {
  if (draining_) return stopped_response();
  if (const CallReply* reply = replayed(ClientCall::dashboard)) return reply->response;
  DashboardResponse response = live_call();
  CallReply& reply = keep(ClientCall::dashboard);
  reply.response = response;
  stop_if_due(reply);
  return response;
}

DashboardResponse PassClients::get_job_info(std::string_view dashboard_url, std::string_view job_id) {
  return dashboard([&] { return live_->get_job_info(dashboard_url, job_id); });
}

DashboardResponse PassClients::submit_job(std::string_view dashboard_url, const SubmitJobRequest& request) {
  return dashboard([&] { return live_->submit_job(dashboard_url, request); });
}

DashboardResponse PassClients::stop_job(std::string_view dashboard_url, std::string_view job_id) {
  return dashboard([&] { return live_->stop_job(dashboard_url, job_id); });
}

DashboardResponse PassClients::delete_job(std::string_view dashboard_url, std::string_view job_id) {
  return dashboard([&] { return live_->delete_job(dashboard_url, job_id); });
}

std::int64_t PassClients::now_ms() {
  if (draining_) return stopped_at_ms_;   // the step's time: reading it changes nothing
  if (const CallReply* reply = replayed(ClientCall::now)) return reply->number;
  const std::int64_t now = live_->now_ms();
  return keep(ClientCall::now).number = now;
}

std::string PassClients::random_string(int length) {
  if (draining_) return std::string(static_cast<std::size_t>(length), 'x');   // no decision
  if (const CallReply* reply = replayed(ClientCall::random_string)) return *reply->text;
  std::string text = live_->random_string(length);
  return *(keep(ClientCall::random_string).text = std::move(text));
}

// The operator's environment and feature gates are the scenario's, the same for every call of
// a run: answered live, not kept (a 1.7 reconcile reads a gate several times, and keeping each
// answer as a reply was an allocation a call, 1% of a random run of `all-faults-1-7`).
std::optional<std::string> PassClients::operator_env(std::string_view name) {
  if (draining_) return std::nullopt;
  return live_->operator_env(name);
}

bool PassClients::feature_gate(std::string_view name, bool default_value) {
  if (draining_) return default_value;
  return live_->feature_gate(name, default_value);
}

}  // namespace rjsim::engine
