#include "trace/watch_stream.h"

#include <utility>

#include "trace/json_values.h"
#include "trace/trace_object.h"

namespace rjsim::trace {

ParsedFile parse_watch_stream(std::string_view text, const std::string& file, RecordHook on_record) {
  ParsedFile parsed;
  parsed.on_record = std::move(on_record);
  for_each_json_line(text, [&](JsonValue& value) {
    Record record;
    record.file = file;
    record.line = value.line;
    std::string error = value.error;
    // Moved from only when it reads: a bad record's hint below sees it as it was.
    if (error.empty() && read_watch_event(std::move(value.value), record, error)) {
      parsed.keep(std::move(record));
    } else {
      parsed.bad.push_back(BadRecord{file, value.line, error + other_format_hint(value.value, Format::watch_stream)});
    }
  });
  return parsed;
}

}  // namespace rjsim::trace
