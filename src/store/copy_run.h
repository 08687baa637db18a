// Copies whole runs between event logs (rjsim merge): the run row, its events and its
// violations, byte for byte, under a new run_id in the destination, in one transaction of the
// destination (all of it or nothing). The run's created_at is kept; parent_run is replaced by
// `new_parent` (the caller maps parent ids, as the source's ids mean nothing in the destination).
#pragma once

#include "store/database.h"

#include <cstdint>
#include <optional>

namespace rjsim::store {

// Returns the run_id the run got in `to`. Throws StoreError when `from` has no such run or
// `new_parent` is not a run of `to`.
std::int64_t copy_run(const Database& from, std::int64_t run_id, Database& to,
                      std::optional<std::int64_t> new_parent);

}  // namespace rjsim::store
