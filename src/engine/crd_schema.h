// What each KubeRay release's CustomResourceDefinition lets the API server accept for a RayJob or
// a RayCluster (config/crd/bases/ray.io_rayjobs.yaml and ray.io_rayclusters.yaml at v1.0.0,
// v1.1.0 and v1.7.0), applied as the API server applies it on create, before KubeRay sees the
// object: defaults first, then validation.
//  - Known fields: the spec's fields in that release. An unknown one is refused, as kubectl's
//    strict field validation (its default since Kubernetes 1.27) refuses it.
//  - Required fields, enums, minimums, minItems, and the CEL rules of v1.7.0's deletionStrategy
//    and managedBy.
//  - Defaults: what the CRD declares (submissionMode K8sJobMode, ttlSecondsAfterFinished 0,
//    backoffLimit 0, a worker group's replicas, minReplicas, maxReplicas, numOfHosts, ...).
// Checked field by field: the spec, down to the corev1 types (pod templates) and the option blocks
// rjsim does not model (autoscalerOptions, gcsFaultToleranceOptions, networkPolicy, ...), which are
// checked only for whether the release knows them. A RayCluster's spec is a RayJob's
// spec.rayClusterSpec.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rjsim::engine {

enum class CrdKind { RayJob, RayCluster };

struct CrdError {
  std::string path;      // the JSON path of the field, "spec.rayClusterSpec.workerGroupSpecs[0].template"
  std::string message;   // what is wrong, naming the release: "...: KubeRay v1.1.0's RayJob CRD ..."
};

// The KubeRay tag a model stands for ("kuberay-1.1" → "v1.1.0"); empty for any other name.
std::string_view kuberay_release_of(std::string_view controller);

// Fills the defaults of `controller`'s release into `object`'s spec and checks it: every error,
// in the order of the keys (a caller that knows the lines reports the first in the file). An
// object without a spec map is left to the caller. With `pruned`, a field the release does not
// know is removed and its path added there instead of being an error, as an API server that
// prunes does (for an object recorded under another release).
std::vector<CrdError> apply_crd(nlohmann::json& object, CrdKind kind, std::string_view controller,
                                std::vector<std::string>* pruned = nullptr);

}  // namespace rjsim::engine
