#include "engine/crd_schema.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "engine/object_json.h"

namespace rjsim::engine {

namespace {

// The releases whose CRD has a property: one bit per tag.
using Releases = std::uint8_t;
constexpr Releases k10 = 1;   // v1.0.0
constexpr Releases k11 = 2;   // v1.1.0
constexpr Releases k17 = 4;   // v1.7.0
constexpr Releases kAll = k10 | k11 | k17;
constexpr Releases kNone = 0;

constexpr std::string_view kTags[] = {"v1.0.0", "v1.1.0", "v1.7.0"};

enum class Shape : std::uint8_t {
  object,   // checked field by field
  array,    // its items are the row "<path>[]"
  scalar,
  opaque,   // a corev1 type, a map of strings, or an option block: checked only for being known
};

// A CEL rule (x-kubernetes-validations) of v1.7.0's CRD, stated in C++.
enum class Rule : std::uint8_t { none, deletion_strategy_style, deletion_condition, managed_by };

const std::vector<std::string_view> kDeletionPolicies = {"DeleteCluster", "DeleteWorkers", "DeleteSelf", "DeleteNone"};

// One property of the RayJob CRD's spec, by its path below spec ("a.b[]" is the items of array a.b).
struct FieldRow {
  std::string_view path;
  Releases releases;
  Shape shape;
  Releases required = kNone;              // the releases whose CRD lists it in its parent's `required`
  std::string_view default_json = {};     // the CRD's `default`, as JSON
  Releases defaulted = kNone;             // the releases that declare the default
  std::vector<std::string_view> values = {};   // `enum`
  std::optional<std::int64_t> minimum = {};
  std::size_t min_items = 0;
  Rule rule = Rule::none;
};

// ray.io_rayjobs.yaml's spec at the three tags. Defaults apply before `required` is checked, so a
// required field with a default (minReplicas, maxReplicas) may be left out.
const std::vector<FieldRow>& rayjob_rows() {
  static const std::vector<FieldRow> rows = {
      {"activeDeadlineSeconds", k11 | k17, Shape::scalar},
      {"backoffLimit", k17, Shape::scalar, kNone, "0", k17},
      {"clusterSelector", kAll, Shape::opaque},
      {"deletionStrategy", k17, Shape::object, kNone, {}, kNone, {}, {}, 0, Rule::deletion_strategy_style},
      {"deletionStrategy.deletionRules", k17, Shape::array, kNone, {}, kNone, {}, {}, 1},
      {"deletionStrategy.deletionRules[]", k17, Shape::object},
      {"deletionStrategy.deletionRules[].condition", k17, Shape::object, k17, {}, kNone, {}, {}, 0,
       Rule::deletion_condition},
      {"deletionStrategy.deletionRules[].condition.jobDeploymentStatus", k17, Shape::scalar, kNone, {}, kNone,
       {"Failed"}},
      {"deletionStrategy.deletionRules[].condition.jobStatus", k17, Shape::scalar, kNone, {}, kNone,
       {"SUCCEEDED", "FAILED"}},
      {"deletionStrategy.deletionRules[].condition.ttlSeconds", k17, Shape::scalar, kNone, "0", k17, {}, 0},
      {"deletionStrategy.deletionRules[].policy", k17, Shape::scalar, k17, {}, kNone, kDeletionPolicies},
      {"deletionStrategy.onFailure", k17, Shape::object},
      {"deletionStrategy.onFailure.policy", k17, Shape::scalar, kNone, {}, kNone, kDeletionPolicies},
      {"deletionStrategy.onSuccess", k17, Shape::object},
      {"deletionStrategy.onSuccess.policy", k17, Shape::scalar, kNone, {}, kNone, kDeletionPolicies},
      {"entrypoint", kAll, Shape::scalar, k10 | k11},
      {"entrypointNumCpus", kAll, Shape::scalar},
      {"entrypointNumGpus", kAll, Shape::scalar},
      {"entrypointResources", kAll, Shape::scalar},
      {"jobId", kAll, Shape::scalar},
      {"managedBy", k17, Shape::scalar, kNone, {}, kNone, {}, {}, 0, Rule::managed_by},
      {"metadata", kAll, Shape::opaque},
      {"preRunningDeadlineSeconds", k17, Shape::scalar, kNone, {}, kNone, {}, 1},
      {"rayClusterSpec", kAll, Shape::object},
      {"runtimeEnv", k10, Shape::scalar},
      {"runtimeEnvYAML", kAll, Shape::scalar},
      {"shutdownAfterJobFinishes", kAll, Shape::scalar},
      {"submissionMode", k11 | k17, Shape::scalar, kNone, "\"K8sJobMode\"", k11 | k17},
      {"submitterConfig", k17, Shape::object},
      {"submitterConfig.backoffLimit", k17, Shape::scalar},
      {"submitterPodTemplate", kAll, Shape::opaque},
      {"suspend", kAll, Shape::scalar},
      {"ttlSecondsAfterFinished", kAll, Shape::scalar, kNone, "0", k11 | k17},
  };
  return rows;
}

// ray.io_rayclusters.yaml's spec, which is also the RayJob's spec.rayClusterSpec.
const std::vector<FieldRow>& raycluster_rows() {
  static const std::vector<FieldRow> rows = {
      {"authOptions", k17, Shape::opaque},
      {"autoscalerOptions", kAll, Shape::opaque},
      {"enableInTreeAutoscaling", kAll, Shape::scalar},
      {"gcsFaultToleranceOptions", k17, Shape::opaque},
      {"headGroupSpec", kAll, Shape::object, kAll},
      {"headGroupSpec.enableIngress", kAll, Shape::scalar},
      {"headGroupSpec.headService", kAll, Shape::opaque},
      {"headGroupSpec.ingressOptions", k17, Shape::opaque},
      {"headGroupSpec.labels", k17, Shape::opaque},
      {"headGroupSpec.rayStartParams", kAll, Shape::opaque, k10 | k11},
      {"headGroupSpec.replicas", k10, Shape::scalar},
      {"headGroupSpec.resources", k17, Shape::opaque},
      {"headGroupSpec.serviceType", kAll, Shape::scalar},
      {"headGroupSpec.template", kAll, Shape::opaque, kAll},
      {"headServiceAnnotations", kAll, Shape::opaque},
      {"historyServerOptions", k17, Shape::opaque},
      {"managedBy", k17, Shape::scalar, kNone, {}, kNone, {}, {}, 0, Rule::managed_by},
      {"networkPolicy", k17, Shape::opaque},
      {"rayVersion", kAll, Shape::scalar},
      {"suspend", k11 | k17, Shape::scalar},
      {"tlsOptions", k17, Shape::opaque},
      {"upgradeStrategy", k17, Shape::opaque},
      {"workerGroupSpecs", kAll, Shape::array},
      {"workerGroupSpecs[]", kAll, Shape::object},
      {"workerGroupSpecs[].groupName", kAll, Shape::scalar, kAll},
      {"workerGroupSpecs[].idleTimeoutSeconds", k17, Shape::scalar},
      {"workerGroupSpecs[].labels", k17, Shape::opaque},
      {"workerGroupSpecs[].maxReplicas", kAll, Shape::scalar, kAll, "2147483647", kAll},
      {"workerGroupSpecs[].minReplicas", kAll, Shape::scalar, kAll, "0", kAll},
      {"workerGroupSpecs[].numOfHosts", k11 | k17, Shape::scalar, kNone, "1", k11 | k17},
      {"workerGroupSpecs[].priority", k17, Shape::scalar, kNone, "0", k17},
      {"workerGroupSpecs[].rayStartParams", kAll, Shape::opaque, k10 | k11},
      {"workerGroupSpecs[].replicas", kAll, Shape::scalar, kNone, "0", kAll},
      {"workerGroupSpecs[].resources", k17, Shape::opaque},
      {"workerGroupSpecs[].scaleStrategy", kAll, Shape::opaque},
      {"workerGroupSpecs[].suspend", k17, Shape::scalar},
      {"workerGroupSpecs[].template", kAll, Shape::opaque, kAll},
  };
  return rows;
}

// The rows as a tree: a node's children by property name ("[]" for an array's items).
struct SchemaNode {
  const FieldRow* row = nullptr;   // null for the spec itself
  std::map<std::string, SchemaNode, std::less<>> children;
};

void add_rows(SchemaNode& root, const std::vector<FieldRow>& rows) {
  for (const FieldRow& row : rows) {
    SchemaNode* node = &root;
    std::string_view rest = row.path;
    while (!rest.empty()) {
      std::size_t end = rest.find_first_of(".[");
      if (end == 0 && rest.starts_with("[]")) end = 2;
      const std::string_view part = rest.substr(0, end);
      node = &node->children[std::string(part)];
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
      if (rest.starts_with('.')) rest.remove_prefix(1);
    }
    node->row = &row;
  }
}

const SchemaNode& raycluster_spec_schema() {
  static const SchemaNode root = [] {
    SchemaNode node;
    add_rows(node, raycluster_rows());
    return node;
  }();
  return root;
}

const SchemaNode& rayjob_spec_schema() {
  static const SchemaNode root = [] {
    SchemaNode node;
    add_rows(node, rayjob_rows());
    // spec.rayClusterSpec is a RayClusterSpec: the RayCluster CRD's spec, required headGroupSpec and all.
    node.children.at("rayClusterSpec").children = raycluster_spec_schema().children;
    return node;
  }();
  return root;
}

Releases release_bit(std::string_view controller) {
  if (controller == "kuberay-1.0") return k10;
  if (controller == "kuberay-1.1") return k11;
  if (controller == "kuberay-1.7") return k17;
  return kNone;
}

std::string_view tag_of(Releases release) {
  for (std::size_t i = 0; i < std::size(kTags); ++i) {
    if (release == (1u << i)) return kTags[i];
  }
  return "";
}

// Which other release knows a field the given one does not: "(v1.7.0's CRD has it)".
std::string other_releases(Releases known) {
  std::vector<std::string> tags;
  for (std::size_t i = 0; i < std::size(kTags); ++i) {
    if (known & (1u << i)) tags.emplace_back(kTags[i]);
  }
  if (tags.empty()) return "no KubeRay release has it";
  return fmt::format("{} {}", fmt::join(tags, " and "), tags.size() == 1 ? "has it" : "have it");
}

class Checker {
 public:
  Checker(Releases release, std::string crd, std::vector<std::string>* pruned)
      : release_(release), crd_(std::move(crd)), pruned_(pruned) {}

  void check_object(nlohmann::json& value, const SchemaNode& schema, const std::string& path) {
    prune_nulls(value);
    for (const auto& [name, child] : schema.children) {
      if (!known(child) || value.contains(name)) continue;
      if (child.row->defaulted & release_) value[name] = nlohmann::json::parse(child.row->default_json);
    }
    for (const auto& [name, child] : schema.children) {
      if (known(child) && (child.row->required & release_) && !value.contains(name)) {
        fail(json_path_key(path, name), fmt::format("missing: {} requires it", crd_));
      }
    }
    for (auto it = value.begin(); it != value.end();) {
      const std::string child_path = json_path_key(path, it.key());
      const auto child = schema.children.find(it.key());
      if (child != schema.children.end() && known(child->second)) {
        check_value(it.value(), child->second, child_path);
        ++it;
      } else if (pruned_) {
        pruned_->push_back(child_path);
        it = value.erase(it);
      } else {
        const Releases others = child == schema.children.end() ? kNone : child->second.row->releases;
        fail(child_path, fmt::format("unknown field: {} has no {} (kubectl's strict field validation refuses it; {})",
                                     crd_, it.key(), other_releases(others)));
        ++it;
      }
    }
    if (schema.row) check_rule(value, *schema.row, path);
  }

  std::vector<CrdError> errors;

 private:
  bool known(const SchemaNode& node) const { return node.row && (node.row->releases & release_); }

  void fail(std::string path, std::string message) { errors.push_back({std::move(path), std::move(message)}); }

  // A null where the schema is not nullable is pruned before defaulting (apiextensions).
  static void prune_nulls(nlohmann::json& value) {
    for (auto it = value.begin(); it != value.end();) {
      it = it->is_null() ? value.erase(it) : std::next(it);
    }
  }

  void check_value(nlohmann::json& value, const SchemaNode& schema, const std::string& path) {
    const FieldRow& row = *schema.row;
    switch (row.shape) {
      case Shape::opaque: return;
      case Shape::object:
        if (value.is_object()) check_object(value, schema, path);
        return;   // a value of the wrong type is object_json's to name
      case Shape::array: check_array(value, schema, path); return;
      case Shape::scalar: check_scalar(value, row, path); return;
    }
  }

  void check_array(nlohmann::json& value, const SchemaNode& schema, const std::string& path) {
    if (!value.is_array()) return;
    if (value.size() < schema.row->min_items) {
      fail(path, fmt::format("needs at least {} item (minItems in {})", schema.row->min_items, crd_));
    }
    const auto items = schema.children.find("[]");
    if (items == schema.children.end()) return;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (value[i].is_object()) check_object(value[i], items->second, json_path_index(path, i));
    }
  }

  void check_scalar(const nlohmann::json& value, const FieldRow& row, const std::string& path) {
    if (!row.values.empty() && value.is_string() &&
        std::find(row.values.begin(), row.values.end(), value.get<std::string>()) == row.values.end()) {
      fail(path, fmt::format("\"{}\" is not one of {} ({}'s enum)", value.get<std::string>(), fmt::join(row.values, ", "),
                             crd_));
    }
    if (row.minimum && value.is_number() && value.get<double>() < static_cast<double>(*row.minimum)) {
      fail(path, fmt::format("{} is less than {}, the minimum in {}", value.dump(), *row.minimum, crd_));
    }
    if (row.rule == Rule::managed_by && value.is_string() && value != "ray.io/kuberay-operator" &&
        value != "kueue.x-k8s.io/multikueue") {
      fail(path, fmt::format("\"{}\": {} allows only ray.io/kuberay-operator or kueue.x-k8s.io/multikueue",
                             value.get<std::string>(), crd_));
    }
  }

  void check_rule(const nlohmann::json& value, const FieldRow& row, const std::string& path) {
    if (row.rule == Rule::deletion_strategy_style) {
      const bool legacy = value.contains("onSuccess") || value.contains("onFailure");
      const bool both_legacy = value.contains("onSuccess") && value.contains("onFailure");
      if (legacy && value.contains("deletionRules")) {
        fail(path, fmt::format("either onSuccess and onFailure, or deletionRules, not both ({}'s rule)", crd_));
      } else if (!both_legacy && !value.contains("deletionRules")) {
        fail(path, fmt::format("needs both onSuccess and onFailure, or deletionRules ({}'s rule)", crd_));
      }
    }
    if (row.rule == Rule::deletion_condition &&
        value.contains("jobStatus") == value.contains("jobDeploymentStatus")) {
      fail(path, fmt::format("needs exactly one of jobStatus and jobDeploymentStatus ({}'s rule)", crd_));
    }
  }

  Releases release_;
  std::string crd_;   // "KubeRay v1.1.0's RayJob CRD"
  std::vector<std::string>* pruned_;
};

}  // namespace

std::string_view kuberay_release_of(std::string_view controller) { return tag_of(release_bit(controller)); }

std::vector<CrdError> apply_crd(nlohmann::json& object, CrdKind kind, std::string_view controller,
                                std::vector<std::string>* pruned) {
  const Releases release = release_bit(controller);
  const auto spec = object.find("spec");
  if (release == kNone || spec == object.end() || !spec->is_object()) return {};
  const bool rayjob = kind == CrdKind::RayJob;
  Checker checker(release, fmt::format("KubeRay {}'s {} CRD", tag_of(release), rayjob ? "RayJob" : "RayCluster"),
                  pruned);
  checker.check_object(*spec, rayjob ? rayjob_spec_schema() : raycluster_spec_schema(), "spec");
  return std::move(checker.errors);
}

}  // namespace rjsim::engine
