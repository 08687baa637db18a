#include "store/records.h"

#include <algorithm>
#include <array>

namespace rjsim::store {

bool is_run_kind(std::string_view kind) {
  constexpr std::array<std::string_view, 5> kinds = {"run", "explore", "shrink", "replay", "trace"};
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

bool is_run_outcome(std::string_view outcome) {
  constexpr std::array<std::string_view, 5> outcomes = {"pass", "violation", "diverged", "error",
                                                        "incomplete"};
  return std::find(outcomes.begin(), outcomes.end(), outcome) != outcomes.end();
}

}  // namespace rjsim::store
