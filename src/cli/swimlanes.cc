#include "cli/swimlanes.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cli/timeline.h"
#include "engine/chooser.h"
#include "explore/schedule.h"

namespace rjsim::cli {
namespace {

using events::Event;

// Lanes in the order a reader follows a race: the stimulus, the truth, the caches that lag it,
// the queue, the controller, the rest of the cluster, Ray, then the simulator's own.
constexpr std::array<std::string_view, 13> kLaneOrder = {
    "user", "apiserver", "informer/", "workqueue", "controller", "raycluster-controller", "job-controller",
    "kubelet", "gc", "submitter", "ray", "chooser", "checker"};

std::size_t lane_rank(std::string_view lane) {
  for (std::size_t i = 0; i < kLaneOrder.size(); ++i) {
    if (lane == kLaneOrder[i] || (kLaneOrder[i].ends_with('/') && lane.starts_with(kLaneOrder[i]))) return i;
  }
  return kLaneOrder.size();
}

bool is_api_write(std::string_view type) {
  return type == "api.create" || type == "api.update" || type == "api.update_status" || type == "api.patch" ||
         type == "api.patch_status" || type == "api.delete";
}

std::string shortened(std::string text, std::size_t width) {
  if (text.size() > width) text = text.substr(0, width - 1) + "~";
  return text;
}

// "Kind/namespace/name" -> "Kind".
std::string kind_in(const std::string& object) { return object.substr(0, object.find('/')); }

// A logged decision that departs from the fault-free run (explore/schedule.h's rule).
bool departs(const Event& choice) {
  engine::Decision decision;
  if (!engine::parse_choice_point(choice.text("point"), decision.point)) return false;
  decision.picked = static_cast<std::uint64_t>(choice.integer("picked"));
  return explore::is_departure(decision);
}

// Collects marks, bars and bands event by event.
class SwimlaneCollector {
 public:
  SwimlaneCollector(const std::vector<store::Violation>& violations, std::optional<SeqWindow> window)
      : violations_(violations), window_(window) {}

  void add(const Event& event) {
    if (event.type == "status.transition") record_transition(event);
    note_informer(event);
    const bool verdict_on_window = event.type == "invariant.violated" && in_window(event.integer("step_seq"));
    if (!in_window(event.seq) && !verdict_on_window) return;
    ++result_.events;
    if (result_.events == 1) result_.first_seq = event.seq;
    result_.last_seq = event.seq;
    if (event.type.starts_with("reconcile.") || event.type.starts_with("process.")) {
      add_reconcile(event);
    } else if (is_api_write(event.type)) {
      add_write(event);
    } else {
      add_other(event);
    }
  }

  Swimlanes finish() {
    if (open_bar_) result_.bars.push_back(*open_bar_);   // cut by the window's end
    add_in_flight();
    std::sort(result_.lanes.begin(), result_.lanes.end(), [&](const std::string& a, const std::string& b) {
      return std::pair(lane_rank(a), first_seen_.at(a)) < std::pair(lane_rank(b), first_seen_.at(b));
    });
    for (auto& [rayjob, segments] : bands_) result_.bands.push_back(clipped_band(rayjob, segments));
    std::sort(result_.bands.begin(), result_.bands.end(), [](const StatusBand& a, const StatusBand& b) {
      return a.segments.front().from_seq < b.segments.front().from_seq;
    });
    return std::move(result_);
  }

 private:
  bool in_window(std::int64_t seq) const { return !window_ || (seq >= window_->first && seq <= window_->last); }

  void use_lane(const std::string& lane, std::int64_t seq) {
    if (first_seen_.emplace(lane, seq).second) result_.lanes.push_back(lane);
  }

  void draw_at(const Event& event) { result_.time_of_seq.emplace(event.seq, event.at_ms); }

  SwimlaneMark& mark(const Event& event, std::string lane, MarkKind kind) {
    use_lane(lane, event.seq);
    draw_at(event);
    SwimlaneMark& added = result_.marks.emplace_back();
    added.seq = event.seq;
    added.at_ms = event.at_ms;
    added.lane = std::move(lane);
    added.kind = kind;
    added.detail = format_timeline_line(event);
    added.link = fmt::format("#seq-{}", event.seq);
    return added;
  }

  void add_reconcile(const Event& event) {
    if (event.type == "reconcile.begin") {
      if (open_bar_) result_.bars.push_back(*open_bar_);
      use_lane("controller", event.seq);
      draw_at(event);
      open_bar_ = ReconcileBar{event.seq, event.seq, event.object, ""};
    } else if (event.type == "reconcile.end" && open_bar_) {
      draw_at(event);
      close_bar(event.seq, event.text("result"));
    } else if (event.type == "reconcile.panic") {
      mark(event, "controller", MarkKind::crash).label = "panic";
    } else if (event.type == "process.crash") {
      if (open_bar_) close_bar(event.seq, "crashed");
      mark(event, "controller", MarkKind::crash).label = "crash";
    } else if (event.type == "process.restart") {
      mark(event, "controller", MarkKind::restart).label = "restart";
    }
  }

  void close_bar(std::int64_t seq, std::string result) {
    open_bar_->end_seq = seq;
    open_bar_->result = std::move(result);
    result_.bars.push_back(*open_bar_);
    open_bar_.reset();
  }

  // The writer's mark, and the API server's: the object's resourceVersion as it moves.
  void add_write(const Event& event) {
    const std::string& outcome = event.text("outcome");
    if (outcome != "ok") {
      mark(event, event.actor, MarkKind::fault).label = outcome.empty() ? "failed" : outcome;
      return;
    }
    const events::Value* changed_field = event.find("changed");
    const bool changed = changed_field && std::holds_alternative<bool>(*changed_field) && std::get<bool>(*changed_field);
    SwimlaneMark& written = mark(event, event.actor, MarkKind::write);
    if (!changed) return;
    written.number = event.integer("rv_after");
    mark(event, "apiserver", MarkKind::stored).number = event.integer("rv_after");
    const std::string kind = kind_in(event.object);
    writes_.push_back({"informer/" + kind, event.integer("rv_after"), event.seq, std::nullopt});
  }

  // Over the whole run: which kinds have an informer (it delivered, relisted, or was read), and
  // when each delivered which resourceVersion.
  void note_informer(const Event& event) {
    if (event.type == "watch.deliver") {
      delivered_.emplace(std::pair(event.actor, event.integer("rv")), event.seq);
      informers_.insert(event.actor);
    } else if (event.type == "informer.relist") {
      informers_.insert(event.actor);
    } else if (event.type == "cache.read" || event.type == "cache.list") {
      informers_.insert("informer/" + kind_in(event.object));
    }
  }

  // Each write's way to the informer of its kind, for the kinds an informer watches in this run.
  void add_in_flight() {
    for (WatchInFlight& write : writes_) {
      if (!informers_.contains(write.lane)) continue;
      auto it = delivered_.find(std::pair(write.lane, write.rv));
      if (it != delivered_.end() && it->second <= result_.last_seq) write.delivered_seq = it->second;
      use_lane(write.lane, write.written_seq);
      result_.in_flight.push_back(std::move(write));
    }
  }

  void add_other(const Event& event) {
    const std::string& type = event.type;
    if (type.starts_with("action.")) {
      SwimlaneMark& action = mark(event, "user", MarkKind::action);
      const std::string* patch = event.nested_json("patch");
      action.label = shortened(patch ? *patch : type.substr(7) + " " + event.object, 40);
    } else if (type == "cache.read") {
      add_cache_read(event);
    } else if (type == "cache.list") {
      const std::int64_t lag = event.integer("lag");
      SwimlaneMark& list = mark(event, event.actor, lag > 0 ? MarkKind::stale_read : MarkKind::read);
      if (lag > 0) list.label = fmt::format("list, cache {} behind", lag);
    } else if (type == "api.get" || type == "api.list") {
      mark(event, event.actor, MarkKind::api_read).label = type == "api.get" ? "API get" : "API list";
    } else if (type == "api.reply_lost") {
      mark(event, event.actor, MarkKind::fault).label = "reply lost";
    } else if (type == "watch.deliver") {
      SwimlaneMark& delivered = mark(event, event.actor, MarkKind::deliver);
      delivered.number = event.integer("rv");
      if (event.integer("pending") > 0) delivered.label = fmt::format("{} held", event.integer("pending"));
    } else if (type == "informer.relist") {
      mark(event, event.actor, MarkKind::relist).label = "relist";
    } else if (type == "queue.squash") {
      mark(event, event.actor, MarkKind::squash).label = "squash";
    } else if (type == "queue.backoff") {
      mark(event, event.actor, MarkKind::backoff).label = "backoff";
    } else if (type == "dashboard.fault") {
      mark(event, event.actor, MarkKind::fault).label = event.text("injected");
    } else if (type.starts_with("dashboard.")) {
      const std::string& caller = event.text("caller");
      mark(event, caller.empty() ? event.actor : caller, MarkKind::dashboard);
    } else if (type.starts_with("ray.") || type == "submitter.start") {
      mark(event, event.actor, MarkKind::ray).label = type == "ray.job_status" ? event.text("to") : "";
    } else if (type == "choice" && departs(event)) {
      // Which step ran is in the tooltip: a step's name would not fit its column.
      const std::string& point = event.text("point");
      mark(event, "chooser", MarkKind::departure).label = point == "step" ? "" : point;
    } else if (type == "invariant.violated") {
      add_violation(event);
    }
  }

  // Stale when the cache's version is not the API server's: not yet seen, or already gone there.
  void add_cache_read(const Event& event) {
    const std::int64_t seen = event.integer("rv_seen");
    const std::int64_t latest = event.integer("rv_latest");
    const bool stale = seen != latest;
    SwimlaneMark& read = mark(event, event.actor, stale ? MarkKind::stale_read : MarkKind::read);
    if (seen != 0) read.number = seen;
    if (stale) {
      read.label = fmt::format("{}: cache rv {}, API rv {}", kind_in(event.object), seen, latest);
    }
  }

  void add_violation(const Event& event) {
    SwimlaneMark& fired = mark(event, "checker", MarkKind::violation);
    fired.label = event.text("invariant");
    for (std::size_t k = 0; k < violations_.size(); ++k) {
      if (violations_[k].seq == event.integer("step_seq") && violations_[k].invariant == fired.label) {
        fired.link = fmt::format("#violation-{}", k);
        break;
      }
    }
  }

  void record_transition(const Event& event) {
    if (in_window(event.seq)) draw_at(event);
    std::vector<StatusSegment>& segments = bands_[event.object];
    segments.push_back({event.seq, event.text("to_deployment"), event.text("to_job_status")});
  }

  // A band within the window: the segment in force at its start, then those inside it.
  StatusBand clipped_band(const std::string& rayjob, const std::vector<StatusSegment>& segments) const {
    StatusBand band{rayjob, {}};
    for (const StatusSegment& segment : segments) {
      if (segment.from_seq > result_.last_seq) break;
      if (segment.from_seq < result_.first_seq && !band.segments.empty()) band.segments.clear();
      band.segments.push_back(segment);
    }
    if (!band.segments.empty() && band.segments.front().from_seq < result_.first_seq) {
      band.segments.front().from_seq = result_.first_seq;
    }
    return band;
  }

  const std::vector<store::Violation>& violations_;
  std::optional<SeqWindow> window_;
  Swimlanes result_;
  std::map<std::string, std::int64_t> first_seen_;       // lane -> the seq of its first mark
  std::map<std::string, std::vector<StatusSegment>> bands_;
  std::optional<ReconcileBar> open_bar_;
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> delivered_;   // (informer, rv) -> seq, whole run
  std::set<std::string> informers_;                                           // whole run
  std::vector<WatchInFlight> writes_;                                         // in the window
};

}  // namespace

std::string_view to_string(MarkKind kind) {
  switch (kind) {
    case MarkKind::action: return "action";
    case MarkKind::write: return "write";
    case MarkKind::stored: return "stored";
    case MarkKind::fault: return "fault";
    case MarkKind::read: return "read";
    case MarkKind::stale_read: return "stale-read";
    case MarkKind::api_read: return "api-read";
    case MarkKind::deliver: return "deliver";
    case MarkKind::relist: return "relist";
    case MarkKind::squash: return "squash";
    case MarkKind::backoff: return "backoff";
    case MarkKind::dashboard: return "dashboard";
    case MarkKind::ray: return "ray";
    case MarkKind::crash: return "crash";
    case MarkKind::restart: return "restart";
    case MarkKind::departure: return "departure";
    case MarkKind::violation: return "violation";
  }
  return "?";
}

Swimlanes collect_swimlanes(store::EventReader events, const std::vector<store::Violation>& violations,
                            std::optional<SeqWindow> window) {
  SwimlaneCollector collector(violations, window);
  Event event;
  while (events.next(event)) collector.add(event);
  return collector.finish();
}

std::optional<SeqWindow> violation_window(const std::vector<std::vector<std::int64_t>>& shown_seqs,
                                          const std::vector<store::Violation>& violations) {
  std::optional<SeqWindow> window;
  auto widen = [&](std::int64_t seq) {
    if (!window) window = SeqWindow{seq, seq};
    window->first = std::min(window->first, seq);
    window->last = std::max(window->last, seq);
  };
  for (const std::vector<std::int64_t>& seqs : shown_seqs) {
    for (std::int64_t seq : seqs) widen(seq);
  }
  for (const store::Violation& violation : violations) widen(violation.seq);
  return window;
}

}  // namespace rjsim::cli
