#include "trace/kubectl_watch_export.h"

#include <fmt/format.h>

#include "engine/object_json.h"
#include "engine/simulation.h"

namespace rjsim::trace {
namespace {

// Go's encodeState escapes these inside strings (HTMLEscape, and the two JavaScript line
// terminators); they cannot occur in JSON text outside a string.
std::string go_escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// Copies what each step appended to the watch log of one kind (the log only grows).
class WatchLogRecorder final : public engine::StepObserver {
 public:
  explicit WatchLogRecorder(engine::Kind kind) : kind_(kind) {}

  events::EventTypes reads() const override { return events::EventTypes::none(); }

  void after_step(const engine::World& world, const engine::StepLog&) override {
    const std::vector<engine::WatchEvent>& log = world.api.watch_log(kind_);
    for (std::size_t i = watch_log_.size(); i < log.size(); ++i) watch_log_.push_back(log[i]);
  }

  const std::vector<engine::WatchEvent>& watch_log() const { return watch_log_; }

 private:
  engine::Kind kind_;
  std::vector<engine::WatchEvent> watch_log_;
};

WatchExport export_trace(const explore::RecordedRun& run, engine::Kind kind) {
  const std::string actor = fmt::format("watch/{}", engine::to_string(kind));
  WatchExport out;
  for (const events::Event& event : run.events) {
    if (event.type != "watch.observed" || event.actor != actor) continue;
    const std::string* object = event.nested_json("object");
    if (object == nullptr) continue;
    out.text += kubectl_watch_line(event.text("watch"), nlohmann::json::parse(*object));
    ++out.events;
  }
  return out;
}

WatchExport export_simulated(const explore::RecordedRun& run, engine::Kind kind) {
  WatchLogRecorder recorder(kind);
  const explore::ReplayReport report = explore::replay_run(run, {}, {&recorder});
  WatchExport out;
  out.text = kubectl_watch_text(recorder.watch_log());
  out.events = static_cast<int>(recorder.watch_log().size());
  if (!report.identical) {
    out.divergence = fmt::format("{} no longer replays identically (first difference at seq {}): the watch "
                                 "log is the replay's",
                                 run.source, report.first_difference->seq);
  }
  return out;
}

}  // namespace

std::string go_json_marshal(const nlohmann::json& value) {
  return go_escaped(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string kubectl_watch_line(std::string_view type, const nlohmann::json& object) {
  return fmt::format("{{\"type\":\"{}\",\"object\":{}}}\n", type, go_json_marshal(object));
}

std::string kubectl_watch_text(const std::vector<engine::WatchEvent>& watch_log) {
  std::string text;
  for (const engine::WatchEvent& event : watch_log) {
    text += kubectl_watch_line(engine::to_string(event.type), engine::to_json(event.object));
  }
  return text;
}

WatchExport export_kubectl_watch(const explore::RecordedRun& run, std::string_view run_kind, engine::Kind kind) {
  if (run_kind == "trace") return export_trace(run, kind);
  return export_simulated(run, kind);
}

}  // namespace rjsim::trace
