// The clients of a reconcile pass that may stop between its client calls (DESIGN §1.1,
// pass_in_flight.h). The calls the pass already made are answered from its replies, without
// touching the world; past them, calls go to this step's live clients and their replies are
// kept. When stopping is on, the pass stops right after the step's first live cache read, API
// write or dashboard call, so that whatever the model does next (time.Now() included) happens in
// a later step; the Simulation stores the pass in the world and offers a `resume` step. A
// dashboard call that stops the pass holds it for the call's latency, or for the client's timeout
// when it timed out.
//
// The pass runs on a stack of its own (pass_runner.h): stopped, it waits where it stopped, inside
// the call, and goes on from there in the step that resumes it, on that step's live clients. When
// no world resumes it any more it drains instead of unwinding: every later call answers at once,
// touching nothing (an error for reads, writes and dashboard calls; the plain value for the rest),
// so the model returns along its error paths and what it returned, or a ModelPanic it raised, is
// discarded. Throwing through the model cost three quarters of a run's instructions on scenarios
// that stop at every call (docs/performance.md); what the model does after the stop never reaches
// the world, the log or the chooser, so the two are indistinguishable from outside.
#pragma once

#include <cstdint>
#include <functional>

#include "engine/controller.h"
#include "engine/pass_in_flight.h"
#include "engine/reconcile_context.h"

namespace rjsim::engine {

class PassClients final : public KubeClient, public Runtime, public DashboardApi {
 public:
  using Timing = PassTiming;

  // `live` and `pass` must outlive this, or the next go_on(). `wait` is where a stopped pass
  // waits: called right after the call that stopped it, it returns when the pass goes on (go_on)
  // or drains (drain).
  PassClients(ReconcileContext& live, PassInFlight& pass, Timing timing, std::function<void()> wait)
      : live_(&live), pass_(&pass), timing_(timing), wait_(std::move(wait)) {}
  // A waiting pass goes on in a later step: on that step's live clients, its replies appended to
  // `pass` (the world's, holding every reply so far), stopping as `timing` says.
  void go_on(ReconcileContext& live, PassInFlight& pass, Timing timing);
  // From here on every call answers at once, touching nothing (see above).
  void drain() { draining_ = true; }

  using KubeClient::create;
  using KubeClient::get;
  using KubeClient::get_from_api;
  using KubeClient::update;
  using KubeClient::update_status;

  const Object* read(Kind kind, std::string_view namespace_, std::string_view name, Error& error) override;
  const Object* read_from_api(Kind kind, std::string_view namespace_, std::string_view name, Error& error) override;
  Error list(Kind kind, std::string_view namespace_, const StringMap& labels,
             std::vector<Object>& out) override;
  Error list_from_api(Kind kind, std::string_view namespace_, const StringMap& labels,
                      std::vector<Object>& out) override;
  Error create(Object& object) override;
  Error update(Object& object) override;
  Error update_status(Object& object) override;
  Error remove(Kind kind, std::string_view namespace_, std::string_view name,
               Propagation propagation) override;

  std::int64_t now_ms() override;
  std::string random_string(int length) override;
  std::optional<std::string> operator_env(std::string_view name) override;
  bool feature_gate(std::string_view name, bool default_value) override;

  DashboardResponse get_job_info(std::string_view dashboard_url, std::string_view job_id) override;
  DashboardResponse submit_job(std::string_view dashboard_url, const SubmitJobRequest& request) override;
  DashboardResponse stop_job(std::string_view dashboard_url, std::string_view job_id) override;
  DashboardResponse delete_job(std::string_view dashboard_url, std::string_view job_id) override;

 private:
  // The reply of the pass's next call when it made it already (replaying), else null.
  const CallReply* replayed(ClientCall call);
  // A new kept reply to a live call the pass just made, for the caller to fill in; then
  // stop_if_due stops the pass after it when this step's call is made.
  CallReply& keep(ClientCall call);
  void stop_if_due(const CallReply& reply);
  using LiveRead = const ObjectVersion* (ReconcileContext::*)(Kind, std::string_view, std::string_view, Error&);
  // A read from the cache or the API server: replayed, or made live and kept.
  const Object* read_one(ClientCall call, LiveRead live_read, Kind kind, std::string_view namespace_,
                         std::string_view name, Error& error);
  using LiveList = Error (ReconcileContext::*)(Kind, std::string_view, const StringMap&, std::vector<ObjectVersion>&);
  // A list from the cache or the API server: replayed, or made live and kept.
  Error list_many(ClientCall call, LiveList live_list, Kind kind, std::string_view namespace_,
                  const StringMap& labels, std::vector<Object>& out);
  Error write(ClientCall call, Object& object, Error (ReconcileContext::*live_write)(Object&));
  DashboardResponse dashboard(const std::function<DashboardResponse()>& live_call);

  ReconcileContext* live_;
  PassInFlight* pass_;
  Timing timing_;
  std::function<void()> wait_;
  std::size_t next_ = 0;   // the index of the pass's next call in pass_->replies
  std::int64_t stopped_at_ms_ = 0;   // the time of the step the pass last stopped in
  bool draining_ = false;
};

}  // namespace rjsim::engine
