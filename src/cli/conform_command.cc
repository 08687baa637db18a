// rjsim conform: replay a recorded trace through a model and report each recorded transition
// as agreed or differs (DESIGN.md §6; docs/traces.md "Conforming a trace"). The derivation of
// the stimuli, the run and the alignment are src/trace/conform.h; this file picks the run and
// the RayJobs (every one the trace shows, each on its own, or the one --rayjob names), and
// prints. With --explain, a RayJob that differs is searched for a schedule of stale reads, held
// deliveries and crashes under which it agrees (trace/conform_explain.h), stored as an explore
// run for `rjsim replay`. Exit 0 when every recorded transition agrees (or, with --explain, every
// RayJob that differs is explained), 1 when one differs, 2 for bad input (not a trace run, no
// RayJob in it, an unknown run, model or RayJob).
#include "cli/commands.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/json_output.h"
#include "cli/stored_run.h"
#include "cli/timeline.h"
#include "cli/trace_derivation.h"
#include "store/database.h"
#include "trace/conform.h"
#include "trace/conform_explain.h"
#include "trace/explore_trace.h"

namespace rjsim::cli {
namespace {

struct ConformOptions {
  std::string db_path;
  std::int64_t run_id = 0;  // 0: the last trace run in the database
  std::string controller;
  std::string rayjob;   // empty: every RayJob the trace shows
  bool json = false;
  bool show_scenario = false;
  bool explain = false;
};

// What --explain found for one RayJob that differs.
struct ExplainedRayJob {
  trace::Explanation explanation;
  std::string faults;                  // the budget searched, in flow style
  std::int64_t stored_run = 0;         // found: the run stored for replay
};

nlohmann::ordered_json transition_json(const explore::Transition& t) {
  return {{"from", t.from}, {"to", t.to}, {"job_status", t.job_status}, {"reason", t.reason}, {"at_ms", t.at_ms}};
}

nlohmann::ordered_json details_json(const trace::ConformReport& report) {
  nlohmann::ordered_json details = nlohmann::ordered_json::array();
  for (const trace::ConformDetail& d : report.alignment.details) {
    details.push_back({{"rayjob", report.derived.rayjob},
                       {"index", d.index},
                       {"recorded", transition_json(d.recorded)},
                       {"model", d.model ? transition_json(*d.model) : nlohmann::ordered_json(nullptr)},
                       {"agreed", d.agreed},
                       {"note", d.note}});
  }
  return details;
}

// One RayJob's conformance: the DESIGN §6 fields and what explains them.
nlohmann::ordered_json explanation_json(const std::optional<ExplainedRayJob>& explained) {
  if (!explained) return nullptr;
  const trace::Explanation& e = explained->explanation;
  return {{"found", e.found},
          {"how", e.how},
          {"schedules", e.schedules},
          {"targeted_plans", e.targeted_plans},
          {"faults", explained->faults},
          {"stored_run", e.found ? nlohmann::ordered_json(explained->stored_run) : nlohmann::ordered_json(nullptr)}};
}

nlohmann::ordered_json rayjob_json(const store::RunInfo& run, const trace::ConformReport& report,
                                   const std::optional<ExplainedRayJob>& explained) {
  nlohmann::ordered_json after = nlohmann::ordered_json::array();
  for (const explore::Transition& t : report.alignment.model_after) after.push_back(transition_json(t));
  return {{"run_id", run.run_id},
          {"controller", report.model.controller},
          {"recorded_transitions", report.alignment.details.size()},
          {"agreed", report.alignment.agreed},
          {"differs", report.alignment.differs},
          {"details", details_json(report)},
          {"timing", report.timing},
          {"rayjob", report.derived.rayjob},
          {"controller_why", report.model.why},
          {"assumptions", report.derived.assumptions},
          {"model_after_recording", after},
          {"model_outcome", report.run.outcome},
          {"scenario", report.derived.scenario.text},
          {"explanation", explanation_json(explained)}};
}

// One RayJob: its own object, with `rayjobs` holding it. Several: the DESIGN §6 fields summed
// over them (details of all, each naming its RayJob), and each RayJob's object in `rayjobs`.
nlohmann::ordered_json conform_json(const store::RunInfo& run, const std::vector<trace::ConformReport>& reports,
                                    const std::vector<std::optional<ExplainedRayJob>>& explained) {
  nlohmann::ordered_json rayjobs = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < reports.size(); ++i) rayjobs.push_back(rayjob_json(run, reports[i], explained[i]));
  if (reports.size() == 1) {
    nlohmann::ordered_json json = rayjobs.front();
    json["rayjobs"] = rayjobs;
    return json;
  }
  nlohmann::ordered_json details = nlohmann::ordered_json::array();
  std::size_t recorded = 0;
  int agreed = 0;
  int differs = 0;
  for (const trace::ConformReport& report : reports) {
    for (nlohmann::ordered_json& detail : details_json(report)) details.push_back(std::move(detail));
    recorded += report.alignment.details.size();
    agreed += report.alignment.agreed;
    differs += report.alignment.differs;
  }
  return {{"run_id", run.run_id},
          {"controller", reports.front().model.controller},
          {"recorded_transitions", recorded},
          {"agreed", agreed},
          {"differs", differs},
          {"details", details},
          {"controller_why", reports.front().model.why},
          {"rayjobs", rayjobs}};
}

void print_text(std::ostream& out, const store::RunInfo& run, const trace::ConformReport& report,
                const ConformOptions& options) {
  const trace::Alignment& a = report.alignment;
  print_trace_derivation(out, "conform", run, options.db_path, report);
  if (options.show_scenario) out << "derived scenario:\n" << report.derived.scenario.text;
  out << "recorded transitions:\n";
  for (const trace::ConformDetail& d : a.details) {
    out << fmt::format("  #{:<2} {:<8} {}", d.index, d.agreed ? "agreed" : "DIFFERS", trace::transition_label(d.recorded));
    if (!d.agreed) {
      out << fmt::format("\n              model: {}", d.model ? trace::transition_label(*d.model) : "(none)");
    }
    out << "\n";
    if (!d.note.empty()) out << "              " << d.note << "\n";
  }
  if (!a.model_after.empty()) {
    out << "the model went on after the recording ended (not compared):\n";
    for (const explore::Transition& t : a.model_after) {
      out << fmt::format("  {}  at {}\n", trace::transition_label(t), format_virtual_time(t.at_ms));
    }
  }
  if (a.details.empty()) {
    out << "the trace recorded no transition of the RayJob: nothing to compare\n";
  } else if (a.differs == 0 && !report.timing.empty()) {
    out << fmt::format("all {} recorded transitions agree with {} with the timing {}, within what the recording can "
                       "tell (see the assumptions)\n",
                       a.details.size(), report.model.controller, report.timing);
  } else if (a.differs == 0) {
    out << fmt::format("all {} recorded transitions agree with {}\n", a.details.size(), report.model.controller);
  } else {
    int first = 0;
    for (const trace::ConformDetail& d : a.details) {
      if (!d.agreed) {
        first = d.index;
        break;
      }
    }
    out << fmt::format("{} of {} recorded transitions differ from {} (the first: #{})\n", a.differs, a.details.size(),
                       report.model.controller, first);
  }
}

void print_explanation(std::ostream& out, const trace::ConformReport& report, const ExplainedRayJob& explained,
                       const std::string& db_path) {
  const trace::Explanation& e = explained.explanation;
  if (!e.found) {
    out << fmt::format("not explained: under none of {} schedules within faults {} ({} targeted plans, then PCT) "
                       "does {} make the recorded transitions\n",
                       e.schedules, explained.faults, e.targeted_plans, report.model.controller);
    return;
  }
  out << fmt::format("explained: all {} recorded transitions agree with {} under {} (schedule {} of the search "
                     "within faults {})\n",
                     e.alignment.details.size(), report.model.controller, e.how, e.schedules, explained.faults);
  out << fmt::format("  stored as run {}: rjsim replay {} --run {}   (see it: rjsim show {} --run {})\n",
                     explained.stored_run, db_path, explained.stored_run, db_path, explained.stored_run);
}

// Several RayJobs: which agreed and which did not, after their own reports.
void print_summary(std::ostream& out, const std::vector<trace::ConformReport>& reports) {
  std::vector<std::string> differing;
  for (const trace::ConformReport& report : reports) {
    if (report.alignment.differs > 0) differing.push_back(report.derived.rayjob);
  }
  const std::size_t agreeing = reports.size() - differing.size();
  out << fmt::format("\n{} RayJobs: {} {} with {}, {} {}{}\n", reports.size(), agreeing, agreeing == 1 ? "agrees" : "agree",
                     reports.front().model.controller, differing.size(), differing.size() == 1 ? "differs" : "differ",
                     differing.empty() ? "" : fmt::format(" ({})", fmt::join(differing, ", ")));
}

// Every RayJob the trace shows, or the one --rayjob names.
std::vector<trace::ConformReport> conform_rayjobs(const std::vector<events::Event>& events,
                                                  const ConformOptions& options) {
  std::vector<trace::ConformReport> reports;
  if (!options.rayjob.empty()) {
    reports.push_back(trace::conform_trace(events, options.controller, options.rayjob));
    return reports;
  }
  const std::vector<std::string> rayjobs = trace::trace_rayjobs(events);
  if (rayjobs.size() <= 1) {   // none: conform_trace says what is missing
    reports.push_back(trace::conform_trace(events, options.controller));
    return reports;
  }
  if (!options.controller.empty()) {
    for (const std::string& rayjob : rayjobs) reports.push_back(trace::conform_trace(events, options.controller, rayjob));
    return reports;
  }
  // The model is the trace's (one operator ran them all): picked once, not once per RayJob.
  const trace::ModelChoice model = trace::pick_conform_model(events);
  for (const std::string& rayjob : rayjobs) {
    reports.push_back(trace::conform_trace(events, model.controller, rayjob));
    reports.back().model = model;
  }
  return reports;
}

// --explain for one RayJob that differs: the search, and the schedule it found stored as an
// explore run whose parent is the trace run.
ExplainedRayJob explain(store::Database& database, const store::RunInfo& run, const trace::ConformReport& report) {
  const trace::TraceExploration exploration =
      trace::trace_exploration(report, run.run_id, trace::default_explain_faults());
  ExplainedRayJob explained{trace::explain_difference(exploration), trace::faults_label(exploration.faults), 0};
  if (explained.explanation.found) {
    trace::ExplanationRun again = trace::explanation_run(exploration, explained.explanation);
    explained.stored_run = run_and_store(database, exploration.scenario, again.options, "explore", run.run_id).run_id;
  }
  return explained;
}

int conform(const ConformOptions& options, Io& io) {
  store::Database database = store::Database::open_existing(options.db_path);
  const store::RunInfo run = find_trace_run(database, options.run_id);
  const std::vector<events::Event> events = read_events(database, run.run_id);
  std::vector<trace::ConformReport> reports;
  std::vector<std::optional<ExplainedRayJob>> explained;
  try {
    reports = conform_rayjobs(events, options);
    for (const trace::ConformReport& report : reports) {
      const bool asked = options.explain && report.alignment.differs > 0;
      explained.push_back(asked ? std::optional(explain(database, run, report)) : std::nullopt);
    }
  } catch (const trace::ConformError& e) {
    io.err << fmt::format("rjsim conform: {}: run {}: {}\n", options.db_path, run.run_id, e.what());
    return exit_bad_input;
  }
  if (options.json) {
    print_json_line(io.out, conform_json(run, reports, explained));
  } else {
    for (std::size_t i = 0; i < reports.size(); ++i) {
      if (i > 0) io.out << "\n";
      print_text(io.out, run, reports[i], options);
      if (explained[i]) print_explanation(io.out, reports[i], *explained[i], options.db_path);
    }
    if (reports.size() > 1) print_summary(io.out, reports);
  }
  bool all_agree = true;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    all_agree = all_agree && (reports[i].alignment.differs == 0 || (explained[i] && explained[i]->explanation.found));
  }
  return all_agree ? 0 : 1;
}

}  // namespace

void add_conform_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ConformOptions>();
  CLI::App* conform_command = commands.add(
      rjsim, "conform",
      "replay a recorded trace through a model: is each recorded transition agreed or different",
      {"rjsim conform traces.db --run 3 --controller kuberay-1.1", "rjsim conform traces.db --rayjob default/rayjob-sample"});
  conform_command->add_option("DB", options->db_path, "the database that holds the trace run")
      ->type_name("")
      ->required();
  add_run_id_option(*conform_command, options->run_id, "the trace run (default: the last one)");
  add_controller_option(*conform_command, options->controller,
                        "the model to replay it through (default: picked from the recorded fields)");
  conform_command
      ->add_option("--rayjob", options->rayjob,
                   "the RayJob to conform, NAME or NAMESPACE/NAME (default: every RayJob the trace shows, "
                   "each on its own)")
      ->type_name("NAME");
  add_json_flag(*conform_command, options->json);
  conform_command->add_flag("--show-scenario", options->show_scenario,
                            "also print the scenario derived from the trace");
  conform_command->add_flag("--explain", options->explain,
                            "for a RayJob that differs, search schedules of stale reads, held deliveries and a crash "
                            "for one under which it agrees, and store it for rjsim replay");

  commands.set_action(conform_command, [options](Io& io) { return conform(*options, io); });
}

}  // namespace rjsim::cli
