#include "explore/schedule.h"

#include <algorithm>

namespace rjsim::explore {

bool is_departure(const engine::Decision& decision) {
  return decision.picked != 0 && decision.point != engine::ChoicePoint::name_suffix;
}

std::int64_t departures(const Schedule& schedule) {
  return std::count_if(schedule.begin(), schedule.end(), is_departure);
}

ScheduleSize size_of(const Schedule& schedule, std::int64_t steps) {
  ScheduleSize size;
  for (const engine::Decision& decision : schedule) {
    if (!is_departure(decision)) continue;
    ++size.departures;
    size.pick_sum += static_cast<std::int64_t>(decision.picked);
  }
  size.decisions = static_cast<std::int64_t>(schedule.size());
  size.steps = steps;
  return size;
}

}  // namespace rjsim::explore
