#include "models/registry.h"

#include "engine/model_names.h"
#include "models/kuberay_1_0/rayjob_controller.h"
#include "models/kuberay_1_1/rayjob_controller.h"
#include "models/kuberay_1_7/rayjob_controller.h"

namespace rjsim::models {

std::string canonical_model_name(std::string_view name) { return engine::canonical_model_name(name); }

std::unique_ptr<engine::Controller> make_model(std::string_view name) {
  const std::string canonical = canonical_model_name(name);
  if (canonical == "kuberay-1.0") return std::make_unique<kuberay_1_0::RayJobReconciler>();
  if (canonical == "kuberay-1.1") return std::make_unique<kuberay_1_1::RayJobReconciler>();
  if (canonical == "kuberay-1.7") return std::make_unique<kuberay_1_7::RayJobReconciler>();
  if (canonical == kuberay_1_7::kRayBeforeSubmitterTimeoutName) {
    return std::make_unique<kuberay_1_7::RayJobReconciler>(kuberay_1_7::Fixes{.ray_before_submitter_timeout = true});
  }
  if (canonical == kuberay_1_7::kApiReaderConfirmsDeletionName) {
    return std::make_unique<kuberay_1_7::RayJobReconciler>(kuberay_1_7::Fixes{.api_reader_confirms_deletion = true});
  }
  if (canonical == kuberay_1_7::kWaitForPodsDeletedName) {
    return std::make_unique<kuberay_1_7::RayJobReconciler>(kuberay_1_7::Fixes{.wait_for_pods_deleted = true});
  }
  return nullptr;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (std::string_view name : engine::kModelNamesWithAlias) {
    if (name != engine::kLatestModelAlias) names.emplace_back(name);
  }
  return names;
}

}  // namespace rjsim::models
