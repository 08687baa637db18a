// A behaviour changelog between releases (`rjsim compare`, DESIGN.md §6): each scenario's
// fault-free run under each model, reduced to what `expect` can name (each RayJob's persisted
// deploymentStatus sequence and its final state in `expect.final`'s vocabulary, the run's outcome
// and the invariants that fired), and the aspects in which the models disagree. Names that carry
// a random suffix (jobId, rayClusterName) are compared as set/empty, since the naming scheme
// itself changed between releases, and a counter that some model leaves unset (succeeded and
// failed exist from v1.2 on) is not compared. Pure functions of run reports; the command runs
// the models.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/scenario_run.h"

namespace rjsim::cli {

// What one model did with one scenario.
struct ModelBehaviour {
  std::string model;
  std::string outcome;                            // pass | violation | incomplete
  std::vector<std::string> violations;            // invariant names, each once, in firing order
  // Per RayJob (name order): "" -> Initializing -> ..., as `expect.transitions` lists it.
  std::vector<std::pair<std::string, std::vector<std::string>>> sequences;
  // Per RayJob (name order): (expect.final key, value) pairs, in a fixed key order.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> finals;
};

// One aspect in which the models disagree. `values` has one entry per model, in model order.
struct BehaviourDifference {
  std::string rayjob;   // empty for aspects of the whole run (outcome, violations)
  std::string aspect;   // "transitions", "final.jobStatus", ..., "outcome", "violations"
  std::vector<std::string> values;
};

struct ScenarioComparison {
  std::string scenario;
  std::string file;
  std::vector<ModelBehaviour> behaviours;         // in model order
  std::vector<BehaviourDifference> differences;   // empty: every model behaved alike
};

ModelBehaviour behaviour_of(const std::string& model, const explore::RunReport& report);

// Which promises each release keeps: per invariant (DESIGN §5 order), per model (in model
// order), the scenarios whose fault-free run broke it; empty lists: kept on every scenario.
struct PromiseRecord {
  std::string invariant;
  std::vector<std::vector<std::string>> broken_in;
};
std::vector<PromiseRecord> promises_kept(const std::vector<std::string>& models,
                                         const std::vector<ScenarioComparison>& comparisons);

// `behaviours` in model order, one per model.
ScenarioComparison compare_behaviours(std::string scenario, std::string file,
                                      std::vector<ModelBehaviour> behaviours);

// For people: per scenario that differs, each aspect with each model's value (models with the
// same value as the one before them are shown as "same as M"); then the scenarios that agree.
std::string changelog_text(const std::vector<std::string>& models,
                           const std::vector<ScenarioComparison>& comparisons);
// The same as a Markdown document: one table per differing scenario, aspects by models.
std::string changelog_markdown(const std::vector<std::string>& models,
                               const std::vector<ScenarioComparison>& comparisons);
// {"models", "scenarios": [{"scenario", "file", "same", "differences": [{"rayjob", "aspect",
//  "values": {MODEL: VALUE}}], "runs": {MODEL: {"outcome", "violations", "rayjobs": {NAME:
//  {"transitions", "final"}}}}}], "promises": {INVARIANT: {MODEL: [SCENARIO]}}, "total", "differ"}
nlohmann::ordered_json changelog_json(const std::vector<std::string>& models,
                                      const std::vector<ScenarioComparison>& comparisons);

}  // namespace rjsim::cli
