// Go's time formatting, as the operator prints times into RayJob status messages (UTC, the
// time zone of the operator's container): virtual milliseconds (engine/objects.h's epoch) in the
// layouts KubeRay's fmt.Sprintf calls produce. Pure functions; no release-specific behaviour.
#pragma once

#include <cstdint>
#include <string>

namespace rjsim::models::shared {

// t.Format(time.DateTime): "2026-01-01 00:00:41" (sub-second digits dropped).
std::string go_date_time(std::int64_t virtual_ms);

// t.String() of a time without a monotonic reading (one read back from the API server), and so
// %v of a *metav1.Time: "2026-01-01 00:00:41 +0000 UTC", or "2026-01-01 00:00:41.25 +0000 UTC".
std::string go_time_string(std::int64_t virtual_ms);

}  // namespace rjsim::models::shared
