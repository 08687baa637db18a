#include "trace/conform_timing.h"

#include <array>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/scenario_loader.h"

namespace rjsim::trace {
namespace {

struct TimingKey {
  const char* section;
  const char* key;
};

// The world timings conform derives from timestamps (conform_scenario.cc set_timing), the Ray
// job's own first: what a 1 s stamp moves most.
constexpr std::array<TimingKey, 6> kTimingKeys = {{{"ray", "runsFor"},
                                                   {"ray", "pendingFor"},
                                                   {"rayCluster", "readyAfter"},
                                                   {"submitter", "startAfter"},
                                                   {"submitter", "failAfter"},
                                                   {"submitter", "finishesAfter"}}};
// Within a whole-second stamp's resolution, nearest first.
constexpr std::array<std::int64_t, 6> kWithinResolution = {250, -250, 500, -500, 750, -750};
// Beyond it, for the poll phase: the Ray job's start anywhere in a 3 s poll period.
constexpr std::array<std::int64_t, 6> kPollPhase = {1000, -1000, 1250, -1250, 1500, -1500};

std::string seconds_text(std::int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{}s", ms / 1000) : fmt::format("{}s", static_cast<double>(ms) / 1000.0);
}

struct Derived {
  TimingKey key;
  std::int64_t ms;
};

// The timings of `derived` that came from the recording, in kTimingKeys' order.
std::vector<Derived> derived_timings(const ConformScenario& derived) {
  std::vector<Derived> out;
  const nlohmann::json& world = derived.document.value("world", nlohmann::json::object());
  for (const TimingKey& key : kTimingKeys) {
    const auto section = world.find(key.section);
    if (section == world.end() || !section->is_object()) continue;
    const auto value = section->find(key.key);
    std::int64_t ms = 0;
    if (value == section->end() || !value->is_string() || !engine::parse_duration(value->get<std::string>(), ms)) {
      continue;
    }
    out.push_back({key, ms});
  }
  return out;
}

ConformScenario with_changes(const ConformScenario& derived, const TimingChoice& choice) {
  ConformScenario out = derived;
  for (const TimingChoice::Change& change : choice.changes) {
    const std::size_t dot = change.key.find('.');
    out.document["world"][change.key.substr(0, dot)][change.key.substr(dot + 1)] =
        fmt::format("{}ms", change.taken_ms);
  }
  out.scenario = scenario_with_actions(out, out.action_times.size());
  return out;
}

bool agrees(const ConformScenario& variant) {
  const Alignment alignment = align_fault_free(variant, variant.scenario);
  return !alignment.details.empty() && alignment.differs == 0;
}

TimingChoice::Change change_of(const Derived& timing, std::int64_t offset) {
  return {fmt::format("{}.{}", timing.key.section, timing.key.key), timing.ms, timing.ms + offset};
}

}  // namespace

std::string TimingChoice::label() const {
  std::string out;
  for (const Change& change : changes) {
    out += fmt::format("{}{} {} taken as {}", out.empty() ? "" : " and ", change.key, seconds_text(change.derived_ms),
                       seconds_text(change.taken_ms));
  }
  return out;
}

std::optional<TimingChoice> search_timing(const ConformScenario& derived) {
  const std::vector<Derived> timings = derived_timings(derived);
  int tried = 0;
  const auto attempt = [&](TimingChoice choice) -> std::optional<TimingChoice> {
    for (const TimingChoice::Change& change : choice.changes) {
      if (change.taken_ms < 0) return std::nullopt;
    }
    ++tried;
    if (!agrees(with_changes(derived, choice))) return std::nullopt;
    choice.variants_tried = tried;
    return choice;
  };
  for (const Derived& timing : timings) {   // one timing within its resolution
    for (std::int64_t offset : kWithinResolution) {
      if (auto found = attempt({{change_of(timing, offset)}, false, 0})) return found;
    }
  }
  for (const Derived& timing : timings) {   // the poll phase: the Ray job's start
    if (std::string_view(timing.key.key) != "pendingFor") continue;
    for (std::int64_t offset : kPollPhase) {
      if (auto found = attempt({{change_of(timing, offset)}, true, 0})) return found;
    }
  }
  const std::size_t paired = std::min<std::size_t>(timings.size(), 3);   // the Ray job's and the cluster's
  for (std::size_t a = 0; a < paired; ++a) {
    for (std::size_t b = a + 1; b < paired; ++b) {
      for (std::int64_t first : kWithinResolution) {
        for (std::int64_t second : kWithinResolution) {
          if (auto found = attempt({{change_of(timings[a], first), change_of(timings[b], second)}, false, 0})) {
            return found;
          }
        }
      }
    }
  }
  return std::nullopt;
}

void apply_timing(ConformScenario& derived, const TimingChoice& choice) {
  derived = with_changes(derived, choice);
  derived.assumptions.push_back(fmt::format(
      "timing: {}, {} (the first of {} variants under which the model makes every recorded transition; with the "
      "timings as derived it does not)",
      choice.label(),
      choice.poll_phase ? "the Ray job's start moved within the RayJob controller's 3 s poll period, which no "
                          "object records"
                        : "within the 1 s resolution of the Kubernetes timestamps it was derived from",
      choice.variants_tried));
}

}  // namespace rjsim::trace
