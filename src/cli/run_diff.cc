#include "cli/run_diff.h"

#include <deque>
#include <map>

#include "cli/run_record.h"

namespace rjsim::cli {

using events::Event;

namespace {

void keep_last(std::deque<Event>& recent, const Event& event, std::size_t context) {
  recent.push_back(event);
  while (recent.size() > context) recent.pop_front();
}

// Reads the rest of a run: counts its events and keeps the first `context` of them.
void read_rest(store::EventReader& reader, std::int64_t& count, std::vector<Event>& after,
               std::size_t context) {
  Event event;
  while (reader.next(event)) {
    ++count;
    if (after.size() < context) after.push_back(event);
  }
}

EventDifference difference_at(const std::optional<Event>& a, const std::optional<Event>& b) {
  EventDifference difference;
  difference.seq = a ? a->seq : b->seq;
  difference.a = a;
  difference.b = b;
  difference.fields = a && b ? differing_fields(*a, *b) : std::vector<std::string>{"end"};
  return difference;
}

bool same_change(const store::Transition& a, const store::Transition& b) {
  return a.from_deployment == b.from_deployment && a.to_deployment == b.to_deployment &&
         a.from_job_status == b.from_job_status && a.to_job_status == b.to_job_status &&
         a.reason == b.reason;
}

RowDifference compare_row(const std::optional<store::Transition>& a,
                          const std::optional<store::Transition>& b) {
  if (!a || !b || !same_change(*a, *b)) return RowDifference::transition;
  return a->at_ms == b->at_ms && a->seq == b->seq ? RowDifference::same : RowDifference::timing;
}

std::optional<store::Transition> at(const std::vector<store::Transition>& transitions,
                                    std::size_t index) {
  if (index < transitions.size()) return transitions[index];
  return std::nullopt;
}

}  // namespace

std::vector<std::string> differing_fields(const Event& a, const Event& b) {
  std::vector<std::string> fields;
  if (a.seq != b.seq) fields.emplace_back("seq");
  if (a.at_ms != b.at_ms) fields.emplace_back("at_ms");
  if (a.origin != b.origin) fields.emplace_back("origin");
  if (a.type != b.type) fields.emplace_back("type");
  if (a.actor != b.actor) fields.emplace_back("actor");
  if (a.object != b.object) fields.emplace_back("object");
  if (a.body != b.body) fields.emplace_back("body");
  return fields;
}

EventComparison compare_events(store::EventReader a, store::EventReader b, std::size_t context) {
  EventComparison comparison;
  std::deque<Event> recent;
  Event event_a;
  Event event_b;
  while (true) {
    const bool has_a = a.next(event_a);
    const bool has_b = b.next(event_b);
    comparison.events_a += has_a ? 1 : 0;
    comparison.events_b += has_b ? 1 : 0;
    if (!has_a && !has_b) return comparison;
    if (has_a && has_b && differing_fields(event_a, event_b).empty()) {
      keep_last(recent, event_a, context);
      continue;
    }
    comparison.first_difference = difference_at(has_a ? std::optional<Event>(event_a) : std::nullopt,
                                                 has_b ? std::optional<Event>(event_b) : std::nullopt);
    break;
  }
  comparison.common_before.assign(recent.begin(), recent.end());
  read_rest(a, comparison.events_a, comparison.after_a, context);
  read_rest(b, comparison.events_b, comparison.after_b, context);
  return comparison;
}

std::vector<RayJobTransitions> pair_transitions(const std::vector<store::Transition>& a,
                                                const std::vector<store::Transition>& b) {
  std::map<std::string, std::pair<std::vector<store::Transition>, std::vector<store::Transition>>>
      by_rayjob;
  for (const store::Transition& t : a) by_rayjob[object_name(t.rayjob)].first.push_back(t);
  for (const store::Transition& t : b) by_rayjob[object_name(t.rayjob)].second.push_back(t);
  std::vector<RayJobTransitions> paired;
  for (const auto& [rayjob, runs] : by_rayjob) {
    RayJobTransitions rows{rayjob, {}};
    const std::size_t count = std::max(runs.first.size(), runs.second.size());
    for (std::size_t index = 0; index < count; ++index) {
      TransitionPair pair{at(runs.first, index), at(runs.second, index), RowDifference::same};
      pair.difference = compare_row(pair.a, pair.b);
      rows.rows.push_back(std::move(pair));
    }
    paired.push_back(std::move(rows));
  }
  return paired;
}

}  // namespace rjsim::cli
