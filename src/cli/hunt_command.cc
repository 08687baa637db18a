// rjsim hunt: a campaign over a corpus of scenarios (issue 32). It explores every scenario in
// turn, a slice of schedules at a time, with every strategy and a new seed each round, until its
// wall-time budget is spent, and groups what the explorations find into distinct findings: an
// invariant and its symptom (explore/finding_shape.h says why not the whole shape), whatever
// scenario or seed found it. A new finding is shrunk hard; its first counterexample and the
// shrunk form are stored in one database. The report counts schedules, steps, explorations and
// findings, says how many distinct findings were known at each tenth of the campaign (does the
// count level off?), and gives for each finding its shape and the commands that replay it and
// that find it again. Which slices run is a function of the seed and the order of the corpus;
// how many run is what the wall-time budget allows. Exit 0 nothing found, 1 found, 2 bad input.
#include "cli/commands.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/json_output.h"
#include "cli/scenario_files.h"
#include "cli/stored_run.h"
#include "engine/scenario_loader.h"
#include "explore/explorer.h"
#include "explore/finding_shape.h"
#include "explore/shrink.h"
#include "store/database.h"

namespace rjsim::cli {
namespace {

struct HuntFlags {
  std::vector<std::string> paths;
  std::string time = "30m";
  std::int64_t slice_runs = 2000;
  std::string exhaustive_time = "10s";
  std::int64_t shrink_runs = 3000;
  std::int64_t explorations = 0;   // stop after this many explorations too (0: only the time)
  std::uint64_t seed = 1;
  int jobs = 0;
  std::string controller;   // every scenario under this model instead of its own (a fix variant)
  std::string db_path = "hunt.db";
  bool json = false;
};

// One exploration of the campaign: which scenario, how and with which seed.
struct Slice {
  std::size_t scenario = 0;
  explore::Strategy strategy = explore::Strategy::random;
  int pct_depth = 3;
  std::uint64_t seed = 0;
};

// A distinct finding: the first counterexample of its invariant and shape, and how often it recurred.
struct HuntFinding {
  std::string invariant;
  std::string symptom;               // the violation message, abstracted: with the invariant, the key
  std::vector<std::string> shape;    // the departures of the shrunk counterexample
  std::string message;               // the shrunk run's violation message
  std::string scenario_file;         // the first scenario that showed it
  Slice slice;
  std::int64_t slice_runs = 0;       // the runs its "again" command names (exhaustive: to the finding's run)
  double found_after_s = 0;          // from the start of the campaign
  std::int64_t run_id = 0;
  std::int64_t shrunk_run_id = 0;
  std::int64_t shrunk_steps = 0;
  std::int64_t times_found = 0;
  std::set<std::string> scenarios;   // every scenario name that showed it
};

struct HuntTotals {
  std::int64_t explorations = 0;
  std::int64_t schedules = 0;
  std::int64_t steps = 0;
  std::int64_t distinct_executions = 0;   // summed over the explorations
  std::int64_t distinct_states = 0;       // exhaustive slices, summed
  std::int64_t rounds = 0;
  double elapsed_s = 0;
};

struct Hunt {
  std::vector<std::string> files;
  std::vector<engine::Scenario> scenarios;
  std::map<std::string, HuntFinding> findings;   // by key: invariant and symptom
  std::vector<double> discovery_times;           // when each distinct finding was first seen
  HuntTotals totals;
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Round 0 follows the targeted plans, round 1 searches exhaustively for a while (the same every
// time, so once), later rounds alternate pct of depths 2-4 and random walks, each with a new seed.
Slice slice_for(std::int64_t round, std::size_t scenario, std::uint64_t seed) {
  static constexpr std::array<std::pair<explore::Strategy, int>, 4> kLaterRounds = {
      {{explore::Strategy::pct, 3}, {explore::Strategy::random, 3}, {explore::Strategy::pct, 2},
       {explore::Strategy::pct, 4}}};
  Slice slice{scenario, explore::Strategy::targeted, 3, seed + static_cast<std::uint64_t>(round)};
  if (round == 1) slice.strategy = explore::Strategy::exhaustive;
  if (round >= 2) {
    const auto& [strategy, depth] = kLaterRounds[static_cast<std::size_t>(round - 2) % kLaterRounds.size()];
    slice.strategy = strategy;
    slice.pct_depth = depth;
  }
  return slice;
}

explore::ExploreOptions slice_options(const Slice& slice, const HuntFlags& flags, std::int64_t remaining_ms) {
  explore::ExploreOptions options;
  options.strategy = slice.strategy;
  options.seed = slice.seed;
  options.pct_depth = slice.pct_depth;
  options.all = true;
  options.jobs = worker_threads(flags.jobs);
  options.runs = flags.slice_runs;
  options.time_ms = remaining_ms;
  options.shrink_runs = 0;   // only a new finding is shrunk (describe_new_finding)
  if (slice.strategy == explore::Strategy::exhaustive) {
    options.runs = std::nullopt;
    options.time_ms = std::min(remaining_ms, *parse_duration_ms(flags.exhaustive_time));
    options.exhaustive_order = explore::ExhaustiveOrder::by_departures;   // a hunt wants races, not a proof
  }
  return options;
}

// A counterexample's run again with its events kept, to its end (the finding's invariant may be
// violated after another one, or only at the end: liveness): what its shape is read from.
explore::RunReport rerun_with_events(const engine::Scenario& scenario, std::uint64_t seed,
                                     const explore::Schedule& schedule) {
  engine::DefaultChooser fallback(seed);
  engine::ReplayChooser chooser(schedule, &fallback);
  explore::RunOptions options;
  options.seed = seed;
  options.faults = true;
  options.chooser = &chooser;
  return explore::run_scenario(scenario, options);
}

std::string message_of(const explore::RunReport& report, const std::string& invariant) {
  for (const explore::ViolationReport& v : report.violations) {
    if (v.invariant == invariant) return v.message;
  }
  return "";
}

// A new finding: shrunk hard (once per distinct finding, so it may spend more than explore's
// shrink of every counterexample), its shape read and both runs stored.
void describe_new_finding(HuntFinding& known, const engine::Scenario& scenario, const explore::Finding& finding,
                          const HuntFlags& flags, store::Database* database) {
  explore::RunOptions base;
  base.seed = finding.schedule_seed;
  base.faults = true;
  const explore::ShrinkResult shrunk =
      explore::shrink(scenario, base, finding.schedule, finding.invariant, flags.shrink_runs);
  const explore::RunReport rerun = rerun_with_events(scenario, finding.schedule_seed, shrunk.schedule);
  known.shape = explore::departure_shape(rerun.event_log);
  known.message = message_of(rerun, finding.invariant);
  known.shrunk_steps = rerun.steps;
  if (database == nullptr) return;
  known.run_id = store_schedule(*database, scenario, "explore", std::nullopt, finding.schedule_seed, finding.schedule,
                                true, false);   // as explore --all stores it: on past the first violation
  known.shrunk_run_id =
      store_schedule(*database, scenario, "shrink", known.run_id, finding.schedule_seed, shrunk.schedule, true, true);
}

void record(Hunt& hunt, store::Database* database, const Slice& slice, const HuntFlags& flags,
            const explore::Finding& finding, double found_after_s) {
  const engine::Scenario& scenario = hunt.scenarios[slice.scenario];
  const std::string symptom = explore::abstract_message(message_of(finding.report, finding.invariant));
  HuntFinding& known = hunt.findings[fmt::format("{}\n{}", finding.invariant, symptom)];
  ++known.times_found;
  known.scenarios.insert(scenario.name);
  if (known.times_found > 1) return;
  known.invariant = finding.invariant;
  known.symptom = symptom;
  known.scenario_file = hunt.files[slice.scenario];
  known.slice = slice;
  // An exhaustive slice is bounded by time: its finding's run index bounds the search that finds
  // it again, as it runs the same runs in the same order.
  known.slice_runs =
      slice.strategy == explore::Strategy::exhaustive ? finding.schedule_index + 1 : flags.slice_runs;
  known.found_after_s = found_after_s;
  hunt.discovery_times.push_back(found_after_s);
  describe_new_finding(known, scenario, finding, flags, database);
}

void add_to_totals(HuntTotals& totals, const explore::ExploreReport& report) {
  ++totals.explorations;
  totals.schedules += report.schedules;
  totals.steps += report.steps;
  totals.distinct_executions += report.distinct_executions;
  totals.distinct_states += report.distinct_states;
}

void progress(Io& io, const Hunt& hunt, double elapsed_s) {
  if (&io.err != &std::cerr || !::isatty(STDERR_FILENO)) return;
  io.err << fmt::format("\r  round {}  explorations {}  schedules {}  distinct findings {}  elapsed {:.0f}s   ",
                        hunt.totals.rounds, hunt.totals.explorations, hunt.totals.schedules, hunt.findings.size(),
                        elapsed_s)
         << std::flush;
}

void run_campaign(Hunt& hunt, const HuntFlags& flags, store::Database* database, Io& io) {
  const std::int64_t budget_ms = *parse_duration_ms(flags.time);
  const Clock::time_point start = Clock::now();
  for (std::int64_t round = 0;; ++round) {
    for (std::size_t i = 0; i < hunt.scenarios.size(); ++i) {
      const std::int64_t remaining_ms = budget_ms - static_cast<std::int64_t>(seconds_since(start) * 1000);
      const bool enough = flags.explorations > 0 && hunt.totals.explorations >= flags.explorations;
      if (remaining_ms <= 0 || enough) {
        hunt.totals.elapsed_s = seconds_since(start);
        return;
      }
      hunt.totals.rounds = round + 1;   // begun
      const Slice slice = slice_for(round, i, flags.seed);
      const double slice_start_s = seconds_since(start);
      const explore::ExploreReport report =
          explore::explore(hunt.scenarios[i], slice_options(slice, flags, remaining_ms));
      add_to_totals(hunt.totals, report);
      for (const explore::Finding& finding : report.findings) {
        record(hunt, database, slice, flags, finding, slice_start_s + finding.found_after_s);
      }
      progress(io, hunt, seconds_since(start));
    }
  }
}

// How many distinct findings were known at each tenth of the campaign.
std::vector<std::pair<double, std::size_t>> levelling(const Hunt& hunt) {
  std::vector<std::pair<double, std::size_t>> points;
  for (int tenth = 1; tenth <= 10; ++tenth) {
    const double at = hunt.totals.elapsed_s * tenth / 10;
    std::size_t known = 0;
    for (double t : hunt.discovery_times) known += t <= at ? 1 : 0;
    points.emplace_back(at, known);
  }
  return points;
}

std::string find_again_command(const HuntFinding& f, const HuntFlags& flags) {
  std::string command = fmt::format("rjsim explore {} --strategy {} --seed {}", f.scenario_file,
                                    explore::to_string(f.slice.strategy), f.slice.seed);
  if (f.slice.strategy == explore::Strategy::pct) command += fmt::format(" --depth {}", f.slice.pct_depth);
  if (f.slice.strategy == explore::Strategy::exhaustive) command += " --order departures";
  command += fmt::format(" --runs {}", f.slice_runs);
  command += " --all";
  if (!flags.controller.empty()) command += fmt::format("   # with controller: {} in the scenario", flags.controller);
  return command;
}

// Findings in the order they were first found.
std::vector<const HuntFinding*> by_discovery(const Hunt& hunt) {
  std::vector<const HuntFinding*> ordered;
  for (const auto& [key, finding] : hunt.findings) ordered.push_back(&finding);
  std::stable_sort(ordered.begin(), ordered.end(), [](const HuntFinding* a, const HuntFinding* b) {
    return a->found_after_s < b->found_after_s;
  });
  return ordered;
}

void print_text(std::ostream& out, const Hunt& hunt, const HuntFlags& flags) {
  const HuntTotals& t = hunt.totals;
  const double elapsed = std::max(t.elapsed_s, 1e-9);
  out << fmt::format("hunt: {} scenarios under {}, {:.0f}s, seed {}, {} threads\n", hunt.scenarios.size(),
                     flags.controller.empty() ? std::string("their own models") : flags.controller, t.elapsed_s,
                     flags.seed, worker_threads(flags.jobs));
  out << fmt::format("rounds {} (each explores every scenario once), explorations {}, schedules {} ({:.0f}/s), "
                     "steps {} ({:.0f}/s)\n",
                     t.rounds, t.explorations, t.schedules, static_cast<double>(t.schedules) / elapsed, t.steps,
                     static_cast<double>(t.steps) / elapsed);
  out << fmt::format("distinct executions {} (summed over explorations), distinct states {} (exhaustive slices)\n",
                     t.distinct_executions, t.distinct_states);
  out << fmt::format("distinct findings {} (an invariant and its symptom: the message without names or numbers)\n",
                     hunt.findings.size());
  out << "known findings by time:";
  for (const auto& [at, known] : levelling(hunt)) out << fmt::format("  {:.0f}s {}", at, known);
  out << "\n";
  int number = 0;
  for (const HuntFinding* f : by_discovery(hunt)) {
    out << fmt::format("\n#{} {}  (first after {:.1f}s in {}; found {} times in {} scenarios)\n", ++number,
                       f->invariant, f->found_after_s, f->scenario_file, f->times_found, f->scenarios.size());
    out << fmt::format("  shape:   {}\n", f->shape.empty() ? std::string("(the fault-free run)")
                                                            : fmt::format("{}", fmt::join(f->shape, " -> ")));
    out << fmt::format("  message: {}\n", f->message);
    out << (flags.db_path.empty()
                ? fmt::format("  shrunk:  {} steps (not stored: --db \"\")\n", f->shrunk_steps)
                : fmt::format("  shrunk:  {} steps; rjsim show {} --run {}   (replay: rjsim replay {} --run {})\n",
                              f->shrunk_steps, flags.db_path, f->shrunk_run_id, flags.db_path, f->shrunk_run_id));
    out << fmt::format("  again:   {}\n", find_again_command(*f, flags));
  }
}

nlohmann::ordered_json hunt_json(const Hunt& hunt, const HuntFlags& flags) {
  const HuntTotals& t = hunt.totals;
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const HuntFinding* f : by_discovery(hunt)) {
    findings.push_back({{"invariant", f->invariant},
                        {"symptom", f->symptom},
                        {"shape", f->shape},
                        {"message", f->message},
                        {"scenario", f->scenario_file},
                        {"scenarios", f->scenarios},
                        {"times_found", f->times_found},
                        {"found_after_s", f->found_after_s},
                        {"run_id", f->run_id},
                        {"shrunk_run_id", f->shrunk_run_id},
                        {"shrunk_steps", f->shrunk_steps},
                        {"find_again", find_again_command(*f, flags)}});
  }
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const auto& [at, known] : levelling(hunt)) curve.push_back({{"after_s", at}, {"distinct_findings", known}});
  return {{"scenarios", hunt.files},
          {"controller", flags.controller.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(flags.controller)},
          {"seed", flags.seed},
          {"elapsed_s", t.elapsed_s},
          {"rounds", t.rounds},
          {"explorations", t.explorations},
          {"schedules", t.schedules},
          {"steps", t.steps},
          {"distinct_executions", t.distinct_executions},
          {"distinct_states", t.distinct_states},
          {"distinct_findings", hunt.findings.size()},
          {"levelling", curve},
          {"findings", findings}};
}

int run_hunt(const HuntFlags& flags, Io& io) {
  Hunt hunt;
  hunt.files = scenario_files(flags.paths);
  for (const std::string& file : hunt.files) {
    hunt.scenarios.push_back(engine::load_scenario(file));
    if (!flags.controller.empty()) hunt.scenarios.back().controller = flags.controller;
  }
  for (std::size_t i = 0; i < hunt.scenarios.size(); ++i) {
    if (!hunt.scenarios[i].has_faults) {
      throw UsageError(fmt::format("{}: the scenario has no faults: block; a hunt explores within one", hunt.files[i]));
    }
  }
  std::optional<store::Database> database;
  if (!flags.db_path.empty()) database.emplace(store::Database::open(flags.db_path));
  run_campaign(hunt, flags, database ? &*database : nullptr, io);
  if (&io.err == &std::cerr && ::isatty(STDERR_FILENO)) io.err << "\n";
  if (flags.json) {
    print_json_line(io.out, hunt_json(hunt, flags));
  } else {
    print_text(io.out, hunt, flags);
  }
  return hunt.findings.empty() ? 0 : 1;
}

}  // namespace

void add_hunt_command(CLI::App& rjsim, CommandTable& commands) {
  auto flags = std::make_shared<HuntFlags>();
  CLI::App* hunt = commands.add(
      rjsim, "hunt",
      "explore a corpus of scenarios for a time budget and group what is found into distinct findings",
      {"rjsim hunt tools/hunt/corpus --time 30m --db hunt.db",
       "rjsim hunt tools/hunt/corpus --explorations 300 --controller kuberay-1.7+api-reader-confirms-deletion",
       "rjsim hunt tools/hunt/corpus/suspend-resume.yaml --time 2m --json"});
  hunt->add_option("PATH", flags->paths, "scenario files, or directories searched for *.yaml (each with faults:)")
      ->required()
      ->type_name("");
  hunt->add_option("--time", flags->time, "the campaign's wall-time budget (500ms, 30s, 2m, 1h)")
      ->type_name("D")
      ->check(duration())
      ->capture_default_str();
  hunt->add_option("--slice-runs", flags->slice_runs, "schedules of one exploration of one scenario")
      ->type_name("N")
      ->check(at_least_one())
      ->capture_default_str();
  hunt->add_option("--exhaustive-time", flags->exhaustive_time, "the exhaustive slice of each scenario (round 1)")
      ->type_name("D")
      ->check(duration())
      ->capture_default_str();
  hunt->add_option("--explorations", flags->explorations,
                   "stop after N explorations as well (a campaign whose slices do not depend on the machine's speed, "
                   "but for the exhaustive ones)")
      ->type_name("N")
      ->check(at_least_one());
  hunt->add_option("--shrink-runs", flags->shrink_runs, "candidate runs the shrink of each new finding may spend")
      ->type_name("N")
      ->check(at_least_one())
      ->capture_default_str();
  add_seed_option(*hunt, flags->seed, "the campaign's seed (round r explores with seed + r)")->capture_default_str();
  add_controller_option(*hunt, flags->controller,
                        "run every scenario under this model instead of its own (say, a fix variant, to see that "
                        "the findings it fixes are gone)");
  add_jobs_option(*hunt, flags->jobs);
  add_db_option(*hunt, flags->db_path, "where each distinct finding's counterexample and shrunk run are stored (\"\" stores nothing)")
      ->capture_default_str();
  add_json_flag(*hunt, flags->json);
  commands.set_action(hunt, [flags](Io& io) { return run_hunt(*flags, io); });
}

}  // namespace rjsim::cli
