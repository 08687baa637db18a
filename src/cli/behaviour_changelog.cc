#include "cli/behaviour_changelog.h"

#include <algorithm>
#include <cassert>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/invariant.h"
#include "cli/timeline.h"

namespace rjsim::cli {
namespace {

using Json = nlohmann::ordered_json;
using Fields = std::vector<std::pair<std::string, std::string>>;

std::string set_or_empty(const std::string& value) { return value.empty() ? "empty" : "set"; }
std::string count(const std::optional<int>& value) { return value ? std::to_string(*value) : "unset"; }

// expect.final's keys (DESIGN §4), in its order.
Fields final_fields(const explore::FinalState& state) {
  return {{"rayJobs", state.exists ? "1" : "0"},
          {"jobDeploymentStatus", format_state(state.job_deployment_status)},
          {"jobStatus", format_state(state.job_status)},
          {"reason", format_state(state.reason)},
          {"rayClusters", std::to_string(state.ray_clusters)},
          {"submitterJobs", std::to_string(state.submitter_jobs)},
          {"jobId", set_or_empty(state.job_id)},
          {"rayClusterName", set_or_empty(state.ray_cluster_name)},
          {"succeeded", count(state.succeeded)},
          {"failed", count(state.failed)}};
}

std::string sequence_text(const std::vector<std::string>& sequence) {
  std::vector<std::string> states;
  for (const std::string& state : sequence) states.push_back(format_state(state));
  return fmt::format("{}", fmt::join(states, " -> "));
}

template <class Pairs>
const typename Pairs::value_type::second_type* lookup(const Pairs& pairs, const std::string& key) {
  for (const auto& [name, value] : pairs) {
    if (name == key) return &value;
  }
  return nullptr;
}

// Every RayJob any model knows, in name order.
std::vector<std::string> rayjob_names(const std::vector<ModelBehaviour>& behaviours) {
  std::vector<std::string> names;
  for (const ModelBehaviour& behaviour : behaviours) {
    for (const auto& [name, sequence] : behaviour.sequences) names.push_back(name);
    for (const auto& [name, fields] : behaviour.finals) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Adds a difference when the models' values of one aspect are not all equal.
void add_if_differs(std::vector<BehaviourDifference>& differences, std::string rayjob, std::string aspect,
                    std::vector<std::string> values) {
  if (std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) == values.end()) return;
  differences.push_back({std::move(rayjob), std::move(aspect), std::move(values)});
}

void add_rayjob_differences(std::vector<BehaviourDifference>& differences, const std::string& rayjob,
                            const std::vector<ModelBehaviour>& behaviours) {
  std::vector<std::string> sequences;
  for (const ModelBehaviour& behaviour : behaviours) {
    const auto* sequence = lookup(behaviour.sequences, rayjob);
    sequences.push_back(sequence ? sequence_text(*sequence) : "(no such RayJob)");
  }
  add_if_differs(differences, rayjob, "transitions", sequences);
  for (const auto& [key, unused] : final_fields({})) {
    std::vector<std::string> values;
    for (const ModelBehaviour& behaviour : behaviours) {
      const Fields* fields = lookup(behaviour.finals, rayjob);
      const std::string* value = fields ? lookup(*fields, key) : nullptr;
      values.push_back(value ? *value : "(no such RayJob)");
    }
    // A counter one release does not have (succeeded, failed before v1.2) is no change of behaviour.
    if (std::find(values.begin(), values.end(), "unset") != values.end()) continue;
    add_if_differs(differences, rayjob, "final." + key, values);
  }
}

std::string violations_text(const std::vector<std::string>& violations) {
  return violations.empty() ? "none" : fmt::format("{}", fmt::join(violations, ", "));
}

std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (char c : text) cell += c == '|' ? std::string("\\|") : std::string(1, c);
  return cell;
}

std::vector<std::string> same_scenarios(const std::vector<ScenarioComparison>& comparisons) {
  std::vector<std::string> names;
  for (const ScenarioComparison& comparison : comparisons) {
    if (comparison.differences.empty()) names.push_back(comparison.scenario);
  }
  return names;
}

std::string aspect_title(const BehaviourDifference& difference) {
  return difference.rayjob.empty() ? difference.aspect : difference.rayjob + " " + difference.aspect;
}

}  // namespace

ModelBehaviour behaviour_of(const std::string& model, const explore::RunReport& report) {
  ModelBehaviour behaviour{model, report.outcome, {}, {}, {}};
  for (const explore::ViolationReport& violation : report.violations) {
    if (std::find(behaviour.violations.begin(), behaviour.violations.end(), violation.invariant) ==
        behaviour.violations.end()) {
      behaviour.violations.push_back(violation.invariant);
    }
  }
  for (const auto& [name, state] : report.final) {   // std::map: name order
    behaviour.sequences.emplace_back(name, explore::deployment_sequence(report.transitions, name));
    behaviour.finals.emplace_back(name, final_fields(state));
  }
  return behaviour;
}

ScenarioComparison compare_behaviours(std::string scenario, std::string file,
                                      std::vector<ModelBehaviour> behaviours) {
  ScenarioComparison comparison{std::move(scenario), std::move(file), std::move(behaviours), {}};
  for (const std::string& rayjob : rayjob_names(comparison.behaviours)) {
    add_rayjob_differences(comparison.differences, rayjob, comparison.behaviours);
  }
  std::vector<std::string> outcomes;
  std::vector<std::string> violations;
  for (const ModelBehaviour& behaviour : comparison.behaviours) {
    outcomes.push_back(behaviour.outcome);
    violations.push_back(violations_text(behaviour.violations));
  }
  add_if_differs(comparison.differences, "", "outcome", outcomes);
  add_if_differs(comparison.differences, "", "violations", violations);
  return comparison;
}

std::vector<PromiseRecord> promises_kept(const std::vector<std::string>& models,
                                         const std::vector<ScenarioComparison>& comparisons) {
  std::vector<PromiseRecord> records;
  for (const checks::Invariant& invariant : checks::invariants()) {
    PromiseRecord record{std::string(invariant.name), std::vector<std::vector<std::string>>(models.size())};
    for (const ScenarioComparison& comparison : comparisons) {
      for (std::size_t i = 0; i < comparison.behaviours.size() && i < models.size(); ++i) {
        const std::vector<std::string>& fired = comparison.behaviours[i].violations;
        if (std::find(fired.begin(), fired.end(), record.invariant) != fired.end()) {
          record.broken_in[i].push_back(comparison.scenario);
        }
      }
    }
    records.push_back(std::move(record));
  }
  return records;
}

namespace {

std::string promise_cell(const std::vector<std::string>& broken_in) {
  if (broken_in.empty()) return "kept";
  return fmt::format("broken in {}: {}", broken_in.size(), fmt::join(broken_in, ", "));
}

// "Promises each release keeps": one row per invariant, one column per model.
std::string promises_markdown(const std::vector<std::string>& models,
                              const std::vector<ScenarioComparison>& comparisons) {
  std::string text = fmt::format(
      "\n## Promises each release keeps\n\nPer invariant, the scenarios whose fault-free run breaks it under "
      "each model (a scenario that expects a violation records a behaviour of the release).\n\n| invariant | {} "
      "|\n|---|",
      fmt::join(models, " | "));
  for (std::size_t i = 0; i < models.size(); ++i) text += "---|";
  text += "\n";
  for (const PromiseRecord& record : promises_kept(models, comparisons)) {
    std::vector<std::string> cells;
    for (const std::vector<std::string>& broken_in : record.broken_in) cells.push_back(promise_cell(broken_in));
    text += fmt::format("| `{}` | {} |\n", record.invariant, fmt::join(cells, " | "));
  }
  return text;
}

}  // namespace

std::string changelog_text(const std::vector<std::string>& models,
                           const std::vector<ScenarioComparison>& comparisons) {
  const std::size_t width =
      std::max_element(models.begin(), models.end(), [](auto& a, auto& b) { return a.size() < b.size(); })->size();
  std::string text = fmt::format("Behaviour changelog: {} (each scenario's fault-free run)\n", fmt::join(models, ", "));
  for (const ScenarioComparison& comparison : comparisons) {
    if (comparison.differences.empty()) continue;
    text += fmt::format("\n{}  ({})\n", comparison.scenario, comparison.file);
    for (const BehaviourDifference& difference : comparison.differences) {
      text += fmt::format("  {}\n", aspect_title(difference));
      for (std::size_t i = 0; i < models.size(); ++i) {
        const bool repeats = i > 0 && difference.values[i] == difference.values[i - 1];
        text += fmt::format("    {:<{}}  {}\n", models[i], width,
                            repeats ? "same as " + models[i - 1] : difference.values[i]);
      }
    }
  }
  const std::vector<std::string> same = same_scenarios(comparisons);
  if (!same.empty()) text += fmt::format("\nSame under every model ({}): {}\n", same.size(), fmt::join(same, ", "));
  text += "\nPromises each release keeps (invariants broken by a fault-free run):\n";
  for (const PromiseRecord& record : promises_kept(models, comparisons)) {
    for (std::size_t i = 0; i < models.size(); ++i) {
      if (record.broken_in[i].empty()) continue;
      text += fmt::format("  {:<30} {:<{}}  {}\n", record.invariant, models[i], width, promise_cell(record.broken_in[i]));
    }
  }
  text += fmt::format("\n{} scenario{}: {} differ, {} same\n", comparisons.size(), comparisons.size() == 1 ? "" : "s",
                      comparisons.size() - same.size(), same.size());
  return text;
}

std::string changelog_markdown(const std::vector<std::string>& models,
                               const std::vector<ScenarioComparison>& comparisons) {
  std::string text = fmt::format("# Behaviour changelog: {}\n\n", fmt::join(models, " → "));
  text += "Each scenario's fault-free run under each model; only the aspects in which the models differ are "
          "listed. Generated by `rjsim compare --format markdown`.\n";
  for (const ScenarioComparison& comparison : comparisons) {
    if (comparison.differences.empty()) continue;
    text += fmt::format("\n## {}\n\n`{}`\n\n| RayJob | aspect | {} |\n|---|---|", comparison.scenario,
                        comparison.file, fmt::join(models, " | "));
    for (std::size_t i = 0; i < models.size(); ++i) text += "---|";
    text += "\n";
    for (const BehaviourDifference& difference : comparison.differences) {
      std::vector<std::string> cells;
      for (const std::string& value : difference.values) cells.push_back(markdown_cell(value));
      text += fmt::format("| {} | {} | {} |\n", difference.rayjob.empty() ? "(run)" : difference.rayjob,
                          difference.aspect, fmt::join(cells, " | "));
    }
  }
  const std::vector<std::string> same = same_scenarios(comparisons);
  if (!same.empty()) text += fmt::format("\n## Same under every model\n\n{}\n", fmt::join(same, ", "));
  text += promises_markdown(models, comparisons);
  return text;
}

Json changelog_json(const std::vector<std::string>& models, const std::vector<ScenarioComparison>& comparisons) {
  Json scenarios = Json::array();
  std::size_t differ = 0;
  for (const ScenarioComparison& comparison : comparisons) {
    if (!comparison.differences.empty()) ++differ;
    Json differences = Json::array();
    for (const BehaviourDifference& difference : comparison.differences) {
      Json values = Json::object();
      for (std::size_t i = 0; i < models.size(); ++i) values[models[i]] = difference.values[i];
      differences.push_back({{"rayjob", difference.rayjob}, {"aspect", difference.aspect}, {"values", values}});
    }
    Json runs = Json::object();
    for (const ModelBehaviour& behaviour : comparison.behaviours) {
      Json rayjobs = Json::object();
      for (const auto& [name, sequence] : behaviour.sequences) rayjobs[name]["transitions"] = sequence;
      for (const auto& [name, fields] : behaviour.finals) {
        Json final_state = Json::object();
        for (const auto& [key, value] : fields) final_state[key] = value;
        rayjobs[name]["final"] = final_state;
      }
      runs[behaviour.model] = {{"outcome", behaviour.outcome}, {"violations", behaviour.violations}, {"rayjobs", rayjobs}};
    }
    scenarios.push_back({{"scenario", comparison.scenario},
                         {"file", comparison.file},
                         {"same", comparison.differences.empty()},
                         {"differences", differences},
                         {"runs", runs}});
  }
  Json promises = Json::object();
  for (const PromiseRecord& record : promises_kept(models, comparisons)) {
    Json per_model = Json::object();
    for (std::size_t i = 0; i < models.size(); ++i) per_model[models[i]] = record.broken_in[i];
    promises[record.invariant] = per_model;
  }
  return {{"models", models},
          {"scenarios", scenarios},
          {"promises", promises},
          {"total", comparisons.size()},
          {"differ", differ}};
}

}  // namespace rjsim::cli
