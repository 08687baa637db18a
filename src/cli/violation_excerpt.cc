#include "cli/violation_excerpt.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "cli/timeline.h"
#include "engine/objects.h"

namespace rjsim::cli {

using events::Event;

namespace {

constexpr std::size_t reconciles_back = 3;   // how many reconciles of the key the window spans at least
constexpr std::size_t most_lines = 60;       // an excerpt longer than this keeps its end

// What the first pass over the log learns.
struct RunIndex {
  std::vector<std::string> rayjobs;                                // every RayJob ref, first seen first
  std::map<std::string, std::vector<std::int64_t>> reconciles;     // RayJob ref -> seqs of reconcile.begin
  std::map<std::string, std::set<std::string>> touched;            // RayJob ref -> objects its reconciles named
};

// What one excerpt shows: the window [from_seq, to_seq] and the seqs shown whatever they are.
struct ExcerptPlan {
  std::string rayjob;
  std::string rayjob_key;              // "namespace/name", the work-queue key
  std::int64_t from_seq = 0;
  std::int64_t to_seq = 0;             // the violation's seq
  std::vector<std::int64_t> marked;    // the violation's seq and the seqs its message names
  std::vector<Event> shown;
};

bool is_rayjob_ref(std::string_view ref) { return ref.starts_with("RayJob/"); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
         c == '.' || c == '_' || c == '/';
}

RunIndex index_run(store::EventReader reader) {
  RunIndex index;
  Event event;
  std::string reconciling;   // the RayJob whose reconcile is running, if any
  while (reader.next(event)) {
    if (is_rayjob_ref(event.object) &&
        std::find(index.rayjobs.begin(), index.rayjobs.end(), event.object) == index.rayjobs.end()) {
      index.rayjobs.push_back(event.object);
    }
    if (event.type == "reconcile.begin") {
      reconciling = event.object;
      index.reconciles[event.object].push_back(event.seq);
    } else if (event.type == "reconcile.end" || event.type.starts_with("process.")) {
      reconciling.clear();
    } else if (!reconciling.empty() && !event.object.empty() && !is_rayjob_ref(event.object)) {
      index.touched[reconciling].insert(event.object);
    }
  }
  return index;
}

// The RayJob an object is named after: the one with the longest name N in its namespace such
// that the object's name is N or begins with N- (KubeRay names a RayJob's cluster N-raycluster-x,
// its submitter Job N, whose Pods are N-x). "" when none.
std::string owner_by_name(const std::string& object, const std::vector<std::string>& rayjobs) {
  engine::ObjectRef parsed;
  if (!engine::parse_object_ref(object, parsed)) return "";
  std::string owner;
  std::size_t owner_name_size = 0;
  for (const std::string& rayjob : rayjobs) {
    engine::ObjectRef job;
    if (!engine::parse_object_ref(rayjob, job) || job.namespace_ != parsed.namespace_) continue;
    const bool named_after = parsed.name == job.name || parsed.name.starts_with(job.name + "-");
    if (named_after && job.name.size() > owner_name_size) {
      owner = rayjob;
      owner_name_size = job.name.size();
    }
  }
  return owner;
}

// A choice other than the fault-free one at a point where that means a fault (a stale read, an
// injected write or HTTP outcome, an older re-list), not merely another order of steps.
bool is_fault_choice(const Event& event) {
  if (event.type != "choice" || event.integer("picked") == 0) return false;
  const std::string point = event.text("point");
  return point != "step" && point != "name_suffix";
}

bool concerns(const Event& event, const ExcerptPlan& plan, const RunIndex& index) {
  if (plan.rayjob.empty()) return true;
  if (event.object.empty()) {
    return event.type.starts_with("process.") || is_fault_choice(event) ||
           (event.type == "queue.squash" && event.text("key") == plan.rayjob_key);
  }
  if (event.object == plan.rayjob) return true;
  const auto touched = index.touched.find(plan.rayjob);
  if (touched != index.touched.end() && touched->second.contains(event.object)) return true;
  return owner_by_name(event.object, index.rayjobs) == plan.rayjob;
}

// Events that say nothing a person needs to see the cause.
bool is_quiet(const Event& event) {
  if (event.type == "cache.read") {
    const bool stale = event.integer("lag") > 0 ||
                       event.integer("rv_seen") != event.integer("rv_latest");
    return !stale;
  }
  if (event.type == "queue.squash") return false;
  if (event.type == "choice") return !is_fault_choice(event);
  return event.type == "cache.list" || event.type.starts_with("queue.") ||
         event.type.starts_with("clock.");
}

bool is_marked(const ExcerptPlan& plan, std::int64_t seq) {
  return std::find(plan.marked.begin(), plan.marked.end(), seq) != plan.marked.end();
}

bool is_shown(const Event& event, const ExcerptPlan& plan, const RunIndex& index) {
  if (is_marked(plan, event.seq)) return true;
  return event.seq >= plan.from_seq && event.seq <= plan.to_seq && !is_quiet(event) &&
         concerns(event, plan, index);
}

std::string queue_key(const std::string& rayjob) {
  engine::ObjectRef parsed;
  return engine::parse_object_ref(rayjob, parsed) ? engine::key_of(parsed.namespace_, parsed.name)
                                                  : "";
}

// The window starts at the reconciles_back-th last reconcile of the key before the violation,
// or at the latest seq before it that the message names, whichever is earlier.
std::int64_t window_start(const std::string& rayjob, const std::vector<std::int64_t>& named,
                          std::int64_t violation_seq, const RunIndex& index) {
  std::vector<std::int64_t> candidates;
  if (const auto reconciles = index.reconciles.find(rayjob); reconciles != index.reconciles.end()) {
    std::vector<std::int64_t> before;
    for (std::int64_t seq : reconciles->second) {
      if (seq <= violation_seq) before.push_back(seq);
    }
    if (!before.empty()) {
      candidates.push_back(before[before.size() - std::min(before.size(), reconciles_back)]);
    }
  }
  std::int64_t latest_named = -1;
  for (std::int64_t seq : named) {
    if (seq < violation_seq) latest_named = std::max(latest_named, seq);
  }
  if (latest_named >= 0) candidates.push_back(latest_named);
  return candidates.empty() ? 0 : *std::min_element(candidates.begin(), candidates.end());
}

ExcerptPlan plan_excerpt(const store::Violation& violation, const RunIndex& index) {
  ExcerptPlan plan;
  plan.rayjob = rayjob_named_in(violation.message);
  plan.rayjob_key = queue_key(plan.rayjob);
  plan.to_seq = violation.seq;
  const std::vector<std::int64_t> named = seqs_named_in(violation.message);
  plan.from_seq = window_start(plan.rayjob, named, violation.seq, index);
  for (std::int64_t seq : named) {
    if (seq <= violation.seq) plan.marked.push_back(seq);
  }
  plan.marked.push_back(violation.seq);
  return plan;
}

// ---- Printing ----

// Consecutive shown events printed together: one event, or one reconcile (begin to end) that
// may stand for several identical ones in a row.
struct Group {
  std::vector<Event> events;
  std::string reconcile_signature;   // "" for a group that is not a reconcile
  int repeats = 0;                   // identical reconciles after the first
  Event last;                        // the last repeat's reconcile.begin
};

// Everything but seq and time: two reconciles with the same signature did the same.
std::string signature_of(const std::vector<Event>& reconcile) {
  std::string signature;
  for (const Event& event : reconcile) {
    signature += fmt::format("{}\t{}\t{}\t{}\n", event.type, event.actor, event.object,
                             events::body_json(event));
  }
  return signature;
}

std::vector<Group> group_reconciles(const std::vector<Event>& shown, const ExcerptPlan& plan) {
  std::vector<Group> groups;
  for (std::size_t at = 0; at < shown.size();) {
    Group group;
    std::size_t end = at + 1;
    if (shown[at].type == "reconcile.begin") {
      while (end < shown.size() && shown[end - 1].type != "reconcile.end") ++end;
    }
    group.events.assign(shown.begin() + static_cast<std::ptrdiff_t>(at),
                        shown.begin() + static_cast<std::ptrdiff_t>(end));
    at = end;
    const bool any_marked = std::any_of(group.events.begin(), group.events.end(),
                                        [&](const Event& e) { return is_marked(plan, e.seq); });
    if (group.events.front().type == "reconcile.begin" && !any_marked) {
      group.reconcile_signature = signature_of(group.events);
      if (!groups.empty() && groups.back().reconcile_signature == group.reconcile_signature) {
        ++groups.back().repeats;
        groups.back().last = group.events.front();
        continue;
      }
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::string excerpt_line(const Event& event, const ExcerptPlan& plan) {
  return fmt::format("{} {}", is_marked(plan, event.seq) ? "*" : " ", format_timeline_line(event));
}

std::vector<std::string> format_groups(const std::vector<Group>& groups, const ExcerptPlan& plan) {
  std::vector<std::string> lines;
  bool before_window = true;
  for (const Group& group : groups) {
    if (before_window && group.events.front().seq >= plan.from_seq) {
      before_window = false;
      if (!lines.empty()) lines.push_back("  ...");
    }
    for (const Event& event : group.events) lines.push_back(excerpt_line(event, plan));
    if (group.repeats > 0) {
      lines.push_back(fmt::format("  {:>10}  ... the same reconcile {} more time{}, the last at #{}",
                                  format_virtual_time(group.last.at_ms), group.repeats,
                                  group.repeats == 1 ? "" : "s", group.last.seq));
    }
  }
  return lines;
}

// Keeps the last most_lines lines, saying how many earlier ones were left out.
std::vector<std::string> keep_end(std::vector<std::string> lines) {
  if (lines.size() <= most_lines) return lines;
  const std::size_t dropped = lines.size() - most_lines + 1;
  std::vector<std::string> kept;
  kept.push_back(fmt::format("  ... {} earlier lines left out (rjsim show --format json has every event)",
                             dropped));
  kept.insert(kept.end(), lines.begin() + static_cast<std::ptrdiff_t>(dropped), lines.end());
  return kept;
}

ViolationExcerpt render(const ExcerptPlan& plan) {
  ViolationExcerpt excerpt;
  excerpt.rayjob = plan.rayjob;
  for (const Event& event : plan.shown) excerpt.seqs.push_back(event.seq);
  excerpt.lines = keep_end(format_groups(group_reconciles(plan.shown, plan), plan));
  return excerpt;
}

}  // namespace

std::vector<ViolationExcerpt> violation_excerpts(const store::Database& database, std::int64_t run_id,
                                                 const std::vector<store::Violation>& violations) {
  if (violations.empty()) return {};
  const RunIndex index = index_run(database.events(run_id));
  std::vector<ExcerptPlan> plans;
  for (const store::Violation& violation : violations) plans.push_back(plan_excerpt(violation, index));
  store::EventReader reader = database.events(run_id);
  Event event;
  while (reader.next(event)) {
    for (ExcerptPlan& plan : plans) {
      if (is_shown(event, plan, index)) plan.shown.push_back(event);
    }
  }
  std::vector<ViolationExcerpt> excerpts;
  for (const ExcerptPlan& plan : plans) excerpts.push_back(render(plan));
  return excerpts;
}

std::string rayjob_named_in(std::string_view message) {
  const std::size_t at = message.find("RayJob/");
  if (at == std::string_view::npos) return "";
  std::size_t end = at;
  while (end < message.size() && is_name_char(message[end])) ++end;
  std::string ref(message.substr(at, end - at));
  while (!ref.empty() && (ref.back() == '.' || ref.back() == '/')) ref.pop_back();
  engine::ObjectRef parsed;
  return engine::parse_object_ref(ref, parsed) ? ref : "";
}

std::vector<std::int64_t> seqs_named_in(std::string_view message) {
  std::vector<std::int64_t> seqs;
  constexpr std::string_view word = "seq ";
  for (std::size_t at = message.find(word); at != std::string_view::npos;
       at = message.find(word, at + 1)) {
    const bool whole_word = at == 0 || !is_name_char(message[at - 1]);
    std::size_t end = at + word.size();
    std::int64_t seq = 0;
    while (end < message.size() && is_digit(message[end]) && seq < 1'000'000'000'000) {
      seq = seq * 10 + (message[end] - '0');
      ++end;
    }
    if (whole_word && end > at + word.size()) seqs.push_back(seq);
  }
  return seqs;
}

}  // namespace rjsim::cli
