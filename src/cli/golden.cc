#include "cli/golden.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cli/line_diff.h"
#include "cli/timeline.h"

namespace rjsim::cli {
namespace {

using Json = nlohmann::ordered_json;

Json final_state_json(const explore::FinalState& state) {
  auto optional_count = [](const std::optional<int>& count) { return count ? Json(*count) : Json(nullptr); };
  return {{"exists", state.exists},
          {"job_deployment_status", state.job_deployment_status},
          {"job_status", state.job_status},
          {"reason", state.reason},
          {"job_id", state.job_id},
          {"ray_cluster_name", state.ray_cluster_name},
          {"ray_clusters", state.ray_clusters},
          {"submitter_jobs", state.submitter_jobs},
          {"succeeded", optional_count(state.succeeded)},
          {"failed", optional_count(state.failed)}};
}

Json transition_json(const GoldenTransition& t) {
  return {{"at_ms", t.at_ms}, {"from", t.from}, {"to", t.to}, {"job_status", t.job_status}, {"reason", t.reason}};
}

// Reads a parsed golden file, naming the file and the key of anything that is not as written.
class GoldenParser {
 public:
  explicit GoldenParser(const std::string& file) : file_(file) {}

  Golden golden(const Json& json) const {
    require(json.is_object(), "(top level)", "is not an object");
    Golden golden{string_at(json, "scenario", ""), string_at(json, "controller", ""), {}};
    const Json& rayjobs = member(json, "rayjobs", "");
    require(rayjobs.is_object(), "rayjobs", "is not an object");
    for (const auto& [name, rayjob] : rayjobs.items()) golden.rayjobs[name] = rayjob_at(rayjob, "rayjobs." + name);
    return golden;
  }

 private:
  GoldenRayJob rayjob_at(const Json& json, const std::string& path) const {
    require(json.is_object(), path, "is not an object");
    GoldenRayJob rayjob;
    const Json& transitions = member(json, "transitions", path + ".");
    require(transitions.is_array(), path + ".transitions", "is not an array");
    for (std::size_t i = 0; i < transitions.size(); ++i) {
      rayjob.transitions.push_back(transition_at(transitions[i], fmt::format("{}.transitions[{}]", path, i)));
    }
    rayjob.final_state = member(json, "final", path + ".");
    require(rayjob.final_state.is_object(), path + ".final", "is not an object");
    return rayjob;
  }

  GoldenTransition transition_at(const Json& json, const std::string& path) const {
    require(json.is_object(), path, "is not an object");
    const Json& at_ms = member(json, "at_ms", path + ".");
    require(at_ms.is_number_integer(), path + ".at_ms", "is not an integer");
    const std::string prefix = path + ".";
    return {at_ms.get<std::int64_t>(), string_at(json, "from", prefix), string_at(json, "to", prefix),
            string_at(json, "job_status", prefix), string_at(json, "reason", prefix)};
  }

  std::string string_at(const Json& object, const std::string& key, const std::string& prefix) const {
    const Json& value = member(object, key, prefix);
    require(value.is_string(), prefix + key, "is not a string");
    return value.get<std::string>();
  }

  const Json& member(const Json& object, const std::string& key, const std::string& prefix) const {
    auto found = object.find(key);
    require(found != object.end(), prefix + key, "is missing");
    return *found;
  }

  void require(bool holds, const std::string& path, std::string_view what) const {
    if (holds) return;
    throw GoldenError(fmt::format("{}: {}: {} (rewrite it with rjsim check --update-golden)", file_, path, what));
  }

  const std::string& file_;
};


std::vector<std::string> transition_lines(const std::vector<GoldenTransition>& transitions) {
  std::vector<std::string> lines;
  for (const GoldenTransition& t : transitions) {
    lines.push_back(fmt::format("{:>10}  {} -> {}  jobStatus={}{}", format_virtual_time(t.at_ms),
                                format_state(t.from), format_state(t.to), format_state(t.job_status),
                                t.reason.empty() ? "" : " reason=" + t.reason));
  }
  return lines;
}

// "- key: value" / "+ key: value" for each field of `now` (then of `recorded`) whose value differs.
std::vector<std::string> final_state_lines(const Json& recorded, const Json& now) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : now.items()) keys.push_back(key);
  for (const auto& [key, value] : recorded.items()) {
    if (!now.contains(key)) keys.push_back(key);
  }
  auto value_of = [](const Json& object, const std::string& key) {
    return object.contains(key) ? object[key].dump() : std::string("(absent)");
  };
  std::vector<std::string> lines;
  for (const std::string& key : keys) {
    const std::string before = value_of(recorded, key);
    const std::string after = value_of(now, key);
    if (before == after) continue;
    lines.push_back(fmt::format("- {}: {}", key, before));
    lines.push_back(fmt::format("+ {}: {}", key, after));
  }
  return lines;
}

void add_section(std::vector<std::string>& lines, const std::string& title, const std::vector<std::string>& body) {
  if (body.empty()) return;
  lines.push_back(title + " (- golden, + now):");
  for (const std::string& line : body) lines.push_back("  " + line);
}

void add_rayjob_differences(std::vector<std::string>& lines, const std::string& name, const Golden& recorded,
                            const Golden& now) {
  const auto before = recorded.rayjobs.find(name);
  const auto after = now.rayjobs.find(name);
  if (before == recorded.rayjobs.end() || after == now.rayjobs.end()) {
    lines.push_back(fmt::format("RayJob {}: only in {}", name, after == now.rayjobs.end() ? "the golden" : "this run"));
    return;
  }
  add_section(lines, fmt::format("RayJob {} transitions", name),
              line_diff(transition_lines(before->second.transitions), transition_lines(after->second.transitions)));
  add_section(lines, fmt::format("RayJob {} final", name),
              final_state_lines(before->second.final_state, after->second.final_state));
}

}  // namespace

std::string golden_path(const std::string& scenario_file, const std::string& scenario_name) {
  return (std::filesystem::path(scenario_file).parent_path() / (scenario_name + ".golden.json")).string();
}

Golden golden_of(const explore::RunReport& report) {
  Golden golden{report.scenario, report.controller, {}};
  for (const auto& [name, state] : report.final) golden.rayjobs[name].final_state = final_state_json(state);
  for (const explore::Transition& t : report.transitions) {
    golden.rayjobs[t.rayjob].transitions.push_back({t.at_ms, t.from, t.to, t.job_status, t.reason});
  }
  return golden;
}

std::string golden_text(const Golden& golden) {
  Json rayjobs = Json::object();
  for (const auto& [name, rayjob] : golden.rayjobs) {
    Json transitions = Json::array();
    for (const GoldenTransition& t : rayjob.transitions) transitions.push_back(transition_json(t));
    rayjobs[name] = {{"transitions", transitions}, {"final", rayjob.final_state}};
  }
  const Json json = {{"scenario", golden.scenario}, {"controller", golden.controller}, {"rayjobs", rayjobs}};
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Golden parse_golden(std::string_view text, const std::string& file) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw GoldenError(fmt::format("{}: not JSON: {}", file, e.what()));
  }
  return GoldenParser(file).golden(json);
}

std::optional<Golden> read_golden(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) return std::nullopt;
    throw GoldenError(fmt::format("{}: cannot read the golden file", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_golden(text.str(), path);
}

std::vector<std::string> golden_differences(const Golden& recorded, const Golden& now) {
  std::vector<std::string> lines;
  if (recorded.scenario != now.scenario) add_section(lines, "scenario", {"- " + recorded.scenario, "+ " + now.scenario});
  if (recorded.controller != now.controller) {
    add_section(lines, "controller", {"- " + recorded.controller, "+ " + now.controller});
  }
  std::set<std::string> names;
  for (const auto& [name, rayjob] : recorded.rayjobs) names.insert(name);
  for (const auto& [name, rayjob] : now.rayjobs) names.insert(name);
  for (const std::string& name : names) add_rayjob_differences(lines, name, recorded, now);
  return lines;
}

}  // namespace rjsim::cli
