// Helpers whose Go is the same at KubeRay v1.0.0 and v1.1.0, shared by the kuberay-1.0 and
// kuberay-1.1 models (STYLE.md: shared only where the Go was the same at both tags):
// FetchHeadServiceURL (utils/dashboard_httpclient.go), GenerateRayJobId and
// GenerateRayClusterName (utils/util.go), IsJobTerminal (apis/ray/v1/rayjob_types.go),
// SetupWithManager's watches with main.go's Job cache filter, and the controller-runtime
// environment both releases ran in (v0.11.1 and v0.16.3: kubernetes-semantics §0.1).
#pragma once

#include <string>
#include <string_view>

#include "engine/controller.h"
#include "engine/dashboard_api.h"
#include "engine/error.h"
#include "engine/objects.h"

namespace rjsim::models::shared {

// "<rayjob>-<5 random>" and "<rayjob>-raycluster-<5 random>".
std::string generate_rayjob_id(engine::Clients& clients, const std::string& rayjob);
std::string generate_raycluster_name(engine::Clients& clients, const std::string& rayjob);

// "<head service>.<namespace>.svc.cluster.local:<dashboard port>" from the cached head Service;
// an error when the Service is not in the cache or has no `dashboard` port. The Go is still the
// same at v1.7.0 (utils/util.go:L1022-1054 there), so kuberay-1.7 uses it too.
engine::Error fetch_head_service_url(engine::Clients& clients, const engine::RayCluster& cluster, std::string& url);

// STOPPED, SUCCEEDED or FAILED.
bool is_job_terminal(std::string_view status);

// What Go's http.Client returns when no response came back from the dashboard.
engine::Error transport_error(const engine::DashboardResponse& response);

// The legacy queue, DeltaFIFO, workers once the caches synced, panics that kill the process.
engine::ReleaseEnvironment legacy_release_environment();
// For(RayJob), Owns(RayCluster, Service, Job); Jobs cached only with the created-by label.
const engine::Watches& rayjob_watches();

}  // namespace rjsim::models::shared
