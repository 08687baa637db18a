#include "explore/exhaustive.h"

#include <memory>
#include <unordered_set>

#include "engine/fingerprint.h"

namespace rjsim::explore {

using engine::ChoicePoint;
using engine::Decision;

namespace {

// A run between two steps, to continue from (forking instead of re-executing the prefix): the
// run itself, the name-suffix chooser as it was then, and how many decisions led there.
struct Fork {
  std::shared_ptr<const RunSnapshot> run;
  engine::DefaultChooser names;
  std::size_t decisions = 0;
};

// A run to make: the first `position` decisions its parent run took, then `alternative` at the
// next one (the root: no parent), and the latest fork before that decision (none: from time 0).
// The children of one run share its schedule instead of each copying a prefix of it: a deep
// search keeps many children on its stack, and copied prefixes grew with the square of the depth
// (900 MB after 20 s of an all-faults scenario).
struct Node {
  std::shared_ptr<const Schedule> parent_taken;
  std::size_t position = 0;
  std::uint64_t alternative = 0;
  std::shared_ptr<const Fork> fork;

  Schedule prefix() const {
    if (!parent_taken) return {};
    Schedule prefix(parent_taken->begin(), parent_taken->begin() + static_cast<std::ptrdiff_t>(position));
    const Decision& at = (*parent_taken)[position];
    prefix.push_back(Decision{at.point, at.options, alternative});
    return prefix;
  }
};

// Answers a prefix, then alternative 0; records every decision it answered (name suffixes
// aside, which come from the fault-free chooser and are no branch). Continuing from a fork, the
// decisions before it count as answered.
class PrefixChooser final : public engine::Chooser {
 public:
  PrefixChooser(const Schedule& prefix, std::uint64_t seed) : prefix_(prefix), names_(seed) {}
  PrefixChooser(const Schedule& prefix, const Fork& fork)
      : prefix_(prefix), names_(fork.names),
        taken_(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(fork.decisions)) {}

  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    if (point == ChoicePoint::name_suffix) return names_.choose(point, options);
    const std::uint64_t picked = taken_.size() < prefix_.size() ? prefix_[taken_.size()].picked : 0;
    taken_.push_back(Decision{point, options, picked});
    return picked;
  }
  bool past_prefix() const { return taken_.size() >= prefix_.size(); }
  const Schedule& taken() const { return taken_; }
  const engine::DefaultChooser& names() const { return names_; }

 private:
  const Schedule& prefix_;
  engine::DefaultChooser names_;
  Schedule taken_;
};

// The latest of `forks` (in the order taken) that no more than `decisions` decisions led to.
std::shared_ptr<const Fork> fork_before(const std::vector<std::shared_ptr<const Fork>>& forks, std::size_t decisions) {
  std::shared_ptr<const Fork> latest;
  for (const auto& fork : forks) {
    if (fork->decisions > decisions) break;
    latest = fork;
  }
  return latest;
}

// Children of a run, deepest first once pushed on a stack: for each decision past the prefix,
// each alternative it did not take, each with the latest fork before that decision.
void push_children(const Schedule& prefix, const Schedule& taken, const std::vector<std::shared_ptr<const Fork>>& forks,
                   std::vector<Node>& stack, std::int64_t shard_index, std::int64_t shard_count) {
  std::shared_ptr<const Schedule> shared_taken;
  std::int64_t root_child = 0;
  for (std::size_t position = prefix.size(); position < taken.size(); ++position) {
    for (std::uint64_t alternative = 1; alternative < taken[position].options; ++alternative) {
      const bool at_root = prefix.empty();
      if (at_root && root_child++ % shard_count != shard_index) continue;
      if (!shared_taken) shared_taken = std::make_shared<const Schedule>(taken);
      stack.push_back(Node{shared_taken, position, alternative, fork_before(forks, position)});
    }
  }
}

// A run of the search: exploration's fast path under `chooser`, ending at a violation unless all
// are wanted.
RunOptions search_run(PrefixChooser& chooser, const ExhaustiveOptions& options) {
  RunOptions run = exploration_run(chooser);
  run.controller = options.controller;
  run.stop_at_violation = !options.all;
  run.check_reused_answers = options.check_reused_answers;
  return run;
}

// A violating run continued from a fork reports the continuation only: run its schedule again
// from time 0 for the whole report.
RunReport whole_run(ScenarioRunner& runner, const engine::Scenario& scenario, const ExhaustiveOptions& options,
                    const Schedule& schedule) {
  PrefixChooser chooser(schedule, scenario.seed);
  return runner.run(search_run(chooser, options));
}

}  // namespace

ExhaustiveReport explore_exhaustively(const engine::Scenario& scenario, const ExhaustiveOptions& options) {
  ExhaustiveReport report;
  std::unordered_set<std::uint64_t> visited;   // membership only: its order never reaches output
  engine::FingerprintMemo memo;                 // consecutive states share most of their parts
  engine::ActorAnswers answers;                 // consecutive runs share most of the actors' inputs
  ScenarioRunner runner(scenario, options.controller);
  std::vector<Node> stack = {Node{}};
  while (!stack.empty()) {
    if ((options.max_runs && report.runs >= *options.max_runs) || (options.out_of_time && options.out_of_time())) {
      break;
    }
    const Node node = std::move(stack.back());
    stack.pop_back();
    const Schedule prefix = node.prefix();
    PrefixChooser chooser = node.fork ? PrefixChooser(prefix, *node.fork) : PrefixChooser(prefix, scenario.seed);
    std::vector<std::shared_ptr<const Fork>> forks;
    if (node.fork) forks.push_back(node.fork);
    RunOptions run = search_run(chooser, options);
    run.fingerprintable = true;
    if (options.remember_answers) run.actor_answers = &answers;
    run.stop_when = [&](const engine::World& world) {
      ++report.states_generated;
      const bool seen = !visited.insert(engine::fingerprint(world, memo)).second;
      return seen && chooser.past_prefix();
    };
    if (options.fork) {
      run.resume_from = node.fork ? node.fork->run : nullptr;
      run.on_snapshot = [&](std::shared_ptr<const RunSnapshot> snapshot) {
        forks.push_back(std::make_shared<const Fork>(Fork{std::move(snapshot), chooser.names(), chooser.taken().size()}));
      };
    }
    RunReport result = runner.run(run);
    ++report.runs;
    report.steps += result.steps - (run.resume_from ? run.resume_from->world.steps : 0);
    report.max_depth = std::max<std::int64_t>(report.max_depth, static_cast<std::int64_t>(chooser.taken().size()));
    report.distinct_states = static_cast<std::int64_t>(visited.size());
    const bool violated = !result.violations.empty();
    if (violated) {
      if (run.resume_from) result = whole_run(runner, scenario, options, chooser.taken());
      report.failures.push_back(ExhaustiveFailure{chooser.taken(), std::move(result), report.runs - 1});
    }
    if (options.on_run) options.on_run(report);
    if (violated && !options.all) return report;
    // A violating run's continuation is not explored further.
    if (!violated) push_children(prefix, chooser.taken(), forks, stack, options.shard_index, options.shard_count);
  }
  report.complete = stack.empty();
  return report;
}

}  // namespace rjsim::explore
