// The invariants of DESIGN §5 as data: each has its stable name and up to two judgements, one
// after every step (safety: it judges what the step added, StepFacts, so it is not asked after a
// step that added nothing) and one at the end of the run
// (liveness: it reads the whole history and the final world). Judgements are plain functions of
// the History, the World and the Settings; they report to a Reporter and change nothing else.
// A Violation names the invariant, the seq of the step where it failed and the RayJob; its
// message names the RayJob, the objects involved and that seq. docs/invariants.md states each
// invariant as implemented.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checks/history.h"
#include "engine/copy_on_write.h"
#include "engine/simulation.h"
#include "engine/world.h"

namespace rjsim::checks {

struct Violation {
  std::int64_t seq = 0;     // the step where it failed (for end-of-run judgements: the last seq)
  std::string invariant;    // a DESIGN §5 name
  std::string rayjob;       // RayJob/namespace/name
  std::string message;
  friend bool operator==(const Violation&, const Violation&) = default;
};

// Collects violations, keeping the first of each invariant per RayJob (no flood).
class Reporter {
 public:
  // True when `invariant` already fired for `rayjob`: a check may skip building a message.
  bool reported(std::string_view invariant, std::string_view rayjob) const;
  void report(std::string_view invariant, std::string_view rayjob, std::int64_t seq,
              std::string message);
  const std::vector<Violation>& violations() const { return violations_; }
  friend bool operator==(const Reporter&, const Reporter&) = default;

 private:
  std::vector<Violation> violations_;
};

// How long the garbage collector and a controller's TTL requeue may take to remove a RayCluster
// after it became due (no-leaked-cluster). The clock only advances when nothing else can run,
// so GC steps never need virtual time; 1.1 requeues to EndTime + TTL + 2 s in whole seconds.
inline constexpr std::int64_t kCleanupAllowanceMs = 10'000;

struct Settings {
  // The model's persisted jobDeploymentStatus edges (Controller::transition_table()); empty:
  // legal-transition has nothing to judge.
  // (Shared by the copies of a checker that exhaustive exploration takes at every step.)
  engine::CopyOnWrite<std::vector<std::pair<std::string, std::string>>> transition_table;
  std::int64_t eventually_ms = 600'000;   // limits.eventually
  std::int64_t cleanup_allowance_ms = kCleanupAllowanceMs;
  friend bool operator==(const Settings&, const Settings&) = default;
};

// What a judgement after a step sees: the history with the step folded in, what the step
// added, and the world after it.
struct StepView {
  const History& history;
  const StepFacts& facts;
  const engine::World& world;
  const Settings& settings;
};

// What a judgement at the end sees.
struct EndView {
  const History& history;
  const engine::World& world;
  engine::RunEnd end;
  const Settings& settings;
  std::int64_t last_seq = 0;   // the seq the end-of-run violations carry
};

using StepJudgement = void (*)(const StepView&, Reporter&);
using EndJudgement = void (*)(const EndView&, Reporter&);

struct Invariant {
  std::string_view name;
  StepJudgement after_step = nullptr;   // safety part, judged after every step that added facts
  EndJudgement at_end = nullptr;        // liveness part, judged at the end of the run
};

// The twenty-two invariants of DESIGN §5, in its order.
std::span<const Invariant> invariants();
// Null when `name` is not one of them.
const Invariant* find_invariant(std::string_view name);

// The names as messages print them: "" is New.
std::string show_status(std::string_view deployment_status);
// A jobStatus as messages print it: "" is shown as such.
std::string show_job_status(std::string_view job_status);

}  // namespace rjsim::checks
