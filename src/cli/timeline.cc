#include "cli/timeline.h"

#include <fmt/format.h>

namespace rjsim::cli {

using events::Event;
using events::Field;
using events::Value;

std::string format_state(const std::string& state) { return state.empty() ? "\"\"" : state; }

std::string format_virtual_time(std::int64_t ms) {
  return fmt::format("{}{}.{:03}s", ms < 0 ? "-" : "", std::abs(ms) / 1000, std::abs(ms) % 1000);
}

namespace {

std::string format_value(const Value& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(const std::string& s) const {
      if (s.empty() || s.find(' ') != std::string::npos) return fmt::format("\"{}\"", s);
      return s;
    }
    std::string operator()(const events::RawJson& json) const { return json.text; }
  };
  return std::visit(Visitor{}, value);
}

std::string shown_state(const std::string& state) { return state.empty() ? "\"\" (New)" : state; }

}  // namespace

std::string format_body(const std::vector<Field>& body) {
  std::string text;
  for (const Field& field : body) {
    if (!text.empty()) text += ' ';
    text += field.key;
    text += '=';
    text += format_value(field.value);
  }
  return text;
}

std::string format_timeline_line(const Event& event) {
  if (event.type == "status.transition") {
    return fmt::format("{:>10}  #{:<5} ==> {}: {} -> {}  jobStatus={} reason={}",
                       format_virtual_time(event.at_ms), event.seq, event.object,
                       shown_state(event.text("from_deployment")),
                       shown_state(event.text("to_deployment")),
                       format_value(event.text("to_job_status")),
                       format_value(event.text("reason")));
  }
  return fmt::format("{:>10}  #{:<5} {:<22} {:<20} {} {}", format_virtual_time(event.at_ms), event.seq,
                     event.actor, event.type, event.object, format_body(event.body));
}

std::vector<TransitionRow> transitions_of(const std::vector<Event>& events) {
  std::vector<TransitionRow> rows;
  for (const Event& event : events) {
    if (event.type != "status.transition") continue;
    rows.push_back(TransitionRow{event.at_ms, event.seq, event.object,
                                 event.text("from_deployment"), event.text("to_deployment"),
                                 event.text("to_job_status"), event.text("reason")});
  }
  return rows;
}

void print_transitions(std::ostream& out, const std::vector<TransitionRow>& transitions) {
  out << fmt::format("Transitions ({}):\n", transitions.size());
  for (const TransitionRow& row : transitions) {
    out << fmt::format("  {:>10}  #{:<5} {}  {} -> {}  jobStatus={}{}\n", format_virtual_time(row.at_ms),
                       row.seq, row.rayjob, shown_state(row.from), shown_state(row.to),
                       row.job_status.empty() ? "\"\"" : row.job_status,
                       row.reason.empty() ? "" : " reason=" + row.reason);
  }
}

}  // namespace rjsim::cli
