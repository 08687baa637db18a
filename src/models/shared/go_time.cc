#include "models/shared/go_time.h"

#include <chrono>

#include <fmt/format.h>

#include "engine/objects.h"

namespace rjsim::models::shared {
namespace {

struct Civil {
  std::string date_time;   // "2026-01-01 00:00:41"
  std::int64_t ms = 0;     // the milliseconds past that second
};

Civil civil(std::int64_t virtual_ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> time{milliseconds{engine::kVirtualEpochUnixMs + virtual_ms}};
  const sys_days midnight = floor<days>(time);
  const year_month_day date{midnight};
  const std::int64_t ms_of_day = (time - midnight).count();
  const std::int64_t seconds_of_day = ms_of_day / 1000;
  return {fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", static_cast<int>(date.year()),
                      static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), seconds_of_day / 3600,
                      seconds_of_day / 60 % 60, seconds_of_day % 60),
          ms_of_day % 1000};
}

}  // namespace

std::string go_date_time(std::int64_t virtual_ms) { return civil(virtual_ms).date_time; }

std::string go_time_string(std::int64_t virtual_ms) {
  const Civil at = civil(virtual_ms);
  std::string fraction;
  if (at.ms != 0) {   // Go's ".999999999" layout: the fraction without its trailing zeros
    fraction = fmt::format(".{:03}", at.ms);
    while (fraction.back() == '0') fraction.pop_back();
  }
  return at.date_time + fraction + " +0000 UTC";
}

}  // namespace rjsim::models::shared
