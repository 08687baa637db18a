#include "explore/exhaustive.h"

#include <unordered_set>

#include "engine/fingerprint.h"

namespace rjsim::explore {

using engine::ChoicePoint;
using engine::Decision;

namespace {

// Answers a prefix, then alternative 0; records every decision it answered (name suffixes
// aside, which come from the fault-free chooser and are no branch).
class PrefixChooser final : public engine::Chooser {
 public:
  PrefixChooser(const Schedule& prefix, std::uint64_t seed) : prefix_(prefix), names_(seed) {}

  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    if (point == ChoicePoint::name_suffix) return names_.choose(point, options);
    const std::uint64_t picked = taken_.size() < prefix_.size() ? prefix_[taken_.size()].picked : 0;
    taken_.push_back(Decision{point, options, picked});
    return picked;
  }
  bool past_prefix() const { return taken_.size() >= prefix_.size(); }
  const Schedule& taken() const { return taken_; }

 private:
  const Schedule& prefix_;
  engine::DefaultChooser names_;
  Schedule taken_;
};

// Children of a run, deepest first once pushed on a stack: for each decision past the prefix,
// each alternative it did not take.
void push_children(const Schedule& prefix, const Schedule& taken, std::vector<Schedule>& stack,
                   std::int64_t shard_index, std::int64_t shard_count) {
  std::int64_t root_child = 0;
  for (std::size_t position = prefix.size(); position < taken.size(); ++position) {
    for (std::uint64_t alternative = 1; alternative < taken[position].options; ++alternative) {
      const bool at_root = prefix.empty();
      if (at_root && root_child++ % shard_count != shard_index) continue;
      Schedule child(taken.begin(), taken.begin() + static_cast<std::ptrdiff_t>(position));
      child.push_back(Decision{taken[position].point, taken[position].options, alternative});
      stack.push_back(std::move(child));
    }
  }
}

}  // namespace

ExhaustiveReport explore_exhaustively(const engine::Scenario& scenario, const ExhaustiveOptions& options) {
  ExhaustiveReport report;
  std::unordered_set<std::uint64_t> visited;   // membership only: its order never reaches output
  std::vector<Schedule> stack = {Schedule{}};
  while (!stack.empty()) {
    if ((options.max_runs && report.runs >= *options.max_runs) || (options.out_of_time && options.out_of_time())) {
      break;
    }
    const Schedule prefix = std::move(stack.back());
    stack.pop_back();
    PrefixChooser chooser(prefix, scenario.seed);
    RunOptions run = exploration_run(chooser);
    run.controller = options.controller;
    run.stop_at_violation = !options.all;
    run.stop_when = [&](const engine::World& world) {
      ++report.states_generated;
      const bool seen = !visited.insert(engine::fingerprint(world)).second;
      return seen && chooser.past_prefix();
    };
    RunReport result = run_scenario(scenario, run);
    ++report.runs;
    report.steps += result.steps;
    report.max_depth = std::max<std::int64_t>(report.max_depth, static_cast<std::int64_t>(chooser.taken().size()));
    report.distinct_states = static_cast<std::int64_t>(visited.size());
    const bool violated = !result.violations.empty();
    if (violated) report.failures.push_back(ExhaustiveFailure{chooser.taken(), std::move(result), report.runs - 1});
    if (options.on_run) options.on_run(report);
    if (violated && !options.all) return report;
    // A violating run's continuation is not explored further.
    if (!violated) push_children(prefix, chooser.taken(), stack, options.shard_index, options.shard_count);
  }
  report.complete = stack.empty();
  return report;
}

}  // namespace rjsim::explore
