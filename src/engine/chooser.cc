#include "engine/chooser.h"

#include <array>
#include <cassert>

#include <fmt/format.h>

namespace rjsim::engine {

namespace {
constexpr std::array<std::string_view, 6> kPointNames = {
    "step", "cache_advance", "write_outcome", "http_outcome", "name_suffix", "relist_point"};
}  // namespace

std::string_view to_string(ChoicePoint point) { return kPointNames[static_cast<int>(point)]; }

bool parse_choice_point(std::string_view text, ChoicePoint& point) {
  for (std::size_t i = 0; i < kPointNames.size(); ++i) {
    if (kPointNames[i] == text) {
      point = static_cast<ChoicePoint>(i);
      return true;
    }
  }
  return false;
}

std::string_view to_string(StepKind kind) {
  switch (kind) {
    case StepKind::deliver: return "deliver";
    case StepKind::notify: return "notify";
    case StepKind::actor: return "actor";
    case StepKind::timers: return "timers";
    case StepKind::reconcile: return "reconcile";
    case StepKind::restart: return "restart";
    case StepKind::clock: return "clock";
    case StepKind::crash: return "crash";
    case StepKind::resume: return "resume";
  }
  return "step";
}

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t SplitMix64::below(std::uint64_t bound) {
  assert(bound > 0 && "rjsim bug: a choice among zero alternatives");
  // Lemire: the high half of a 128-bit product is uniform once the low half is past the
  // threshold that would make some values more likely.
  unsigned __int128 product = static_cast<unsigned __int128>(next()) * bound;
  std::uint64_t low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = -bound % bound;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(next()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

std::uint64_t DefaultChooser::choose(ChoicePoint point, std::uint64_t options) {
  return point == ChoicePoint::name_suffix ? random_.below(options) : 0;
}

std::uint64_t RandomChooser::choose(ChoicePoint, std::uint64_t options) {
  return random_.below(options);
}

std::uint64_t ReplayChooser::choose(ChoicePoint point, std::uint64_t options) {
  if (diverged_) return fallback_->choose(point, options);
  if (next_ >= decisions_.size()) {
    if (fallback_) return fallback_->choose(point, options);
    throw ReplayDiverged(fmt::format("decision {} ({}, {} options) is past the end of the "
                                     "recording ({} decisions)",
                                     next_, to_string(point), options, decisions_.size()));
  }
  const Decision& recorded = decisions_[next_];
  if (recorded.point != point || recorded.options != options || recorded.picked >= options) {
    if (fallback_) {
      diverged_ = true;
      return fallback_->choose(point, options);
    }
    throw ReplayDiverged(fmt::format(
        "decision {}: the run asks for {} with {} options, the recording has {} with {} options",
        next_, to_string(point), options, to_string(recorded.point), recorded.options));
  }
  ++next_;
  return recorded.picked;
}

}  // namespace rjsim::engine
