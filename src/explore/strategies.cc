#include "explore/strategies.h"

#include <algorithm>

namespace rjsim::explore {

using engine::ChoicePoint;
using engine::StepKind;
using engine::StepOption;

namespace {

// A uniform double in [0, 1) from 53 random bits.
double unit(engine::SplitMix64& random) { return static_cast<double>(random.next() >> 11) * 0x1.0p-53; }

// The index of the crash alternative, or steps.size() when none is offered.
std::size_t crash_index(std::span<const StepOption> steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind == StepKind::crash) return i;
  }
  return steps.size();
}

}  // namespace

std::uint64_t schedule_seed(std::uint64_t seed, std::int64_t index) {
  engine::SplitMix64 mix(seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(index + 1)));
  return mix.next();
}

bool RandomWalk::chance(double probability) { return unit(random_) < probability; }

std::uint64_t RandomWalk::departure(double probability, std::uint64_t options) {
  if (!chance(probability)) return 0;
  return 1 + random_.below(options - 1);
}

std::uint64_t RandomWalk::choose(ChoicePoint point, std::uint64_t options) {
  switch (point) {
    case ChoicePoint::cache_advance: return departure(p_.stale_read, options);
    case ChoicePoint::write_outcome: return departure(p_.write_fault, options);
    case ChoicePoint::http_outcome: return departure(p_.http_fault, options);
    case ChoicePoint::step:
    case ChoicePoint::name_suffix:
    case ChoicePoint::relist_point: return random_.below(options);
  }
  return 0;
}

std::uint64_t RandomWalk::choose_step(std::span<const StepOption> steps) {
  const std::size_t crash = crash_index(steps);
  if (crash < steps.size() && chance(p_.crash)) return crash;
  const std::size_t others = crash < steps.size() ? steps.size() - 1 : steps.size();
  if (others == 0) return crash;
  const std::size_t picked = random_.below(others);
  return picked < crash ? picked : picked + 1;
}

Pct::Pct(std::uint64_t seed, int depth, std::int64_t expected_steps, FaultProbabilities p)
    : others_(seed, p) {
  const std::int64_t k = std::max<std::int64_t>(1, expected_steps);
  for (int i = 1; i < depth; ++i) change_points_.push_back(static_cast<std::int64_t>(others_.random_.below(k)));
  std::sort(change_points_.begin(), change_points_.end());
}

std::uint64_t Pct::choose(ChoicePoint point, std::uint64_t options) { return others_.choose(point, options); }

std::uint16_t Pct::key_of(const StepOption& step) {
  return static_cast<std::uint16_t>((static_cast<unsigned>(step.kind) << 8) | step.detail);
}

// Priorities are drawn when a kind of step is first seen: distinct, random, and above every
// priority a change point hands out (those are <= 0).
std::int64_t Pct::priority_of(const StepOption& step) {
  auto [it, inserted] = priorities_.try_emplace(key_of(step), 0);
  if (inserted) it->second = 1 + static_cast<std::int64_t>(others_.random_.below(1u << 30));
  return it->second;
}

std::size_t Pct::highest(std::span<const StepOption> steps, std::size_t skip) {
  std::size_t best = steps.size();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (i == skip) continue;
    if (best == steps.size() || priority_of(steps[i]) > priority_of(steps[best])) best = i;
  }
  return best;
}

// At a change point the step that would run drops below every other before it runs, so that
// another one runs instead (the ordering constraint a depth-d bug needs).
std::uint64_t Pct::choose_step(std::span<const StepOption> steps) {
  const std::int64_t decision = step_decisions_++;
  const std::size_t crash = crash_index(steps);
  if (crash < steps.size() && others_.chance(others_.p_.crash)) return crash;
  std::size_t best = highest(steps, crash);
  if (best == steps.size()) return crash;
  const auto changes = std::count(change_points_.begin(), change_points_.end(), decision);
  for (std::int64_t i = 0; i < changes; ++i) {
    priorities_[key_of(steps[best])] = -2 * decision - i;
    best = highest(steps, crash);
  }
  return best;
}

}  // namespace rjsim::explore
