// rjsim explore: searches a scenario's schedules within its `faults` budget for invariant
// violations, shrinks each one found, stores what is kept and prints the replay command
// (DESIGN.md §6; issue 5). Only what is kept reaches the database, after the search: one summary
// row (kind explore, its one event explore.summary), the fault-free baseline (kind run), each
// counterexample (kind explore) and its shrunk form (kind shrink, parent_run the counterexample).
// With --from-trace DB the scenario is not a file: it is derived from a trace run of DB as
// `rjsim conform` derives it, with a fault budget for Sieve's perturbations (trace/explore_trace.h;
// docs/traces.md "Exploring around a trace"), and what is kept goes into DB unless --db is given.
// Exit 0 none found, 1 found.
#include "cli/commands.h"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/json_output.h"
#include "cli/stored_run.h"
#include "cli/trace_derivation.h"
#include "engine/scenario_loader.h"
#include "explore/bounds.h"
#include "explore/explorer.h"
#include "store/database.h"
#include "trace/explore_trace.h"

namespace rjsim::cli {
namespace {

struct ExploreFlags {
  std::string scenario;
  std::string strategy = "targeted";   // fastest to the acceptance bugs (docs/explore.md)
  std::int64_t runs = 0;  // 0: the default budget, or until --time
  std::string time;
  std::uint64_t seed = 1;
  int depth = 3;
  std::string order;   // exhaustive: depth-first (default) or departures
  bool all = false;
  int jobs = 1;
  std::string shard;
  std::string from_trace;
  std::string rayjob;   // with --from-trace: the RayJob followed (empty: the first one seen)
  std::int64_t run_id = 0;     // --from-trace: the trace run (0: the last one)
  std::string controller;      // --from-trace: the model (empty: picked from the recorded fields)
  std::string faults;          // --from-trace: the fault budget, YAML (empty: the default)
  std::string db_path = "rjsim.db";
  bool db_given = false;       // --db was given (--from-trace stores into the trace's database otherwise)
  bool json = false;
};

// Run ids of what an exploration stored.
struct StoredFinding {
  std::int64_t run_id = 0;
  std::int64_t shrunk_run_id = 0;
};

explore::ExploreOptions explore_options(const ExploreFlags& flags) {
  explore::ExploreOptions options;
  options.strategy = *explore::parse_strategy(flags.strategy);
  options.seed = flags.seed;
  if (flags.runs > 0) options.runs = flags.runs;
  if (!flags.time.empty()) options.time_ms = parse_duration_ms(flags.time);
  options.all = flags.all;
  options.jobs = worker_threads(flags.jobs);
  if (!flags.shard.empty()) {
    const Shard shard = *parse_shard(flags.shard);
    options.shard_index = shard.index;
    options.shard_count = shard.count;
  }
  options.pct_depth = flags.depth;
  if (flags.order == "departures") options.exhaustive_order = explore::ExhaustiveOrder::by_departures;
  return options;
}

// A live line on a terminal; nothing when stderr is not one (CI logs stay clean).
std::function<void(const explore::ExploreProgress&)> progress_line(Io& io) {
  if (&io.err != &std::cerr || !::isatty(STDERR_FILENO)) return {};
  return [&io](const explore::ExploreProgress& p) {
    const double rate = p.elapsed_s > 0 ? static_cast<double>(p.schedules) / p.elapsed_s : 0;
    io.err << fmt::format("\r  schedules {} ({:.0f}/s)  distinct states {}  violations {}  elapsed {:.1f}s  "
                          "coverage ~{:.0f}%   ",
                          p.schedules, rate, p.distinct_states, p.violations, p.elapsed_s, 100 * p.coverage)
           << std::flush;
  };
}

// "stale reads after api.delete RayCluster/default/x": the targeted plan whose schedule found
// `finding`; empty when no plan did (a pct schedule after the plans, another strategy).
std::string plan_label(const explore::ExploreReport& report, const explore::Finding& finding) {
  if (report.strategy != explore::Strategy::targeted || finding.schedule_index < 0 ||
      finding.schedule_index >= std::ssize(report.plans)) {
    return "";
  }
  const explore::TargetedPlan& plan = report.plans[static_cast<std::size_t>(finding.schedule_index)];
  return fmt::format("{} {}", explore::to_string(plan.action), plan.about);
}

// The last exhaustive round's departure bound: null when it had none (or for another strategy).
nlohmann::ordered_json bound_json(const explore::ExploreReport& report) {
  if (report.rounds == 0 || report.departure_bound == explore::kNoDepartureBound) return nullptr;
  return report.departure_bound;
}

nlohmann::ordered_json summary_json(const explore::ExploreReport& report, const std::vector<StoredFinding>& stored) {
  nlohmann::ordered_json violations = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const explore::Finding& f = report.findings[i];
    violations.push_back({{"invariant", f.invariant},
                          {"run_id", stored.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(stored[i].run_id)},
                          {"shrunk_run_id", stored.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(stored[i].shrunk_run_id)},
                          {"steps", f.report.steps},
                          {"shrunk_steps", f.shrunk.report.steps},
                          {"decisions", f.schedule.size()},
                          {"shrunk_decisions", f.shrunk.schedule.size()},
                          {"departures", explore::departures(f.schedule)},
                          {"shrunk_departures", explore::departures(f.shrunk.schedule)},
                          {"schedule_index", f.schedule_index},
                          {"plan", plan_label(report, f).empty() ? nlohmann::ordered_json(nullptr)
                                                                 : nlohmann::ordered_json(plan_label(report, f))},
                          {"found_after_s", f.found_after_s}});
  }
  const double elapsed = std::max(report.elapsed_s, 1e-9);
  return {{"strategy", explore::to_string(report.strategy)},
          {"schedules", report.schedules},
          {"steps", report.steps},
          {"distinct_states", report.distinct_states},
          {"elapsed_s", report.elapsed_s},
          {"schedules_per_s", static_cast<double>(report.schedules) / elapsed},
          {"steps_per_s", static_cast<double>(report.steps) / elapsed},
          {"complete", report.complete},
          {"states_generated", report.states_generated},
          {"max_depth", report.max_depth},
          {"rounds", report.rounds},
          {"departure_bound", bound_json(report)},
          {"distinct_executions", report.distinct_executions},
          {"coverage", report.coverage},
          {"targeted_plans", report.plans.size()},
          {"violations", violations}};
}

// The summary row: a run of kind explore whose only event is the summary.
std::int64_t store_summary(store::Database& database, const engine::Scenario& scenario, const ExploreFlags& flags,
                           const explore::ExploreReport& report) {
  store::RunWriter writer = database.begin_run(store::RunHeader{
      std::nullopt, "explore", scenario.name, scenario.text, scenario.controller, static_cast<std::int64_t>(flags.seed)});
  events::Event summary;
  summary.origin = events::Origin::effect;
  summary.type = "explore.summary";
  summary.actor = "rjsim";
  summary.with("strategy", explore::to_string(report.strategy))
      .with("schedules", report.schedules)
      .with("steps", report.steps)
      .with("distinct_states", report.distinct_states)
      .with("complete", report.complete)
      .with("violations", static_cast<std::int64_t>(report.findings.size()))
      .with("shard", flags.shard.empty() ? std::string("0/1") : flags.shard);
  writer.emit(summary);
  const std::string outcome = report.findings.empty() ? "pass" : "violation";
  return writer.commit(store::RunSummary{outcome, report.steps, 0, ""});
}

std::vector<StoredFinding> store_results(store::Database& database, const engine::Scenario& scenario,
                                         const ExploreFlags& flags, const explore::ExploreReport& report) {
  const std::int64_t summary = store_summary(database, scenario, flags, report);
  store_schedule(database, scenario, "run", summary, scenario.seed, {}, false, false);   // the fault-free baseline
  std::vector<StoredFinding> stored;
  for (const explore::Finding& finding : report.findings) {
    StoredFinding ids;
    ids.run_id = store_schedule(database, scenario, "explore", summary, finding.schedule_seed, finding.schedule, true,
                                !flags.all);
    ids.shrunk_run_id = store_schedule(database, scenario, "shrink", ids.run_id, finding.schedule_seed,
                                       finding.shrunk.schedule, true, true);
    stored.push_back(ids);
  }
  return stored;
}

void print_text(std::ostream& out, const engine::Scenario& scenario, const explore::ExploreReport& report,
                const std::vector<StoredFinding>& stored, const std::string& db_path) {
  const double elapsed = std::max(report.elapsed_s, 1e-9);
  out << fmt::format("explore {} under {}: strategy {}\n", scenario.name, scenario.controller,
                     explore::to_string(report.strategy));
  out << fmt::format("schedules {} ({:.0f}/s), steps {} ({:.0f}/s), elapsed {:.2f}s\n", report.schedules,
                     static_cast<double>(report.schedules) / elapsed, report.steps,
                     static_cast<double>(report.steps) / elapsed, report.elapsed_s);
  if (report.strategy == explore::Strategy::exhaustive) {
    out << fmt::format("states generated {}, distinct states {} ({:.0f}/s), maximum depth {} decisions\n",
                       report.states_generated, report.distinct_states,
                       static_cast<double>(report.distinct_states) / elapsed, report.max_depth);
    if (report.departure_bound != explore::kNoDepartureBound) {
      out << fmt::format("rounds {}, the last over schedules departing at most {} times from the fault-free run\n",
                         report.rounds, report.departure_bound);
    }
  } else {
    out << fmt::format("distinct executions {}, estimated coverage {:.0f}%\n", report.distinct_executions,
                       100 * report.coverage);
  }
  if (report.strategy == explore::Strategy::targeted && report.schedules > 0) {
    out << (report.plans.empty()
                ? std::string("no targeted plans (the budget allows no crash, stale read, held delivery or slow "
                              "reaction): pct schedules only\n")
                : fmt::format("targeted plans {} (schedules 0-{}: a crash, stale reads, held deliveries or slow "
                              "reactions after a write of the fault-free run, or an outage after the "
                              "environment's), then pct\n",
                              report.plans.size(), report.plans.size() - 1));
  }
  if (report.findings.empty()) {
    out << (report.complete ? "complete: no violation within these bounds\n"
                            : fmt::format("no violation found within {} schedules\n", report.schedules));
    out << "  " << explore::describe_bounds(explore::search_bounds(scenario.faults)) << "\n";
    return;
  }
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const explore::Finding& f = report.findings[i];
    out << (f.schedule_index == explore::kFaultFreeSchedule
                ? fmt::format("\nviolation: {} (already in the fault-free run)\n", f.invariant)
                : fmt::format("\nviolation: {} (schedule {}, found after {:.2f}s)\n", f.invariant, f.schedule_index,
                              f.found_after_s));
    if (const std::string plan = plan_label(report, f); !plan.empty()) out << "  plan:   " << plan << "\n";
    out << fmt::format("  found:  {} steps, {} decisions, {} departing from the fault-free run{}\n", f.report.steps,
                       f.schedule.size(), explore::departures(f.schedule),
                       stored.empty() ? "" : fmt::format("  (run {})", stored[i].run_id));
    out << fmt::format("  shrunk: {} steps, {} decisions, {} departing{}  [{} shrink runs]\n",
                       f.shrunk.report.steps, f.shrunk.schedule.size(), explore::departures(f.shrunk.schedule),
                       stored.empty() ? "" : fmt::format("  (run {})", stored[i].shrunk_run_id), f.shrunk.runs);
    for (const explore::ViolationReport& v : f.shrunk.report.violations) {
      if (v.invariant == f.invariant) out << fmt::format("  #{} {}\n", v.seq, v.message);
    }
    if (!stored.empty()) {
      out << fmt::format("  replay: rjsim replay {} --run {}   (see it: rjsim show {} --run {})\n", db_path,
                         stored[i].shrunk_run_id, db_path, stored[i].shrunk_run_id);
    }
  }
}

// Whether the run being perturbed is the recorded one: the fault-free run's transitions aligned with
// the recording, as `rjsim conform` reports them.
std::string fault_free_line(const trace::Alignment& alignment, const std::string& db_path, std::int64_t run_id) {
  if (alignment.details.empty()) return "fault-free run: the trace recorded no transition of the RayJob to compare\n";
  if (alignment.differs == 0) {
    return fmt::format("fault-free run: agrees with all {} recorded transitions; the schedules depart from it\n",
                       alignment.details.size());
  }
  int first = 0;
  for (const trace::ConformDetail& d : alignment.details) {
    if (!d.agreed) {
      first = d.index;
      break;
    }
  }
  return fmt::format("fault-free run: {} of {} recorded transitions differ (the first: #{}; rjsim conform {} --run {} "
                     "shows them); the schedules depart from the model's run, not the recording\n",
                     alignment.differs, alignment.details.size(), first, db_path, run_id);
}

// What an exploration of a trace adds to the output: where the scenario came from.
struct TraceOrigin {
  store::RunInfo run;
  trace::TraceExploration exploration;
};

// The search, storing and printing shared by SCENARIO and --from-trace.
int explore_and_report(const engine::Scenario& scenario, const ExploreFlags& flags, const std::string& db_path,
                       const TraceOrigin* origin, Io& io) {
  explore::ExploreOptions options = explore_options(flags);
  options.on_progress = progress_line(io);
  const explore::ExploreReport report = explore::explore(scenario, options);
  if (options.on_progress) io.err << "\n";
  std::vector<StoredFinding> stored;
  if (!db_path.empty()) {
    store::Database database = store::Database::open(db_path);
    stored = store_results(database, scenario, flags, report);
  }
  if (flags.json) {
    nlohmann::ordered_json summary = summary_json(report, stored);
    const explore::SearchBounds bounds = explore::search_bounds(scenario.faults);
    summary["bounds"] = {{"explored", bounds.explored},
                         {"within", bounds.within},
                         {"held", bounds.held},
                         {"not_modelled", bounds.not_modelled}};
    if (origin != nullptr) {
      const trace::ConformReport& conform = origin->exploration.conform;
      summary["trace_run_id"] = origin->run.run_id;
      summary["rayjob"] = conform.derived.rayjob;
      summary["controller"] = conform.model.controller;
      summary["controller_why"] = conform.model.why;
      summary["assumptions"] = conform.derived.assumptions;
      summary["faults"] = origin->exploration.faults;
      summary["recorded_transitions"] = conform.alignment.details.size();
      summary["fault_free_agreed"] = conform.alignment.agreed;
      summary["scenario"] = scenario.name;
    }
    print_json_line(io.out, summary);
  } else {
    if (origin != nullptr) {
      print_trace_derivation(io.out, "explore --from-trace", origin->run, flags.from_trace,
                             origin->exploration.conform);
      io.out << fault_free_line(origin->exploration.conform.alignment, flags.from_trace, origin->run.run_id);
    }
    print_text(io.out, scenario, report, stored, db_path);
  }
  return report.findings.empty() ? 0 : 1;
}

// --faults: a `faults:` block in YAML flow style; the scenario loader checks its keys.
nlohmann::json parse_faults_flag(const std::string& text) {
  if (text.empty()) return nullptr;
  nlohmann::json faults;
  int line = 0;
  std::string error;
  if (!engine::yaml_document_to_json(text, faults, line, error) || !faults.is_object()) {
    throw UsageError(fmt::format("--faults: \"{}\" is not a YAML mapping (use, say, '{}')", text,
                                 trace::faults_label(trace::default_trace_faults())));
  }
  return faults;
}

int explore_trace(const ExploreFlags& flags, Io& io) {
  const nlohmann::json faults = parse_faults_flag(flags.faults);
  TraceOrigin origin;
  std::vector<events::Event> events;
  {
    const store::Database database = store::Database::open_existing(flags.from_trace);
    origin.run = find_trace_run(database, flags.run_id);
    events = read_events(database, origin.run.run_id);
  }
  try {
    origin.exploration = trace::trace_exploration(events, origin.run.run_id, flags.controller, faults, flags.rayjob);
  } catch (const trace::ConformError& e) {
    io.err << fmt::format("rjsim explore: {}: run {}: {}\n", flags.from_trace, origin.run.run_id, e.what());
    return exit_bad_input;
  }
  return explore_and_report(origin.exploration.scenario, flags, flags.db_given ? flags.db_path : flags.from_trace,
                            &origin, io);
}

int run_explore(const ExploreFlags& flags, Io& io) {
  if (!flags.scenario.empty() && !flags.from_trace.empty()) {
    throw UsageError("give either a SCENARIO or --from-trace DB, not both");
  }
  if (!flags.order.empty() && flags.strategy != "exhaustive") {
    throw UsageError(fmt::format("--order goes with --strategy exhaustive (the strategy is {})", flags.strategy));
  }
  if (flags.from_trace.empty()) {
    if (flags.scenario.empty()) throw UsageError("a SCENARIO is required (or --from-trace DB)");
    for (const auto& [given, flag] : {std::pair{flags.run_id != 0, "--run"},
                                      std::pair{!flags.controller.empty(), "--controller"},
                                      std::pair{!flags.rayjob.empty(), "--rayjob"},
                                      std::pair{!flags.faults.empty(), "--faults"}}) {
      if (given) {
        throw UsageError(fmt::format("{} goes with --from-trace DB (a scenario file names its model and its "
                                     "faults itself)",
                                     flag));
      }
    }
    return explore_and_report(engine::load_scenario(flags.scenario), flags, flags.db_path, nullptr, io);
  }
  return explore_trace(flags, io);
}

}  // namespace

void add_explore_command(CLI::App& rjsim, CommandTable& commands) {
  auto flags = std::make_shared<ExploreFlags>();
  CLI::App* explore = commands.add(
      rjsim, "explore",
      "search the schedules within a scenario's faults for violations; shrink, store and print "
      "the replay command",
      {"rjsim explore scenarios/explore/suspend-before-cluster-cached.yaml --strategy pct --time 30s",
       "rjsim explore scenarios/x.yaml --shard 0/4 --db shard0.db   # then: rjsim merge",
       "rjsim explore --from-trace traces.db --run 3   # perturb a recorded trace (rjsim import)"});
  explore->add_option("SCENARIO", flags->scenario, "the scenario file (YAML, DESIGN.md §4); or --from-trace DB")
      ->type_name("");
  explore
      ->add_option("--strategy", flags->strategy,
                   "how to search: random, pct, exhaustive or targeted")
      ->type_name("S")
      ->check(one_of({"random", "pct", "exhaustive", "targeted"}))
      ->capture_default_str();
  explore->add_option("--runs", flags->runs, "stop after N schedules (default 1000 unless --time is given)")
      ->type_name("N")
      ->check(at_least_one());
  explore->add_option("--time", flags->time, "stop after D of wall time (500ms, 30s, 2m, 1h)")
      ->type_name("D")
      ->check(duration());
  add_seed_option(*explore, flags->seed, "the seed of the search")->capture_default_str();
  explore->add_option("--depth", flags->depth, "pct: the bug depth d (d - 1 priority change points)")
      ->type_name("d")
      ->check(at_least_one())
      ->capture_default_str();
  explore->add_flag("--all", flags->all,
                    "keep searching after the first violation and report every invariant found");
  explore
      ->add_option("--order", flags->order,
                   "exhaustive: depth-first (default; the fewest runs to a proof) or departures (rounds over "
                   "schedules departing at most 0, 1, 2, 3, 4, 8, 16... times from the fault-free run: races "
                   "needing few departures first, states of early rounds searched again)")
      ->type_name("O")
      ->check(one_of({"depth-first", "departures"}));
  add_jobs_option(*explore, flags->jobs);
  explore
      ->add_option("--shard", flags->shard,
                   "search only shard I of N (0 <= I < N), to split a search over machines")
      ->type_name("I/N")
      ->check(shard());
  explore
      ->add_option("--from-trace", flags->from_trace,
                   "instead of a SCENARIO: the scenario conform derives from a trace run of DB (rjsim import), "
                   "perturbed at each controller write (a crash, stale reads, held deliveries)")
      ->type_name("DB");
  add_run_id_option(*explore, flags->run_id, "with --from-trace: the trace run (default: the last one)");
  add_controller_option(*explore, flags->controller,
                        "with --from-trace: the model (default: picked from the recorded fields)");
  explore
      ->add_option("--rayjob", flags->rayjob,
                   "with --from-trace: the RayJob to follow, NAME or NAMESPACE/NAME (default: the first one the "
                   "trace shows)")
      ->type_name("NAME");
  explore
      ->add_option("--faults", flags->faults,
                   fmt::format("with --from-trace: the fault budget, a faults: block in YAML flow style "
                               "(default: {})",
                               trace::faults_label(trace::default_trace_faults())))
      ->type_name("YAML");
  CLI::Option* db = add_db_option(*explore, flags->db_path,
                                  "where the counterexamples are stored (\"\" stores nothing; with --from-trace the "
                                  "default is DB)");
  add_json_flag(*explore, flags->json);

  commands.set_action(explore, [flags, db](Io& io) {
    flags->db_given = db->count() > 0;
    return run_explore(*flags, io);
  });
}

}  // namespace rjsim::cli
