#include "models/kuberay_1_7/validation.h"

#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/kuberay_1_1/runtime_env.h"

namespace rjsim::models::kuberay_1_7 {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

using engine::Error;
using engine::ErrorCode;

namespace {

Error invalid(std::string message) { return Error(ErrorCode::other, std::move(message)); }

constexpr const char* kRayFTEnabledAnnotationKey = "ray.io/ft-enabled";

// k8s.io/apimachinery validation.IsDNS1035Label: [a-z]([-a-z0-9]*[a-z0-9])?, at most 63 chars.
bool is_dns1035_label(const std::string& name) {
  if (name.empty() || name.size() > 63) return false;
  if (name.front() < 'a' || name.front() > 'z') return false;
  if (name.back() == '-') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// validateDeletionCondition (VAL:L871-890).
Error validate_deletion_condition(const engine::DeletionCondition& condition) {
  const bool has_job_status = condition.job_status.has_value();
  const bool has_job_deployment_status = condition.job_deployment_status.has_value();
  if (has_job_status && has_job_deployment_status) {
    return invalid("cannot set both JobStatus and JobDeploymentStatus at the same time");
  }
  if (!has_job_status && !has_job_deployment_status) {
    return invalid("exactly one of JobStatus and JobDeploymentStatus must be set");
  }
  if (condition.ttl_seconds < 0) return invalid("TTLSeconds must be non-negative");
  return {};
}

// validateTTLConsistency (VAL:L892-925): DeleteWorkers <= DeleteCluster <= DeleteSelf.
void validate_ttl_consistency(const std::map<std::string, int>& policy_ttls, std::string_view condition_type,
                              const std::string& condition_value, std::vector<std::string>& errs) {
  const char* previous_policy = nullptr;
  int previous_ttl = 0;
  for (const char* policy : {"DeleteWorkers", "DeleteCluster", "DeleteSelf"}) {
    auto it = policy_ttls.find(policy);
    if (it == policy_ttls.end()) continue;
    if (previous_policy && it->second < previous_ttl) {
      errs.push_back(fmt::format("for {} '{}': {} TTL ({}) must be >= {} TTL ({})", condition_type, condition_value,
                                 policy, it->second, previous_policy, previous_ttl));
    }
    previous_policy = policy;
    previous_ttl = it->second;
  }
}

// validateDeletionRules (VAL:L797-869): every error, joined by newlines (errors.Join).
Error validate_deletion_rules(const engine::RayJob& rayjob) {
  const bool cluster_selector_mode = !rayjob.spec->cluster_selector.empty();
  std::map<std::string, std::map<std::string, int>> by_job_status, by_job_deployment_status;
  std::vector<std::string> errs;
  const auto& rules = rayjob.spec->deletion_strategy->deletion_rules;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const engine::DeletionRule& rule = rules[i];
    if (Error err = validate_deletion_condition(rule.condition)) {
      errs.push_back(fmt::format("deletionRules[{}]: {}", i, err.message()));
      continue;
    }
    if (cluster_selector_mode && (rule.policy == "DeleteCluster"sv || rule.policy == "DeleteWorkers"sv)) {
      errs.push_back(fmt::format("deletionRules[{}]: DeletionPolicyType '{}' not supported when ClusterSelector is set",
                                 i, rule.policy));
      continue;
    }
    const bool by_status = rule.condition.job_status.has_value();
    auto& group = by_status ? by_job_status[*rule.condition.job_status]
                            : by_job_deployment_status[*rule.condition.job_deployment_status];
    if (group.contains(rule.policy)) {
      errs.push_back(fmt::format("deletionRules[{}]: duplicate rule for DeletionPolicyType '{}' and {} '{}'", i,
                                 rule.policy, by_status ? "JobStatus" : "JobDeploymentStatus",
                                 by_status ? *rule.condition.job_status : *rule.condition.job_deployment_status));
      continue;
    }
    group[rule.policy] = rule.condition.ttl_seconds;
  }
  for (const auto& [value, ttls] : by_job_status) validate_ttl_consistency(ttls, "JobStatus", value, errs);
  for (const auto& [value, ttls] : by_job_deployment_status) {
    validate_ttl_consistency(ttls, "JobDeploymentStatus", value, errs);
  }
  if (errs.empty()) return {};
  return invalid(fmt::format("{}", fmt::join(errs, "\n")));
}

// validateLegacyDeletionPolicies (VAL:L928-966). A policy block without its policy reads as unset.
Error validate_legacy_deletion_policies(const engine::RayJob& rayjob) {
  const engine::DeletionStrategy& strategy = *rayjob.spec->deletion_strategy;
  if (!strategy.on_success_policy || !strategy.on_failure_policy) {
    return invalid("both DeletionStrategy.OnSuccess and DeletionStrategy.OnFailure must be set when using the "
                   "legacy deletion policy fields of DeletionStrategy");
  }
  const std::string& on_success = *strategy.on_success_policy;
  const std::string& on_failure = *strategy.on_failure_policy;
  if (!rayjob.spec->cluster_selector.empty()) {
    if (on_success == "DeleteCluster"sv || on_success == "DeleteWorkers"sv) {
      return invalid(
          fmt::format("the ClusterSelector mode doesn't support DeletionStrategy={} on success", on_success));
    }
    if (on_failure == "DeleteCluster"sv || on_failure == "DeleteWorkers"sv) {
      return invalid(
          fmt::format("the ClusterSelector mode doesn't support DeletionStrategy={} on failure", on_failure));
    }
  }
  if (rayjob.spec->shutdown_after_job_finishes && (on_success == "DeleteNone"sv || on_failure == "DeleteNone"sv)) {
    return invalid("The RayJob spec is invalid: shutdownAfterJobFinshes is set to 'true' while deletion policy is "
                   "'DeleteNone'");
  }
  return {};
}

// validateDeletionConfiguration (VAL:L752-792).
Error validate_deletion_configuration(const engine::RayJob& rayjob, bool deletion_policy_gate) {
  const engine::RayJobSpec& spec = rayjob.spec;
  if (!spec.shutdown_after_job_finishes && spec.ttl_seconds_after_finished.value_or(0) > 0) {
    return invalid("The RayJob spec is invalid: a RayJob with shutdownAfterJobFinishes set to false cannot have "
                   "TTLSecondsAfterFinished");
  }
  if (!spec.deletion_strategy) return {};
  if (!deletion_policy_gate) {
    return invalid("RayJobDeletionPolicy feature gate must be enabled to use DeletionStrategy");
  }
  const bool legacy_configured = spec.deletion_strategy->on_success_policy || spec.deletion_strategy->on_failure_policy;
  const bool rules_configured = !spec.deletion_strategy->deletion_rules.empty();
  if (rules_configured && spec.shutdown_after_job_finishes) {
    return invalid("The RayJob spec is invalid: spec.shutdownAfterJobFinishes and spec.deletionStrategy.deletionRules "
                   "are mutually exclusive");
  }
  if (rules_configured && legacy_configured) {
    return invalid("The RayJob spec is invalid: Cannot use both legacy onSuccess/onFailure fields and deletionRules "
                   "simultaneously");
  }
  if (legacy_configured) return validate_legacy_deletion_policies(rayjob);
  if (rules_configured) return validate_deletion_rules(rayjob);
  return invalid("The RayJob spec is invalid: DeletionStrategy requires either BOTH onSuccess and onFailure, OR the "
                 "deletionRules field (cannot be empty)");
}

// validateRayGroupLabels (VAL:L72-99), the rule on rayStartParams; the group's own Labels field
// is not modelled.
Error validate_ray_group_labels(std::string_view group_name, const engine::StringMap& ray_start_params) {
  if (ray_start_params.contains("labels")) {
    return invalid(fmt::format("rayStartParams['labels'] is not supported for {} group; please use the top-level "
                               "Labels field instead", group_name));
  }
  return {};
}

// Go's `m[key] != ""`: the key is there with a value.
bool has_value(const engine::StringMap& map, std::string_view key) {
  const auto it = map.find(key);
  return it != map.end() && !it->second.empty();
}

// The first worker group with suspend: true, if any.
const engine::WorkerGroupSpec* first_suspended_group(const engine::RayClusterSpec& spec) {
  for (const engine::WorkerGroupSpec& group : spec.worker_group_specs) {
    if (group.suspend && *group.suspend) return &group;
  }
  return nullptr;
}

// EnvVarExists over the Ray container of the head template (RayContainerIndex 0).
const std::string* head_env(const engine::RayClusterSpec& spec, std::string_view name) {
  const engine::Container& ray_container = spec.head_group_spec.template_.containers.front();
  const auto it = ray_container.env.find(name);
  return it == ray_container.env.end() ? nullptr : &it->second;
}

// IsGCSFaultToleranceEnabled (utils/util.go:L765-768).
bool is_gcs_fault_tolerance_enabled(const engine::RayClusterSpec& spec, const engine::StringMap& annotations) {
  const auto it = annotations.find(kRayFTEnabledAnnotationKey);
  std::string value = it == annotations.end() ? "" : it->second;
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return value == "true"sv || spec.gcs_fault_tolerance_options;
}

// The worker group rules of ValidateRayClusterSpec (VAL:L118-151) that rjsim's objects carry:
// replica bounds (the CRD defaults minReplicas 0 and maxReplicas maxInt32, so "must set both"
// cannot fire) and rayStartParams labels.
Error validate_worker_groups(const engine::RayClusterSpec& spec) {
  for (const engine::WorkerGroupSpec& group : spec.worker_group_specs) {
    const std::string& name = group.group_name;
    if (group.min_replicas && *group.min_replicas < 0) {
      return invalid(fmt::format("worker group {} has negative minReplicas {}", name, *group.min_replicas));
    }
    if (group.max_replicas && *group.max_replicas < 0) {
      return invalid(fmt::format("worker group {} has negative maxReplicas {}", name, *group.max_replicas));
    }
    if (group.min_replicas && group.max_replicas && *group.min_replicas > *group.max_replicas) {
      return invalid(fmt::format("worker group {} has minReplicas {} greater than maxReplicas {}", name,
                                  *group.min_replicas, *group.max_replicas));
    }
    if (Error err = validate_ray_group_labels(name, group.ray_start_params)) return err;
  }
  return {};
}

// The GCS fault tolerance and Redis rules of ValidateRayClusterSpec (VAL:L153-195). With
// gcsFaultToleranceOptions set, validateGcsFaultToleranceBackend is not checked: the options'
// contents are not modelled.
Error validate_gcs_fault_tolerance(const engine::RayClusterSpec& spec, const engine::StringMap& annotations) {
  if (has_value(annotations, kRayFTEnabledAnnotationKey) && spec.gcs_fault_tolerance_options) {
    return invalid(fmt::format("{} annotation and GcsFaultToleranceOptions are both set. Please use only "
                               "GcsFaultToleranceOptions to configure GCS fault tolerance", kRayFTEnabledAnnotationKey));
  }
  if (!is_gcs_fault_tolerance_enabled(spec, annotations) && head_env(spec, "RAY_REDIS_ADDRESS")) {
    return invalid("RAY_REDIS_ADDRESS is set which implicitly enables GCS fault tolerance, but "
                   "GcsFaultToleranceOptions is not set. Please set GcsFaultToleranceOptions to enable GCS fault "
                   "tolerance");
  }
  const engine::StringMap& ray_start_params = spec.head_group_spec.ray_start_params;
  if (spec.gcs_fault_tolerance_options) {
    if (has_value(ray_start_params, "redis-password")) {
      return invalid("cannot set `redis-password` in rayStartParams when GcsFaultToleranceOptions is enabled - use "
                     "GcsFaultToleranceOptions.RedisPassword instead");
    }
    if (head_env(spec, "REDIS_PASSWORD")) {
      return invalid("cannot set `REDIS_PASSWORD` env var in head Pod when GcsFaultToleranceOptions is enabled - use "
                     "GcsFaultToleranceOptions.RedisPassword instead");
    }
    if (head_env(spec, "RAY_REDIS_ADDRESS")) {
      return invalid("cannot set `RAY_REDIS_ADDRESS` env var in head Pod when GcsFaultToleranceOptions is enabled - "
                     "use GcsFaultToleranceOptions.RedisAddress instead");
    }
    if (has_value(annotations, "ray.io/external-storage-namespace")) {
      return invalid("cannot set `ray.io/external-storage-namespace` annotation when GcsFaultToleranceOptions is "
                     "enabled - use GcsFaultToleranceOptions.ExternalStorageNamespace instead");
    }
  }
  if (has_value(ray_start_params, "redis-username") || head_env(spec, "REDIS_USERNAME")) {
    return invalid("cannot set redis username in rayStartParams or environment variables - use "
                   "GcsFaultToleranceOptions.RedisUsername instead");
  }
  return {};
}

// The suspended-worker and autoscaler rules of ValidateRayClusterSpec (VAL:L197-225): autoscaler
// options and v2 are not modelled.
Error validate_suspend_and_autoscaling(const engine::RayClusterSpec& spec, bool deletion_policy_gate) {
  const engine::WorkerGroupSpec* suspended = first_suspended_group(spec);
  if (!deletion_policy_gate && suspended) {                                            // :197-203
    return invalid(fmt::format("worker group {} can be suspended only when the RayJobDeletionPolicy feature "
                                "gate is enabled", suspended->group_name));
  }
  const bool autoscaling = spec.enable_in_tree_autoscaling.value_or(false);            // IsAutoscalingEnabled
  if (!autoscaling) {                                                                  // :205-212
    if (const std::string* v2 = head_env(spec, "RAY_enable_autoscaler_v2"); v2 && (*v2 == "1"sv || *v2 == "true"sv)) {
      return invalid(fmt::format("environment variable RAY_enable_autoscaler_v2 cannot be set to '{}' when "
                                 "enableInTreeAutoscaling is false. Please set enableInTreeAutoscaling: true to use "
                                 "autoscaler v2", *v2));
    }
    return {};
  }
  if (suspended) {                                                                     // :214-220
    return invalid(fmt::format("worker group {} cannot be suspended with Autoscaler enabled", suspended->group_name));
  }
  return {};
}

// ValidateRayClusterSpec (VAL:L103-225), the rules whose fields rjsim's objects carry, in the Go's
// order. Not checked: Ray resources, the groups' Labels field, idle timeouts, priorities, the GCS
// fault tolerance backend, autoscaler options (their fields are not modelled).
Error validate_raycluster_spec(const engine::RayClusterSpec& spec, const engine::StringMap& annotations,
                               bool deletion_policy_gate) {
  if (spec.head_group_spec.template_.containers.empty()) {                             // :104-106
    return invalid("headGroupSpec should have at least one container");
  }
  if (Error err = validate_ray_group_labels("Head", spec.head_group_spec.ray_start_params)) return err;   // :111
  if (Error err = validate_worker_groups(spec)) return err;                            // :118-151
  if (Error err = validate_gcs_fault_tolerance(spec, annotations)) return err;         // :153-195
  return validate_suspend_and_autoscaling(spec, deletion_policy_gate);                 // :197-225
}

}  // namespace

Error validate_rayjob_metadata(const engine::ObjectMeta& metadata) {
  if (metadata.name.size() > static_cast<std::size_t>(kMaxRayJobNameLength)) {
    return invalid(fmt::format("The RayJob metadata is invalid: RayJob name should be no more than {} characters",
                               kMaxRayJobNameLength));
  }
  if (!is_dns1035_label(metadata.name)) {
    return invalid(fmt::format("The RayJob metadata is invalid: RayJob name should be a valid DNS1035 label: "
                               "[a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
                               "with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
                               "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')]"));
  }
  return {};
}

namespace {

// ValidateRayJobSpec itself; validate_rayjob_spec below keeps its verdicts.
Error validate_rayjob_spec_afresh(const engine::RayJob& rayjob, bool deletion_policy_gate) {
  const engine::RayJobSpec& spec = rayjob.spec;
  if (spec.suspend && !spec.shutdown_after_job_finishes) {                             // VAL:L547-549
    return invalid("The RayJob spec is invalid: a RayJob with shutdownAfterJobFinishes set to false is not allowed "
                   "to be suspended");
  }
  if (spec.ttl_seconds_after_finished.value_or(0) < 0) {                                           // VAL:L551-553
    return invalid("The RayJob spec is invalid: TTLSecondsAfterFinished must be a non-negative integer");
  }
  if (Error err = validate_deletion_configuration(rayjob, deletion_policy_gate)) return err;   // VAL:L556
  const bool cluster_selector_mode = !spec.cluster_selector.empty();
  if (spec.suspend && cluster_selector_mode) {                                         // VAL:L561-563
    return invalid("The RayJob spec is invalid: the ClusterSelector mode doesn't support the suspend operation");
  }
  if (!spec.ray_cluster_spec && !cluster_selector_mode) {                              // VAL:L564-566
    return invalid("The RayJob spec is invalid: one of RayClusterSpec or ClusterSelector must be set");
  }
  if (cluster_selector_mode) {                                                         // VAL:L567-578
    auto it = spec.cluster_selector.find("ray.io/cluster");
    if (it == spec.cluster_selector.end() || it->second.empty()) {
      return invalid("cluster name in ClusterSelector should not be empty");
    }
    if (spec.submission_mode == "SidecarMode"sv) return invalid("ClusterSelector is not supported in SidecarMode");
    if (spec.backoff_limit && *spec.backoff_limit > 0) {
      return invalid("The RayJob spec is invalid: BackoffLimit is incompatible with ClusterSelector mode");
    }
  }
  if (spec.submission_mode == "InteractiveMode"sv && spec.backoff_limit && *spec.backoff_limit > 0) {   // VAL:L587-589
    return invalid("The RayJob spec is invalid: BackoffLimit is incompatible with InteractiveMode");
  }
  if (spec.submission_mode == "SidecarMode"sv) {                                         // VAL:L591-603
    if (spec.submitter_pod_template) return invalid("Currently, SidecarMode doesn't support SubmitterPodTemplate");
    if (spec.submitter_config || spec.submitter_backoff_limit) {
      return invalid("Currently, SidecarMode doesn't support SubmitterConfig");
    }
    const std::string& restart_policy = spec.ray_cluster_spec->head_group_spec.template_.restart_policy;
    if (!restart_policy.empty() && restart_policy != "Never"sv) {
      return invalid("restartPolicy for head Pod should be Never or unset when using SidecarMode");
    }
  }
  if (spec.ray_cluster_spec) {                                                         // VAL:L605-612
    if (Error err = validate_raycluster_spec(*spec.ray_cluster_spec, *rayjob.metadata.annotations,
                                             deletion_policy_gate)) {
      return invalid("The RayJob spec is invalid: " + err.message());
    }
  }
  std::string runtime_env_json;                                                        // VAL:L616-618
  if (Error err = kuberay_1_1::runtime_env_yaml_to_json(spec.runtime_env_yaml, runtime_env_json)) return err;
  if (spec.active_deadline_seconds && *spec.active_deadline_seconds <= 0) {            // VAL:L619-627
    return invalid("The RayJob spec is invalid: activeDeadlineSeconds must be a positive integer");
  }
  if (spec.pre_running_deadline_seconds && *spec.pre_running_deadline_seconds <= 0) {
    return invalid("The RayJob spec is invalid: preRunningDeadlineSeconds must be a positive integer");
  }
  if (spec.backoff_limit && *spec.backoff_limit < 0) {
    return invalid("The RayJob spec is invalid: backoffLimit must be a positive integer");
  }
  return {};
}

// The verdicts of the last specs validated, by what they read: the spec's and the annotations'
// serials (copy_on_write.h: a value no edit has touched since) and the gate. Every reconcile
// validates its RayJob's spec, which almost never changes, and validating it afresh (the head
// group's env, labels and runtime env among it) was 1.3% of a random run of `one-rayjob`. A
// table per thread, as exploration workers each run their own worlds; a slot per spec serial,
// so that 20 RayJobs' specs do not push each other out.
struct SpecVerdict {
  std::uint64_t spec_serial = 0;   // 0: empty (the default spec is validated afresh)
  std::uint64_t annotations_serial = 0;
  bool deletion_policy_gate = false;
  Error error;
};
constexpr std::size_t kSpecVerdicts = 64;
thread_local std::array<SpecVerdict, kSpecVerdicts> spec_verdicts;

}  // namespace

Error validate_rayjob_spec(const engine::RayJob& rayjob, bool deletion_policy_gate) {
  const std::uint64_t spec_serial = rayjob.spec.serial();
  const std::uint64_t annotations_serial = rayjob.metadata.annotations.serial();
  if (spec_serial == 0) return validate_rayjob_spec_afresh(rayjob, deletion_policy_gate);
  SpecVerdict& verdict = spec_verdicts[spec_serial % kSpecVerdicts];
  if (verdict.spec_serial != spec_serial || verdict.annotations_serial != annotations_serial ||
      verdict.deletion_policy_gate != deletion_policy_gate) {
    verdict = SpecVerdict{spec_serial, annotations_serial, deletion_policy_gate,
                          validate_rayjob_spec_afresh(rayjob, deletion_policy_gate)};
  }
  return verdict.error;
}

Error validate_rayjob_status(const engine::RayJob& rayjob) {
  if (rayjob.status.job_deployment_status == "Waiting"sv && rayjob.spec->submission_mode != "InteractiveMode"sv) {
    return invalid("The RayJob status is invalid: JobDeploymentStatus cannot be `Waiting` when SubmissionMode is not "
                   "InteractiveMode");
  }
  return {};
}

}  // namespace rjsim::models::kuberay_1_7
