#include "explore/replay.h"

#include <algorithm>
#include <map>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "engine/scenario_loader.h"
#include "engine/step_context.h"

namespace rjsim::explore {

using events::Event;

namespace {

// What the `run.start` header of a recorded run says.
struct RunStart {
  std::uint64_t seed = 0;
  bool faults = false;
  bool stop_at_violation = false;
};

RunStart run_start_of(const RecordedRun& recorded) {
  const Event* header = recorded.events.empty() ? nullptr : &recorded.events.front();
  if (!header || header->type != "run.start") {
    throw NotReplayable(fmt::format("{}: the run has no run.start header (it was not recorded from a "
                                    "scenario: a trace or the kernel demo); there is nothing to replay",
                                    recorded.source));
  }
  const events::Value* seed = header->find("seed");
  const events::Value* faults = header->find("faults");
  if (!seed || !faults || !std::holds_alternative<std::int64_t>(*seed) || !std::holds_alternative<bool>(*faults)) {
    throw NotReplayable(fmt::format("{}: seq 0: run.start needs an integer \"seed\" and a boolean \"faults\"",
                                    recorded.source));
  }
  const events::Value* stop = header->find("stop_at_violation");
  const bool stop_at_violation = stop && std::holds_alternative<bool>(*stop) && std::get<bool>(*stop);
  return RunStart{static_cast<std::uint64_t>(std::get<std::int64_t>(*seed)), std::get<bool>(*faults), stop_at_violation};
}

std::vector<engine::Decision> decisions_of(const RecordedRun& recorded) {
  std::vector<engine::Decision> decisions;
  for (const Event& event : recorded.events) {
    engine::Decision decision;
    if (event.type != "choice") continue;
    if (!engine::decision_of(event, decision)) {
      throw NotReplayable(fmt::format("{}: seq {}: a choice event without a valid point, options and picked",
                                      recorded.source, event.seq));
    }
    decisions.push_back(decision);
  }
  return decisions;
}

// Compares each replayed event with the recorded one at the same position; keeps the first
// difference. An event is compared whole: seq, time, origin, type, actor, object and body.
class ComparingSink final : public events::EventSink {
 public:
  explicit ComparingSink(const std::vector<Event>& recorded) : recorded_(recorded) {}

  void emit(const Event& event) override {
    const std::size_t index = replayed_++;
    if (difference_) return;
    if (index >= recorded_.size()) {
      difference_ = EventDifference{event.seq, std::nullopt, event};
    } else if (!(recorded_[index] == event)) {
      difference_ = EventDifference{event.seq, recorded_[index], event};
    }
  }

  // The first difference, including a replay that ended before the recording did.
  std::optional<EventDifference> first_difference() const {
    if (difference_ || replayed_ >= recorded_.size()) return difference_;
    const Event& missing = recorded_[replayed_];
    return EventDifference{missing.seq, missing, std::nullopt};
  }

 private:
  const std::vector<Event>& recorded_;
  std::size_t replayed_ = 0;
  std::optional<EventDifference> difference_;
};

bool same_transition(const Transition& a, const Transition& b) {
  return a.at_ms == b.at_ms && a.from == b.from && a.to == b.to && a.job_status == b.job_status &&
         a.reason == b.reason;
}

std::vector<Transition> of_rayjob(const std::vector<Transition>& transitions, const std::string& rayjob) {
  std::vector<Transition> selected;
  std::copy_if(transitions.begin(), transitions.end(), std::back_inserter(selected),
               [&](const Transition& t) { return t.rayjob == rayjob; });
  return selected;
}

// Per RayJob, the first transition (by position in its own sequence) that is not the same.
std::vector<TransitionChange> transition_changes(const std::vector<Transition>& recorded,
                                                 const std::vector<Transition>& replayed) {
  std::set<std::string> rayjobs;
  for (const Transition& t : recorded) rayjobs.insert(t.rayjob);
  for (const Transition& t : replayed) rayjobs.insert(t.rayjob);
  std::vector<TransitionChange> changes;
  for (const std::string& rayjob : rayjobs) {
    const std::vector<Transition> before = of_rayjob(recorded, rayjob);
    const std::vector<Transition> after = of_rayjob(replayed, rayjob);
    for (std::size_t i = 0; i < std::max(before.size(), after.size()); ++i) {
      if (i < before.size() && i < after.size() && same_transition(before[i], after[i])) continue;
      TransitionChange change{rayjob, i, std::nullopt, std::nullopt};
      if (i < before.size()) change.recorded = before[i];
      if (i < after.size()) change.replayed = after[i];
      changes.push_back(std::move(change));
      break;
    }
  }
  return changes;
}

}  // namespace

std::vector<Transition> transitions_of(const std::vector<Event>& events) {
  std::vector<Transition> transitions;
  for (const Event& event : events) {
    if (std::optional<Transition> transition = transition_of(event)) transitions.push_back(std::move(*transition));
  }
  return transitions;
}

ReplayReport replay_run(const RecordedRun& recorded, const std::vector<events::EventSink*>& sinks,
                        const std::vector<engine::StepObserver*>& observers) {
  const RunStart start = run_start_of(recorded);
  engine::Scenario scenario;
  try {
    scenario = engine::parse_scenario(recorded.scenario_text, recorded.source + " (its stored scenario)", ".");
  } catch (const engine::ScenarioError& error) {
    throw NotReplayable(error.what());
  }
  engine::DefaultChooser fault_free(start.seed);
  engine::ReplayChooser chooser(decisions_of(recorded), &fault_free);
  ComparingSink comparing(recorded.events);

  RunOptions options;
  options.seed = start.seed;
  options.controller = recorded.controller;
  options.faults = start.faults;
  options.stop_at_violation = start.stop_at_violation;
  options.chooser = &chooser;
  options.keep_events = false;
  options.sinks = sinks;
  options.sinks.push_back(&comparing);
  options.observers = observers;
  options.full_watch_logs = !observers.empty();   // an observer may read any kind's log (kubectl export)

  ReplayReport report;
  report.run = run_scenario(scenario, options);
  report.recorded_events = static_cast<std::int64_t>(recorded.events.size());
  report.first_difference = comparing.first_difference();
  report.identical = !report.first_difference.has_value();
  report.decisions_diverged = chooser.diverged();
  report.recorded_transitions = transitions_of(recorded.events);
  report.transition_changes = transition_changes(report.recorded_transitions, report.run.transitions);
  return report;
}

}  // namespace rjsim::explore
