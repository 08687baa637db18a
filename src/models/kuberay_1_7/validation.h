// RayJob validation at v1.7.0 (ray-operator/controllers/ray/utils/validation.go, "VAL"), as
// validateRayJob runs it before the state switch (RJC:L464-482): metadata, then spec, then
// status; the first failure wins. Left out: the full RayCluster spec validation
// (ValidateRayClusterSpec) and the rules on fields rjsim's objects do not carry (autoscaling,
// token auth); see docs/models.md.
#pragma once

#include "engine/error.h"
#include "engine/objects.h"

namespace rjsim::models::kuberay_1_7 {

inline constexpr int kMaxRayJobNameLength = 47;   // utils/constant.go:L381 (53 - 6)

// ValidateRayJobMetadata (VAL:L533-541): name length and DNS-1035 label.
engine::Error validate_rayjob_metadata(const engine::ObjectMeta& metadata);
// ValidateRayJobSpec (VAL:L543-630); `deletion_policy_gate` is features.Enabled(RayJobDeletionPolicy).
engine::Error validate_rayjob_spec(const engine::RayJob& rayjob, bool deletion_policy_gate);
// ValidateRayJobStatus (VAL:L526-531): Waiting only in InteractiveMode.
engine::Error validate_rayjob_status(const engine::RayJob& rayjob);

}  // namespace rjsim::models::kuberay_1_7
