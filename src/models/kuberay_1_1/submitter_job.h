// The submitter Kubernetes Job of K8sJobMode at v1.1.0 (ray-operator/controllers/ray/common/job.go,
// "JOB"): the default pod template (JOB:L122-146) and the blocking `ray job submit` command
// (JOB:L65-119). The command fails to build when Metadata is set and the Ray version is unset or
// older than 2.6.0 (JOB:L44-60), when the entrypoint does not split by shell rules, or when the
// runtime env YAML is bad; with Metadata and a ClusterSelector (no RayClusterSpec) Go dereferences
// a nil pointer, which this model reports as a ModelPanic (JOB:L84-90).
#pragma once

#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/objects.h"

namespace rjsim::models::kuberay_1_1 {

// GetK8sJobCommand (JOB:L65-119).
engine::Error get_k8s_job_command(const engine::RayJob& rayjob, std::vector<std::string>& command);
// GetDefaultSubmitterTemplate (JOB:L122-146): the head's image, restartPolicy Never. Panics (as
// Go's index out of range) when the head template has no container.
engine::PodTemplate get_default_submitter_template(const engine::RayCluster& cluster);
// google/shlex Split: words by POSIX shell rules; an error on an unclosed quote or escape.
engine::Error shlex_split(const std::string& text, std::vector<std::string>& words);

}  // namespace rjsim::models::kuberay_1_1
