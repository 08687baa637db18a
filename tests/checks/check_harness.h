// Builds a run's history by hand for tests of the invariants: each step is a function that
// changes a World through the engine's LoggedApi (so that api.* and status.transition events
// have the engine's exact shape) or writes the Ray side directly with the dashboard's event
// shapes (docs/events.md), then hands the step's events and the world to an InvariantChecker.
// No model runs: a test states the smallest history that shows the rule.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/invariant_checker.h"
#include "engine/chooser.h"
#include "engine/step_context.h"
#include "engine/world.h"
#include "events/event.h"

namespace rjsim::testing {

inline constexpr const char* kNamespace = "default";

// Only `name` selected.
inline engine::InvariantSelection only(const std::string& name) {
  engine::InvariantSelection selection;
  selection.all = false;
  selection.names = {name};
  return selection;
}

class CheckRun {
 public:
  explicit CheckRun(const std::string& invariant,
                    std::vector<std::pair<std::string, std::string>> transition_table = {},
                    std::int64_t eventually_ms = 600'000)
      : checker(only(invariant), std::move(transition_table), eventually_ms) {}
  explicit CheckRun(const engine::InvariantSelection& selection,
                    std::vector<std::pair<std::string, std::string>> transition_table = {},
                    std::int64_t eventually_ms = 600'000)
      : checker(selection, std::move(transition_table), eventually_ms) {}

  engine::World world;
  checks::InvariantChecker checker;

  // One step at the current time: `apply` changes the world and logs through the context.
  // Returns the seq of the step's last event.
  // Only the events the checker reads are built, as in a simulation that has no other reader,
  // and a step's reconcile.begin or .resume, whose object is the StepLog's `reconciled` (the
  // Simulation names it there itself).
  std::int64_t step(const std::function<void(engine::StepContext&)>& apply) {
    engine::StepEvents step_events;
    events::EventTypes built = checker.reads();
    built.add(events::EventTypes::only({"reconcile.begin", "reconcile.resume"}).about({"RayJob"}));
    const std::int64_t first_seq = next_seq_;
    engine::StepContext context(world, chooser_, next_seq_, step_events, built);
    apply(context);
    events_.assign(step_events.view().begin(), step_events.view().end());
    reconciled_.clear();
    for (const events::Event& event : events_) {
      if (event.type == "reconcile.begin" || event.type == "reconcile.resume") reconciled_ = event.object;
    }
    ++world.steps;
    checker.after_step(world, engine::StepLog{first_seq, next_seq_, events_, reconciled_});
    return next_seq_ == first_seq ? -1 : next_seq_ - 1;
  }
  // Virtual time moves on (a clock step).
  std::int64_t advance_to(std::int64_t ms) {
    return step([&](engine::StepContext& c) {
      world.now_ms = ms;
      c.effect("clock.advance", "clock").with("to_ms", ms);
    });
  }
  std::int64_t last_seq() const { return next_seq_ - 1; }
  const std::vector<events::Event>& step_events() const { return events_; }

  void finish(engine::RunEnd end) { checker.finish(world, end); }
  const std::vector<checks::Violation>& violations() const { return checker.violations(); }

  // ---- the API server ----

  const engine::RayJob& rayjob(const std::string& name) const {
    const auto* found = world.api.find<engine::RayJob>(kNamespace, name);
    REQUIRE(found);
    return *found;
  }

  // The user creates a RayJob (action.create, api.create).
  std::int64_t create_rayjob(const std::string& name,
                             const std::function<void(engine::RayJobSpec&)>& edit = {}) {
    return step([&](engine::StepContext& c) {
      engine::RayJob rayjob;
      rayjob.metadata.name = name;
      rayjob.metadata.namespace_ = kNamespace;
      rayjob.spec.edit().entrypoint = "python main.py";
      rayjob.spec.edit().shutdown_after_job_finishes = true;
      rayjob.spec.edit().ray_cluster_spec = engine::RayClusterSpec{};
      if (edit) edit(rayjob.spec.edit());
      engine::Object object = rayjob;
      c.emit(events::Origin::input, "action.create", "user", engine::object_ref(object));
      REQUIRE(!engine::LoggedApi(c, "user").create(object).error);
    });
  }

  // A status write of the controller (api.update_status, and status.transition when the
  // deploymentStatus or jobStatus changed). `edit` may set further status fields.
  std::int64_t persist(const std::string& name, const std::string& deployment, const std::string& job_status,
                       const std::function<void(engine::RayJobStatus&)>& edit = {}) {
    return step([&](engine::StepContext& c) { write_status(c, name, deployment, job_status, edit); });
  }
  void write_status(engine::StepContext& c, const std::string& name, const std::string& deployment,
                    const std::string& job_status, const std::function<void(engine::RayJobStatus&)>& edit = {}) {
    engine::Object object = rayjob(name);
    auto& status = std::get<engine::RayJob>(object).status;
    status.job_deployment_status = deployment;
    status.job_status = job_status;
    if (edit) edit(status);
    REQUIRE(!engine::LoggedApi(c, "controller").update_status(object).error);
  }

  // The controller creates a RayCluster for the RayJob (owned by it, as KubeRay does).
  void create_cluster(engine::StepContext& c, const std::string& rayjob_name, const std::string& cluster_name,
                      const std::string& actor = "controller") {
    engine::RayCluster cluster;
    cluster.metadata.name = cluster_name;
    cluster.metadata.namespace_ = kNamespace;
    cluster.metadata.owner_references.edit().push_back(owner_reference(rayjob_name));
    engine::Object object = cluster;
    REQUIRE(!engine::LoggedApi(c, actor).create(object).error);
  }
  std::int64_t create_cluster(const std::string& rayjob_name, const std::string& cluster_name) {
    return step([&](engine::StepContext& c) { create_cluster(c, rayjob_name, cluster_name); });
  }

  // The controller creates the submitter Job (named like the RayJob, controller-owned by it).
  std::int64_t create_submitter_job(const std::string& rayjob_name) {
    return step([&](engine::StepContext& c) {
      engine::Job job;
      job.metadata.name = rayjob_name;
      job.metadata.namespace_ = kNamespace;
      job.metadata.owner_references.edit().push_back(owner_reference(rayjob_name));
      engine::Object object = job;
      REQUIRE(!engine::LoggedApi(c, "controller").create(object).error);
    });
  }

  // A delete (the object goes at once: no finalizers in these tests unless a test adds one).
  std::int64_t remove(engine::Kind kind, const std::string& name, const std::string& actor = "controller") {
    return step([&](engine::StepContext& c) {
      REQUIRE(!engine::LoggedApi(c, actor).remove(kind, kNamespace, name, engine::Propagation::background).error);
    });
  }

  // The user: action.patch then a merge patch of the RayJob's spec.
  std::int64_t user_patch(const std::string& name, const std::function<void(engine::RayJobSpec&)>& edit) {
    return step([&](engine::StepContext& c) {
      c.emit(events::Origin::input, "action.patch", "user", "RayJob/default/" + name)
          .with("rayjob", name)
          .with("patch", events::Value{events::RawJson{"{}"}});
      engine::LoggedApi(c, "user").patch(engine::Kind::RayJob, kNamespace, name, [&](engine::Object& object) {
        edit(std::get<engine::RayJob>(object).spec.edit());
      });
    });
  }
  // The user: action.delete then a delete of the RayJob.
  std::int64_t user_delete(const std::string& name) {
    return step([&](engine::StepContext& c) {
      c.emit(events::Origin::input, "action.delete", "user", "RayJob/default/" + name).with("rayjob", name);
      engine::LoggedApi(c, "user").remove(engine::Kind::RayJob, kNamespace, name, engine::Propagation::background);
    });
  }

  // ---- the Ray side (World::ray), with the dashboard's event shapes ----

  // A head comes up for the cluster (a new incarnation after a restart).
  std::int64_t head_up(const std::string& cluster_name) {
    return step([&](engine::StepContext& c) {
      const auto* cluster = world.api.find<engine::RayCluster>(kNamespace, cluster_name);
      REQUIRE(cluster);
      int incarnation = 0;
      for (engine::CopyOnWrite<engine::RayHead>& shared_head : world.ray.edit().heads) {
        if (shared_head->cluster_uid != cluster->metadata.uid) continue;
        engine::RayHead& head = shared_head.edit();
        incarnation = std::max(incarnation, head.incarnation);
        head.table_lost = true;
      }
      engine::RayHead head;
      head.cluster_namespace = kNamespace;
      head.cluster_name = cluster_name;
      head.cluster_uid = cluster->metadata.uid;
      head.incarnation = incarnation + 1;
      world.ray.edit().heads.push_back(head);
      c.effect("ray.head_up", "ray", cluster_ref(cluster_name))
          .with("cluster_uid", head.cluster_uid)
          .with("incarnation", head.incarnation);
    });
  }

  // A submission reaches the cluster's live head. `by`: "controller" or "submitter/<pod>".
  void submit(engine::StepContext& c, const std::string& cluster_name, const std::string& submission_id,
              const std::string& by = "controller") {
    engine::RayHead& head = live_head(cluster_name);
    engine::RayJobRecord job;
    job.submission_id = submission_id;
    job.status = "PENDING";
    job.result = "SUCCEEDED";
    job.submitted_by = by;
    job.submitted_at_ms = world.now_ms;
    head.jobs.push_back(job);
    c.effect("dashboard.submit_job", "dashboard", cluster_ref(cluster_name))
        .with("caller", by == "controller" ? "controller" : "submitter")
        .with("url", cluster_name + "-head-svc.default.svc.cluster.local:8265")
        .with("submission_id", submission_id)
        .with("outcome", "ok")
        .with("status", 200)
        .with("incarnation", head.incarnation);
  }
  std::int64_t submit(const std::string& cluster_name, const std::string& submission_id,
                      const std::string& by = "controller") {
    return step([&](engine::StepContext& c) { submit(c, cluster_name, submission_id, by); });
  }

  // The Ray job `submission_id` on the cluster's live head moves to `to`.
  std::int64_t ray_status(const std::string& cluster_name, const std::string& submission_id, const std::string& to) {
    return step([&](engine::StepContext& c) {
      engine::RayHead& head = live_head(cluster_name);
      engine::RayJobRecord* job = nullptr;
      for (engine::RayJobRecord& record : head.jobs) {
        if (record.submission_id == submission_id) job = &record;
      }
      REQUIRE(job);
      const std::string from = job->status;
      job->status = to;
      if (to == "RUNNING") job->start_time_ms = world.now_ms;
      if (checks::is_terminal_job_status(to)) job->end_time_ms = world.now_ms;
      c.effect("ray.job_status", "ray", cluster_ref(cluster_name))
          .with("submission_id", submission_id)
          .with("from", from)
          .with("to", to)
          .with("incarnation", head.incarnation);
    });
  }

  // A reconcile of the RayJob that panics (reconcile.begin, reconcile.panic).
  std::int64_t panic(const std::string& name, const std::string& message) {
    return step([&](engine::StepContext& c) {
      c.effect("reconcile.begin", "controller", "RayJob/default/" + name).with("incarnation", 1);
      c.effect("reconcile.panic", "controller", "RayJob/default/" + name).with("message", message);
    });
  }

  engine::OwnerReference owner_reference(const std::string& rayjob_name) const {
    engine::OwnerReference ref;
    ref.api_version = "ray.io/v1";
    ref.kind = engine::Kind::RayJob;
    ref.name = rayjob_name;
    ref.uid = rayjob(rayjob_name).metadata.uid;
    ref.controller = true;
    ref.block_owner_deletion = true;
    return ref;
  }

 private:
  static std::string cluster_ref(const std::string& name) { return "RayCluster/default/" + name; }
  engine::RayHead& live_head(const std::string& cluster_name) {
    std::vector<engine::CopyOnWrite<engine::RayHead>>& heads = world.ray.edit().heads;
    for (auto it = heads.rbegin(); it != heads.rend(); ++it) {
      if ((*it)->cluster_name == cluster_name && !(*it)->table_lost) return it->edit();
    }
    FAIL("no live head for " << cluster_name);
    return heads.front().edit();
  }

  engine::DefaultChooser chooser_{1};
  std::int64_t next_seq_ = 0;
  std::vector<events::Event> events_;
  std::string reconciled_;   // the last step's StepLog::reconciled
};

// The one violation of a run, checked for its invariant, seq and that its message names the
// RayJob (and whatever else the test passes).
inline const checks::Violation& single_violation(const CheckRun& run, const std::string& invariant,
                                                 std::int64_t seq, std::vector<std::string> mentions = {}) {
  REQUIRE(run.violations().size() == 1);
  const checks::Violation& violation = run.violations().front();
  CHECK(violation.invariant == invariant);
  CHECK(violation.seq == seq);
  CHECK(violation.rayjob == "RayJob/default/demo");
  mentions.push_back("RayJob/default/demo");
  mentions.push_back(std::to_string(seq));
  for (const std::string& mention : mentions) {
    INFO("message: " << violation.message << "; expected to mention: " << mention);
    CHECK(violation.message.find(mention) != std::string::npos);
  }
  return violation;
}

}  // namespace rjsim::testing
