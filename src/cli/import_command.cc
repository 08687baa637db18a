// rjsim import: turn a recorded cluster trace into a `trace` run (DESIGN.md §6; docs/traces.md).
// The parsing, merging and storing are src/trace/import.h; this file holds the flags and the
// output. Bad input (a record that does not read, without --skip-bad; a file that cannot be read)
// exits 2 with "FILE:LINE: message" and writes nothing.
#include "cli/commands.h"

#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/json_output.h"
#include "trace/import.h"

namespace rjsim::cli {
namespace {

struct ImportOptions {
  std::vector<std::string> files;
  std::string format;
  std::string db_path = "rjsim.db";
  bool skip_bad = false;
  bool json = false;
};

// "1 record", "2 records".
std::string counted(std::size_t n, std::string_view noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }
std::string counted(std::int64_t n, std::string_view noun) { return counted(static_cast<std::size_t>(n), noun); }

int import_files(const ImportOptions& options, Io& io) {
  trace::Format format{};
  if (!trace::parse_format(options.format, format)) throw UsageError("--format: expected kubectl-watch, audit or watch-stream");
  trace::ImportSummary summary;
  try {
    summary = trace::import_trace(format, options.files, options.db_path, options.skip_bad);
  } catch (const trace::TraceError& e) {
    io.err << fmt::format("rjsim import: {}\n", e.what());
    if (!options.skip_bad) io.err << "nothing was imported (--skip-bad skips the records that do not read)\n";
    return exit_bad_input;
  }
  const trace::Trace& trace = summary.trace;
  for (const trace::BadRecord& bad : trace.skipped) io.err << "skipped " << bad.text() << "\n";
  if (options.json) {
    nlohmann::ordered_json out = {{"run_id", summary.run_id},
                                  {"format", options.format},
                                  {"files", options.files.size()},
                                  {"events", trace.events.size()},
                                  {"objects", trace.objects},
                                  {"skipped", trace.skipped.size()},
                                  {"records", trace.records},
                                  {"duplicates", trace.duplicates},
                                  {"ignored", trace.ignored},
                                  {"db", options.db_path}};
    print_json_line(io.out, out);
    return 0;
  }
  io.out << fmt::format("imported {} of {} from {} ({}): {}", counted(trace.records, "record"),
                        counted(trace.objects, "object"), counted(options.files.size(), "file"), options.format,
                        counted(trace.events.size(), "event"));
  if (!trace.skipped.empty()) io.out << fmt::format(", {} bad records skipped", trace.skipped.size());
  if (trace.duplicates != 0) io.out << fmt::format(", {} repeated states dropped", trace.duplicates);
  if (trace.ignored != 0) io.out << fmt::format(", {} reads and early stages ignored", trace.ignored);
  io.out << fmt::format("\nstored as run {} (kind trace) in {} (see: rjsim show {} --run {})\n", summary.run_id,
                        options.db_path, options.db_path, summary.run_id);
  return 0;
}

}  // namespace

void add_import_command(CLI::App& rjsim, CommandTable& commands) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* import = commands.add(
      rjsim, "import", "turn a recorded cluster trace into a trace run in the database",
      {"rjsim import rayjobs.json rayclusters.json --format kubectl-watch --db traces.db",
       "rjsim import audit.log --format audit --skip-bad --json"});
  import->add_option("FILE", options->files, "the recorded trace files (kubectl-watch: one per kind)")
      ->type_name("")
      ->required();
  import
      ->add_option("--format", options->format,
                   "what the files are: kubectl-watch, audit or watch-stream")
      ->type_name("FMT")
      ->check(one_of({"kubectl-watch", "audit", "watch-stream"}))
      ->required();
  add_db_option(*import, options->db_path, "the database the trace run is written to");
  import->add_flag("--skip-bad", options->skip_bad,
                   "skip records that do not parse (and count them) instead of failing");
  add_json_flag(*import, options->json);

  commands.set_action(import, [options](Io& io) { return import_files(*options, io); });
}

}  // namespace rjsim::cli
