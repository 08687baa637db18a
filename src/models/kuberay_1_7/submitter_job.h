// The submitter of K8sJobMode and SidecarMode at v1.7.0 (ray-operator/controllers/ray/common/job.go,
// "JOB"): the default submitter container (JOB:L229-246) and the shell script BuildJobSubmitCommand
// writes (JOB:L89-212): wait until the dashboard's GCS health endpoint answers; in K8sJobMode (and
// SidecarMode with the SidecarSubmitterRestart gate) `if ! ray job status ID; then ray job submit
// --no-wait ... -- ENTRYPOINT; fi; ray job logs --follow ID`, so that a retried pod follows the
// job it already submitted; otherwise (SidecarMode, gate off) a blocking `ray job submit`. The
// script runs under `/bin/bash -ce --` (utils.GetContainerCommand). Metadata needs Ray >= 2.6.0
// only when RayClusterSpec.RayVersion is set (JOB:L67-87).
#pragma once

#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/objects.h"

namespace rjsim::models::kuberay_1_7 {

inline constexpr const char* kSubmitterContainerName = "ray-job-submitter";   // utils/constant.go:L356

// BuildJobSubmitCommand (JOB:L89-212): the words that are joined by spaces into the bash script.
// `sidecar_submitter_restart` is features.Enabled(SidecarSubmitterRestart).
engine::Error build_job_submit_command(const engine::RayJob& rayjob, const std::string& submission_mode,
                                       bool sidecar_submitter_restart, std::vector<std::string>& command);
// GetDefaultSubmitterContainer (JOB:L229-246): the head's image. Panics (as Go's index out of
// range) when the head template has no container.
engine::Container get_default_submitter_container(const engine::RayClusterSpec& cluster_spec);
// GetSubmitterTemplate (JOB:L215-227): the user's template, or the default container with
// restartPolicy Never.
engine::PodTemplate get_submitter_template(const engine::RayJobSpec& spec, const engine::RayClusterSpec& cluster_spec);
// configureSubmitterContainer (RJC:L633-662): the script under `/bin/bash -ce --` when the
// container has no command (always in SidecarMode), and the env PYTHONUNBUFFERED,
// RAY_DASHBOARD_ADDRESS, RAY_JOB_SUBMISSION_ID.
engine::Error configure_submitter_container(engine::Container& container, const engine::RayJob& rayjob,
                                            const std::string& submission_mode, bool sidecar_submitter_restart);

}  // namespace rjsim::models::kuberay_1_7
