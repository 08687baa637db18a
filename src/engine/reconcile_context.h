// The clients a model gets for one reconcile, bound to the world for the duration of the step.
// Reads come from the informer caches (kubernetes-semantics §2.1): before a read the chooser may
// let the kind's informer apply some pending pops, within the staleness bound (after the read's
// advance at most `max_lag` events of the kind are unapplied; 0 without the staleReads fault, so
// a fault-free read always sees the kind's whole log). Writes go to the API server (§2.2), where
// the chooser may inject a 409, a 5xx, or an applied-but-reported-failed timeout within the
// budget. Every read and write is logged.
#pragma once

#include <string>

#include "engine/controller.h"
#include "engine/ray_dashboard.h"
#include "engine/scenario_behaviour.h"
#include "engine/simulation.h"
#include "engine/step_context.h"

namespace rjsim::engine {

class ReconcileContext final : public KubeClient, public Runtime, public DashboardApi {
 public:
  // `dashboard` may be null (a world without Ray): every dashboard call then fails to connect.
  // `operator_settings` may be null: no env set, every feature gate at its default.
  // `http_timeout_ms`: how long a dashboard call that times out keeps the worker (blocked_ms).
  ReconcileContext(StepContext& context, const Watches& watches, const FaultBudget& faults,
                   const RayDashboard* dashboard, const OperatorSettings* operator_settings = nullptr,
                   std::int64_t http_timeout_ms = 2'000)
      : context_(context), watches_(watches), faults_(faults), dashboard_(dashboard),
        operator_settings_(operator_settings), http_timeout_ms_(http_timeout_ms), api_(context, "controller") {}

  // The time this reconcile's timed-out dashboard calls held the worker.
  std::int64_t blocked_ms() const { return blocked_ms_; }

  using KubeClient::create;
  using KubeClient::get;
  using KubeClient::get_from_api;
  using KubeClient::update;
  using KubeClient::update_status;

  const Object* read(Kind kind, std::string_view namespace_, std::string_view name, Error& error) override {
    const ObjectVersion* version = read_version(kind, namespace_, name, error);
    return version ? &**version : nullptr;
  }
  // read(), giving the cached version itself (PassClients keeps it in the pass's replies).
  const ObjectVersion* read_version(Kind kind, std::string_view namespace_, std::string_view name, Error& error);
  const Object* read_from_api(Kind kind, std::string_view namespace_, std::string_view name, Error& error) override {
    const ObjectVersion* version = read_version_from_api(kind, namespace_, name, error);
    return version ? &**version : nullptr;
  }
  // read_from_api(), giving the API server's stored version itself.
  const ObjectVersion* read_version_from_api(Kind kind, std::string_view namespace_, std::string_view name,
                                             Error& error);
  // A write's reply as a version to keep: the API server's stored one when `object` is it, else a
  // new version of it (the write deleted the object).
  ObjectVersion version_of(const Object& object) const;
  Error list(Kind kind, std::string_view namespace_, const StringMap& labels,
             std::vector<Object>& out) override;
  // list(), giving the cached versions themselves.
  Error list_versions(Kind kind, std::string_view namespace_, const StringMap& labels, std::vector<ObjectVersion>& out);
  Error list_from_api(Kind kind, std::string_view namespace_, const StringMap& labels,
                      std::vector<Object>& out) override;
  // list_from_api(), giving the API server's stored versions themselves.
  Error list_versions_from_api(Kind kind, std::string_view namespace_, const StringMap& labels,
                               std::vector<ObjectVersion>& out);
  Error create(Object& object) override;
  Error update(Object& object) override;
  Error update_status(Object& object) override;
  Error remove(Kind kind, std::string_view namespace_, std::string_view name,
               Propagation propagation) override;

  std::int64_t now_ms() override { return context_.now_ms(); }
  std::string random_string(int length) override;
  std::optional<std::string> operator_env(std::string_view name) override;
  bool feature_gate(std::string_view name, bool default_value) override;

  DashboardResponse get_job_info(std::string_view dashboard_url, std::string_view job_id) override;
  DashboardResponse submit_job(std::string_view dashboard_url, const SubmitJobRequest& request) override;
  DashboardResponse stop_job(std::string_view dashboard_url, std::string_view job_id) override;
  DashboardResponse delete_job(std::string_view dashboard_url, std::string_view job_id) override;

 private:
  enum class WriteFault : std::uint8_t { none, conflict, server_error, applied_then_timeout };

  // Lets the informer catch up before a read, as far as the bound requires and the chooser wants.
  void advance_before_read(Kind kind);
  bool overdue(const Informer& informer, const std::vector<WatchEvent>& log, std::int64_t now_ms) const;
  WriteFault choose_write_fault(bool conflict_possible, std::string_view verb, Kind kind,
                                const ObjectMeta& request);
  // Runs a write with the chosen fault: `write` performs the real write. A failed write leaves
  // `object` (the one sent, if any) as given, even when the write happened but its reply was lost.
  Error write(std::string_view verb, Kind kind, const ObjectMeta& request, bool conflict_possible,
              Object* object, const std::function<WriteOutcome()>& write);

  // Runs a dashboard call with an HTTP outcome chosen within the httpErrors budget: the call as
  // is, a 500, a timeout before it reached Ray, or (for calls that change Ray) a timeout after it
  // was applied.
  DashboardResponse http(std::string_view verb, std::string_view dashboard_url, bool changes_ray,
                         const std::function<DashboardResponse()>& call);

  StepContext& context_;
  const Watches& watches_;
  const FaultBudget& faults_;
  const RayDashboard* dashboard_;
  const OperatorSettings* operator_settings_;
  std::int64_t http_timeout_ms_;
  std::int64_t blocked_ms_ = 0;
  LoggedApi api_;
};

}  // namespace rjsim::engine
