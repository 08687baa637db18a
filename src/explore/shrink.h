// Shrinking (issue 5): from a schedule whose run violates `invariant`, searches for a smaller
// schedule (ScheduleSize: fewer departures from the fault-free run, smaller picks, fewer
// decisions, fewer steps) whose run violates the same invariant. Delta debugging (Zeller and
// Hildebrandt, "Simplifying and isolating failure-inducing input", TSE 2002) over the departures,
// then cutting the schedule short and lowering each remaining pick, repeated until nothing gets
// smaller or `max_runs` candidate runs were spent. Candidates are replayed tolerantly: a
// decision the changed run no longer asks for is skipped, so removing one departure does not
// derail every decision after it. Deterministic: the same input gives the same result.
#pragma once

#include <cstdint>
#include <string>

#include "engine/scenario.h"
#include "explore/scenario_run.h"
#include "explore/schedule.h"

namespace rjsim::explore {

struct ShrinkResult {
  Schedule schedule;          // the decisions the smallest failing run actually took
  RunReport report;           // that run (no events kept)
  std::int64_t runs = 0;      // candidate runs tried
};

// `base`: the seed and controller the failing run had; candidates run as exploration runs do
// (exploration_run: within the fault budget, no events kept). `failing`: its schedule. The result fails `invariant` too; at worst it is the input.
ShrinkResult shrink(const engine::Scenario& scenario, const RunOptions& base, const Schedule& failing,
                    const std::string& invariant, std::int64_t max_runs = 400);

// Answers from `decisions` in order, tolerantly: when the run asks for another point than the
// next recorded decision, that question gets 0 and the decision waits; a pick is clamped to the
// options offered; past the end every answer is 0 (name suffixes: `fallback`).
class TolerantReplay final : public engine::Chooser {
 public:
  TolerantReplay(const Schedule& decisions, engine::Chooser& fallback) : decisions_(decisions), fallback_(fallback) {}
  std::uint64_t choose(engine::ChoicePoint point, std::uint64_t options) override;

 private:
  const Schedule& decisions_;
  std::size_t next_ = 0;
  engine::Chooser& fallback_;
};

}  // namespace rjsim::explore
