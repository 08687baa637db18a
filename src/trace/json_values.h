// Splits a text into the JSON values it holds, each with the line it starts on: either one value
// per line (JSON lines: kubectl --output-watch-events, the raw watch stream, audit logs; blank
// lines are skipped) or concatenated, possibly pretty-printed values (plain `kubectl get -w -o
// json`, whose objects span many lines). The layout is decided by the first line that opens with
// `{`: if its value ends on that line, the text is JSON lines, and a bad line spoils only itself. In the
// concatenated layout a value that does not parse is skipped up to the next line that opens with
// `{`, so one bad object spoils only itself too.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rjsim::trace {

struct JsonValue {
  int line = 0;          // where the value starts (1-based)
  nlohmann::json value;  // null when it did not parse (then `error` says why)
  std::string error;     // "" for a value that parsed; else the message, with `line` its line
};

// Does the text look like JSON (some line opens with `{`, which no YAML document kubectl prints does)?
bool looks_like_json(std::string_view text);

// Calls `each` with every value of the text, in order, one at a time: a long trace is never held
// as JSON trees at once. `each` may move the value away.
using EachJsonValue = std::function<void(JsonValue&)>;
void for_each_json_value(std::string_view text, const EachJsonValue& each);
// One value per non-blank line, whatever the first value looks like.
void for_each_json_line(std::string_view text, const EachJsonValue& each);

}  // namespace rjsim::trace
