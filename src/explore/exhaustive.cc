#include "explore/exhaustive.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <memory>

#include <absl/container/flat_hash_set.h>

#include "engine/fingerprint.h"
#include "explore/huge_page_allocator.h"

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

// The decisions one run took past the fork it continued from, kept for its children: the run's
// whole schedule is the first `first` decisions of the run it continued (`earlier`), then
// `decisions`. A continued run never copies the decisions before its fork: a deep search's runs
// are mostly a few steps past a fork hundreds of decisions deep, and copying those into each
// run's schedule was most of the search loop's own time (7% of a search of an all-faults
// scenario). A run from time 0 has no `earlier` and `first` 0.
struct TakenDecisions {
  std::shared_ptr<const TakenDecisions> earlier;
  std::size_t first = 0;
  Schedule decisions;

  std::size_t size() const { return first + decisions.size(); }
  // The decision at `index` of the whole schedule; only this run's own are kept here.
  const Decision& operator[](std::size_t index) const {
    assert(index >= first && "rjsim bug: a decision read before the fork its run continued from");
    return decisions[index - first];
  }
};

// The whole schedule of a run, from time 0: each earlier run's decisions up to where the next
// one continued from it. Only a violating run needs it.
Schedule whole_schedule(const TakenDecisions& last) {
  std::vector<const TakenDecisions*> chain;
  for (const TakenDecisions* run = &last; run != nullptr; run = run->earlier.get()) chain.push_back(run);
  Schedule schedule;
  for (auto run = chain.rbegin(); run != chain.rend(); ++run) {
    assert(schedule.size() >= (*run)->first && "rjsim bug: a run continued past the end of the one before");
    schedule.resize((*run)->first);
    schedule.insert(schedule.end(), (*run)->decisions.begin(), (*run)->decisions.end());
  }
  return schedule;
}

// The first decisions of a run to make, read from where they are kept: the first `position`
// decisions of a parent run's schedule, then `alternative` at the next one; none for the root.
// Never copied out; a run continued from a fork reads only the decisions past it.
struct PrefixView {
  const TakenDecisions* parent = nullptr;
  std::size_t position = 0;
  std::uint64_t alternative = 0;

  // All of `run`'s decisions.
  static PrefixView of(const TakenDecisions& run) {
    if (run.size() == 0) return {};
    return PrefixView{&run, run.size() - 1, run[run.size() - 1].picked};
  }
  std::size_t size() const { return parent ? position + 1 : 0; }
  std::uint64_t picked(std::size_t index) const {
    return index == position ? alternative : (*parent)[index].picked;
  }
};

// A run to make: the first `position` decisions its parent run took, then `alternative` at the
// next one (the root: no parent), and the latest fork before that decision (none: from time 0).
// The children of one run share its decisions instead of each copying a prefix of them: a deep
// search keeps many children on its stack, and copied prefixes grew with the square of the depth
// (900 MB after 20 s of an all-faults scenario).
struct Node {
  std::shared_ptr<const TakenDecisions> parent_taken;
  std::size_t position = 0;
  std::uint64_t alternative = 0;
  std::shared_ptr<const Fork> fork;
  std::int64_t departures = 0;   // decisions of the prefix that are not alternative 0

  PrefixView prefix() const {
    if (!parent_taken) return {};
    return PrefixView{parent_taken.get(), position, alternative};
  }
};

// Answers a prefix, then alternative 0; records every decision it answered (name suffixes
// aside, which come from the fault-free chooser and are no branch). Continuing from a fork, the
// decisions before it count as answered, and are not copied: they are the parent run's. The
// prefix's decisions must outlive the chooser.
class PrefixChooser final : public engine::Chooser {
 public:
  PrefixChooser(PrefixView prefix, std::uint64_t seed) : prefix_(prefix), names_(seed) {
    taken_.reserve(capacity_for(prefix, 0));
  }
  // A fork lies before the prefix's last decision, so what led to it is the parent's.
  PrefixChooser(PrefixView prefix, const Fork& fork) : prefix_(prefix), names_(fork.names), first_(fork.decisions) {
    taken_.reserve(capacity_for(prefix, first_));
  }

  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    if (point == ChoicePoint::name_suffix) return names_.choose(point, options);
    const std::size_t index = decisions();
    const std::uint64_t picked = index < prefix_.size() ? prefix_.picked(index) : 0;
    taken_.push_back(Decision{point, options, picked});
    return picked;
  }
  bool past_prefix() const { return decisions() >= prefix_.size(); }
  // How many decisions led here, those before the fork included.
  std::size_t decisions() const { return first_ + taken_.size(); }
  // The decisions taken, given up (the chooser is done), continuing `earlier`'s (the parent's).
  TakenDecisions release_taken(std::shared_ptr<const TakenDecisions> earlier) {
    if (first_ == 0) earlier = nullptr;   // from time 0: nothing of the parent's is needed
    return TakenDecisions{std::move(earlier), first_, std::move(taken_)};
  }
  const engine::DefaultChooser& names() const { return names_; }

 private:
  // Room for the rest of the prefix and the few decisions most runs take past it before they
  // reach a state seen before: the decisions are kept as they are for the run's children, so a
  // capacity doubled by one decision too many would double what the search's stack holds.
  static std::size_t capacity_for(PrefixView prefix, std::size_t first) {
    return prefix.size() - std::min(prefix.size(), first) + 8;
  }

  PrefixView prefix_;
  engine::DefaultChooser names_;
  std::size_t first_ = 0;   // the decisions before the fork, not kept here
  Schedule taken_;
};

// The fingerprints (engine/fingerprint.h) of the states a search has reached, in one flat
// swiss table (absl::flat_hash_set, README "Libraries"): a lookup is a probe into contiguous
// memory, and a slot is the 8-byte fingerprint and one control byte. The robin-hood table before
// it took 16 bytes a slot at most 0.8 full, and a 60 s search of all-faults-1-0 past 2 GiB.
// Fingerprints are XXH3 hashes already, so they index the table as they are. Membership only: its
// order (which absl salts per table) never reaches output. Its memory comes in huge pages
// (huge_page_allocator.h): a probe at random into hundreds of MB would miss the TLB as well.
class VisitedStates {
 public:
  // Whether `fingerprint` is new (it is kept now).
  bool insert(std::uint64_t fingerprint) { return states_.insert(fingerprint).second; }
  // Brings the memory insert(fingerprint) will probe into the cache: a table of millions of
  // fingerprints misses on nearly every probe, and a step's checks take longer than the miss.
  void prefetch(std::uint64_t fingerprint) const { states_.prefetch(fingerprint); }
  std::size_t size() const { return states_.size(); }

 private:
  struct AsItIs {
    std::size_t operator()(std::uint64_t fingerprint) const noexcept { return fingerprint; }
  };
  absl::flat_hash_set<std::uint64_t, AsItIs, std::equal_to<std::uint64_t>, HugePageAllocator<std::uint64_t>> states_;
};

// Whether any decision of `taken` from `position` on had an alternative it did not take.
bool has_alternatives(const TakenDecisions& taken, std::size_t position) {
  for (; position < taken.size(); ++position) {
    if (taken[position].options > 1) return true;
  }
  return false;
}

// Where a round's children go: the stack, and which of them it leaves out.
struct Children {
  std::vector<Node>& stack;
  std::int64_t departure_bound;     // children departing more often are left out
  std::int64_t shard_index;
  std::int64_t shard_count;
  bool left_out = false;            // some child departed more often than the bound allows
};

// Children of a run, deepest first once pushed on a stack: for each decision past the prefix,
// each alternative it did not take, each with the latest fork before that decision (`forks` in
// the order taken, so the fork moves forward with the decision). The children share `taken`.
// Past its prefix a run takes alternative 0 only, so every child departs once more than its
// parent; none is pushed beyond the round's bound.
void push_children(const Node& parent, std::size_t prefix_size, TakenDecisions taken,
                   const std::vector<std::shared_ptr<const Fork>>& forks, Children& children) {
  if (prefix_size == taken.size()) return;
  const std::int64_t departures = parent.departures + 1;
  if (departures > children.departure_bound) {
    children.left_out = children.left_out || has_alternatives(taken, prefix_size);
    return;
  }
  // Kept as long as a child waits on the stack: without room to spare. A run that went far past
  // its prefix outgrew its reserve (capacity_for) by doubling, and its own steps dwarf the copy.
  if (taken.decisions.capacity() > taken.decisions.size() + 8) taken.decisions.shrink_to_fit();
  const auto shared_taken = std::make_shared<const TakenDecisions>(std::move(taken));
  std::shared_ptr<const Fork> latest_fork;
  std::size_t next_fork = 0;
  std::int64_t root_child = 0;
  for (std::size_t position = prefix_size; position < shared_taken->size(); ++position) {
    while (next_fork < forks.size() && forks[next_fork]->decisions <= position) latest_fork = forks[next_fork++];
    for (std::uint64_t alternative = 1; alternative < (*shared_taken)[position].options; ++alternative) {
      const bool at_root = prefix_size == 0;
      if (at_root && root_child++ % children.shard_count != children.shard_index) continue;
      children.stack.push_back(Node{shared_taken, position, alternative, latest_fork, departures});
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

// A violating run continued from a fork reports the continuation only: run its whole schedule
// again from time 0 for the whole report.
RunReport whole_run(ScenarioRunner& runner, const ExhaustiveOptions& options, const TakenDecisions& whole,
                    std::uint64_t seed) {
  PrefixChooser chooser(PrefixView::of(whole), seed);
  return runner.run(search_run(chooser, options));
}

// What the rounds of one search share: the runner and what spares work between runs.
struct ExhaustiveSearch {
  const engine::Scenario& scenario;
  const ExhaustiveOptions& options;
  ExhaustiveReport& report;
  engine::FingerprintMemo memo;                 // consecutive states share most of their parts
  engine::ActorAnswers answers;                 // consecutive runs share most of the actors' inputs
  ScenarioRunner runner;
  SnapshotPool snapshots;                       // outlives the stack, whose forks hold them

  ExhaustiveSearch(const engine::Scenario& scenario, const ExhaustiveOptions& options, ExhaustiveReport& report)
      : scenario(scenario), options(options), report(report), runner(scenario, options.controller) {}

  bool out_of_budget() const {
    return (options.max_runs && report.runs >= *options.max_runs) || (options.out_of_time && options.out_of_time());
  }
};

enum class RoundEnd { searched, stopped };   // stopped: out of budget, or at a violation

// One depth-first round over the schedules that depart from the fault-free run at most
// `departure_bound` times, with a visited set of its own. `left_out` says whether the bound
// left a child out (if not, the round searched the whole space).
RoundEnd search_round(ExhaustiveSearch& search, std::int64_t departure_bound, bool& left_out) {
  const ExhaustiveOptions& options = search.options;
  ExhaustiveReport& report = search.report;
  VisitedStates visited;
  std::vector<Node> stack = {Node{}};
  Children children{stack, departure_bound, options.shard_index, options.shard_count};
  while (!stack.empty()) {
    if (search.out_of_budget()) break;
    const Node node = std::move(stack.back());
    stack.pop_back();
    const PrefixView prefix = node.prefix();
    PrefixChooser chooser = node.fork ? PrefixChooser(prefix, *node.fork) : PrefixChooser(prefix, search.scenario.seed);
    std::vector<std::shared_ptr<const Fork>> forks;
    if (node.fork) forks.push_back(node.fork);
    RunOptions run = search_run(chooser, options);
    run.fingerprintable = true;
    if (options.remember_answers) run.actor_answers = &search.answers;
    std::uint64_t step_fingerprint = 0;   // the world's after each step, taken before its checks
    run.before_checks = [&](const engine::World& world) {
      step_fingerprint = engine::fingerprint(world, search.memo);
      visited.prefetch(step_fingerprint);
    };
    run.stop_when = [&](const engine::World&) {
      ++report.states_generated;
      const bool seen = !visited.insert(step_fingerprint);
      return seen && chooser.past_prefix();
    };
    if (options.fork) {
      run.resume_from = node.fork ? node.fork->run : nullptr;
      run.snapshot_pool = &search.snapshots;
      run.on_snapshot = [&](std::shared_ptr<const RunSnapshot> snapshot) {
        forks.push_back(std::make_shared<const Fork>(Fork{std::move(snapshot), chooser.names(), chooser.decisions()}));
      };
    }
    RunReport result = search.runner.run(run);
    ++report.runs;
    report.steps += result.steps - (run.resume_from ? run.resume_from->world.steps : 0);
    report.max_depth = std::max<std::int64_t>(report.max_depth, static_cast<std::int64_t>(chooser.decisions()));
    report.distinct_states = std::max<std::int64_t>(report.distinct_states, static_cast<std::int64_t>(visited.size()));
    TakenDecisions taken = chooser.release_taken(node.parent_taken);
    const bool violated = !result.violations.empty();
    if (violated) {
      TakenDecisions whole{nullptr, 0, whole_schedule(taken)};
      if (run.resume_from) result = whole_run(search.runner, options, whole, search.scenario.seed);
      report.failures.push_back(ExhaustiveFailure{std::move(whole.decisions), std::move(result), report.runs - 1});
    }
    if (options.on_run) options.on_run(report);
    if (violated && !options.all) return RoundEnd::stopped;
    // A violating run's continuation is not explored further.
    if (!violated) push_children(node, prefix.size(), std::move(taken), forks, children);
  }
  left_out = children.left_out;
  return stack.empty() ? RoundEnd::searched : RoundEnd::stopped;
}

// The departure bound of the round after one with `bound`: one more while bugs are likeliest
// (most need few departures), then doubling, so that the rounds past 4 cost at most about twice
// the last one (suspend-resume-bounded, searched to its end: 3x the depth-first runs in all).
std::int64_t next_departure_bound(std::int64_t bound) { return bound < 4 ? bound + 1 : 2 * bound; }

}  // namespace

ExhaustiveReport explore_exhaustively(const engine::Scenario& scenario, const ExhaustiveOptions& options) {
  ExhaustiveReport report;
  ExhaustiveSearch search(scenario, options, report);
  std::int64_t bound = options.order == ExhaustiveOrder::depth_first ? kNoDepartureBound : 0;
  for (;; bound = next_departure_bound(bound)) {
    if (report.rounds > 0 && search.out_of_budget()) return report;
    bool left_out = false;
    ++report.rounds;
    report.departure_bound = bound;
    if (search_round(search, bound, left_out) == RoundEnd::stopped) return report;
    if (!left_out) break;
  }
  report.complete = true;
  return report;
}

}  // namespace rjsim::explore
