#include "explore/shrink.h"

#include "checks/invariant.h"

#include <algorithm>

namespace rjsim::explore {

using engine::ChoicePoint;
using engine::Decision;

std::uint64_t TolerantReplay::choose(ChoicePoint point, std::uint64_t options) {
  if (next_ >= decisions_.size()) return point == ChoicePoint::name_suffix ? fallback_.choose(point, options) : 0;
  const Decision& recorded = decisions_[next_];
  if (recorded.point != point) return point == ChoicePoint::name_suffix ? fallback_.choose(point, options) : 0;
  ++next_;
  return std::min(recorded.picked, options - 1);
}

namespace {

// Runs candidates and keeps the smallest that still fails the invariant.
class Shrinker {
 public:
  Shrinker(const engine::Scenario& scenario, const RunOptions& base, std::string invariant, std::int64_t max_runs)
      : scenario_(scenario), base_(base), invariant_(std::move(invariant)), max_runs_(max_runs),
        runner_(scenario, base.controller) {}

  bool budget_left() const { return result_.runs < max_runs_; }
  const Schedule& best() const { return result_.schedule; }

  // Runs `candidate`; when it fails the invariant and is smaller, it becomes the best.
  bool try_candidate(const Schedule& candidate) {
    if (!budget_left()) return false;
    ++result_.runs;
    engine::DefaultChooser fallback(base_.seed.value_or(scenario_.seed));
    TolerantReplay replay(candidate, fallback);
    RecordingChooser recording(replay);
    RunOptions options = exploration_run(recording);
    options.seed = base_.seed;
    options.controller = base_.controller;
    options.stop_at_violation = stops_at_violation();
    RunReport report = runner_.run(options);
    if (!fails(report)) {
      last_passing_ = std::move(report);
      return false;
    }
    Schedule taken = recording.take();
    if (have_best_ && !(size_of(taken, report.steps) < size_of(result_.schedule, result_.report.steps))) return false;
    result_.schedule = std::move(taken);
    result_.report = std::move(report);
    have_best_ = true;
    return true;
  }

  ShrinkResult take() { return std::move(result_); }

  // Keeps the last candidate as the result although it did not fail (the input, when it does not
  // fail again under the shrinker's runs): the caller then stores the input as its own shrunk form.
  void keep_last(const Schedule& schedule) {
    result_.schedule = schedule;
    result_.report = std::move(last_passing_);
    have_best_ = true;
  }

 private:
  // A liveness invariant is judged at the end of a run only, so its candidates run to the end; a
  // safety one is decided at its step, and the run can stop there.
  bool stops_at_violation() const {
    const checks::Invariant* judged = checks::find_invariant(invariant_);
    return judged == nullptr || judged->at_end == nullptr;
  }

  bool fails(const RunReport& report) const {
    return std::any_of(report.violations.begin(), report.violations.end(),
                       [&](const ViolationReport& v) { return v.invariant == invariant_; });
  }

  const engine::Scenario& scenario_;
  RunOptions base_;
  std::string invariant_;
  std::int64_t max_runs_;
  ScenarioRunner runner_;   // the candidates' runs start over on one simulation
  ShrinkResult result_;
  bool have_best_ = false;
  RunReport last_passing_;   // the last candidate run that did not fail
};

std::vector<std::size_t> departure_positions(const Schedule& schedule) {
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    if (is_departure(schedule[i])) positions.push_back(i);
  }
  return positions;
}

// `schedule` with the departures at `positions[from, to)` taken back to alternative 0.
Schedule without(const Schedule& schedule, const std::vector<std::size_t>& positions, std::size_t from, std::size_t to) {
  Schedule candidate = schedule;
  for (std::size_t i = from; i < to; ++i) candidate[positions[i]].picked = 0;
  return candidate;
}

// ddmin over the departures: remove chunks of them, halving the chunk size when none can go.
void remove_departures(Shrinker& shrinker) {
  std::size_t chunks = 2;
  while (shrinker.budget_left()) {
    const std::vector<std::size_t> positions = departure_positions(shrinker.best());
    if (positions.empty()) return;
    chunks = std::min(chunks, positions.size());
    const std::size_t chunk = (positions.size() + chunks - 1) / chunks;
    bool removed = false;
    for (std::size_t from = 0; from < positions.size() && !removed; from += chunk) {
      removed = shrinker.try_candidate(without(shrinker.best(), positions, from, std::min(from + chunk, positions.size())));
    }
    if (removed) {
      chunks = std::max<std::size_t>(chunks - 1, 2);
    } else if (chunk == 1) {
      return;
    } else {
      chunks = std::min(chunks * 2, positions.size());
    }
  }
}

// Cuts the schedule after its last departure (the rest answers 0 anyway), then tries shorter.
void cut_short(Shrinker& shrinker) {
  const std::vector<std::size_t> positions = departure_positions(shrinker.best());
  const std::size_t keep = positions.empty() ? 0 : positions.back() + 1;
  if (keep < shrinker.best().size()) shrinker.try_candidate(Schedule(shrinker.best().begin(), shrinker.best().begin() + static_cast<std::ptrdiff_t>(keep)));
}

// Lowers each remaining pick: to 1, then halfway, then by one.
void lower_picks(Shrinker& shrinker) {
  for (std::size_t position : departure_positions(shrinker.best())) {
    for (bool lowered = true; lowered && shrinker.budget_left();) {
      lowered = false;
      if (position >= shrinker.best().size()) break;
      const std::uint64_t picked = shrinker.best()[position].picked;
      for (std::uint64_t smaller : {std::uint64_t{1}, picked / 2, picked - 1}) {
        if (smaller == 0 || smaller >= picked) continue;
        Schedule candidate = shrinker.best();
        candidate[position].picked = smaller;
        if (shrinker.try_candidate(candidate)) {
          lowered = true;
          break;
        }
      }
    }
  }
}

}  // namespace

ShrinkResult shrink(const engine::Scenario& scenario, const RunOptions& base, const Schedule& failing,
                    const std::string& invariant, std::int64_t max_runs) {
  Shrinker shrinker(scenario, base, invariant, max_runs);
  if (!shrinker.try_candidate(failing)) {   // does not fail again alone: keep the input as it is
    shrinker.keep_last(failing);
    return shrinker.take();
  }
  for (bool smaller = true; smaller && shrinker.budget_left();) {
    const ScheduleSize before = size_of(shrinker.best(), 0);
    remove_departures(shrinker);
    cut_short(shrinker);
    lower_picks(shrinker);
    smaller = size_of(shrinker.best(), 0) < before;
  }
  return shrinker.take();
}

}  // namespace rjsim::explore
