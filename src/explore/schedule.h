// A schedule is the list of decisions one run took (DESIGN §1: a run is a function of its
// scenario, its controller and its decisions). Exploration searches over schedules; shrinking
// searches for a smaller one. A RecordingChooser wraps any chooser and writes down what it
// answered, so that the fast path (no events kept) still knows the schedule of a failing run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/chooser.h"

namespace rjsim::explore {

using Schedule = std::vector<engine::Decision>;

class RecordingChooser final : public engine::Chooser {
 public:
  explicit RecordingChooser(engine::Chooser& inner) : inner_(inner) {}

  std::uint64_t choose(engine::ChoicePoint point, std::uint64_t options) override {
    return record(point, options, inner_.choose(point, options));
  }
  std::uint64_t choose_step(std::span<const engine::StepOption> steps) override {
    return record(engine::ChoicePoint::step, steps.size(), inner_.choose_step(steps));
  }
  const Schedule& schedule() const { return schedule_; }
  Schedule take() { return std::move(schedule_); }

 private:
  std::uint64_t record(engine::ChoicePoint point, std::uint64_t options, std::uint64_t picked) {
    schedule_.push_back(engine::Decision{point, options, picked});
    return picked;
  }

  engine::Chooser& inner_;
  Schedule schedule_;
};

// Decisions that depart from the fault-free run: a non-zero pick anywhere but a name suffix
// (the suffix is drawn in every run and changes nothing but names).
bool is_departure(const engine::Decision& decision);
std::int64_t departures(const Schedule& schedule);

// How big a counterexample is, compared in this order: fewer departures, then smaller picks
// (smaller lags, earlier alternatives), then fewer decisions, then fewer steps.
struct ScheduleSize {
  std::int64_t departures = 0;
  std::int64_t pick_sum = 0;
  std::int64_t decisions = 0;
  std::int64_t steps = 0;
  friend auto operator<=>(const ScheduleSize&, const ScheduleSize&) = default;
};
ScheduleSize size_of(const Schedule& schedule, std::int64_t steps);

}  // namespace rjsim::explore
