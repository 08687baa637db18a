// rjsim show: a recorded run read back from the event log (DESIGN.md §6). As text: a header,
// the timeline, the persisted transitions, and each violation with the steps that led to it. As
// json: the DESIGN §6 `run` object with the run's events and its transition graph. As dot or
// mermaid: the transition graph alone. As kubectl-watch: the run's watch log of one kind as
// `kubectl get KIND -w --output-watch-events -o json` would have printed it (a simulated run is
// replayed from its inputs to get its objects; trace/kubectl_watch_export.h), which `rjsim import`
// reads back. As html: one self-contained page (cli/run_html.h). The database is only read.
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/json_output.h"
#include "cli/run_html.h"
#include "cli/run_output.h"
#include "cli/run_record.h"
#include "cli/stored_run.h"
#include "cli/swimlane_svg.h"
#include "cli/swimlanes.h"
#include "cli/timeline.h"
#include "cli/transition_graph.h"
#include "cli/violation_excerpt.h"
#include "trace/kubectl_watch_export.h"

#include <fmt/format.h>

#include <memory>
#include <ostream>

namespace rjsim::cli {
namespace {

struct ShowOptions {
  std::string db_path;
  std::int64_t run_id = 0;  // 0: the last run in the database
  std::string format = "text";
  std::string kind = "RayJob";  // the watched kind of kubectl-watch
  bool kind_given = false;
};

template <typename T>
std::string or_none(const std::optional<T>& value, std::string_view none) {
  return value ? fmt::format("{}", *value) : std::string(none);
}

void print_header(std::ostream& out, const store::RunInfo& info) {
  out << fmt::format("run          {}\n", info.run_id);
  out << fmt::format("kind         {}\n", info.kind);
  out << fmt::format("scenario     {}\n", info.scenario);
  out << fmt::format("model        {}\n", info.controller);
  out << fmt::format("seed         {}\n", recorded_seed(info));
  out << fmt::format("outcome      {}\n", or_none(info.outcome, "(not finished)"));
  out << fmt::format("steps        {}\n", or_none(info.steps, "-"));
  out << fmt::format("virtual time {}\n",
                     info.virtual_ms ? format_virtual_time(*info.virtual_ms) : "-");
  out << fmt::format("log hash     {}\n", or_none(info.log_hash, "-"));
  out << fmt::format("parent run   {}\n", or_none(info.parent_run, "none"));
}

void print_timeline(std::ostream& out, store::EventReader reader) {
  out << "Timeline:\n";
  events::Event event;
  while (reader.next(event)) out << format_timeline_line(event) << "\n";
}

std::vector<TransitionRow> transition_rows(const std::vector<store::Transition>& transitions) {
  std::vector<TransitionRow> rows;
  for (const store::Transition& t : transitions) {
    rows.push_back(TransitionRow{t.at_ms, t.seq, t.rayjob, t.from_deployment, t.to_deployment,
                                 t.to_job_status, t.reason});
  }
  return rows;
}

void print_violations(std::ostream& out, const std::vector<store::Violation>& violations,
                      const std::vector<ViolationExcerpt>& excerpts) {
  out << fmt::format("Violations ({}):\n", violations.size());
  for (std::size_t index = 0; index < violations.size(); ++index) {
    const store::Violation& violation = violations[index];
    const ViolationExcerpt& excerpt = excerpts[index];
    out << fmt::format("\n  #{:<6} {}: {}\n", violation.seq, violation.invariant, violation.message);
    out << fmt::format("  the steps that led to it ({}; * = its step and the seqs it names):\n",
                       excerpt.rayjob.empty() ? "every object" : excerpt.rayjob + " and its objects");
    for (const std::string& line : excerpt.lines) out << "  " << line << "\n";
  }
}

int show_text(Io& io, const store::Database& database, const RunRecord& run) {
  const std::int64_t run_id = run.info.run_id;
  print_header(io.out, run.info);
  io.out << "\n";
  print_timeline(io.out, database.events(run_id));
  io.out << "\n";
  print_transitions(io.out, transition_rows(run.transitions));
  io.out << "\n";
  print_violations(io.out, run.violations, violation_excerpts(database, run_id, run.violations));
  return exit_ok;
}

int show_json(Io& io, const store::Database& database, const RunRecord& run) {
  nlohmann::ordered_json json = run_record_json(run);
  const std::vector<ViolationExcerpt> excerpts =
      violation_excerpts(database, run.info.run_id, run.violations);
  for (std::size_t index = 0; index < excerpts.size(); ++index) {
    json["violations"][index]["rayjob"] = excerpts[index].rayjob;
    json["violations"][index]["excerpt"] = excerpts[index].seqs;
  }
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  store::EventReader reader = database.events(run.info.run_id);
  events::Event event;
  while (reader.next(event)) events.push_back(event_json(event));
  json["events"] = std::move(events);
  json["graph"] = graph_json(transition_graph(run.transitions));
  print_json_line(io.out, json);
  return exit_ok;
}

int show_graph(Io& io, const RunRecord& run, const std::string& format) {
  const TransitionGraph graph = transition_graph(run.transitions);
  const std::string title = describe_run(run.info);
  io.out << (format == "dot" ? graph_dot(graph, title) : graph_mermaid(graph, title));
  return exit_ok;
}

// The swimlanes alone: around the first violations when there are any, else the whole run.
int show_svg(Io& io, const store::Database& database, const RunRecord& run) {
  std::vector<std::vector<std::int64_t>> shown;
  for (const ViolationExcerpt& excerpt : violation_excerpts(database, run.info.run_id, run.violations)) {
    shown.push_back(excerpt.seqs);
  }
  const Swimlanes lanes = collect_swimlanes(database.events(run.info.run_id), run.violations,
                                            violation_window(shown, run.violations));
  io.out << swimlane_svg(lanes, describe_run(run.info));
  return exit_ok;
}

int show_kubectl_watch(Io& io, const store::Database& database, const store::RunInfo& info, engine::Kind kind) {
  const trace::WatchExport exported = trace::export_kubectl_watch(recorded_run(database, info), info.kind, kind);
  if (exported.divergence) io.err << "rjsim show: warning: " << *exported.divergence << "\n";
  io.out << exported.text;
  return exit_ok;
}

int show(const ShowOptions& options, Io& io) {
  if (options.kind_given && options.format != "kubectl-watch") {
    throw UsageError("--kind applies to --format kubectl-watch only");
  }
  const store::Database database = store::Database::open_existing(options.db_path);
  if (options.format == "kubectl-watch") {
    engine::Kind kind = engine::Kind::RayJob;
    engine::parse_kind(options.kind, kind);  // the flag's check admits only kinds
    return show_kubectl_watch(io, database, find_run(database, options.run_id), kind);
  }
  const RunRecord run = read_run_record(database, find_run(database, options.run_id));
  if (options.format == "json") return show_json(io, database, run);
  if (options.format == "html") {
    io.out << run_html(run, violation_excerpts(database, run.info.run_id, run.violations), database);
    return exit_ok;
  }
  if (options.format == "svg") return show_svg(io, database, run);
  if (options.format == "dot" || options.format == "mermaid") {
    return show_graph(io, run, options.format);
  }
  return show_text(io, database, run);
}

}  // namespace

void add_show_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* show_app = commands.add(
      rjsim, "show", "a recorded run: its timeline, transition graph and violations",
      {"rjsim show rjsim.db --run 12 --format mermaid",
       "rjsim show rjsim.db --format dot | dot -Tsvg > run.svg",
       "rjsim show rjsim.db --format kubectl-watch > rayjobs.json",
       "rjsim show rjsim.db --run 3 --format html > run-3.html",
       "rjsim show rjsim.db --run 3 --format svg > run-3.svg"});
  show_app->add_option("DB", options->db_path, "the database that holds the run")
      ->type_name("")
      ->required();
  add_run_id_option(*show_app, options->run_id, "the run to show (default: the last one)");
  show_app
      ->add_option("--format", options->format,
                   "text (timeline, transitions, violations with their steps), json (the run "
                   "object with its events and graph), dot or mermaid (the transition graph), "
                   "kubectl-watch (the watch log of --kind as `kubectl get -w --output-watch-events "
                   "-o json` prints it; `rjsim import` reads it), html (one self-contained page: "
                   "header, swimlanes, transitions, violations, graph, timeline), svg (the swimlanes "
                   "alone: around the violations, or the whole run)")
      ->type_name("FMT")
      ->check(one_of({"text", "json", "dot", "mermaid", "kubectl-watch", "html", "svg"}))
      ->capture_default_str();
  CLI::Option* kind_option =
      show_app
          ->add_option("--kind", options->kind,
                       "with --format kubectl-watch: the kind whose watch is written (kubectl watches "
                       "one kind per process)")
          ->type_name("KIND")
          ->check(one_of({"RayJob", "RayCluster", "Service", "Job", "Pod"}))
          ->capture_default_str();

  commands.set_action(show_app, [options, kind_option](Io& io) {
    options->kind_given = kind_option->count() > 0;
    return show(*options, io);
  });
}

}  // namespace rjsim::cli
