#include "explore/explorer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <absl/container/flat_hash_map.h>

#include "explore/exhaustive.h"
#include "explore/strategies.h"
#include "explore/targeted.h"

namespace rjsim::explore {

namespace {

constexpr std::int64_t kDefaultRuns = 1000;
constexpr std::int64_t kCheckDefaultRuns = 300;   // keeps the bundled suite within seconds
constexpr std::int64_t kNoStop = std::numeric_limits<std::int64_t>::max();

using Clock = std::chrono::steady_clock;   // the search budget only; never reaches a run

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What one schedule did.
struct ScheduleResult {
  std::int64_t index = 0;
  std::uint64_t seed = 0;
  Schedule schedule;
  std::uint64_t execution = 0;   // schedule_hash(schedule): equal decisions, equal execution
  RunReport report;
};

// Good-Turing: the share of `schedules` whose execution was seen more than once.
double good_turing_coverage(const std::map<std::uint64_t, int>& executions, std::int64_t schedules) {
  if (schedules == 0) return 0;
  const auto singletons = std::count_if(executions.begin(), executions.end(), [](const auto& e) { return e.second == 1; });
  return 1.0 - static_cast<double>(singletons) / static_cast<double>(schedules);
}

// Runs are deterministic functions of their decisions, so the decisions identify an execution.
std::uint64_t schedule_hash(const Schedule& schedule) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;   // FNV-1a over (point, options, picked)
  auto mix = [&](std::uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= (value >> (8 * byte)) & 0xff;
      hash *= 0x100000001b3ULL;
    }
  };
  for (const engine::Decision& decision : schedule) {
    mix(static_cast<std::uint64_t>(decision.point));
    mix(decision.options);
    mix(decision.picked);
  }
  return hash;
}

bool has_finding(const ExploreReport& report, const std::string& invariant) {
  return std::any_of(report.findings.begin(), report.findings.end(),
                     [&](const Finding& finding) { return finding.invariant == invariant; });
}

// One finding for each invariant `failing` violated that the report has none of yet.
void add_new_findings(ExploreReport& report, const RunReport& failing, std::int64_t index, std::uint64_t seed,
                      const Schedule& schedule, double found_after_s) {
  for (const ViolationReport& violation : failing.violations) {
    if (has_finding(report, violation.invariant)) continue;
    Finding finding;
    finding.invariant = violation.invariant;
    finding.schedule_index = index;
    finding.schedule_seed = seed;
    finding.schedule = schedule;
    finding.report = failing;
    finding.found_after_s = found_after_s;
    report.findings.push_back(std::move(finding));
  }
}

// The search shared by the worker threads: which schedule is next, where to stop, what was found.
class Search {
 public:
  Search(const engine::Scenario& scenario, const ExploreOptions& options, std::int64_t baseline_steps,
         std::vector<TargetedPlan> plans)
      : scenario_(scenario), options_(options), baseline_steps_(baseline_steps), plans_(std::move(plans)),
        started_(Clock::now()) {
    // Targeted runs every plan before it runs PCT schedules, so by default it gets at least that.
    const auto plan_count = static_cast<std::int64_t>(plans_.size());
    budget_ = options.runs.value_or(options.time_ms ? kNoStop : std::max(plan_count, kDefaultRuns));
  }

  void work() {
    ScenarioRunner runner(scenario_, options_.controller);   // one per thread: its runs start over
    while (true) {
      const std::int64_t local = next_local_.fetch_add(1);
      const std::int64_t index = options_.shard_index + local * options_.shard_count;
      if (local >= budget_ || index >= stop_before_.load() || out_of_time()) return;
      record(run_schedule(runner, index));
    }
  }

  // Good-Turing: the share of schedules so far whose execution was seen more than once.
  double coverage_locked() const {
    const auto schedules = static_cast<double>(completed_.size());
    return schedules == 0 ? 0 : 1.0 - static_cast<double>(singletons_) / schedules;
  }

  ExploreProgress progress() const {
    std::lock_guard lock(mutex_);
    return ExploreProgress{schedules_.load(), steps_.load(), 0, violations_.load(), seconds_since(started_),
                           coverage_locked()};
  }

  // The findings and totals as one thread would have seen them: every schedule up to the last
  // one that counts (the first failing one, unless `all`).
  void finish(ExploreReport& report) {
    std::lock_guard lock(mutex_);
    const std::int64_t cutoff = options_.all ? kNoStop : stop_before_.load();
    // Workers may have run schedules past the cutoff before they heard of it; like the totals,
    // the executions and the coverage count only those up to it, so --jobs does not change them.
    std::map<std::uint64_t, int> executions;
    for (const auto& [index, schedule] : completed_) {
      if (index > cutoff) continue;
      ++report.schedules;
      report.steps += schedule.steps;
      ++executions[schedule.execution];
    }
    std::map<std::string, ScheduleResult*> first_by_invariant;
    for (auto& [index, result] : failing_) {
      if (index > cutoff) continue;
      for (const ViolationReport& violation : result.report.violations) {
        first_by_invariant.try_emplace(violation.invariant, &result);
      }
    }
    for (auto& [invariant, result] : first_by_invariant) {
      if (has_finding(report, invariant)) continue;   // the fault-free run already violated it (--all)
      Finding finding;
      finding.invariant = invariant;
      finding.schedule_index = result->index;
      finding.schedule_seed = result->seed;
      finding.schedule = result->schedule;
      finding.report = result->report;
      finding.found_after_s = found_after_s_[result->index];
      report.findings.push_back(std::move(finding));
    }
    std::sort(report.findings.begin(), report.findings.end(), [](const Finding& a, const Finding& b) {
      return std::tie(a.schedule_index, a.invariant) < std::tie(b.schedule_index, b.invariant);
    });
    report.elapsed_s = seconds_since(started_);
    report.distinct_executions = static_cast<std::int64_t>(executions.size());
    report.coverage = good_turing_coverage(executions, report.schedules);
  }

 private:
  bool out_of_time() const {
    return options_.time_ms && seconds_since(started_) * 1000.0 >= static_cast<double>(*options_.time_ms);
  }

  ScheduleResult run_schedule(ScenarioRunner& runner, std::int64_t index) {
    ScheduleResult result;
    result.index = index;
    result.seed = schedule_seed(options_.seed, index);
    RandomWalk random(result.seed);
    Pct pct(result.seed, options_.pct_depth, baseline_steps_);
    std::optional<Targeted> targeted;
    const bool after_the_plans = options_.strategy == Strategy::targeted && index >= std::ssize(plans_);
    if (options_.strategy == Strategy::targeted && !after_the_plans) {
      result.seed = scenario_.seed;   // the fault-free run's names, one plan departing from it
      targeted.emplace(plans_[static_cast<std::size_t>(index)], scenario_.seed);
    }
    engine::Chooser& strategy = targeted ? static_cast<engine::Chooser&>(*targeted)
                                : options_.strategy == Strategy::pct || after_the_plans ? static_cast<engine::Chooser&>(pct)
                                                                                        : random;
    RecordingChooser recording(strategy);
    RunOptions run = exploration_run(recording);
    run.seed = result.seed;
    run.controller = options_.controller;
    run.stop_at_violation = !options_.all;
    result.report = runner.run(run);
    result.schedule = recording.take();
    result.execution = schedule_hash(result.schedule);
    return result;
  }

  void record(ScheduleResult result) {
    schedules_.fetch_add(1);
    steps_.fetch_add(result.report.steps);
    std::lock_guard lock(mutex_);
    completed_.emplace(result.index, CompletedSchedule{result.report.steps, result.execution});
    const int seen = ++executions_[result.execution];
    singletons_ += seen == 1 ? 1 : seen == 2 ? -1 : 0;
    if (result.report.violations.empty()) return;
    violations_.fetch_add(1);
    found_after_s_[result.index] = seconds_since(started_);
    if (!options_.all) {
      std::int64_t current = stop_before_.load();
      while (result.index < current && !stop_before_.compare_exchange_weak(current, result.index)) {
      }
    }
    failing_.emplace(result.index, std::move(result));
  }

  const engine::Scenario& scenario_;
  const ExploreOptions& options_;
  std::int64_t baseline_steps_;
  std::vector<TargetedPlan> plans_;
  Clock::time_point started_;
  std::int64_t budget_ = kDefaultRuns;
  std::atomic<std::int64_t> next_local_{0};
  std::atomic<std::int64_t> stop_before_{kNoStop};
  std::atomic<std::int64_t> schedules_{0};
  std::atomic<std::int64_t> steps_{0};
  std::atomic<std::int64_t> violations_{0};
  mutable std::mutex mutex_;
  struct CompletedSchedule {
    std::int64_t steps = 0;
    std::uint64_t execution = 0;
  };
  std::map<std::int64_t, CompletedSchedule> completed_;   // by schedule index
  std::map<std::int64_t, ScheduleResult> failing_;     // schedule index -> what it did
  std::map<std::int64_t, double> found_after_s_;
  // Schedule hash -> schedules that ran it: counted only, never iterated, so a hash map (a tree
  // of one node a schedule was 1% of a random search, in its cache misses).
  absl::flat_hash_map<std::uint64_t, int> executions_;
  std::int64_t singletons_ = 0;             // executions seen exactly once
};

// Runs the workers; the calling thread reports progress every 100 ms until they are done, and
// returns as soon as the last one is (it waits on a condition, not a sleep).
void run_workers(Search& search, const ExploreOptions& options) {
  const int jobs = std::max(1, options.jobs);
  std::mutex mutex;
  std::condition_variable finished;
  int running = jobs;
  std::exception_ptr failure;
  std::vector<std::thread> workers;
  for (int i = 0; i < jobs; ++i) {
    workers.emplace_back([&] {
      std::exception_ptr caught;
      try {
        search.work();
      } catch (...) {
        caught = std::current_exception();
      }
      std::lock_guard lock(mutex);
      if (caught && !failure) failure = caught;
      --running;
      finished.notify_one();
    });
  }
  {
    std::unique_lock lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; })) {
      lock.unlock();
      if (options.on_progress) options.on_progress(search.progress());
      lock.lock();
    }
  }
  for (std::thread& worker : workers) worker.join();
  if (failure) std::rethrow_exception(failure);
}

// The targeted strategy's plans, from the fault-free run recorded with the budget on.
std::vector<TargetedPlan> plans_for(const engine::Scenario& scenario, const ExploreOptions& options) {
  if (options.strategy != Strategy::targeted) return {};
  return targeted_plans(fault_free_with_budget(scenario, options.controller).event_log, scenario.faults);
}

// The exhaustive strategy on the calling thread; its failures become findings, the first run
// that broke each invariant.
void search_exhaustively(const engine::Scenario& scenario, const ExploreOptions& options, ExploreReport& report) {
  const Clock::time_point started = Clock::now();
  ExhaustiveOptions exhaustive;
  exhaustive.controller = options.controller;
  exhaustive.order = options.exhaustive_order;
  exhaustive.max_runs = options.runs;
  // The clock is read after every 64th run, not before and after each: a search makes about
  // 100,000 runs a second, and its two clock reads a run were 1-2% of its time.
  constexpr std::int64_t kRunsPerClockRead = 64;
  double elapsed_s = 0;
  if (options.time_ms) {
    exhaustive.out_of_time = [&] { return elapsed_s * 1000.0 >= static_cast<double>(*options.time_ms); };
  }
  exhaustive.all = options.all;
  exhaustive.shard_index = options.shard_index;
  exhaustive.shard_count = options.shard_count;
  double last_progress_s = 0;
  exhaustive.on_run = [&](const ExhaustiveReport& so_far) {
    if (so_far.runs % kRunsPerClockRead != 0) return;
    elapsed_s = seconds_since(started);
    if (!options.on_progress || elapsed_s - last_progress_s < 0.1) return;
    last_progress_s = elapsed_s;
    options.on_progress(ExploreProgress{so_far.runs, so_far.steps, so_far.distinct_states,
                                        static_cast<std::int64_t>(so_far.failures.size()), elapsed_s, 0});
  };
  ExhaustiveReport result = explore_exhaustively(scenario, exhaustive);
  report.schedules = result.runs;
  report.steps = result.steps;
  report.distinct_states = result.distinct_states;
  report.states_generated = result.states_generated;
  report.max_depth = result.max_depth;
  report.rounds = result.rounds;
  report.departure_bound = result.departure_bound;
  report.complete = result.complete;
  report.coverage = result.complete ? 1.0 : 0.0;
  report.elapsed_s = seconds_since(started);
  for (const ExhaustiveFailure& failure : result.failures) {
    add_new_findings(report, failure.report, failure.run_index, scenario.seed, failure.schedule, report.elapsed_s);
  }
}

// The fault-free run, under the fault budget (so that its decisions are recorded), as the
// finding of each invariant it violates.
void add_fault_free_findings(const engine::Scenario& scenario, const ExploreOptions& options, ExploreReport& report) {
  engine::DefaultChooser fault_free(scenario.seed);
  RecordingChooser recording(fault_free);
  RunOptions run = exploration_run(recording);
  run.seed = scenario.seed;
  run.controller = options.controller;
  run.stop_at_violation = !options.all;
  const RunReport failing = run_scenario(scenario, run);
  add_new_findings(report, failing, kFaultFreeSchedule, scenario.seed, recording.take(), 0);
}

}  // namespace

std::string_view to_string(Strategy strategy) {
  switch (strategy) {
    case Strategy::random: return "random";
    case Strategy::pct: return "pct";
    case Strategy::exhaustive: return "exhaustive";
    case Strategy::targeted: return "targeted";
  }
  return "random";
}

std::optional<Strategy> parse_strategy(std::string_view text) {
  for (Strategy strategy : {Strategy::random, Strategy::pct, Strategy::exhaustive, Strategy::targeted}) {
    if (to_string(strategy) == text) return strategy;
  }
  return std::nullopt;
}

ExploreReport explore(const engine::Scenario& scenario, const ExploreOptions& options) {
  ExploreReport report;
  report.strategy = options.strategy;
  RunOptions fault_free;
  fault_free.controller = options.controller;
  fault_free.keep_events = false;
  report.baseline = run_scenario(scenario, fault_free);
  if (!report.baseline.violations.empty() && options.shard_index == 0) add_fault_free_findings(scenario, options, report);

  if (!report.findings.empty() && !options.all) {
    // The fault-free run is the first schedule of every strategy: nothing to search for.
  } else if (options.strategy == Strategy::exhaustive) {
    search_exhaustively(scenario, options, report);
  } else {
    report.plans = plans_for(scenario, options);
    Search search(scenario, options, report.baseline.steps, report.plans);
    run_workers(search, options);
    search.finish(report);
  }

  for (Finding& finding : report.findings) {
    if (options.shrink_runs <= 0) continue;
    RunOptions base;
    base.seed = finding.schedule_seed;
    base.controller = options.controller;
    base.faults = true;
    finding.shrunk = shrink(scenario, base, finding.schedule, finding.invariant, options.shrink_runs);
  }
  return report;
}

std::vector<std::string> unmet_expectations(const engine::Expectation& expect, const ExploreReport& report) {
  std::vector<std::string> unmet;
  std::vector<std::string> found;
  for (const Finding& finding : report.findings) found.push_back(finding.invariant);
  const std::string searched = fmt::format("{} schedules ({})", report.schedules, to_string(report.strategy));
  const bool expect_some = expect.violations && !expect.violations->empty();
  if (expect_some) {
    const bool any_listed = std::any_of(expect.violations->begin(), expect.violations->end(), [&](const std::string& name) {
      return std::find(found.begin(), found.end(), name) != found.end();
    });
    if (!any_listed) {
      unmet.push_back(fmt::format("violations: expected exploration to find one of {}; {} found {}",
                                  fmt::join(*expect.violations, ", "), searched,
                                  found.empty() ? std::string("none") : fmt::format("{}", fmt::join(found, ", "))));
    }
  }
  const bool expect_none = (expect.outcome && *expect.outcome == "pass") || (!expect.outcome && !expect_some);
  if (expect_none && !report.findings.empty()) {
    const Finding& first = report.findings.front();
    unmet.push_back(first.schedule_index == kFaultFreeSchedule
                        ? fmt::format("outcome: expected pass, the fault-free run violates {}", first.invariant)
                        : fmt::format("outcome: expected pass, exploration found {} in schedule {} of {}",
                                      first.invariant, first.schedule_index, searched));
  }
  if (expect.outcome && *expect.outcome == "violation" && report.findings.empty()) {
    unmet.push_back(fmt::format("outcome: expected a violation; {} found none", searched));
  }
  return unmet;
}

ExploreOptions check_exploration(const engine::Scenario& scenario, std::optional<std::int64_t> budget_runs,
                                 std::optional<std::int64_t> budget_ms) {
  ExploreOptions options;
  // Targeted: its plans (a crash, stale reads, held deliveries or slow reactions after each write, an outage after the environment's
  // of the fault-free run) first, then pct, unbounded: an outcome: pass means something.
  options.strategy = Strategy::targeted;
  options.seed = scenario.seed;
  options.runs = budget_runs;
  options.time_ms = budget_ms;
  if (!budget_runs && !budget_ms) options.runs = kCheckDefaultRuns;
  options.jobs = 1;
  options.shrink_runs = 0;
  return options;
}

}  // namespace rjsim::explore
