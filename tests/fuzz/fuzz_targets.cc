#include "fuzz_targets.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "engine/object_json.h"
#include "engine/scenario_loader.h"
#include "trace/audit_log.h"
#include "trace/kubectl_watch.h"
#include "trace/record.h"
#include "trace/watch_stream.h"

namespace rjsim::fuzz {
namespace {

[[noreturn]] void defect(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "rjsim fuzz: %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// A refusal must say where: start with the file's name (file:line: ...).
void require_names(std::string_view message, std::string_view file) {
  if (!message.starts_with(file)) defect("a refusal that does not name its file", message);
}

constexpr std::string_view kScenarioFile = "fuzz.yaml";

// A scenario: loads, or a ScenarioError that names the file. Files it names (rayjobFile:) are
// looked up in an empty folder, so they are refused too.
void scenario(std::string_view input) {
  static const std::string empty_dir = [] {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rjsim-fuzz-empty-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    return dir.string();
  }();
  try {
    engine::parse_scenario(input, std::string(kScenarioFile), empty_dir);
  } catch (const engine::ScenarioError& error) {
    require_names(error.what(), kScenarioFile);
  }
}

// A RayJob manifest, as a scenario's `rayjob:` holds it: YAML to JSON, then the typed read, which
// refuses with the JSON path of the field.
void rayjob_manifest(std::string_view input) {
  nlohmann::json json;
  int line = 0;
  std::string error;
  if (!engine::yaml_document_to_json(input, json, line, error)) {
    if (error.empty() || line < 0) defect("a YAML refusal without a message or line", error);
    return;
  }
  try {
    engine::rayjob_from_json(json);
  } catch (const engine::ObjectFormatError& refused) {
    if (std::string_view(refused.what()).empty()) defect("a manifest refusal without a message", "");
  }
}

// A trace parser never throws on a bad record: it lists it with its file and line.
void require_bad_records_named(const trace::ParsedFile& parsed, std::string_view file) {
  for (const trace::BadRecord& bad : parsed.bad) {
    if (bad.file != file || bad.line < 1 || bad.message.empty()) defect("a bad record that says not where", bad.text());
  }
}

template <trace::ParsedFile (*Parse)(std::string_view, const std::string&, trace::RecordHook)>
void trace_file(std::string_view input) {
  const std::string file = "fuzz.trace";
  try {
    require_bad_records_named(Parse(input, file, {}), file);
  } catch (const trace::TraceError& error) {
    require_names(error.what(), file);
  }
}

// A database file: `show` and `replay` of it exit 0, 1 or 2 (bad input, with a message); never 3
// (an internal error) and never an exception.
void database(std::string_view input) {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("rjsim-fuzz-" + std::to_string(getpid()) + ".db")).string();
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", path}, std::vector<std::string>{"replay", path, "--json"}}) {
    std::ostringstream out, err;
    const int code = cli::run_cli(args, out, err);
    if (code != 0 && code != 1 && code != 2) defect("an exit that is not 0, 1 or 2", err.str());
    if (code == 2 && err.str().find(path) == std::string::npos && err.str().find("rjsim") == std::string::npos) {
      defect("a refusal that names neither the file nor the command", err.str());
    }
  }
  std::filesystem::remove(path);
}

constexpr std::array<FuzzTarget, 7> kTargets = {{
    {"scenario", scenario},
    {"rayjob_manifest", rayjob_manifest},
    {"kubectl_watch_json", trace_file<trace::parse_kubectl_watch>},
    {"kubectl_watch_yaml", trace_file<trace::parse_kubectl_watch>},
    {"audit", trace_file<trace::parse_audit_log>},
    {"watch_stream", trace_file<trace::parse_watch_stream>},
    {"database", database},
}};

}  // namespace

std::span<const FuzzTarget> fuzz_targets() { return kTargets; }

const FuzzTarget* find_fuzz_target(std::string_view name) {
  for (const FuzzTarget& target : kTargets) {
    if (target.name == name) return &target;
  }
  return nullptr;
}

}  // namespace rjsim::fuzz
