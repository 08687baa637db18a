#include "engine/object_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <limits>
#include <optional>
#include <utility>

namespace rjsim::engine {

using nlohmann::json;

namespace {

constexpr std::int64_t kMsPerDay = 86'400'000;

static_assert(std::chrono::sys_days{std::chrono::year{2026} / std::chrono::January / 1}
                      .time_since_epoch()
                      .count() *
                  kMsPerDay ==
              kVirtualEpochUnixMs);

// ---- writing -------------------------------------------------------------------------------

void put_string(json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

void put_map(json& out, const char* key, const StringMap& map) {
  if (!map.empty()) out[key] = map;   // std::map<string, string> → a JSON object, in key order
}

// A map of strings as a JSON object, {} when empty.
json string_map_json(const StringMap& map) { return map.empty() ? json::object() : json(map); }

void put_strings(json& out, const char* key, const std::vector<std::string>& list) {
  if (!list.empty()) out[key] = list;
}

template <class T>
void put_optional(json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}

void put_time(json& out, const char* key, const std::optional<std::int64_t>& ms) {
  if (ms) out[key] = format_timestamp(*ms);
}

void put_nonzero(json& out, const char* key, std::int64_t value) {
  if (value != 0) out[key] = value;
}

json meta_to_json(const ObjectMeta& meta) {
  json out = json::object();
  out["name"] = meta.name;
  put_string(out, "namespace", meta.namespace_);
  put_string(out, "uid", meta.uid);
  if (meta.resource_version != 0) out["resourceVersion"] = std::to_string(meta.resource_version);
  put_nonzero(out, "generation", meta.generation);
  // Time 0 is a real time (objects a scenario creates at the start); a manifest that was never
  // stored (no uid, no resourceVersion) has none.
  if (meta.creation_timestamp_ms != 0 || meta.resource_version != 0 || !meta.uid.empty()) {
    out["creationTimestamp"] = format_timestamp(meta.creation_timestamp_ms);
  }
  put_time(out, "deletionTimestamp", meta.deletion_timestamp_ms);
  if (meta.deletion_grace_period_seconds) out["deletionGracePeriodSeconds"] = *meta.deletion_grace_period_seconds;
  put_map(out, "labels", meta.labels);
  put_map(out, "annotations", meta.annotations);
  if (!meta.owner_references->empty()) {
    json owners = json::array();
    for (const OwnerReference& owner : *meta.owner_references) {
      json ref = json::object();
      ref["apiVersion"] = owner.api_version;
      ref["kind"] = std::string(to_string(owner.kind));
      ref["name"] = owner.name;
      ref["uid"] = owner.uid;
      if (owner.controller) ref["controller"] = true;
      if (owner.block_owner_deletion) ref["blockOwnerDeletion"] = true;
      owners.push_back(std::move(ref));
    }
    out["ownerReferences"] = std::move(owners);
  }
  put_strings(out, "finalizers", meta.finalizers);
  return out;
}

json container_to_json(const Container& container) {
  json out = json::object();
  out["name"] = container.name;
  put_string(out, "image", container.image);
  put_strings(out, "command", container.command);
  put_strings(out, "args", container.args);
  if (!container.env.empty()) {
    json env = json::array();
    for (const auto& [name, value] : container.env) {
      json var = {{"name", name}};
      if (!value.empty()) var["value"] = value;
      env.push_back(std::move(var));
    }
    out["env"] = std::move(env);
  }
  put_string(out, "restartPolicy", container.restart_policy);
  return out;
}

json pod_spec_to_json(const std::vector<Container>& containers, const std::string& restart_policy) {
  json out = json::object();
  json list = json::array();
  for (const Container& container : containers) list.push_back(container_to_json(container));
  out["containers"] = std::move(list);
  put_string(out, "restartPolicy", restart_policy);
  return out;
}

json pod_template_to_json(const PodTemplate& pod_template) {
  json out = json::object();
  json metadata = json::object();
  put_map(metadata, "labels", pod_template.labels);
  put_map(metadata, "annotations", pod_template.annotations);
  if (!metadata.empty()) out["metadata"] = std::move(metadata);
  out["spec"] = pod_spec_to_json(pod_template.containers, pod_template.restart_policy);
  return out;
}

json ray_cluster_spec_to_json(const RayClusterSpec& spec) {
  json out = json::object();
  put_string(out, "rayVersion", spec.ray_version);
  put_optional(out, "suspend", spec.suspend);
  json head = json::object();
  // rayStartParams and template have no omitempty up to v1.1.0, whose CRD requires them.
  head["rayStartParams"] = string_map_json(spec.head_group_spec.ray_start_params);
  head["template"] = pod_template_to_json(spec.head_group_spec.template_);
  if (spec.head_group_spec.head_service_name) {
    head["headService"] = {{"metadata", {{"name", *spec.head_group_spec.head_service_name}}}};
  }
  out["headGroupSpec"] = std::move(head);
  if (!spec.worker_group_specs.empty()) {
    json groups = json::array();
    for (const WorkerGroupSpec& group : spec.worker_group_specs) {
      json out_group = json::object();
      out_group["groupName"] = group.group_name;
      put_optional(out_group, "replicas", group.replicas);
      put_optional(out_group, "minReplicas", group.min_replicas);
      put_optional(out_group, "maxReplicas", group.max_replicas);
      if (group.num_of_hosts != 1) out_group["numOfHosts"] = group.num_of_hosts;   // CRD default 1
      put_optional(out_group, "suspend", group.suspend);
      out_group["rayStartParams"] = string_map_json(group.ray_start_params);
      out_group["template"] = pod_template_to_json(group.template_);
      groups.push_back(std::move(out_group));
    }
    out["workerGroupSpecs"] = std::move(groups);
  }
  put_optional(out, "enableInTreeAutoscaling", spec.enable_in_tree_autoscaling);
  if (spec.gcs_fault_tolerance_options) out["gcsFaultToleranceOptions"] = json::object();
  return out;
}

json ray_cluster_status_to_json(const RayClusterStatus& status) {
  json out = json::object();
  put_string(out, "state", status.state);
  put_string(out, "reason", status.reason);
  put_nonzero(out, "readyWorkerReplicas", status.ready_worker_replicas);
  put_nonzero(out, "availableWorkerReplicas", status.available_worker_replicas);
  put_nonzero(out, "desiredWorkerReplicas", status.desired_worker_replicas);
  put_nonzero(out, "minWorkerReplicas", status.min_worker_replicas);
  put_nonzero(out, "maxWorkerReplicas", status.max_worker_replicas);
  put_map(out, "endpoints", status.endpoints);
  json head = json::object();
  put_string(head, "podIP", status.head.pod_ip);
  put_string(head, "serviceIP", status.head.service_ip);
  put_string(head, "podName", status.head.pod_name);
  put_string(head, "serviceName", status.head.service_name);
  if (!head.empty()) out["head"] = std::move(head);
  if (!status.conditions.empty()) {
    json conditions = json::array();
    for (const StatusCondition& condition : status.conditions) {
      json c = {{"type", condition.type}, {"status", condition.status}, {"reason", condition.reason}};
      put_string(c, "message", condition.message);
      put_time(c, "lastTransitionTime", condition.last_transition_time_ms);
      conditions.push_back(std::move(c));
    }
    out["conditions"] = std::move(conditions);
  }
  put_nonzero(out, "observedGeneration", status.observed_generation);
  put_time(out, "lastUpdateTime", status.last_update_time_ms);
  return out;
}

json deletion_strategy_to_json(const DeletionStrategy& strategy) {
  json out = json::object();
  if (strategy.on_success_policy) out["onSuccess"] = {{"policy", *strategy.on_success_policy}};
  if (strategy.on_failure_policy) out["onFailure"] = {{"policy", *strategy.on_failure_policy}};
  if (!strategy.deletion_rules.empty()) {
    json rules = json::array();
    for (const DeletionRule& rule : strategy.deletion_rules) {
      json condition = json::object();
      put_optional(condition, "jobStatus", rule.condition.job_status);
      put_optional(condition, "jobDeploymentStatus", rule.condition.job_deployment_status);
      put_nonzero(condition, "ttlSeconds", rule.condition.ttl_seconds);
      rules.push_back({{"policy", rule.policy}, {"condition", std::move(condition)}});
    }
    out["deletionRules"] = std::move(rules);
  }
  return out;
}

json top_level_json(Kind kind, const ObjectMeta& meta) {
  json out = json::object();
  out["apiVersion"] = std::string(api_version_of(kind));
  out["kind"] = std::string(to_string(kind));
  out["metadata"] = meta_to_json(meta);
  return out;
}

// ---- reading -------------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& path, std::string message) {
  throw ObjectFormatError(path, std::move(message));
}

std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "a list";
    case json::value_t::string: return fmt::format("the string {}", value.dump());
    case json::value_t::boolean: return fmt::format("the boolean {}", value.dump());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return fmt::format("the number {}", value.dump());
    default: return "a value of another type";
  }
}

std::string expected(std::string_view what, const json& value) {
  std::string message = fmt::format("expected {}, got {}", what, describe(value));
  if (what == "a string" && (value.is_number() || value.is_boolean())) {
    message += fmt::format(" (quote it in YAML: \"{}\")", value.dump());
  }
  return message;
}

// One JSON object being read at `path`: knows which keys the reader asks for, so that the others
// can be reported as ignored.
class Fields {
 public:
  Fields(const json& object, std::string path, std::vector<std::string>* ignored,
         std::initializer_list<std::string_view> known)
      : object_(object), path_(std::move(path)) {
    if (!object.is_object()) fail(path_.empty() ? "(root)" : path_, expected("an object", object));
    if (ignored == nullptr) return;
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        ignored->push_back(json_path_key(path_, key));
      }
    }
  }

  // The value of `key`, or nullptr when it is missing or null.
  const json* find(std::string_view key) const {
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  std::string path(std::string_view key) const { return json_path_key(path_, key); }

  std::string string(std::string_view key) const {
    const json* value = find(key);
    if (value == nullptr) return {};
    if (!value->is_string()) fail(path(key), expected("a string", *value));
    return value->get<std::string>();
  }
  std::optional<std::string> optional_string(std::string_view key) const {
    if (find(key) == nullptr) return std::nullopt;
    return string(key);
  }

  std::optional<bool> optional_bool(std::string_view key) const {
    const json* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_boolean()) fail(path(key), expected("true or false", *value));
    return value->get<bool>();
  }
  bool boolean(std::string_view key) const { return optional_bool(key).value_or(false); }

  std::optional<std::int64_t> optional_int64(std::string_view key, std::int64_t min,
                                             std::int64_t max) const {
    const json* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_number_integer()) fail(path(key), expected("an integer", *value));
    if (value->is_number_unsigned() &&
        value->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      fail(path(key), fmt::format("{} is out of range (at most {})", value->dump(), max));
    }
    const auto number = value->get<std::int64_t>();
    if (number < min || number > max) {
      fail(path(key), fmt::format("{} is out of range ({} to {})", number, min, max));
    }
    return number;
  }
  std::optional<int> optional_int32(std::string_view key) const {
    auto value = optional_int64(key, std::numeric_limits<std::int32_t>::min(),
                                std::numeric_limits<std::int32_t>::max());
    if (!value) return std::nullopt;
    return static_cast<int>(*value);
  }
  int int32(std::string_view key, int otherwise = 0) const {
    return optional_int32(key).value_or(otherwise);
  }

  std::optional<double> optional_double(std::string_view key) const {
    const json* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_number()) fail(path(key), expected("a number", *value));
    return value->get<double>();
  }

  std::optional<std::int64_t> optional_time(std::string_view key) const {
    const json* value = find(key);
    if (value == nullptr) return std::nullopt;
    std::int64_t ms = 0;
    if (!value->is_string() || !parse_timestamp(value->get<std::string>(), ms)) {
      fail(path(key), expected("an RFC 3339 time such as \"2026-01-01T00:00:05Z\"", *value));
    }
    return ms;
  }

  StringMap string_map(std::string_view key) const {
    StringMap map;
    const json* value = find(key);
    if (value == nullptr) return map;
    const std::string at = path(key);
    if (!value->is_object()) fail(at, expected("an object of strings", *value));
    for (const auto& [entry, entry_value] : value->items()) {
      if (!entry_value.is_string()) fail(json_path_key(at, entry), expected("a string", entry_value));
      map.emplace(entry, entry_value.get<std::string>());
    }
    return map;
  }

  std::vector<std::string> strings(std::string_view key) const {
    std::vector<std::string> list;
    const json* value = find(key);
    if (value == nullptr) return list;
    const std::string at = path(key);
    if (!value->is_array()) fail(at, expected("a list of strings", *value));
    for (std::size_t i = 0; i < value->size(); ++i) {
      const json& item = (*value)[i];
      if (!item.is_string()) fail(json_path_index(at, i), expected("a string", item));
      list.push_back(item.get<std::string>());
    }
    return list;
  }

  // The list at `key` (empty when missing); each item is read by `read(item, item_path)`.
  template <class T, class Read>
  std::vector<T> list(std::string_view key, Read read) const {
    std::vector<T> out;
    const json* value = find(key);
    if (value == nullptr) return out;
    const std::string at = path(key);
    if (!value->is_array()) fail(at, expected("a list", *value));
    for (std::size_t i = 0; i < value->size(); ++i) {
      out.push_back(read((*value)[i], json_path_index(at, i)));
    }
    return out;
  }

 private:
  const json& object_;
  std::string path_;
};

// Checks apiVersion and kind when present.
void check_type(const Fields& fields, Kind kind) {
  if (auto api_version = fields.optional_string("apiVersion");
      api_version && *api_version != api_version_of(kind)) {
    fail("apiVersion", fmt::format("\"{}\" is not the apiVersion of a {}: expected {}", *api_version,
                                   to_string(kind), api_version_of(kind)));
  }
  if (auto kind_name = fields.optional_string("kind"); kind_name && *kind_name != to_string(kind)) {
    fail("kind", fmt::format("expected {}, got \"{}\"", to_string(kind), *kind_name));
  }
}

ObjectMeta meta_from_json(const Fields& object, std::vector<std::string>* ignored) {
  ObjectMeta meta;
  const json* value = object.find("metadata");
  if (value == nullptr) return meta;
  Fields fields(*value, "metadata", ignored,
                {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                 "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers"});
  meta.name = fields.string("name");
  meta.namespace_ = fields.string("namespace");
  meta.uid = fields.string("uid");
  if (auto rv = fields.optional_string("resourceVersion"); rv && !rv->empty()) {
    std::int64_t number = 0;
    bool digits = rv->size() <= 18 && std::all_of(rv->begin(), rv->end(), [](char c) {
                    return c >= '0' && c <= '9';
                  });
    if (digits) {
      for (char c : *rv) number = number * 10 + (c - '0');
    }
    if (!digits) {
      fail("metadata.resourceVersion",
           fmt::format("\"{}\" is not a resourceVersion rjsim can hold (expected a string of "
                       "decimal digits, such as \"1042\")",
                       *rv));
    }
    meta.resource_version = number;
  }
  meta.generation = fields.optional_int64("generation", 0, std::numeric_limits<std::int64_t>::max())
                        .value_or(0);
  meta.creation_timestamp_ms = fields.optional_time("creationTimestamp").value_or(0);
  meta.deletion_timestamp_ms = fields.optional_time("deletionTimestamp");
  meta.deletion_grace_period_seconds =
      fields.optional_int64("deletionGracePeriodSeconds", 0, std::numeric_limits<std::int64_t>::max());
  meta.labels = fields.string_map("labels");
  meta.annotations = fields.string_map("annotations");
  meta.owner_references = fields.list<OwnerReference>(
      "ownerReferences", [ignored](const json& item, const std::string& path) {
        Fields owner(item, path, ignored,
                     {"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"});
        OwnerReference ref;
        ref.api_version = owner.string("apiVersion");
        const std::string kind = owner.string("kind");
        if (!parse_kind(kind, ref.kind)) {
          fail(owner.path("kind"),
               fmt::format("\"{}\" is not a kind rjsim models (RayJob, RayCluster, Service, Job, Pod)",
                           kind));
        }
        ref.name = owner.string("name");
        ref.uid = owner.string("uid");
        ref.controller = owner.boolean("controller");
        ref.block_owner_deletion = owner.boolean("blockOwnerDeletion");
        return ref;
      });
  meta.finalizers = fields.strings("finalizers");
  return meta;
}

Container container_from_json(const json& item, const std::string& path,
                              std::vector<std::string>* ignored) {
  Fields fields(item, path, ignored, {"name", "image", "command", "args", "env", "restartPolicy"});
  Container container;
  container.name = fields.string("name");
  container.image = fields.string("image");
  container.command = fields.strings("command");
  container.args = fields.strings("args");
  const auto env = fields.list<std::pair<std::string, std::string>>(
      "env", [ignored](const json& var, const std::string& var_path) {
        Fields entry(var, var_path, ignored, {"name", "value"});
        return std::pair{entry.string("name"), entry.string("value")};
      });
  for (const auto& [name, value] : env) container.env[name] = value;   // the last one wins, as in Kubernetes
  container.restart_policy = fields.string("restartPolicy");
  return container;
}

std::vector<Container> containers_from_json(const Fields& spec, std::vector<std::string>* ignored) {
  return spec.list<Container>("containers", [ignored](const json& item, const std::string& path) {
    return container_from_json(item, path, ignored);
  });
}

PodTemplate pod_template_from_json(const json& value, const std::string& path,
                                   std::vector<std::string>* ignored) {
  Fields fields(value, path, ignored, {"metadata", "spec"});
  PodTemplate pod_template;
  if (const json* metadata = fields.find("metadata")) {
    Fields meta(*metadata, fields.path("metadata"), ignored, {"labels", "annotations"});
    pod_template.labels = meta.string_map("labels");
    pod_template.annotations = meta.string_map("annotations");
  }
  if (const json* spec = fields.find("spec")) {
    Fields pod_spec(*spec, fields.path("spec"), ignored, {"containers", "restartPolicy"});
    pod_template.containers = containers_from_json(pod_spec, ignored);
    pod_template.restart_policy = pod_spec.string("restartPolicy");
  }
  return pod_template;
}

RayClusterSpec ray_cluster_spec_from_json(const json& value, const std::string& path,
                                          std::vector<std::string>* ignored) {
  Fields fields(value, path, ignored,
                {"rayVersion", "suspend", "headGroupSpec", "workerGroupSpecs", "enableInTreeAutoscaling",
                 "gcsFaultToleranceOptions"});
  RayClusterSpec spec;
  spec.ray_version = fields.string("rayVersion");
  spec.suspend = fields.optional_bool("suspend");
  spec.enable_in_tree_autoscaling = fields.optional_bool("enableInTreeAutoscaling");
  spec.gcs_fault_tolerance_options = fields.find("gcsFaultToleranceOptions") != nullptr;
  if (const json* head_value = fields.find("headGroupSpec")) {
    Fields head(*head_value, fields.path("headGroupSpec"), ignored,
                {"rayStartParams", "template", "headService"});
    spec.head_group_spec.ray_start_params = head.string_map("rayStartParams");
    if (const json* pod_template = head.find("template")) {
      spec.head_group_spec.template_ =
          pod_template_from_json(*pod_template, head.path("template"), ignored);
    }
    if (const json* service = head.find("headService")) {
      Fields head_service(*service, head.path("headService"), ignored, {"metadata"});
      if (const json* metadata = head_service.find("metadata")) {
        Fields service_meta(*metadata, head_service.path("metadata"), ignored, {"name"});
        spec.head_group_spec.head_service_name = service_meta.optional_string("name");
      }
    }
  }
  spec.worker_group_specs = fields.list<WorkerGroupSpec>(
      "workerGroupSpecs", [ignored](const json& item, const std::string& item_path) {
        Fields group(item, item_path, ignored,
                     {"groupName", "replicas", "minReplicas", "maxReplicas", "numOfHosts", "suspend",
                      "rayStartParams", "template"});
        WorkerGroupSpec out;
        out.group_name = group.string("groupName");
        out.replicas = group.optional_int32("replicas");
        out.min_replicas = group.optional_int32("minReplicas");
        out.max_replicas = group.optional_int32("maxReplicas");
        out.num_of_hosts = group.int32("numOfHosts", 1);
        out.suspend = group.optional_bool("suspend");
        out.ray_start_params = group.string_map("rayStartParams");
        if (const json* pod_template = group.find("template")) {
          out.template_ = pod_template_from_json(*pod_template, group.path("template"), ignored);
        }
        return out;
      });
  return spec;
}

RayClusterStatus ray_cluster_status_from_json(const json& value, const std::string& path,
                                              std::vector<std::string>* ignored) {
  Fields fields(value, path, ignored,
                {"state", "reason", "readyWorkerReplicas", "availableWorkerReplicas", "desiredWorkerReplicas",
                 "minWorkerReplicas", "maxWorkerReplicas", "endpoints", "head", "conditions", "observedGeneration",
                 "lastUpdateTime"});
  RayClusterStatus status;
  status.state = fields.string("state");
  status.reason = fields.string("reason");
  status.ready_worker_replicas = fields.int32("readyWorkerReplicas");
  status.available_worker_replicas = fields.int32("availableWorkerReplicas");
  status.desired_worker_replicas = fields.int32("desiredWorkerReplicas");
  status.min_worker_replicas = fields.int32("minWorkerReplicas");
  status.max_worker_replicas = fields.int32("maxWorkerReplicas");
  status.endpoints = fields.string_map("endpoints");
  if (const json* head = fields.find("head")) {
    Fields info(*head, fields.path("head"), ignored, {"podIP", "serviceIP", "podName", "serviceName"});
    status.head = RayClusterHeadInfo{info.string("podIP"), info.string("serviceIP"), info.string("podName"),
                                     info.string("serviceName")};
  }
  status.conditions = fields.list<StatusCondition>(
      "conditions", [ignored](const json& item, const std::string& item_path) {
        Fields condition(item, item_path, ignored, {"type", "status", "reason", "message", "lastTransitionTime"});
        return StatusCondition{condition.string("type"), condition.string("status"), condition.string("reason"),
                               condition.string("message"), condition.optional_time("lastTransitionTime").value_or(0)};
      });
  status.observed_generation =
      fields.optional_int64("observedGeneration", 0, std::numeric_limits<std::int64_t>::max()).value_or(0);
  status.last_update_time_ms = fields.optional_time("lastUpdateTime");
  return status;
}

std::optional<std::string> policy_of(const Fields& fields, std::string_view key,
                                     std::vector<std::string>* ignored) {
  const json* value = fields.find(key);
  if (value == nullptr) return std::nullopt;
  Fields policy(*value, fields.path(key), ignored, {"policy"});
  return policy.optional_string("policy");
}

DeletionStrategy deletion_strategy_from_json(const json& value, const std::string& path,
                                             std::vector<std::string>* ignored) {
  Fields fields(value, path, ignored, {"onSuccess", "onFailure", "deletionRules"});
  DeletionStrategy strategy;
  strategy.on_success_policy = policy_of(fields, "onSuccess", ignored);
  strategy.on_failure_policy = policy_of(fields, "onFailure", ignored);
  strategy.deletion_rules = fields.list<DeletionRule>(
      "deletionRules", [ignored](const json& item, const std::string& item_path) {
        Fields rule(item, item_path, ignored, {"policy", "condition"});
        DeletionRule out;
        out.policy = rule.string("policy");
        if (const json* condition_value = rule.find("condition")) {
          Fields condition(*condition_value, rule.path("condition"), ignored,
                           {"jobStatus", "jobDeploymentStatus", "ttlSeconds"});
          out.condition.job_status = condition.optional_string("jobStatus");
          out.condition.job_deployment_status = condition.optional_string("jobDeploymentStatus");
          out.condition.ttl_seconds = condition.int32("ttlSeconds");
        }
        return out;
      });
  return strategy;
}

RayJobSpec rayjob_spec_from_json(const json& value, std::vector<std::string>* ignored) {
  Fields fields(value, "spec", ignored,
                {"entrypoint", "metadata", "runtimeEnvYAML", "jobId", "shutdownAfterJobFinishes",
                 "ttlSecondsAfterFinished", "activeDeadlineSeconds", "preRunningDeadlineSeconds",
                 "backoffLimit", "rayClusterSpec", "clusterSelector", "submissionMode", "suspend",
                 "submitterPodTemplate", "submitterConfig", "managedBy", "deletionStrategy",
                 "entrypointNumCpus", "entrypointNumGpus", "entrypointResources"});
  RayJobSpec spec;
  spec.entrypoint = fields.string("entrypoint");
  spec.metadata = fields.string_map("metadata");
  spec.runtime_env_yaml = fields.string("runtimeEnvYAML");
  spec.job_id = fields.string("jobId");
  spec.shutdown_after_job_finishes = fields.boolean("shutdownAfterJobFinishes");
  spec.ttl_seconds_after_finished = fields.optional_int32("ttlSecondsAfterFinished");
  spec.active_deadline_seconds = fields.optional_int32("activeDeadlineSeconds");
  spec.pre_running_deadline_seconds = fields.optional_int32("preRunningDeadlineSeconds");
  spec.backoff_limit = fields.optional_int32("backoffLimit");
  if (const json* cluster = fields.find("rayClusterSpec")) {
    spec.ray_cluster_spec = ray_cluster_spec_from_json(*cluster, fields.path("rayClusterSpec"), ignored);
  }
  spec.cluster_selector = fields.string_map("clusterSelector");
  spec.submission_mode = fields.string("submissionMode");
  spec.suspend = fields.boolean("suspend");
  if (const json* submitter = fields.find("submitterPodTemplate")) {
    spec.submitter_pod_template =
        pod_template_from_json(*submitter, fields.path("submitterPodTemplate"), ignored);
  }
  if (const json* config = fields.find("submitterConfig")) {
    spec.submitter_config = true;
    Fields submitter_config(*config, fields.path("submitterConfig"), ignored, {"backoffLimit"});
    spec.submitter_backoff_limit = submitter_config.optional_int32("backoffLimit");
  }
  spec.managed_by = fields.optional_string("managedBy");
  if (const json* strategy = fields.find("deletionStrategy")) {
    spec.deletion_strategy =
        deletion_strategy_from_json(*strategy, fields.path("deletionStrategy"), ignored);
  }
  spec.entrypoint_num_cpus = fields.optional_double("entrypointNumCpus");
  spec.entrypoint_num_gpus = fields.optional_double("entrypointNumGpus");
  spec.entrypoint_resources = fields.string("entrypointResources");
  return spec;
}

RayJobStatus rayjob_status_from_json(const json& value, std::vector<std::string>* ignored) {
  Fields fields(value, "status", ignored,
                {"jobId", "rayClusterName", "dashboardURL", "jobStatus", "jobDeploymentStatus",
                 "reason", "message", "startTime", "endTime", "rayJobInfo", "succeeded", "failed",
                 "rayClusterStatus", "jobStatusCheckFailureStartTime", "observedGeneration"});
  RayJobStatus status;
  status.job_id = fields.string("jobId");
  status.ray_cluster_name = fields.string("rayClusterName");
  status.dashboard_url = fields.string("dashboardURL");
  status.job_status = fields.string("jobStatus");
  status.job_deployment_status = fields.string("jobDeploymentStatus");
  status.reason = fields.string("reason");
  status.message = fields.string("message");
  status.start_time_ms = fields.optional_time("startTime");
  status.end_time_ms = fields.optional_time("endTime");
  if (const json* info = fields.find("rayJobInfo")) {
    Fields ray_job_info(*info, fields.path("rayJobInfo"), ignored, {"startTime", "endTime"});
    status.ray_job_start_time_ms = ray_job_info.optional_time("startTime");
    status.ray_job_end_time_ms = ray_job_info.optional_time("endTime");
  }
  status.succeeded = fields.optional_int32("succeeded");
  status.failed = fields.optional_int32("failed");
  if (const json* cluster_status = fields.find("rayClusterStatus")) {
    status.ray_cluster_status =
        ray_cluster_status_from_json(*cluster_status, fields.path("rayClusterStatus"), ignored);
  }
  status.job_status_check_failure_start_time_ms = fields.optional_time("jobStatusCheckFailureStartTime");
  status.observed_generation =
      fields.optional_int64("observedGeneration", 0, std::numeric_limits<std::int64_t>::max())
          .value_or(0);
  return status;
}

// The top-level object: checks apiVersion/kind and reads metadata; `spec`/`status` are returned
// for the kind's reader.
struct TopLevel {
  ObjectMeta meta;
  const json* spec = nullptr;
  const json* status = nullptr;
};

TopLevel read_top_level(const json& value, Kind kind, std::vector<std::string>* ignored) {
  Fields fields(value, "", ignored, {"apiVersion", "kind", "metadata", "spec", "status"});
  check_type(fields, kind);
  TopLevel top;
  top.meta = meta_from_json(fields, ignored);
  top.spec = fields.find("spec");
  top.status = fields.find("status");
  return top;
}

bool is_identifier(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// Reads `digits` decimal digits at text[pos]; false if they are not there.
bool read_digits(std::string_view text, std::size_t& pos, int digits, int& value) {
  if (pos + digits > text.size()) return false;
  value = 0;
  for (int i = 0; i < digits; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += digits;
  return true;
}

bool expect_char(std::string_view text, std::size_t& pos, char wanted) {
  if (pos >= text.size() || text[pos] != wanted) return false;
  ++pos;
  return true;
}

}  // namespace

// ---- public --------------------------------------------------------------------------------

ObjectFormatError::ObjectFormatError(std::string path_, std::string message_)
    : std::runtime_error(path_ + ": " + message_), path(std::move(path_)), message(std::move(message_)) {}

std::string format_timestamp(std::int64_t virtual_ms) {
  using namespace std::chrono;
  const std::int64_t unix_ms = kVirtualEpochUnixMs + virtual_ms;
  const sys_time<milliseconds> time{milliseconds{unix_ms}};
  const sys_days midnight = floor<days>(time);
  const year_month_day date{midnight};
  const std::int64_t ms_of_day = (time - midnight).count();
  const std::int64_t seconds_of_day = ms_of_day / 1000;
  const std::int64_t ms = ms_of_day % 1000;
  std::string text = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(date.year()),
                                 static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                                 seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60);
  if (ms != 0) text += fmt::format(".{:03}", ms);
  text += 'Z';
  return text;
}

bool parse_timestamp(std::string_view text, std::int64_t& virtual_ms) {
  using namespace std::chrono;
  std::size_t pos = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!read_digits(text, pos, 4, y) || !expect_char(text, pos, '-') || !read_digits(text, pos, 2, mo) ||
      !expect_char(text, pos, '-') || !read_digits(text, pos, 2, d)) {
    return false;
  }
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't')) return false;
  ++pos;
  if (!read_digits(text, pos, 2, h) || !expect_char(text, pos, ':') || !read_digits(text, pos, 2, mi) ||
      !expect_char(text, pos, ':') || !read_digits(text, pos, 2, s)) {
    return false;
  }
  // Leap seconds (:60) are not representable; Kubernetes never writes them.
  if (h > 23 || mi > 59 || s > 59) return false;
  std::int64_t ms = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 3) ms = ms * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return false;
    for (int i = digits; i < 3; ++i) ms *= 10;
  }
  std::int64_t offset_minutes = 0;
  if (pos >= text.size()) return false;
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!read_digits(text, pos, 2, oh) || !expect_char(text, pos, ':') || !read_digits(text, pos, 2, om) ||
        oh > 23 || om > 59) {
      return false;
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return false;
  }
  if (pos != text.size()) return false;
  const year_month_day date{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!date.ok()) return false;
  const std::int64_t day_ms = sys_days{date}.time_since_epoch().count() * kMsPerDay;
  const std::int64_t unix_ms =
      day_ms + ((h * 60 + mi) * 60 + s) * 1000LL + ms - offset_minutes * 60'000;
  virtual_ms = unix_ms - kVirtualEpochUnixMs;
  return true;
}

std::string json_path_key(std::string_view parent, std::string_view key) {
  std::string path(parent);
  if (is_identifier(key)) {
    if (!path.empty()) path += '.';
    path += key;
    return path;
  }
  path += "[\"";
  for (char c : key) {
    if (c == '"' || c == '\\') path += '\\';
    path += c;
  }
  path += "\"]";
  return path;
}

std::string json_path_index(std::string_view parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string_view api_version_of(Kind kind) {
  switch (kind) {
    case Kind::RayJob:
    case Kind::RayCluster: return "ray.io/v1";
    case Kind::Service:
    case Kind::Pod: return "v1";
    case Kind::Job: return "batch/v1";
  }
  return "";
}

nlohmann::json to_json(const Object& object) {
  return std::visit([](const auto& typed) { return to_json(typed); }, object);
}

nlohmann::json to_json(const RayJob& rayjob) {
  json out = top_level_json(Kind::RayJob, rayjob.metadata);
  const RayJobSpec& spec = rayjob.spec;
  json s = json::object();
  put_string(s, "entrypoint", spec.entrypoint);
  put_map(s, "metadata", spec.metadata);
  put_string(s, "runtimeEnvYAML", spec.runtime_env_yaml);
  put_string(s, "jobId", spec.job_id);
  if (spec.shutdown_after_job_finishes) s["shutdownAfterJobFinishes"] = true;
  put_optional(s, "ttlSecondsAfterFinished", spec.ttl_seconds_after_finished);
  put_optional(s, "activeDeadlineSeconds", spec.active_deadline_seconds);
  put_optional(s, "preRunningDeadlineSeconds", spec.pre_running_deadline_seconds);
  put_optional(s, "backoffLimit", spec.backoff_limit);
  if (spec.ray_cluster_spec) s["rayClusterSpec"] = ray_cluster_spec_to_json(*spec.ray_cluster_spec);
  put_map(s, "clusterSelector", spec.cluster_selector);
  put_string(s, "submissionMode", spec.submission_mode);
  if (spec.suspend) s["suspend"] = true;
  if (spec.submitter_pod_template) {
    s["submitterPodTemplate"] = pod_template_to_json(*spec.submitter_pod_template);
  }
  if (spec.submitter_config || spec.submitter_backoff_limit) {
    s["submitterConfig"] = json::object();
    put_optional(s["submitterConfig"], "backoffLimit", spec.submitter_backoff_limit);
  }
  put_optional(s, "managedBy", spec.managed_by);
  if (spec.deletion_strategy) s["deletionStrategy"] = deletion_strategy_to_json(*spec.deletion_strategy);
  put_optional(s, "entrypointNumCpus", spec.entrypoint_num_cpus);
  put_optional(s, "entrypointNumGpus", spec.entrypoint_num_gpus);
  put_string(s, "entrypointResources", spec.entrypoint_resources);
  out["spec"] = std::move(s);

  const RayJobStatus& status = rayjob.status;
  if (status != RayJobStatus{}) {
    json t = json::object();
    put_string(t, "jobId", status.job_id);
    put_string(t, "rayClusterName", status.ray_cluster_name);
    put_string(t, "dashboardURL", status.dashboard_url);
    put_string(t, "jobStatus", status.job_status);
    put_string(t, "jobDeploymentStatus", status.job_deployment_status);
    put_string(t, "reason", status.reason);
    put_string(t, "message", status.message);
    put_time(t, "startTime", status.start_time_ms);
    put_time(t, "endTime", status.end_time_ms);
    if (status.ray_job_start_time_ms || status.ray_job_end_time_ms) {
      json info = json::object();
      put_time(info, "startTime", status.ray_job_start_time_ms);
      put_time(info, "endTime", status.ray_job_end_time_ms);
      t["rayJobInfo"] = std::move(info);
    }
    put_optional(t, "succeeded", status.succeeded);
    put_optional(t, "failed", status.failed);
    if (status.ray_cluster_status != RayClusterStatus{}) {
      t["rayClusterStatus"] = ray_cluster_status_to_json(status.ray_cluster_status);
    }
    put_time(t, "jobStatusCheckFailureStartTime", status.job_status_check_failure_start_time_ms);
    put_nonzero(t, "observedGeneration", status.observed_generation);
    out["status"] = std::move(t);
  }
  return out;
}

nlohmann::json to_json(const RayCluster& raycluster) {
  json out = top_level_json(Kind::RayCluster, raycluster.metadata);
  out["spec"] = ray_cluster_spec_to_json(raycluster.spec);
  if (raycluster.status != RayClusterStatus{}) {
    out["status"] = ray_cluster_status_to_json(raycluster.status);
  }
  return out;
}

nlohmann::json to_json(const Service& service) {
  json out = top_level_json(Kind::Service, service.metadata);
  json spec = json::object();
  put_map(spec, "selector", service.spec->selector);
  if (!service.spec->ports.empty()) {
    json ports = json::array();
    for (const ServicePort& port : service.spec->ports) {
      json out_port = json::object();
      put_string(out_port, "name", port.name);
      out_port["port"] = port.port;
      ports.push_back(std::move(out_port));
    }
    spec["ports"] = std::move(ports);
  }
  put_string(spec, "clusterIP", service.spec->cluster_ip);
  out["spec"] = std::move(spec);
  return out;
}

nlohmann::json to_json(const Job& job) {
  json out = top_level_json(Kind::Job, job.metadata);
  json spec = json::object();
  put_optional(spec, "backoffLimit", job.spec->backoff_limit);
  put_optional(spec, "activeDeadlineSeconds", job.spec->active_deadline_seconds);
  put_optional(spec, "suspend", job.spec->suspend);
  spec["template"] = pod_template_to_json(job.spec->template_);
  out["spec"] = std::move(spec);
  if (job.status != JobStatus{}) {
    json status = json::object();
    put_nonzero(status, "active", job.status.active);
    put_nonzero(status, "succeeded", job.status.succeeded);
    put_nonzero(status, "failed", job.status.failed);
    put_time(status, "startTime", job.status.start_time_ms);
    put_time(status, "completionTime", job.status.completion_time_ms);
    if (!job.status.conditions.empty()) {
      json conditions = json::array();
      for (const JobCondition& condition : job.status.conditions) {
        json c = json::object();
        c["type"] = condition.type;
        c["status"] = condition.status;
        put_string(c, "reason", condition.reason);
        put_string(c, "message", condition.message);
        c["lastTransitionTime"] = format_timestamp(condition.last_transition_time_ms);
        conditions.push_back(std::move(c));
      }
      status["conditions"] = std::move(conditions);
    }
    out["status"] = std::move(status);
  }
  return out;
}

nlohmann::json to_json(const Pod& pod) {
  json out = top_level_json(Kind::Pod, pod.metadata);
  out["spec"] = pod_spec_to_json(pod.spec->containers, pod.spec->restart_policy);
  if (pod.status != PodStatus{}) {
    json status = json::object();
    put_string(status, "phase", pod.status.phase);
    put_string(status, "podIP", pod.status.pod_ip);
    if (pod.status.ready) {
      json ready = json::object();
      ready["type"] = "Ready";
      ready["status"] = *pod.status.ready ? "True" : "False";
      status["conditions"] = json::array();
      status["conditions"].push_back(std::move(ready));
    }
    if (!pod.status.container_statuses.empty()) {
      json statuses = json::array();
      for (const ContainerStatus& container : pod.status.container_statuses) {
        json c = json::object();
        c["name"] = container.name;
        c["ready"] = container.ready;
        c["restartCount"] = container.restart_count;
        if (!container.state.empty()) {
          json detail = json::object();
          put_optional(detail, "exitCode", container.exit_code);
          put_time(detail, "finishedAt", container.finished_at_ms);
          put_string(detail, "reason", container.reason);
          c["state"] = json::object();
          c["state"][container.state] = std::move(detail);
        }
        if (const auto& last = container.last_termination_state) {
          json detail = json::object();
          detail["exitCode"] = last->exit_code;
          put_time(detail, "finishedAt", last->finished_at_ms);
          put_string(detail, "reason", last->reason);
          c["lastState"] = json::object();
          c["lastState"]["terminated"] = std::move(detail);
        }
        statuses.push_back(std::move(c));
      }
      status["containerStatuses"] = std::move(statuses);
    }
    out["status"] = std::move(status);
  }
  return out;
}

RayJob rayjob_from_json(const nlohmann::json& value, std::vector<std::string>* ignored) {
  TopLevel top = read_top_level(value, Kind::RayJob, ignored);
  RayJob rayjob;
  rayjob.metadata = std::move(top.meta);
  if (top.spec) rayjob.spec = rayjob_spec_from_json(*top.spec, ignored);
  if (top.status) rayjob.status = rayjob_status_from_json(*top.status, ignored);
  return rayjob;
}

RayCluster raycluster_from_json(const nlohmann::json& value, std::vector<std::string>* ignored) {
  TopLevel top = read_top_level(value, Kind::RayCluster, ignored);
  RayCluster raycluster;
  raycluster.metadata = std::move(top.meta);
  if (top.spec) raycluster.spec = ray_cluster_spec_from_json(*top.spec, "spec", ignored);
  if (top.status) raycluster.status = ray_cluster_status_from_json(*top.status, "status", ignored);
  return raycluster;
}

Service service_from_json(const nlohmann::json& value, std::vector<std::string>* ignored) {
  TopLevel top = read_top_level(value, Kind::Service, ignored);
  Service service;
  service.metadata = std::move(top.meta);
  if (top.spec) {
    Fields spec(*top.spec, "spec", ignored, {"selector", "ports", "clusterIP"});
    service.spec.edit().selector = spec.string_map("selector");
    service.spec.edit().cluster_ip = spec.string("clusterIP");
    service.spec.edit().ports = spec.list<ServicePort>("ports", [ignored](const json& item, const std::string& path) {
      Fields port(item, path, ignored, {"name", "port"});
      ServicePort out;
      out.name = port.string("name");
      out.port = port.int32("port");
      return out;
    });
  }
  if (top.status) Fields(*top.status, "status", ignored, {});
  return service;
}

Job job_from_json(const nlohmann::json& value, std::vector<std::string>* ignored) {
  TopLevel top = read_top_level(value, Kind::Job, ignored);
  Job job;
  job.metadata = std::move(top.meta);
  if (top.spec) {
    Fields spec(*top.spec, "spec", ignored, {"backoffLimit", "activeDeadlineSeconds", "suspend", "template"});
    job.spec.edit().backoff_limit = spec.optional_int32("backoffLimit");
    job.spec.edit().active_deadline_seconds =
        spec.optional_int64("activeDeadlineSeconds", std::numeric_limits<std::int64_t>::min(),
                            std::numeric_limits<std::int64_t>::max());
    job.spec.edit().suspend = spec.optional_bool("suspend");
    if (const json* pod_template = spec.find("template")) {
      job.spec.edit().template_ = pod_template_from_json(*pod_template, spec.path("template"), ignored);
    }
  }
  if (top.status) {
    Fields status(*top.status, "status", ignored,
                  {"active", "succeeded", "failed", "startTime", "completionTime", "conditions"});
    job.status.active = status.int32("active");
    job.status.succeeded = status.int32("succeeded");
    job.status.failed = status.int32("failed");
    job.status.start_time_ms = status.optional_time("startTime");
    job.status.completion_time_ms = status.optional_time("completionTime");
    job.status.conditions = status.list<JobCondition>(
        "conditions", [ignored](const json& item, const std::string& path) {
          Fields condition(item, path, ignored, {"type", "status", "reason", "message", "lastTransitionTime"});
          JobCondition out;
          out.type = condition.string("type");
          out.status = condition.string("status");
          out.reason = condition.string("reason");
          out.message = condition.string("message");
          out.last_transition_time_ms = condition.optional_time("lastTransitionTime").value_or(0);
          return out;
        });
  }
  return job;
}

Pod pod_from_json(const nlohmann::json& value, std::vector<std::string>* ignored) {
  TopLevel top = read_top_level(value, Kind::Pod, ignored);
  Pod pod;
  pod.metadata = std::move(top.meta);
  if (top.spec) {
    Fields spec(*top.spec, "spec", ignored, {"containers", "restartPolicy"});
    pod.spec.edit().containers = containers_from_json(spec, ignored);
    pod.spec.edit().restart_policy = spec.string("restartPolicy");
  }
  if (top.status) {
    Fields status(*top.status, "status", ignored, {"phase", "podIP", "conditions", "containerStatuses"});
    pod.status.phase = status.string("phase");
    pod.status.pod_ip = status.string("podIP");
    // Of the conditions only Ready is modelled; the others are read for their types only.
    const auto conditions = status.list<std::pair<std::string, std::string>>(
        "conditions", [ignored](const json& item, const std::string& path) {
          Fields condition(item, path, ignored, {"type", "status"});
          return std::pair{condition.string("type"), condition.string("status")};
        });
    for (const auto& [type, condition_status] : conditions) {
      if (type == "Ready") pod.status.ready = condition_status == "True";
    }
    pod.status.container_statuses = status.list<ContainerStatus>(
        "containerStatuses", [ignored](const json& item, const std::string& path) {
          Fields container(item, path, ignored, {"name", "ready", "restartCount", "state", "lastState"});
          ContainerStatus out;
          out.name = container.string("name");
          out.ready = container.boolean("ready");
          out.restart_count = container.int32("restartCount");
          if (const json* state = container.find("state")) {
            const std::string state_path = container.path("state");
            Fields states(*state, state_path, ignored, {"waiting", "running", "terminated"});
            for (const char* name : {"waiting", "running", "terminated"}) {
              const json* detail = states.find(name);
              if (detail == nullptr) continue;
              if (!out.state.empty()) {
                fail(state_path, fmt::format("holds both {} and {}: a container is in one state", out.state, name));
              }
              out.state = name;
              Fields details(*detail, states.path(name), ignored,
                             {"exitCode", "finishedAt", "reason"});
              out.exit_code = details.optional_int32("exitCode");
              out.finished_at_ms = details.optional_time("finishedAt");
              out.reason = details.string("reason");
            }
          }
          if (const json* last = container.find("lastState")) {
            Fields states(*last, container.path("lastState"), ignored, {"terminated"});
            if (const json* terminated = states.find("terminated")) {
              Fields details(*terminated, states.path("terminated"), ignored, {"exitCode", "finishedAt", "reason"});
              out.last_termination_state = ContainerTerminated{details.optional_int32("exitCode").value_or(0),
                                                               details.string("reason"),
                                                               details.optional_time("finishedAt").value_or(0)};
            }
          }
          return out;
        });
  }
  return pod;
}

Object object_from_json(const nlohmann::json& value, Kind kind, std::vector<std::string>* ignored) {
  switch (kind) {
    case Kind::RayJob: return rayjob_from_json(value, ignored);
    case Kind::RayCluster: return raycluster_from_json(value, ignored);
    case Kind::Service: return service_from_json(value, ignored);
    case Kind::Job: return job_from_json(value, ignored);
    case Kind::Pod: return pod_from_json(value, ignored);
  }
  fail("kind", "rjsim bug: a Kind outside the enumeration");
}

namespace {

// {"spec": {"suspend": <bool>}}, the patch users send most, set in place: the round trip gives the
// same object (it is exact), and it was a sixteenth of a random schedule that suspends. False,
// and the object untouched, for any other patch.
bool applied_suspend_patch(Object& object, const json& patch) {
  RayJob* rayjob = std::get_if<RayJob>(&object);
  if (!rayjob || !patch.is_object() || patch.size() != 1) return false;
  const auto spec = patch.find("spec");
  if (spec == patch.end() || !spec->is_object() || spec->size() != 1) return false;
  const auto suspend = spec->find("suspend");
  if (suspend == spec->end() || !suspend->is_boolean()) return false;
  rayjob->spec.edit().suspend = suspend->get<bool>();
  return true;
}

}  // namespace

void apply_merge_patch(Object& object, const nlohmann::json& patch) {
  if (applied_suspend_patch(object, patch)) return;
  json merged = to_json(object);
  merged.merge_patch(patch);
  object = object_from_json(merged, kind_of(object));
}

}  // namespace rjsim::engine
