// The trace → scenario half of conform.h: what the trace shows of one RayJob and its world,
// turned into the scenario that drives a model, and the model the recorded fields point to.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "engine/crd_schema.h"
#include "engine/job_controller.h"
#include "engine/object_json.h"
#include "engine/scenario_loader.h"
#include "trace/conform.h"

namespace rjsim::trace {
namespace {

using nlohmann::json;

// One recorded state of an object (a watch event, or a successful audit write with a body). A
// watch event's body is parsed when first asked for: a long trace holds many objects conform never
// reads (other RayJobs' clusters and Jobs), and parsing them all would cost most of its time.
struct Observation {
  std::int64_t seq = 0;
  std::int64_t at_ms = 0;
  std::string kind;
  std::string ref;        // Kind/namespace/name
  bool deleted = false;   // a DELETED watch event or an audit delete
  const std::string* text = nullptr;   // the body as recorded; null when the record has none

  // The body; null when the record has none or it does not parse. Parsed once, and kept.
  const json& object() const {
    if (!parsed) parsed = parse();
    return *parsed;
  }
  // The same, not kept (a body parsed once already is copied).
  json parse() const {
    if (parsed) return *parsed;
    if (text == nullptr) return nullptr;
    json value = json::parse(*text, nullptr, false);
    return value.is_discarded() ? json(nullptr) : value;
  }
  // Whether the body can hold a string equal to one of `values`: its canonical JSON (events.h
  // RawJson) contains the value as dump() writes it. False spares parsing a body that cannot.
  bool may_mention(const std::vector<std::string>& values) const {
    return text != nullptr && std::any_of(values.begin(), values.end(), [&](const std::string& value) {
             return text->find(value) != std::string::npos;
           });
  }

  mutable std::optional<json> parsed;
};

// `value` as it appears inside a canonical JSON text (escaped, without its quotes).
std::string as_in_json(const std::string& value) {
  const std::string quoted = json(value).dump(-1, ' ', false, json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

std::vector<Observation> observations(const std::vector<events::Event>& trace_events) {
  std::vector<Observation> out;
  for (const events::Event& event : trace_events) {
    Observation observation;
    observation.seq = event.seq;
    observation.at_ms = event.at_ms;
    observation.ref = event.object;
    observation.kind = event.object.substr(0, event.object.find('/'));
    if (event.type == "watch.observed") {
      observation.deleted = event.text("watch") == "DELETED";
      observation.text = event.nested_json("object");
    } else if (event.type.starts_with("api.")) {
      if (event.text("outcome") != "ok") continue;
      observation.deleted = event.type == "api.delete";
      observation.text = event.nested_json("object");
      // An audit write without a body that reads is kept only as a deletion.
      if (observation.object().is_null() && !observation.deleted) continue;
    } else {
      continue;
    }
    out.push_back(std::move(observation));
  }
  return out;
}

const json* at(const json& object, std::initializer_list<const char*> path) {
  const json* node = &object;
  for (const char* key : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(key);
    if (it == node->end() || it->is_null()) return nullptr;
    node = &*it;
  }
  return node;
}

std::string text_at(const json& object, std::initializer_list<const char*> path) {
  const json* node = at(object, path);
  return node != nullptr && node->is_string() ? node->get<std::string>() : "";
}

std::optional<std::int64_t> time_at(const json& object, std::initializer_list<const char*> path) {
  std::int64_t ms = 0;
  const std::string text = text_at(object, path);
  if (text.empty() || !engine::parse_timestamp(text, ms)) return std::nullopt;
  return ms;
}

std::string duration(std::int64_t ms) { return fmt::format("{}ms", std::max<std::int64_t>(ms, 0)); }

std::string seconds(std::int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{}s", ms / 1000) : fmt::format("{}ms", ms);
}

bool is_terminal_job_status(const std::string& status) {
  return status == "SUCCEEDED" || status == "FAILED" || status == "STOPPED";
}

constexpr const char* kGracePeriodExceeded = "JobDeploymentStatusTransitionGracePeriodExceeded";

// v1.7.0 forces jobStatus FAILED when its submitter finished 30s before and the Ray job has not
// ended (checkSubmitterFinishedTimeoutAndUpdateStatusIfNeeded, RJC:L1263-1286): that FAILED is
// not the Ray job's. The transition grace period past a terminal jobStatus (RJC:L1366-1394) gives
// the same reason with Ray's own jobStatus and its own message.
bool forced_by_grace_period(const json& object) {
  return text_at(object, {"status", "reason"}) == kGracePeriodExceeded &&
         !text_at(object, {"status", "message"}).starts_with("JobDeploymentStatus does not transition");
}

// RFC 7386: the merge patch that turns `before` into `after`.
json merge_diff(const json& before, const json& after) {
  if (!before.is_object() || !after.is_object()) return after;
  json patch = json::object();
  for (auto it = before.begin(); it != before.end(); ++it) {
    if (!after.contains(it.key())) patch[it.key()] = nullptr;
  }
  for (auto it = after.begin(); it != after.end(); ++it) {
    auto old = before.find(it.key());
    if (old == before.end()) {
      patch[it.key()] = *it;
    } else if (*old != *it) {
      patch[it.key()] = merge_diff(*old, *it);
    }
  }
  return patch;
}

// The RayJob as the user created it: apiVersion ray.io/v1 (a v1alpha1 object reads the same),
// name, namespace, labels, annotations and spec.
json created_manifest(const json& object) {
  json metadata = json::object();
  for (const char* key : {"name", "namespace", "labels", "annotations"}) {
    if (const json* value = at(object, {"metadata", key})) metadata[key] = *value;
  }
  json manifest = {{"apiVersion", "ray.io/v1"}, {"kind", "RayJob"}, {"metadata", metadata}};
  if (const json* spec = at(object, {"spec"})) manifest["spec"] = *spec;
  return manifest;
}

// Whether the RayJob's deletionStrategy (v1.7.0) lets the controller delete the RayJob itself once
// it finished: a DeleteSelf policy in onSuccess / onFailure or in a deletion rule.
bool deletes_itself(const json& spec) {
  const json* strategy = at(spec, {"deletionStrategy"});
  if (strategy == nullptr || !strategy->is_object()) return false;
  std::vector<const json*> policies = {at(*strategy, {"onSuccess"}), at(*strategy, {"onFailure"})};
  if (const json* rules = at(*strategy, {"deletionRules"}); rules != nullptr && rules->is_array()) {
    for (const json& rule : *rules) policies.push_back(&rule);
  }
  return std::any_of(policies.begin(), policies.end(), [](const json* policy) {
    return policy != nullptr && text_at(*policy, {"policy"}) == "DeleteSelf";
  });
}

bool owned_by(const json& object, const std::string& uid, const std::string& name) {
  if (const json* owners = at(object, {"metadata", "ownerReferences"}); owners != nullptr && owners->is_array()) {
    for (const json& owner : *owners) {
      if (owner.is_object() && owner.value("kind", "") == "RayJob" &&
          ((!uid.empty() && owner.value("uid", "") == uid) || owner.value("name", "") == name)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

namespace {

// What in one RayJob state only v1.7.0 (of the models) writes, if anything.
std::optional<ModelChoice> v1_7_sign(const json& object, const std::string& deployment, const std::string& ref) {
  static const std::set<std::string> v1_7_only = {"ValidationFailed", "Retrying", "Waiting"};
  if (v1_7_only.contains(deployment)) {
    return ModelChoice{"kuberay-1.7",
                       fmt::format("jobDeploymentStatus {} ({}) exists only after v1.1.0", deployment, ref)};
  }
  for (const char* field : {"rayJobInfo", "succeeded", "failed"}) {
    if (at(object, {"status", field}) != nullptr) {
      return ModelChoice{"kuberay-1.7", fmt::format("status.{} ({}) is written only after v1.1.0", field, ref)};
    }
  }
  const std::string name = text_at(object, {"metadata", "name"});
  const std::string cluster = text_at(object, {"status", "rayClusterName"});
  if (cluster.size() == name.size() + 6 && cluster.starts_with(name + "-")) {
    return ModelChoice{"kuberay-1.7", fmt::format("rayClusterName {} has the form <rayjob>-<5 characters> of v1.2 and "
                                                  "later (v1.0 and v1.1 name it <rayjob>-raycluster-<5>)",
                                                  cluster)};
  }
  return std::nullopt;
}

}  // namespace

ModelChoice pick_conform_model(const std::vector<events::Event>& trace_events) {
  static const std::set<std::string> v1_0_only = {"WaitForDashboard", "WaitForDashboardReady", "WaitForK8sJob",
                                                  "FailedToGetOrCreateRayCluster", "FailedJobDeploy",
                                                  "FailedToGetJobStatus"};
  // One pass, each RayJob body parsed and dropped in turn: the first v1.0.0 sign anywhere decides;
  // else the first v1.7.0 sign does.
  std::optional<ModelChoice> v1_7;
  for (const Observation& o : observations(trace_events)) {
    if (o.kind != "RayJob") continue;
    const json object = o.parse();
    if (!object.is_object()) continue;
    const std::string deployment = text_at(object, {"status", "jobDeploymentStatus"});
    if (v1_0_only.contains(deployment)) {
      return {"kuberay-1.0", fmt::format("jobDeploymentStatus {} ({}) exists only at v1.0.0", deployment, o.ref)};
    }
    if (!v1_7) v1_7 = v1_7_sign(object, deployment, o.ref);
  }
  if (v1_7) return *v1_7;
  return {"kuberay-1.1", "no recorded field is specific to v1.0.0 or v1.7.0: the default model"};
}

namespace {

// world.submitter.failAttempts for "every attempt fails": more than any Job's backoffLimit lets run.
constexpr int kEveryAttempt = 1000;

// How long `failed` submitter Pods that fail at once delay the one that submits: the Job's backoff
// before each replacement (10s, doubling, capped: job_controller.h) and its start (startAfter, 2s).
std::int64_t pod_failure_backoff_ms(std::int64_t failed) {
  std::int64_t total = 0;
  std::int64_t backoff = engine::kJobPodFailureBackoffMs;
  for (std::int64_t i = 0; i < failed && i < 64; ++i) {
    total += backoff + 2'000;
    backoff = std::min(backoff * 2, engine::kJobMaxPodFailureBackoffMs);
  }
  return total;
}

constexpr const char* kUntimedSpecChange =
    "a watch does not say when a spec changed, only that it did after that transition";

// derive_conform_scenario's working state: the trace's observations, the RayJob followed and
// its states, the trace's clock; the passes below fill `out`, `world` and `actions`.
struct Derivation {
  Derivation(const std::vector<events::Event>& trace_events, const std::string& wanted);
  void user_actions();   // spec changes and the deletion
  void ray_cluster();    // rayCluster.readyAfter, and when the RayJob reached Running
  void ray_job();        // the submitter and the Ray job
  void selected_cluster();   // the RayCluster a clusterSelector names, when it existed
  void dashboard_outage();   // when the controller could not read the Ray job
  void unseen_run_outage();  // v1.0.0 / v1.1.0: a Ray job that ran unseen
  void failed_to_get_job_status();   // v1.0.0: a status check that failed
  void head_restarts();      // a Ray job submitted again after it ran: its head lost it
  void feature_gates();      // operator feature gates a validation message names
  // An action inferred from the record `o` rather than recorded (a head restart, an outage), at
  // `at_ms`; an estimated one is anchored, and left out when it cannot be.
  void add_inferred_action(const Observation& o, json action, std::int64_t at_ms, bool estimated, std::string what,
                           std::string untimed_because, std::string assumption) {
    action["at"] = duration(at_ms);
    actions.push_back(std::move(action));
    out.action_times.push_back({at_ms, recorded_before(o.seq), estimated, false, out.assumptions.size(),
                                std::move(what), std::move(untimed_because), true});
    out.assumptions.push_back(std::move(assumption));
  }
  // How many of the RayJob's recorded transitions come before the record `seq`.
  int recorded_before(std::int64_t seq) const {
    return static_cast<int>(std::count_if(out.recorded.begin(), out.recorded.end(),
                                          [&](const explore::Transition& t) { return t.seq < seq; }));
  }
  bool k8s_job_mode() const {   // a submitter Job submits the Ray job
    const std::string mode = text_at(first, {"spec", "submissionMode"});
    return mode.empty() || mode == "K8sJobMode";
  }
  bool has_state_with(std::initializer_list<const char*> path, std::string_view value) const {
    return std::any_of(states.begin(), states.end(), [&](const Observation* o) { return text_at(o->object(), path) == value; });
  }
  // When the RayJob reached Running; when its records do not say, the scenario default readyAfter
  // (20s) after it entered Initializing.
  std::int64_t running_or_default() const { return running.value_or(initializing.value_or(0) + 20'000); }
  // When the submitter is taken to have started: the scenario default startAfter (2s) after the
  // RayJob reached Running, its cluster then being ready.
  std::int64_t estimated_submitter_start_ms() const { return running_or_default() + 2'000; }
  bool outlived_ray_job() const;       // Running was persisted with SUCCEEDED or STOPPED
  void submitter_outlived_ray_job();   // world.submitter.finishesAfter
  void submitter_finished_timeout(const json& failed);   // the same, from a v1.7.0 timeout
  ConformScenario finish(const std::string& controller);
  void prune_to_release(json& manifest, engine::CrdKind kind, const std::string& controller);

  // A timestamp of the trace's objects as ms after the RayJob's creation.
  std::optional<std::int64_t> since_creation(std::optional<std::int64_t> timestamp) const {
    if (!timestamp || !created) return std::nullopt;
    return *timestamp - *created;
  }
  // The record's time by the trace's own clock, when it has one.
  std::optional<std::int64_t> when(const Observation& o) const {
    if (timed) return o.at_ms - first_rayjob->at_ms;
    return std::nullopt;
  }
  void set_timing(const char* section, const char* key, std::int64_t ms, const std::string& why) {
    world[section][key] = duration(ms);
    out.assumptions.push_back(fmt::format("{}.{} {}: {}", section, key, seconds(ms), why));
  }

  const std::vector<Observation> all;
  const Observation* first_rayjob;
  const json& first;                          // its object
  std::string ref;                            // Kind/namespace/name
  std::string uid;
  std::vector<const Observation*> states;     // the RayJob's, in order
  // Its name and uid as they appear in JSON: an object owned by it, or named after it, holds one.
  std::vector<std::string> mentions;
  bool timed = false;
  std::optional<std::int64_t> created;        // the RayJob's creationTimestamp
  std::optional<std::int64_t> initializing;   // when it entered Initializing (status.startTime)
  std::optional<std::int64_t> running;        // when it reached Running
  std::string controller;                     // the model the scenario drives
  std::optional<std::int64_t> ray_running;    // when the Ray job is estimated to leave PENDING
  std::optional<std::int64_t> first_end_time;   // status.endTime of its first terminal jobStatus
  std::int64_t submission_delay_ms = 0;       // submitter attempts that failed before one submitted
  ConformScenario out;
  json world = {{"rayCluster", json::object()}, {"submitter", json::object()}, {"ray", json::object()}};
  json actions = json::array();
  json rayclusters = json::array();           // clusters that existed before the RayJob
};

std::vector<Observation> trace_observations(const std::vector<events::Event>& trace_events) {
  if (trace_events.empty() || trace_events.front().type != "trace.import") {
    throw ConformError("not a trace run (its first event is not trace.import): conform reads runs that "
                       "`rjsim import` stored");
  }
  return observations(trace_events);
}

// Whether `ref` (RayJob/NAMESPACE/NAME) is the RayJob `wanted` names: NAME or NAMESPACE/NAME.
bool names_rayjob(const std::string& ref, const std::string& wanted) {
  const std::string namespace_and_name = ref.substr(ref.find('/') + 1);
  return wanted == namespace_and_name || wanted == namespace_and_name.substr(namespace_and_name.find('/') + 1);
}

// The RayJobs of the trace that have an object, NAMESPACE/NAME in the order first seen.
std::vector<std::string> rayjobs_seen(const std::vector<Observation>& all) {
  std::vector<std::string> names;
  for (const Observation& o : all) {
    if (o.kind != "RayJob" || o.deleted || !o.object().is_object()) continue;
    const std::string name = o.ref.substr(o.ref.find('/') + 1);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// The first state of the RayJob to follow: `wanted`'s, or the first RayJob's when it is empty.
const Observation* first_rayjob_of(const std::vector<Observation>& all, const std::string& wanted) {
  auto first = std::find_if(all.begin(), all.end(), [&](const Observation& o) {
    return o.kind == "RayJob" && !o.deleted && (wanted.empty() || names_rayjob(o.ref, wanted)) &&
           o.object().is_object();
  });
  if (first != all.end()) return &*first;
  const std::vector<std::string> names = rayjobs_seen(all);
  if (names.empty()) {
    throw ConformError("the trace holds no RayJob object (record the rayjobs watch, or log rayjobs at level "
                       "RequestResponse)");
  }
  const std::size_t shown = std::min<std::size_t>(names.size(), 10);
  throw ConformError(fmt::format("--rayjob: the trace holds no RayJob \"{}\" (it holds {}{})", wanted,
                                 fmt::join(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                                 names.size() > shown ? fmt::format(" and {} more", names.size() - shown) : ""));
}

Derivation::Derivation(const std::vector<events::Event>& trace_events, const std::string& wanted)
    : all(trace_observations(trace_events)), first_rayjob(first_rayjob_of(all, wanted)), first(first_rayjob->object()) {
  ref = first_rayjob->ref;
  uid = text_at(first, {"metadata", "uid"});
  out.rayjob = text_at(first, {"metadata", "name"});
  out.first_deployment = text_at(first, {"status", "jobDeploymentStatus"});
  out.first_job_status = text_at(first, {"status", "jobStatus"});
  mentions.push_back(as_in_json(out.rayjob));
  if (!uid.empty()) mentions.push_back(as_in_json(uid));

  std::set<std::string> rayjob_refs;
  for (const Observation& o : all) {
    if (o.kind == "RayJob") rayjob_refs.insert(o.ref);
  }
  if (rayjob_refs.size() > 1) {
    out.assumptions.push_back(fmt::format("the trace holds {} RayJobs: this scenario follows {} alone{}",
                                          rayjob_refs.size(), ref, wanted.empty() ? " (the first one seen)" : ""));
  }

  // The RayJob's own states, in order (the first uid only: a re-created RayJob is another object).
  for (const Observation& o : all) {
    if (o.ref != ref) continue;
    if (o.object().is_object() && !uid.empty() && text_at(o.object(), {"metadata", "uid"}) != uid) continue;
    states.push_back(&o);
  }
  // Its recorded transitions: import puts each right after the record it comes from.
  std::set<std::int64_t> state_seqs;
  for (const Observation* o : states) state_seqs.insert(o->seq);
  for (const events::Event& event : trace_events) {
    if (event.object != ref || !state_seqs.contains(event.seq - 1)) continue;
    if (std::optional<explore::Transition> t = explore::transition_of(event)) out.recorded.push_back(*t);
  }

  // The clock: the trace's own (audit stageTimestamps) when it has one, else object timestamps.
  timed = std::any_of(all.begin(), all.end(), [](const Observation& o) { return o.at_ms != 0; });
  created = time_at(first, {"metadata", "creationTimestamp"});
  if (timed) {
    out.assumptions.push_back("times: the trace's own clock, from the first record of the RayJob");
  } else {
    out.assumptions.push_back(
        created ? "times: the trace has no clock (a watch); times come from the timestamps inside the objects, "
                  "from the RayJob's creationTimestamp"
                : "times: neither the trace nor the RayJob (no creationTimestamp) has a clock; every timing is the "
                  "scenario default");
  }
  if (!out.first_deployment.empty() || !out.first_job_status.empty()) {
    out.assumptions.push_back(fmt::format(
        "the recording starts with the RayJob already in {}{}: it is created at time 0 with the spec seen first, "
        "and the model's transitions before that state are not compared",
        out.first_deployment.empty() ? "\"\"" : out.first_deployment,
        out.first_job_status.empty() ? "" : " (" + out.first_job_status + ")"));
  }

}

void Derivation::user_actions() {
  // ---- user stimuli: spec changes and the deletion ----
  json spec = created_manifest(first).value("spec", json::object());
  bool deleted = false;
  bool finished = false;            // it was recorded Complete or Failed
  std::int64_t last_known_ms = 0;   // the latest time the trace showed so far
  for (const Observation* o : states) {
    if (o->object().is_object()) {
      for (auto t : {time_at(o->object(), {"status", "startTime"}), time_at(o->object(), {"status", "endTime"}),
                     time_at(o->object(), {"status", "rayClusterStatus", "lastUpdateTime"})}) {
        if (auto since = since_creation(t)) last_known_ms = std::max(last_known_ms, *since);
      }
    }
    if (auto w = when(*o)) last_known_ms = *w;
    if (deleted) continue;
    if (o->object().is_object()) {
      const std::string deployment = text_at(o->object(), {"status", "jobDeploymentStatus"});
      finished = finished || deployment == "Complete" || deployment == "Failed";
    }
    const std::optional<std::int64_t> deletion =
        o->object().is_object() ? time_at(o->object(), {"metadata", "deletionTimestamp"}) : std::nullopt;
    if ((o->deleted || deletion) && finished && deletes_itself(spec)) {
      out.assumptions.push_back("the RayJob's deletion was its controller's (a DeleteSelf policy, after it finished), "
                                "not the user's");
      deleted = true;
      continue;
    }
    if (o->deleted || deletion) {
      std::int64_t at_ms = 0;
      std::string from;
      bool estimated = false;
      if (auto since = since_creation(deletion)) {
        at_ms = *since;
        from = "its deletionTimestamp";
      } else if (auto w = when(*o)) {
        at_ms = *w;
        from = "the record's time";
      } else {
        at_ms = last_known_ms;
        from = "the latest time the trace showed before it (no deletionTimestamp)";
        estimated = true;
      }
      actions.push_back({{"at", duration(at_ms)}, {"delete", json::object()}});
      out.action_times.push_back({at_ms, recorded_before(o->seq), estimated, finished && !estimated,
                                  out.assumptions.size(), "the user deleted the RayJob", kUntimedSpecChange});
      out.assumptions.push_back(fmt::format("the user deleted the RayJob at {} ({})", seconds(at_ms), from));
      deleted = true;
      continue;
    }
    if (!o->object().is_object()) continue;
    const json now_spec = o->object().value("spec", json::object());
    if (now_spec == spec) continue;
    json patch = {{"spec", merge_diff(spec, now_spec)}};
    std::int64_t at_ms = 0;
    std::string from;
    if (auto w = when(*o)) {
      at_ms = *w;
      from = "the record's time";
    } else {
      at_ms = last_known_ms + 1000;
      from = "1s after the latest time the trace showed before it: a watch does not say when a spec changed";
    }
    actions.push_back({{"at", duration(at_ms)}, {"patch", patch}});
    out.action_times.push_back({at_ms, recorded_before(o->seq), !when(*o).has_value(), false, out.assumptions.size(),
                                "the user patched the RayJob with " + patch.dump(), kUntimedSpecChange});
    out.assumptions.push_back(fmt::format("the user patched the RayJob at {} with {} ({})", seconds(at_ms),
                                          patch.dump(), from));
    spec = now_spec;
  }

}

void Derivation::ray_cluster() {
  // ---- the RayCluster: from creation to State ready ----
  std::optional<std::int64_t> ready_after;   // from the RayCluster's creation to State ready
  std::string cluster_ref;
  std::int64_t cluster_first_at_ms = 0;
  bool cluster_stream = false;
  for (const Observation& o : all) {
    if (o.kind != "RayCluster" || !o.may_mention(mentions) || !o.object().is_object()) continue;
    if (!owned_by(o.object(), uid, out.rayjob) &&
        !text_at(o.object(), {"metadata", "name"}).starts_with(out.rayjob + "-")) {
      continue;
    }
    cluster_stream = true;
    if (cluster_ref.empty()) {
      cluster_ref = o.ref;
      cluster_first_at_ms = o.at_ms;
    }
    if (o.ref != cluster_ref || ready_after || text_at(o.object(), {"status", "state"}) != "ready") continue;
    const auto creation = time_at(o.object(), {"metadata", "creationTimestamp"});
    const auto ready = time_at(o.object(), {"status", "lastUpdateTime"});
    if (creation && ready) {
      ready_after = *ready - *creation;
    } else if (timed) {
      ready_after = o.at_ms - cluster_first_at_ms;
    }
  }
  // When the RayJob reached Running (its cluster was ready then), from its records.
  bool initializing_seen = false;
  for (const Observation* o : states) {
    if (!o->object().is_object()) continue;
    // v1.1.0 on set startTime on entering Initializing; v1.0.0 only when the Ray job started.
    // Only the first Initializing state: a later one (after a suspension) keeps an older startTime.
    if (!initializing_seen && text_at(o->object(), {"status", "jobDeploymentStatus"}) == "Initializing") {
      initializing_seen = true;
      initializing = since_creation(time_at(o->object(), {"status", "startTime"}));
    }
    if (!running && text_at(o->object(), {"status", "jobDeploymentStatus"}) == "Running") {
      running = when(*o);
      if (!running && text_at(o->object(), {"status", "rayClusterStatus", "state"}) == "ready") {
        running = since_creation(time_at(o->object(), {"status", "rayClusterStatus", "lastUpdateTime"}));
      }
    }
  }
  if (ready_after) {
    set_timing("rayCluster", "readyAfter", *ready_after,
               fmt::format("{} from its creation to State ready as recorded", cluster_ref));
    if (!running) running = initializing.value_or(0) + *ready_after;
  } else {
    const std::string source = cluster_stream ? "the RayCluster records carry no time of State ready"
                                              : "the trace has no RayCluster records";
    if (running) {
      set_timing("rayCluster", "readyAfter", *running - initializing.value_or(0),
                 source + "; the cluster is taken to be ready when the RayJob reached Running "
                          "(status.rayClusterStatus.lastUpdateTime)");
    } else if (has_state_with({"status", "reason"}, "PreRunningDeadlineExceeded") &&
               !has_state_with({"status", "jobDeploymentStatus"}, "Waiting")) {
      world["rayCluster"]["readyAfter"] = "2h";
      out.assumptions.push_back(fmt::format("rayCluster.readyAfter: longer than the run; {} and the RayJob never "
                                            "reached Running before its preRunningDeadlineSeconds passed",
                                            source));
    } else {
      out.assumptions.push_back(fmt::format("rayCluster.readyAfter: the default (20s); {} and the RayJob's records "
                                            "do not say when it reached Running",
                                            source));
    }
  }

}

void Derivation::ray_job() {
  // ---- the submitter and the Ray job ----
  const bool job_stream = std::any_of(all.begin(), all.end(), [](const Observation& o) { return o.kind == "Job"; });
  out.assumptions.push_back(job_stream ? "submitter.startAfter: the default (2s); a Job's records do not say when "
                                         "its Pod started"
                                       : "submitter: the defaults (starts after 2s, exits when the Ray job ends); "
                                         "the trace has no Job records");
  // The submitter Job's failed attempts: the most status.failed its records showed, and of them
  // those recorded before the RayJob showed any jobStatus (the trace is in resourceVersion order).
  std::int64_t failed_attempts = 0;
  std::int64_t failed_before_submission = 0;
  std::string submitter_ref;
  const auto first_job_status = std::find_if(states.begin(), states.end(), [](const Observation* o) {
    return !text_at(o->object(), {"status", "jobStatus"}).empty();
  });
  const std::int64_t first_job_status_seq =
      first_job_status == states.end() ? std::numeric_limits<std::int64_t>::max() : (*first_job_status)->seq;
  for (const Observation& o : all) {
    if (o.kind != "Job" || !o.may_mention(mentions) || !o.object().is_object()) continue;
    if (!owned_by(o.object(), uid, out.rayjob)) continue;
    if (const json* failed = at(o.object(), {"status", "failed"}); failed != nullptr && failed->is_number_integer()) {
      if (failed->get<std::int64_t>() > failed_attempts) submitter_ref = o.ref;
      failed_attempts = std::max(failed_attempts, failed->get<std::int64_t>());
      if (o.seq < first_job_status_seq) failed_before_submission = failed_attempts;
    }
  }
  // The RayJob itself says when its submitter failed (reason SubmissionFailed, v1.1.0 and later):
  // then every attempt fails and its Job's backoffLimit (or SidecarMode's single container) ends
  // them; whether the first attempt submitted shows in the jobStatus persisted with the failure.
  const auto submission_failed = std::find_if(states.begin(), states.end(), [](const Observation* o) {
    return text_at(o->object(), {"status", "reason"}) == "SubmissionFailed";
  });
  if (submission_failed != states.end()) {
    // A retried attempt's failure (Retrying, backoffLimit) carries no endTime; the last one does.
    const auto timed_failure = std::find_if(submission_failed, states.end(), [](const Observation* o) {
      return text_at(o->object(), {"status", "reason"}) == "SubmissionFailed" &&
             time_at(o->object(), {"status", "endTime"}).has_value();
    });
    const json& failure = (timed_failure != states.end() ? *timed_failure : *submission_failed)->object();
    world["submitter"]["failAttempts"] = kEveryAttempt;
    const std::string job_status_then = text_at(failure, {"status", "jobStatus"});
    if (job_status_then.empty()) {
      out.assumptions.push_back("submitter: every attempt fails before submitting (the RayJob failed with reason "
                                "SubmissionFailed and no Ray job status)");
    } else {
      // That attempt's cluster became ready at its rayClusterStatus.lastUpdateTime (the first
      // attempt's Running otherwise); its submitter started the default 2s later.
      const std::int64_t attempt_running =
          since_creation(time_at(failure, {"status", "rayClusterStatus", "lastUpdateTime"})).value_or(running_or_default());
      const std::int64_t start_ms = attempt_running + 2'000;
      const std::int64_t end_ms = since_creation(time_at(failure, {"status", "endTime"})).value_or(start_ms);
      set_timing("submitter", "failAfter", std::max<std::int64_t>(1'000, end_ms - start_ms),
                 fmt::format("every attempt submits, then fails (the RayJob failed with reason SubmissionFailed "
                             "while its Ray job was {}); from the submitter's estimated start (its attempt's cluster "
                             "ready at {}, then 2s) to the RayJob's status.endTime",
                             job_status_then, seconds(attempt_running)));
    }
  } else if (k8s_job_mode() && outlived_ray_job()) {
    submitter_outlived_ray_job();
  } else if (failed_before_submission > 0 && !has_state_with({"status", "jobStatus"}, "FAILED")) {
    // No Ray job had shown a status, let alone failed, when these attempts failed: on their own.
    world["submitter"]["failAttempts"] = failed_before_submission;
    submission_delay_ms = pod_failure_backoff_ms(failed_before_submission);
    out.assumptions.push_back(fmt::format("submitter.failAttempts {}: {} showed {} failed attempts (status.failed) "
                                          "before the RayJob showed any jobStatus, and the Ray job never FAILED, so "
                                          "they failed on their own, before submitting (failAfter 0s: the Job's "
                                          "records do not time them); that delayed the submission by the Job's "
                                          "backoff and each new Pod's start, {}",
                                          failed_before_submission, submitter_ref, failed_before_submission,
                                          seconds(submission_delay_ms)));
  } else if (failed_attempts > 0) {
    // A failed Ray job fails its submitter too, so the count alone does not say which attempts
    // failed on their own (world.submitter.failAttempts): that is left to the reader.
    out.assumptions.push_back(fmt::format("submitter: {} showed {} failed attempts (status.failed); conform does not "
                                          "tell the submitter's own failures from those a failed Ray job caused, so "
                                          "the model's submitter fails only when its Ray job does",
                                          submitter_ref, failed_attempts));
  }
  std::vector<std::string> results;
  std::string previous_job_status = out.first_job_status;
  std::optional<std::int64_t> pending_at;
  std::optional<std::int64_t> running_at;
  std::optional<std::int64_t> ended_at;      // by the trace's clock
  std::optional<std::int64_t> end_time;      // status.endTime of the first terminal state
  std::optional<std::int64_t> ray_start;
  std::optional<std::int64_t> ray_end;
  for (const Observation* o : states) {
    if (!o->object().is_object()) continue;
    const std::string job_status = text_at(o->object(), {"status", "jobStatus"});
    if (!ray_start) ray_start = time_at(o->object(), {"status", "rayJobInfo", "startTime"});
    if (!ray_end) ray_end = time_at(o->object(), {"status", "rayJobInfo", "endTime"});
    if (job_status == previous_job_status) {
      if (is_terminal_job_status(job_status) && !end_time) {
        end_time = since_creation(time_at(o->object(), {"status", "endTime"}));
      }
      continue;
    }
    previous_job_status = job_status;
    if (job_status == "PENDING" && !pending_at) pending_at = when(*o);
    if (job_status == "RUNNING" && !running_at) running_at = when(*o);
    if (!is_terminal_job_status(job_status)) continue;
    if (!end_time) end_time = since_creation(time_at(o->object(), {"status", "endTime"}));
    if (forced_by_grace_period(o->object())) {
      out.assumptions.push_back(fmt::format("ray.results: the RayJob's jobStatus {} is its controller's (reason {}), "
                                            "not the Ray job's",
                                            job_status, kGracePeriodExceeded));
    } else {
      results.push_back(job_status);
      if (!ended_at) ended_at = when(*o);
    }
  }
  const auto timed_out = std::find_if(states.begin(), states.end(),
                                      [](const Observation* o) { return forced_by_grace_period(o->object()); });
  if (results.empty() && timed_out != states.end()) {
    submitter_finished_timeout((*timed_out)->object());
  } else if (!results.empty()) {
    world["ray"]["results"] = results;
    out.assumptions.push_back(fmt::format("ray.results {}: the terminal jobStatus values the RayJob showed, one per "
                                          "submission",
                                          json(results).dump()));
  } else if (actions.empty()) {
    world["ray"]["runsFor"] = "2h";
    out.assumptions.push_back("ray.runsFor: longer than the run; the RayJob never showed a terminal jobStatus");
  } else {
    out.assumptions.push_back("ray: the defaults (SUCCEEDED after 30s); the RayJob never showed a terminal jobStatus");
  }
  std::int64_t pending_for_ms = 2'000;
  if (pending_at && running_at && *running_at >= *pending_at) {
    pending_for_ms = *running_at - *pending_at;
    set_timing("ray", "pendingFor", pending_for_ms, "from jobStatus PENDING to RUNNING as recorded");
  } else if (auto start = since_creation(ray_start);
             start && running && *start >= estimated_submitter_start_ms() && k8s_job_mode()) {
    pending_for_ms = *start - estimated_submitter_start_ms();
    set_timing("ray", "pendingFor", pending_for_ms,
               fmt::format("from the estimated submission (Running at {}, the submitter's 2s) to status.rayJobInfo "
                           "startTime {}",
                           seconds(*running), seconds(*start)));
  } else {
    out.assumptions.push_back("ray.pendingFor: the default (2s); the trace does not time jobStatus PENDING to RUNNING");
  }
  // Without a clock: the Ray job started pendingFor after the submitter, which started 2s (the
  // default) after the cluster was ready, and ended about when the RayJob's endTime says.
  const std::int64_t estimated_start_ms = estimated_submitter_start_ms() + submission_delay_ms + pending_for_ms;
  ray_running = estimated_start_ms;
  first_end_time = end_time;
  if (world["ray"].contains("runsFor")) {
    // set above
  } else if (ray_start && ray_end && *ray_end >= *ray_start) {
    set_timing("ray", "runsFor", *ray_end - *ray_start, "status.rayJobInfo startTime to endTime");
  } else if (running_at && ended_at && *ended_at >= *running_at) {
    set_timing("ray", "runsFor", *ended_at - *running_at,
               fmt::format("from jobStatus RUNNING to {} as recorded", results.front()));
  } else if (!results.empty() && running && end_time && *end_time > estimated_start_ms) {
    set_timing("ray", "runsFor", *end_time - estimated_start_ms,
               fmt::format("from the estimated start of the Ray job (Running at {}, the submitter's 2s{}, "
                           "pendingFor) to the RayJob's status.endTime {}",
                           seconds(*running),
                           submission_delay_ms > 0 ? ", its failed attempts' " + seconds(submission_delay_ms) : "",
                           seconds(*end_time)));
  } else if (!results.empty()) {
    out.assumptions.push_back("ray.runsFor: the default (30s); the trace does not time the Ray job");
  }
  out.faults_assumption = out.assumptions.size();
  out.assumptions.push_back("no faults: the model runs fault-free (no stale reads, conflicts, restarts)");

}

// v1.7.0 failed the RayJob 30s after its submitter finished, the Ray job not having ended as far
// as it saw (RJC:L1263-1286): the submitter finished by itself at status.endTime - 30s.
void Derivation::submitter_finished_timeout(const json& failed) {
  constexpr std::int64_t kSubmitterFinishedTimeoutMs = 30'000;
  const std::int64_t start_ms = estimated_submitter_start_ms();
  world["ray"]["runsFor"] = "2h";
  out.assumptions.push_back("ray.runsFor: longer than the run; the RayJob failed because its submitter finished "
                            "before the Ray job ended (as far as its controller saw)");
  if (auto end = since_creation(time_at(failed, {"status", "endTime"})); end && *end - kSubmitterFinishedTimeoutMs > start_ms) {
    set_timing("submitter", "finishesAfter", *end - kSubmitterFinishedTimeoutMs - start_ms,
               fmt::format("the RayJob failed 30s after its submitter finished; from the submitter's estimated start "
                           "(Running at {}, then 2s) to the RayJob's status.endTime {} less 30s",
                           seconds(running_or_default()), seconds(*end)));
  } else {
    world["submitter"]["finishesAfter"] = "0s";
    out.assumptions.push_back("submitter.finishesAfter 0s: the RayJob failed because its submitter finished, and "
                              "its status.endTime does not say when");
  }
}

// In K8sJobMode a Ray job that ends SUCCEEDED or STOPPED ends its submitter with it (exit 0), and
// the RayJob goes from Running straight to Complete; a persisted Running with such a jobStatus
// means the submitter was still running then.
bool Derivation::outlived_ray_job() const {
  return std::any_of(states.begin(), states.end(), [](const Observation* o) {
    const std::string job_status = text_at(o->object(), {"status", "jobStatus"});
    return text_at(o->object(), {"status", "jobDeploymentStatus"}) == "Running" &&
           (job_status == "SUCCEEDED" || job_status == "STOPPED");
  });
}

// The submitter finished when the RayJob did (its status.endTime), unless the transition grace
// period ended it (v1.7.0: the submitter never finished) or the recording ends before that.
void Derivation::submitter_outlived_ray_job() {
  const auto finished = std::find_if(states.begin(), states.end(), [](const Observation* o) {
    const std::string deployment = text_at(o->object(), {"status", "jobDeploymentStatus"});
    return deployment == "Complete" || deployment == "Failed";
  });
  const std::int64_t start_ms = estimated_submitter_start_ms();
  if (finished != states.end() &&
      !forced_by_grace_period((*finished)->object())) {
    if (auto end = since_creation(time_at((*finished)->object(), {"status", "endTime"})); end && *end > start_ms) {
      set_timing("submitter", "finishesAfter", *end - start_ms,
                 fmt::format("the RayJob stayed Running after its Ray job ended, so the submitter outlived it; "
                             "from its estimated start (Running at {}, then 2s) to the RayJob's status.endTime {}",
                             seconds(running_or_default()), seconds(*end)));
      return;
    }
  }
  world["submitter"]["finishesAfter"] = "2h";
  out.assumptions.push_back("submitter.finishesAfter: longer than the run; the RayJob stayed Running after its Ray "
                            "job ended and never finished before the transition grace period or the recording's end");
}

// When the controller could not read the Ray job (a dashboard outage), two signs:
//  - v1.7.0 persists when its checks began failing (status.jobStatusCheckFailureStartTime,
//    RJC:L1325-1334). When the RayJob then failed with JobStatusCheckTimeoutExceeded, or with the
//    submitter-finished timeout (checked before Ray is asked, RJC:L1263-1286) while the time was
//    still set, the outage outlasted the run; when the time was cleared instead, the outage ended
//    at a time a watch does not show, and is not derived.
//  - v1.0.0 and v1.1.0 record nothing of a failed check; a RayJob that showed a terminal jobStatus
//    without RUNNING before it did not see the Ray job run (unseen_run_outage).
void Derivation::dashboard_outage() {
  std::optional<std::int64_t> from;
  bool failing = false;   // jobStatusCheckFailureStartTime is set in the latest state
  for (const Observation* o : states) {
    const json& object = o->object();
    const auto started = since_creation(time_at(object, {"status", "jobStatusCheckFailureStartTime"}));
    if (!from) {
      from = started;
      failing = started.has_value();
      continue;
    }
    const std::string reason = text_at(object, {"status", "reason"});
    if (reason == "JobStatusCheckTimeoutExceeded" || (failing && forced_by_grace_period(object))) {
      world["dashboard"]["outages"] = json::array({{{"from", duration(*from)}, {"for", "2h"}}});
      out.assumptions.push_back(fmt::format("dashboard.outages from {}: the RayJob's status checks began failing "
                                            "then (status.jobStatusCheckFailureStartTime) and it failed with {}{}",
                                            seconds(*from), reason,
                                            reason == kGracePeriodExceeded ? " while they still failed" : ""));
      return;
    }
    failing = started.has_value();
    if (!started) break;
  }
  if (from) {
    out.assumptions.push_back(fmt::format("dashboard: the RayJob's status checks failed from {} until a time the "
                                          "trace does not show; no outage is derived",
                                          seconds(*from)));
    return;
  }
  if (controller == "kuberay-1.0") failed_to_get_job_status();
  if (controller != "kuberay-1.7") unseen_run_outage();
}

// v1.0.0 persists FailedToGetJobStatus when a GetJobInfo in Running fails (rayjob_controller.go:
// 249-256 at v1.0.0), and Running again once one succeeds: an outage the RayJob's records do not time. It is
// anchored just after the model's transition the recording shows before it and lasts one status
// poll (3s, RayJobDefaultRequeueDuration) and a second, so that the next poll fails.
void Derivation::failed_to_get_job_status() {
  std::string previous = out.first_deployment;
  for (const Observation* o : states) {
    const std::string deployment = text_at(o->object(), {"status", "jobDeploymentStatus"});
    if (deployment == "FailedToGetJobStatus" && previous != deployment) {
      const std::int64_t at_ms = ray_running.value_or(0) + 1'000;
      add_inferred_action(*o, {{"dashboardOutage", {{"for", "4s"}}}}, at_ms, true,
                          "a dashboard outage of 4s (a status poll and a second) began",
                          "the RayJob went to FailedToGetJobStatus, so a status check failed; a RayJob's records "
                          "do not say when",
                          fmt::format("a dashboard outage of 4s began at {} (the RayJob went to FailedToGetJobStatus)",
                                      seconds(at_ms)));
    }
    if (!deployment.empty()) previous = deployment;
  }
}

// v1.0.0 and v1.1.0 mirror every jobStatus they read. A RayJob that went to a terminal jobStatus
// without showing RUNNING did not read the Ray job while it ran: taken to be a dashboard outage
// from the Ray job's estimated start (its submission, when PENDING was not shown either) to the
// RayJob's status.endTime. A Ray job shorter than one status poll, or a submission the
// controller backed off from (a 404 in K8sJobMode), looks the same.
void Derivation::unseen_run_outage() {
  // Submitter attempts that failed before one submitted explain it already (ray_job).
  if (world["submitter"].contains("failAttempts")) return;
  bool pending_shown = false;   // before the first terminal jobStatus
  bool running_shown = false;
  bool terminal_shown = false;
  for (const Observation* o : states) {
    const std::string job_status = text_at(o->object(), {"status", "jobStatus"});
    terminal_shown = is_terminal_job_status(job_status);
    if (terminal_shown) break;
    pending_shown = pending_shown || job_status == "PENDING";
    running_shown = running_shown || job_status == "RUNNING";
  }
  if (!terminal_shown || running_shown || !first_end_time) return;
  const std::int64_t from_ms = pending_shown ? ray_running.value_or(0) : estimated_submitter_start_ms();
  if (*first_end_time <= from_ms) return;
  world["dashboard"]["outages"] =
      json::array({{{"from", duration(from_ms)}, {"for", duration(*first_end_time - from_ms)}}});
  out.assumptions.push_back(fmt::format(
      "dashboard.outages from {} to {}: the RayJob showed a terminal jobStatus without RUNNING before it, so its "
      "controller did not read the Ray job while it ran; taken to be an outage from the Ray job's estimated {} to "
      "the RayJob's status.endTime (a Ray job shorter than one status poll, or a submission the controller backed "
      "off from, would show the same)",
      seconds(from_ms), seconds(*first_end_time), pending_shown ? "start" : "submission"));
}

// A Ray job whose jobStatus went back from RUNNING to PENDING while the RayJob stayed Running (not
// through a suspension's new submission) was submitted again: its head
// restarted and lost the job table, and the submitter (v1.7.0's `ray job status` guard finds
// nothing) submitted the same id anew (reference §0.4, §1.10.1). A watch does not time the
// restart: it is anchored just after the model's RUNNING that the recording shows before it.
void Derivation::head_restarts() {
  std::string previous;   // the last state's jobStatus, when the RayJob was Running
  for (const Observation* o : states) {
    if (!o->object().is_object()) continue;
    const std::string job_status = text_at(o->object(), {"status", "jobStatus"});
    const bool in_running = text_at(o->object(), {"status", "jobDeploymentStatus"}) == "Running";
    if (previous == "RUNNING" && in_running && job_status == "PENDING") {
      const std::int64_t at_ms = when(*o).value_or(ray_running.value_or(0) + 1'000);
      add_inferred_action(*o, {{"headRestart", json::object()}}, at_ms, !when(*o).has_value(),
                          "the Ray head restarted",
                          "the RayJob's jobStatus went from RUNNING back to PENDING, so the Ray job was submitted "
                          "again on a head that had lost it; a RayJob's records do not say when the head restarted",
                          fmt::format("the Ray head restarted at {} (jobStatus went from RUNNING back to PENDING: the "
                                      "Ray job was submitted again)",
                                      seconds(at_ms)));
    }
    previous = in_running ? job_status : "";
  }
}

// v1.7.0's validation names the feature gate a spec field needs ("RayJobDeletionPolicy feature
// gate must be enabled to use DeletionStrategy", VAL:L762-765): the operator ran with it off.
void Derivation::feature_gates() {
  static const std::string needs = " feature gate must be enabled";
  for (const Observation* o : states) {
    if (text_at(o->object(), {"status", "reason"}) != "ValidationFailed") continue;
    const std::string message = text_at(o->object(), {"status", "message"});
    const std::size_t end = message.find(needs);
    if (end == std::string::npos || end == 0) continue;
    const std::size_t space = message.rfind(' ', end - 1);
    const std::size_t begin = space == std::string::npos ? 0 : space + 1;
    const std::string gate = message.substr(begin, end - begin);
    if (gate.empty() || world["operator"]["featureGates"].contains(gate)) continue;
    world["operator"]["featureGates"][gate] = false;
    out.assumptions.push_back(fmt::format("operator.featureGates.{} false: the RayJob failed validation with \"{}\"",
                                          gate, message));
  }
}

// A RayJob with a clusterSelector uses a cluster that existed before it (reference §2.2
// RayClusterName): the trace's own records of that cluster when it has them, else, when the
// RayJob's states show the cluster was found, a minimal cluster of that name (only its name and
// readiness matter to the RayJob).
void Derivation::selected_cluster() {
  const std::string name = text_at(first, {"spec", "clusterSelector", "ray.io/cluster"});
  if (name.empty()) return;
  const std::string namespace_ = text_at(first, {"metadata", "namespace"});
  const std::vector<std::string> mentions = {as_in_json(name)};
  for (const Observation& o : all) {
    if (o.kind != "RayCluster" || !o.may_mention(mentions) || !o.object().is_object() ||
        text_at(o.object(), {"metadata", "name"}) != name) {
      continue;
    }
    json cluster = created_manifest(o.object());
    cluster["kind"] = "RayCluster";
    rayclusters.push_back(std::move(cluster));
    out.assumptions.push_back(fmt::format("the clusterSelector's RayCluster {} existed before the RayJob, with its "
                                          "first recorded spec",
                                          name));
    return;
  }
  // States a RayJob reaches only once its cluster was found (v1.0.0's WaitFor* included).
  static const std::set<std::string> past_the_cluster = {"WaitForDashboard", "WaitForDashboardReady", "WaitForK8sJob",
                                                         "Running", "Complete"};
  const bool found = std::any_of(states.begin(), states.end(), [](const Observation* o) {
    return at(o->object(), {"status", "rayClusterStatus", "state"}) != nullptr ||
           !text_at(o->object(), {"status", "dashboardURL"}).empty() ||
           past_the_cluster.contains(text_at(o->object(), {"status", "jobDeploymentStatus"}));
  });
  if (!found) {
    out.assumptions.push_back(fmt::format("the clusterSelector's RayCluster {} did not exist: the trace has no "
                                          "records of it and the RayJob never showed its status",
                                          name));
    return;
  }
  json metadata = {{"name", name}};
  if (!namespace_.empty()) metadata["namespace"] = namespace_;
  json pod_spec = {{"containers", json::array({{{"name", "ray-head"}, {"image", "rayproject/ray"}}})}};
  json spec = {{"headGroupSpec", {{"rayStartParams", json::object()}, {"template", {{"spec", pod_spec}}}}}};
  rayclusters.push_back({{"apiVersion", "ray.io/v1"}, {"kind", "RayCluster"}, {"metadata", metadata}, {"spec", spec}});
  out.assumptions.push_back(fmt::format("the clusterSelector's RayCluster {} existed before the RayJob (the RayJob "
                                        "showed its status; the trace has no records of it): a minimal cluster of "
                                        "that name",
                                        name));
}

// A recorded object as the model's release's API server would store it: fields its CRD does not
// know (the recording may come from another release) are left out, each named in an assumption.
void Derivation::prune_to_release(json& manifest, engine::CrdKind kind, const std::string& controller) {
  std::vector<std::string> pruned;
  engine::apply_crd(manifest, kind, controller, &pruned);
  for (const std::string& path : pruned) {
    out.assumptions.push_back(fmt::format("the recorded {} {}'s {} is left out: KubeRay {}'s CRD has no such field",
                                          kind == engine::CrdKind::RayJob ? "RayJob" : "RayCluster",
                                          text_at(manifest, {"metadata", "name"}), path,
                                          engine::kuberay_release_of(controller)));
  }
}

ConformScenario Derivation::finish(const std::string& controller) {
  json rayjob = created_manifest(first);
  prune_to_release(rayjob, engine::CrdKind::RayJob, controller);
  for (json& cluster : rayclusters) prune_to_release(cluster, engine::CrdKind::RayCluster, controller);
  out.document = {{"apiVersion", "rjsim/v1"},
                  {"kind", "Scenario"},
                  {"name", "conform"},
                  {"description", fmt::format("derived by rjsim conform from the trace of {}", ref)},
                  {"controller", controller},
                  {"rayjob", rayjob},
                  {"world", world},
                  {"actions", actions}};
  if (!rayclusters.empty()) out.document["rayclusters"] = rayclusters;
  out.scenario = scenario_with_actions(out, out.action_times.size());
  return std::move(out);
}

}  // namespace

std::vector<std::string> trace_rayjobs(const std::vector<events::Event>& trace_events) {
  return rayjobs_seen(trace_observations(trace_events));
}

ConformScenario derive_conform_scenario(const std::vector<events::Event>& trace_events,
                                        const std::string& controller, const std::string& rayjob) {
  Derivation derivation(trace_events, rayjob);
  derivation.controller = controller;
  derivation.user_actions();
  derivation.ray_cluster();
  derivation.ray_job();
  derivation.selected_cluster();
  derivation.dashboard_outage();
  derivation.head_restarts();
  derivation.feature_gates();
  return derivation.finish(controller);
}

engine::Scenario scenario_with_actions(const ConformScenario& derived, std::size_t count) {
  json document = derived.document;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < count && i < derived.action_times.size(); ++i) {
    if (!derived.action_times[i].left_out) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return derived.action_times[a].at_ms < derived.action_times[b].at_ms;
  });
  json actions = json::array();
  for (std::size_t i : order) {
    json action = derived.document["actions"][i];
    action["at"] = duration(derived.action_times[i].at_ms);
    if (const auto outage = action.find("dashboardOutage"); outage != action.end()) {
      // Timed like an action, a world setting in the scenario.
      document["world"]["dashboard"]["outages"].push_back({{"from", action["at"]}, {"for", (*outage)["for"]}});
      continue;
    }
    actions.push_back(std::move(action));
  }
  if (actions.empty()) {
    document.erase("actions");
  } else {
    document["actions"] = actions;
  }
  const std::string text = document.dump(2) + "\n";
  engine::Scenario scenario;
  try {
    scenario = engine::parse_scenario(text, "(derived scenario)", ".");
  } catch (const engine::ScenarioError& e) {
    throw ConformError(fmt::format("the RayJob {} of the trace does not make a scenario: {}", derived.rayjob, e.what()));
  }
  scenario.text = text;
  return scenario;
}

}  // namespace rjsim::trace
