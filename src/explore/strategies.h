// The choosers that exploration drives a run with (DESIGN §1: a search over the chooser's
// decisions; issue 5). Each is seeded and answers only within what the engine offers, so the
// scenario's fault budget bounds every schedule (the engine never offers a fault past its budget).
//   RandomWalk  each decision drawn at random; faults with fixed probabilities, so that most
//               schedules stay near the fault-free run, where bugs hide behind one or two faults.
//   Pct         probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): every kind of
//               step gets a random priority and the highest enabled one runs; at depth-1 random
//               change points the running step drops to the lowest priority. Other decisions as
//               RandomWalk. A bug of depth d is found with probability >= 1/(n k^(d-1)).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "engine/chooser.h"

namespace rjsim::explore {

// How likely a random decision departs from the fault-free alternative 0.
struct FaultProbabilities {
  double stale_read = 0.3;      // cache_advance: a read sees a lagging cache
  double write_fault = 0.1;     // write_outcome: 409, 5xx, applied-but-reported-failed
  double http_fault = 0.1;      // http_outcome: error, timeout
  double crash = 0.02;          // a step choice picks the controller crash
};

class RandomWalk final : public engine::Chooser {
 public:
  explicit RandomWalk(std::uint64_t seed, FaultProbabilities p = {}) : random_(seed), p_(p) {}
  std::uint64_t choose(engine::ChoicePoint point, std::uint64_t options) override;
  std::uint64_t choose_step(std::span<const engine::StepOption> steps) override;

 private:
  bool chance(double probability);
  // 0 with probability 1 - p, else one of [1, options).
  std::uint64_t departure(double probability, std::uint64_t options);

  engine::SplitMix64 random_;
  FaultProbabilities p_;
  friend class Pct;
};

class Pct final : public engine::Chooser {
 public:
  // `depth`: the bug depth d (d - 1 priority change points); `expected_steps`: k, the step
  // decisions a run takes (from the baseline run), where the change points fall.
  Pct(std::uint64_t seed, int depth, std::int64_t expected_steps, FaultProbabilities p = {});
  std::uint64_t choose(engine::ChoicePoint point, std::uint64_t options) override;
  std::uint64_t choose_step(std::span<const engine::StepOption> steps) override;

 private:
  std::int64_t priority_of(const engine::StepOption& step);
  // The alternative of highest priority, other than `skip`; steps.size() when there is none.
  std::size_t highest(std::span<const engine::StepOption> steps, std::size_t skip);
  static std::uint16_t key_of(const engine::StepOption& step);

  RandomWalk others_;
  std::vector<std::int64_t> change_points_;     // step-decision indices, ascending
  std::map<std::uint16_t, std::int64_t> priorities_;
  std::int64_t step_decisions_ = 0;
};

// The seed of schedule `index` of an exploration seeded `seed`: schedules are independent, so
// which thread or shard runs one never changes what it does.
std::uint64_t schedule_seed(std::uint64_t seed, std::int64_t index);

}  // namespace rjsim::explore
