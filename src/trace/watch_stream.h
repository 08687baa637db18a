// Parser of a raw API server watch stream (`GET .../rayjobs?watch=1`, recorded with `kubectl get
// --raw` or curl through `kubectl proxy`; trace-formats.md §1c): one metav1.WatchEvent JSON
// object per line, ADDED, MODIFIED, DELETED with the full object, BOOKMARK with only a
// resourceVersion, ERROR with a Status (410 Expired: the client had to re-list, so events may be
// missing after it). Blank lines are skipped; any other line that is not a watch event is a
// BadRecord at its line, and the parser goes on with the next line.
#pragma once

#include <string>
#include <string_view>

#include "trace/record.h"

namespace rjsim::trace {

ParsedFile parse_watch_stream(std::string_view text, const std::string& file, RecordHook on_record = {});

}  // namespace rjsim::trace
