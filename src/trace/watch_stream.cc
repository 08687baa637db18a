#include "trace/watch_stream.h"

#include <utility>

#include "trace/json_values.h"
#include "trace/trace_object.h"

namespace rjsim::trace {

ParsedFile parse_watch_stream(std::string_view text, const std::string& file) {
  ParsedFile parsed;
  for (const JsonValue& value : split_json_lines(text)) {
    Record record;
    record.file = file;
    record.line = value.line;
    std::string error = value.error;
    if (error.empty() && read_watch_event(value.value, record, error)) {
      parsed.records.push_back(std::move(record));
    } else {
      parsed.bad.push_back(BadRecord{file, value.line, error + other_format_hint(value.value, Format::watch_stream)});
    }
  }
  return parsed;
}

}  // namespace rjsim::trace
