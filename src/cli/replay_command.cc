// rjsim replay: re-executes a recorded run from its inputs and compares every event (DESIGN.md
// §6). Prints "identical" with the log hash, or the first differing seq with the recorded and the
// replayed event side by side and the RayJob transitions that changed. Exit 0 identical,
// 1 diverged. With --store the replay is recorded too (kind replay, parent_run the original), so
// that `rjsim diff DB ORIGINAL REPLAY` and `rjsim show` can look at it.
#include "cli/commands.h"

#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/json_output.h"
#include "cli/run_output.h"
#include "cli/stored_run.h"
#include "cli/timeline.h"
#include "explore/replay.h"
#include "store/database.h"

namespace rjsim::cli {
namespace {

struct ReplayOptions {
  std::string db_path;
  std::int64_t run_id = 0;  // 0: the last run in the database
  bool json = false;
  bool store = false;
};

// How many equal events before the first difference are shown, for context.
constexpr std::int64_t kContextEvents = 3;

std::string transition_text(const std::optional<explore::Transition>& t) {
  if (!t) return "(none)";
  return fmt::format("{} -> {}  jobStatus={}{}  at {}", t->from.empty() ? "\"\"" : t->from, t->to,
                     t->job_status.empty() ? "\"\"" : t->job_status, t->reason.empty() ? "" : " reason=" + t->reason,
                     format_virtual_time(t->at_ms));
}

std::string event_or_end(const std::optional<events::Event>& event, const char* end_note) {
  return event ? format_timeline_line(*event) : end_note;
}

void print_difference(std::ostream& out, const explore::RecordedRun& recorded,
                      const explore::EventDifference& difference) {
  const std::int64_t at_ms = difference.recorded ? difference.recorded->at_ms : difference.replayed->at_ms;
  out << fmt::format("diverged at seq {} (virtual time {}): the first event that differs\n", difference.seq,
                     format_virtual_time(at_ms));
  const std::int64_t first_context = std::max<std::int64_t>(0, difference.seq - kContextEvents);
  for (std::int64_t seq = first_context; seq < difference.seq; ++seq) {
    out << "  same     " << format_timeline_line(recorded.events[static_cast<std::size_t>(seq)]) << "\n";
  }
  out << "  recorded " << event_or_end(difference.recorded, "(the recording ends here)") << "\n";
  out << "  replayed " << event_or_end(difference.replayed, "(the replay ends here)") << "\n";
}

void print_transition_changes(std::ostream& out, const explore::ReplayReport& report) {
  if (report.transition_changes.empty()) {
    out << "transitions: the same (the difference did not change what was persisted)\n";
    return;
  }
  out << "transitions that changed (the first per RayJob):\n";
  for (const explore::TransitionChange& change : report.transition_changes) {
    out << fmt::format("  {} #{}\n    recorded  {}\n    replayed  {}\n", change.rayjob, change.index + 1,
                       transition_text(change.recorded), transition_text(change.replayed));
  }
}

void print_text(std::ostream& out, const store::RunInfo& run, const explore::RecordedRun& recorded,
                const explore::ReplayReport& report, std::int64_t stored_run_id, const std::string& db_path) {
  out << fmt::format("replay of run {} ({} under {}, seed {}) from {}\n", run.run_id, run.scenario,
                     run.controller, report.run.seed, db_path);
  if (report.identical) {
    out << fmt::format("identical: {} events, log hash {}\n", report.run.events, report.run.log_hash);
  } else {
    print_difference(out, recorded, *report.first_difference);
    print_transition_changes(out, report);
    if (report.decisions_diverged) {
      out << "the model asked for other decisions than were recorded; from there the fault-free choice "
             "answered\n";
    }
    out << fmt::format("recorded: {} events, log hash {}\nreplayed: {} events, log hash {}\n",
                       report.recorded_events, run.log_hash.value_or("(none)"), report.run.events,
                       report.run.log_hash);
  }
  if (stored_run_id != 0) {
    out << fmt::format("stored as run {} in {} (compare: rjsim diff {} {} {})\n", stored_run_id, db_path, db_path,
                       run.run_id, stored_run_id);
  }
}

nlohmann::ordered_json transition_json(const std::optional<explore::Transition>& t) {
  if (!t) return nullptr;
  return {{"from", t->from}, {"to", t->to}, {"job_status", t->job_status}, {"reason", t->reason},
          {"at_ms", t->at_ms}, {"seq", t->seq}};
}

nlohmann::ordered_json replay_json(const store::RunInfo& run, const explore::ReplayReport& report,
                                   std::int64_t stored_run_id) {
  nlohmann::ordered_json difference = nullptr;
  if (report.first_difference) {
    const explore::EventDifference& d = *report.first_difference;
    difference = {{"seq", d.seq},
                  {"recorded", d.recorded ? event_json(*d.recorded) : nlohmann::ordered_json(nullptr)},
                  {"replayed", d.replayed ? event_json(*d.replayed) : nlohmann::ordered_json(nullptr)}};
  }
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const explore::TransitionChange& change : report.transition_changes) {
    changes.push_back({{"rayjob", change.rayjob}, {"index", change.index},
                       {"recorded", transition_json(change.recorded)}, {"replayed", transition_json(change.replayed)}});
  }
  return {{"run_id", run.run_id},
          {"identical", report.identical},
          {"events", report.run.events},
          {"log_hash", report.run.log_hash},
          {"first_difference", difference},
          {"recorded_events", report.recorded_events},
          {"recorded_log_hash", run.log_hash ? nlohmann::ordered_json(*run.log_hash) : nlohmann::ordered_json(nullptr)},
          {"transition_changes", changes},
          {"decisions_diverged", report.decisions_diverged},
          {"stored_run_id", stored_run_id == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(stored_run_id)}};
}

int replay(const ReplayOptions& options, Io& io) {
  store::Database database = store::Database::open_existing(options.db_path);
  const store::RunInfo run = find_run(database, options.run_id);
  const explore::RecordedRun recorded = recorded_run(database, run);
  std::optional<store::RunWriter> writer;
  if (options.store) {
    writer.emplace(database.begin_run(
        store::RunHeader{run.run_id, "replay", run.scenario, run.scenario_text, run.controller, run.seed}));
  }
  std::vector<events::EventSink*> sinks;
  if (writer) sinks.push_back(&*writer);
  const explore::ReplayReport report = explore::replay_run(recorded, sinks);
  std::int64_t stored_run_id = 0;
  if (writer) stored_run_id = commit_run(*writer, report.run, report.identical ? "" : "diverged");
  if (options.json) {
    print_json_line(io.out, replay_json(run, report, stored_run_id));
  } else {
    print_text(io.out, run, recorded, report, stored_run_id, options.db_path);
  }
  return report.identical ? 0 : 1;
}

}  // namespace

void add_replay_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ReplayOptions>();
  CLI::App* replay_command = commands.add(
      rjsim, "replay",
      "re-execute a recorded run from its inputs and compare every event (exit 1 if it diverges)",
      {"rjsim replay rjsim.db --run 12",
       "rjsim replay rjsim.db --run 12 --store   # keep the replay, then: rjsim diff rjsim.db 12 13"});
  replay_command->add_option("DB", options->db_path, "the database that holds the run")
      ->type_name("")
      ->required();
  add_run_id_option(*replay_command, options->run_id, "the run to replay (default: the last one)");
  replay_command->add_flag("--store", options->store,
                           "also record the replayed run in DB (kind replay, parent_run the original)");
  add_json_flag(*replay_command, options->json);

  commands.set_action(replay_command, [options](Io& io) { return replay(*options, io); });
}

}  // namespace rjsim::cli
