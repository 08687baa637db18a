// rjsim conform: replay a recorded trace through a model and report each recorded transition
// as agreed or differs (DESIGN.md §6; docs/traces.md "Conforming a trace"). The derivation of
// the stimuli, the run and the alignment are src/trace/conform.h; this file picks the run, and
// prints. Exit 0 when every recorded transition agrees, 1 when one differs, 2 for bad input (not
// a trace run, no RayJob in it, an unknown run or model).
#include "cli/commands.h"

#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/stored_run.h"
#include "cli/timeline.h"
#include "cli/trace_derivation.h"
#include "store/database.h"
#include "trace/conform.h"

namespace rjsim::cli {
namespace {

struct ConformOptions {
  std::string db_path;
  std::int64_t run_id = 0;  // 0: the last trace run in the database
  std::string controller;
  std::string rayjob;   // empty: the first RayJob the trace shows
  bool json = false;
  bool show_scenario = false;
};

nlohmann::ordered_json transition_json(const explore::Transition& t) {
  return {{"from", t.from}, {"to", t.to}, {"job_status", t.job_status}, {"reason", t.reason}, {"at_ms", t.at_ms}};
}

nlohmann::ordered_json conform_json(const store::RunInfo& run, const trace::ConformReport& report) {
  nlohmann::ordered_json details = nlohmann::ordered_json::array();
  for (const trace::ConformDetail& d : report.alignment.details) {
    details.push_back({{"index", d.index},
                       {"recorded", transition_json(d.recorded)},
                       {"model", d.model ? transition_json(*d.model) : nlohmann::ordered_json(nullptr)},
                       {"agreed", d.agreed},
                       {"note", d.note}});
  }
  nlohmann::ordered_json after = nlohmann::ordered_json::array();
  for (const explore::Transition& t : report.alignment.model_after) after.push_back(transition_json(t));
  return {{"run_id", run.run_id},
          {"controller", report.model.controller},
          {"recorded_transitions", report.alignment.details.size()},
          {"agreed", report.alignment.agreed},
          {"differs", report.alignment.differs},
          {"details", details},
          {"rayjob", report.derived.rayjob},
          {"controller_why", report.model.why},
          {"assumptions", report.derived.assumptions},
          {"model_after_recording", after},
          {"model_outcome", report.run.outcome},
          {"scenario", report.derived.scenario.text}};
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

int conform(const ConformOptions& options, Io& io) {
  store::Database database = store::Database::open_existing(options.db_path);
  const store::RunInfo run = find_trace_run(database, options.run_id);
  const std::vector<events::Event> events = read_events(database, run.run_id);
  trace::ConformReport report;
  try {
    report = trace::conform_trace(events, options.controller, options.rayjob);
  } catch (const trace::ConformError& e) {
    io.err << fmt::format("rjsim conform: {}: run {}: {}\n", options.db_path, run.run_id, e.what());
    return exit_bad_input;
  }
  if (options.json) {
    io.out << conform_json(run, report).dump() << "\n";
  } else {
    print_text(io.out, run, report, options);
  }
  return report.alignment.differs == 0 ? 0 : 1;
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
                   "the RayJob to follow, NAME or NAMESPACE/NAME (default: the first one the trace shows)")
      ->type_name("NAME");
  add_json_flag(*conform_command, options->json);
  conform_command->add_flag("--show-scenario", options->show_scenario,
                            "also print the scenario derived from the trace");

  commands.set_action(conform_command, [options](Io& io) { return conform(*options, io); });
}

}  // namespace rjsim::cli
