#include "models/registry.h"

#include "models/kuberay_1_0/rayjob_controller.h"
#include "models/kuberay_1_1/rayjob_controller.h"
#include "models/kuberay_1_7/rayjob_controller.h"

namespace rjsim::models {

std::string canonical_model_name(std::string_view name) {
  if (name == "kuberay-1.0") return std::string(name);
  if (name == "kuberay-1.1") return std::string(name);
  if (name == "kuberay-1.7" || name == "kuberay-latest") return "kuberay-1.7";
  return {};
}

std::unique_ptr<engine::Controller> make_model(std::string_view name) {
  const std::string canonical = canonical_model_name(name);
  if (canonical == "kuberay-1.0") return std::make_unique<kuberay_1_0::RayJobReconciler>();
  if (canonical == "kuberay-1.1") return std::make_unique<kuberay_1_1::RayJobReconciler>();
  if (canonical == "kuberay-1.7") return std::make_unique<kuberay_1_7::RayJobReconciler>();
  return nullptr;
}

std::vector<std::string> model_names() { return {"kuberay-1.0", "kuberay-1.1", "kuberay-1.7"}; }

}  // namespace rjsim::models
