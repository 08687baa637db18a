// Export of a run as a kubectl watch (DESIGN §6 `rjsim show --format kubectl-watch`; issue 7
// part 4): what `kubectl get KIND -w --output-watch-events -o json`, started before the run
// began, would have printed — one compact `{"type":…,"object":…}` line per watch event
// (trace-formats.md §1a "-o json": a WatchEvent goes through plain json.Marshal, `type` before
// `object`, map keys sorted, `<`, `>` and `&` escaped as \u003c, \u003e, \u0026). No initial
// list is printed: nothing existed before the run began.
//
// A simulated run's objects are not in its events, so the run is re-executed from its inputs
// (explore::replay_run) and the API server's watch log of the kind is read as the run grows.
// A trace run's own observations (`watch.observed`) are written back as they were stored
// (normalised: managedFields, selfLink and the last-applied annotation were removed on import).
// `rjsim import --format kubectl-watch` reads the output back.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/api_server.h"
#include "events/event.h"
#include "explore/replay.h"

namespace rjsim::trace {

// The JSON text Go's encoding/json.Marshal writes for this value: compact, object keys in
// byte order (nlohmann::json keeps them sorted), HTML-significant characters and U+2028/U+2029
// escaped.
std::string go_json_marshal(const nlohmann::json& value);

// One line of `kubectl get -w --output-watch-events -o json`, with its newline.
std::string kubectl_watch_line(std::string_view type, const nlohmann::json& object);

// Every event of a watch log, one line each.
std::string kubectl_watch_text(const std::vector<engine::WatchEvent>& watch_log);

struct WatchExport {
  std::string text;                 // the kubectl lines
  int events = 0;
  // Set when a simulated run no longer replays identically (the model changed since it was
  // recorded): the text is then the replay's watch log, and this says where it first differed.
  std::optional<std::string> divergence;
};

// The watch log of `kind` of a stored run: replayed when the run was simulated, read from its
// `watch.observed` events when it is a trace. Throws explore::NotReplayable for a simulated run
// that cannot be replayed (no `run.start`, its stored scenario no longer parses).
WatchExport export_kubectl_watch(const explore::RecordedRun& run, std::string_view run_kind, engine::Kind kind);

}  // namespace rjsim::trace
