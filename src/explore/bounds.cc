#include "explore/bounds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rjsim::explore {

namespace {

// One `faults:` key: explored when on, with its setting shown; held at its default otherwise.
void sort_dimension(SearchBounds& bounds, const char* key, bool on, const std::string& setting = "") {
  if (!on) {
    bounds.held.emplace_back(key);
  } else {
    bounds.explored.push_back(setting.empty() ? std::string(key) : fmt::format("{} {}", key, setting));
  }
}

std::string listed(const std::vector<std::string>& items) {
  return items.empty() ? std::string("none") : fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace

SearchBounds search_bounds(const engine::FaultBudget& faults) {
  SearchBounds bounds;
  sort_dimension(bounds, "staleReads", faults.max_lag > 0, fmt::format("{{maxLag: {}}}", faults.max_lag));
  sort_dimension(bounds, "squash", faults.squash);
  sort_dimension(bounds, "conflicts", faults.conflicts > 0, fmt::format("{{max: {}}}", faults.conflicts));
  sort_dimension(bounds, "writeFailures", faults.write_failures > 0, fmt::format("{{max: {}}}", faults.write_failures));
  sort_dimension(bounds, "httpErrors", faults.http_errors > 0, fmt::format("{{max: {}}}", faults.http_errors));
  sort_dimension(bounds, "restarts", faults.restarts > 0,
                 faults.mid_reconcile ? fmt::format("{{max: {}, midReconcile: true}}", faults.restarts)
                                      : fmt::format("{{max: {}}}", faults.restarts));
  sort_dimension(bounds, "timeTravel", faults.time_travel(), fmt::format("{{maxRewind: {}}}", faults.max_rewind));
  sort_dimension(bounds, "latency", faults.latency);
  sort_dimension(bounds, "interleaveCalls", faults.interleave_calls);
  if (faults.deliveries_may_wait()) {
    bounds.within.push_back(
        fmt::format("deliveries held up to {} ms after their write (world.latency.watch)", faults.watch_latency_max_ms));
  }
  // What a real cluster does that the simulated one cannot (docs/design.md, "Contract not yet
  // built"): a search that completes covered none of it.
  bounds.not_modelled = {"Pods that fail or restart on their own (evictions, node loss, restarts of the Ray containers)"};
  return bounds;
}

std::string describe_bounds(const SearchBounds& bounds) {
  const std::string within = bounds.within.empty() ? "" : fmt::format("; within: {}", listed(bounds.within));
  return fmt::format("explored: {}{}; held at defaults: {}; not modelled yet: {}", listed(bounds.explored), within,
                     listed(bounds.held), listed(bounds.not_modelled));
}

}  // namespace rjsim::explore
