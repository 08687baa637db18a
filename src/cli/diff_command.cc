// rjsim diff: where two recorded runs first differ (DESIGN.md §6): typically one scenario under
// two seeds or two models. Prints the first event (by seq) that differs, with a few events of
// context from both runs, and each RayJob's persisted transitions in A beside those in B, rows
// that differ marked. Exit 0 when the runs have the same events, 1 when they differ, 2 when a
// run or the database is not there. The database is only read.
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/json_output.h"
#include "cli/run_output.h"
#include "cli/run_record.h"
#include "cli/stored_run.h"
#include "cli/run_diff.h"
#include "cli/diff_html.h"
#include "cli/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <ostream>

namespace rjsim::cli {
namespace {

constexpr std::size_t context_events = 3;

struct DiffOptions {
  std::string db_path;
  std::int64_t run_a = 0;
  std::int64_t run_b = 0;
  bool json = false;
  std::string format = "text";
};

// ---- Text ----

std::string run_line(std::string_view label, const store::RunInfo& info, std::int64_t events) {
  return fmt::format("{}: {} ({}, {} events, log hash {})\n", label, describe_run(info),
                     info.outcome.value_or("not finished"), events, info.log_hash.value_or("-"));
}

// What sets the runs apart before any event is compared: allowed, and often the point.
std::vector<std::string> setting_notes(const store::RunInfo& a, const store::RunInfo& b) {
  std::vector<std::string> notes;
  if (a.scenario != b.scenario) {
    notes.push_back(fmt::format("the runs are of different scenarios: A {}, B {}", a.scenario, b.scenario));
  }
  if (a.controller != b.controller) {
    notes.push_back(fmt::format("the runs are of different models: A {}, B {}", a.controller, b.controller));
  }
  if (a.seed != b.seed) {
    notes.push_back(fmt::format("the runs have different seeds: A {}, B {}", recorded_seed(a), recorded_seed(b)));
  }
  return notes;
}

void print_events(std::ostream& out, const std::vector<events::Event>& events,
                  const std::optional<events::Event>& first) {
  if (first) {
    out << "  > " << format_timeline_line(*first) << "\n";
  } else {
    out << "  > (the run has ended)\n";
  }
  for (const events::Event& event : events) out << "    " << format_timeline_line(event) << "\n";
}

std::string time_of(const std::optional<events::Event>& event) {
  return event ? format_virtual_time(event->at_ms) : "its end";
}

void print_first_difference(std::ostream& out, const EventComparison& comparison,
                            std::int64_t run_a, std::int64_t run_b) {
  const EventDifference& difference = *comparison.first_difference;
  out << fmt::format("First difference at seq {} (A at {}, B at {}), in {}:\n", difference.seq,
                     time_of(difference.a), time_of(difference.b), fmt::join(difference.fields, ", "));
  if (!comparison.common_before.empty()) {
    out << "  both runs before it:\n";
    for (const events::Event& event : comparison.common_before) {
      out << "    " << format_timeline_line(event) << "\n";
    }
  }
  out << fmt::format("  A (run {}):\n", run_a);
  print_events(out, comparison.after_a, difference.a);
  out << fmt::format("  B (run {}):\n", run_b);
  print_events(out, comparison.after_b, difference.b);
}

std::string transition_cell(const std::optional<store::Transition>& t) {
  if (!t) return "(none)";
  return fmt::format("{:>10} #{:<5} {} -> {} jobStatus={}{}", format_virtual_time(t->at_ms), t->seq,
                     deployment_label(t->from_deployment), deployment_label(t->to_deployment),
                     t->to_job_status.empty() ? "\"\"" : t->to_job_status,
                     t->reason.empty() ? "" : " reason=" + t->reason);
}

std::string_view row_marker(RowDifference difference) {
  switch (difference) {
    case RowDifference::same: return " ";
    case RowDifference::timing: return "~";
    case RowDifference::transition: return "!";
  }
  return "?";
}

void print_side_by_side(std::ostream& out, const std::vector<RayJobTransitions>& paired,
                        std::int64_t run_a, std::int64_t run_b) {
  std::size_t width = fmt::format("run {}", run_a).size();
  for (const RayJobTransitions& rayjob : paired) {
    for (const TransitionPair& row : rayjob.rows) width = std::max(width, transition_cell(row.a).size());
  }
  out << "Transitions (! another change, ~ the same change at another seq or time):\n";
  if (paired.empty()) out << "  (none in either run)\n";
  for (const RayJobTransitions& rayjob : paired) {
    out << fmt::format("  {}\n", rayjob.rayjob);
    out << fmt::format("    {:<{}} | {}\n", fmt::format("run {}", run_a), width, fmt::format("run {}", run_b));
    for (const TransitionPair& row : rayjob.rows) {
      out << fmt::format("  {} {:<{}} | {}\n", row_marker(row.difference), transition_cell(row.a), width,
                         transition_cell(row.b));
    }
  }
}

void print_diff_text(std::ostream& out, const RunRecord& a, const RunRecord& b,
                     const EventComparison& comparison) {
  out << run_line("A", a.info, comparison.events_a) << run_line("B", b.info, comparison.events_b);
  for (const std::string& note : setting_notes(a.info, b.info)) out << "note: " << note << "\n";
  out << "\n";
  if (comparison.first_difference) {
    print_first_difference(out, comparison, a.info.run_id, b.info.run_id);
  } else {
    out << fmt::format("The runs are identical: the same {} events.\n", comparison.events_a);
  }
  out << "\n";
  print_side_by_side(out, pair_transitions(a.transitions, b.transitions), a.info.run_id, b.info.run_id);
}

// ---- JSON ----

nlohmann::ordered_json optional_event_json(const std::optional<events::Event>& event) {
  return event ? event_json(*event) : nlohmann::ordered_json(nullptr);
}

// Per RayJob (by name, in pair_transitions' order) its entries of each run's `run` object
// transitions; [] on the side of a run that has none for it.
nlohmann::ordered_json transitions_json(const RunRecord& a, const RunRecord& b) {
  nlohmann::ordered_json by_rayjob = nlohmann::ordered_json::object();
  for (const RayJobTransitions& rayjob : pair_transitions(a.transitions, b.transitions)) {
    by_rayjob[rayjob.rayjob] = {{"a", nlohmann::ordered_json::array()}, {"b", nlohmann::ordered_json::array()}};
  }
  for (const auto& [side, run] : {std::pair{"a", &a}, std::pair{"b", &b}}) {
    const nlohmann::ordered_json run_object = run_record_json(*run);
    for (const nlohmann::ordered_json& transition : run_object["transitions"]) {
      by_rayjob[transition["rayjob"].get<std::string>()][side].push_back(transition);
    }
  }
  return by_rayjob;
}

nlohmann::ordered_json diff_json(const RunRecord& a, const RunRecord& b,
                                 const EventComparison& comparison) {
  nlohmann::ordered_json first_difference = nullptr;
  if (const auto& difference = comparison.first_difference) {
    first_difference = {{"seq", difference->seq},
                        {"a", optional_event_json(difference->a)},
                        {"b", optional_event_json(difference->b)},
                        {"fields", difference->fields}};
  }
  return {{"run_a", a.info.run_id},
          {"run_b", b.info.run_id},
          {"identical", !comparison.first_difference},
          {"events_a", comparison.events_a},
          {"events_b", comparison.events_b},
          {"first_difference", first_difference},
          {"notes", setting_notes(a.info, b.info)},
          {"transitions", transitions_json(a, b)}};
}

int diff(const DiffOptions& options, Io& io) {
  const store::Database database = store::Database::open_existing(options.db_path);
  const RunRecord a = read_run_record(database, find_run(database, options.run_a));
  const RunRecord b = read_run_record(database, find_run(database, options.run_b));
  const EventComparison comparison =
      compare_events(database.events(options.run_a), database.events(options.run_b), context_events);
  if (options.json || options.format == "json") {
    print_json_line(io.out, diff_json(a, b, comparison));
  } else if (options.format == "html") {
    io.out << diff_html(a, b, comparison, database);
  } else {
    print_diff_text(io.out, a, b, comparison);
  }
  return comparison.first_difference ? exit_found : exit_ok;
}

}  // namespace

void add_diff_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* diff_app = commands.add(
      rjsim, "diff",
      "where two runs (or one scenario under two models) first differ (exit 1 if they do)",
      {"rjsim diff rjsim.db 12 13", "rjsim diff rjsim.db 12 13 --json",
       "rjsim diff rjsim.db 12 13 --format html > diff.html"});
  diff_app->add_option("DB", options->db_path, "the database that holds both runs")
      ->type_name("")
      ->required();
  diff_app->add_option("RUN_A", options->run_a, "the first run's id")
      ->type_name("")
      ->required()
      ->check(run_id());
  diff_app->add_option("RUN_B", options->run_b, "the second run's id")
      ->type_name("")
      ->required()
      ->check(run_id());
  add_json_flag(*diff_app, options->json);
  diff_app
      ->add_option("--format", options->format,
                   "text, json (as --json) or html (both runs' swimlanes from just before the first "
                   "difference, aligned, the difference marked)")
      ->type_name("FMT")
      ->check(one_of({"text", "json", "html"}))
      ->capture_default_str();

  commands.set_action(diff_app, [options](Io& io) { return diff(*options, io); });
}

}  // namespace rjsim::cli
