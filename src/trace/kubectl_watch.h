// Parser of `kubectl get KIND -w` output (trace-formats.md §1a), in each layout kubectl prints:
//   --output-watch-events -o json   one compact {"type","object"} per line
//   --output-watch-events -o yaml   documents separated by `---` lines, `object:` before `type:`
//   -o json (no watch events)       concatenated pretty-printed objects; Record::type is ""
//   -o yaml (no watch events)       `---`-separated objects; Record::type is ""
// A List (`kubectl get -o json` without -w, a snapshot) gives one untyped record per item, all at
// the list's line.
// The layout is read from the text (JSON if a line opens with `{`, else YAML). One file holds one kind
// (kubectl watches one kind per process); merging files is merge.h's work. A record that does
// not read is a BadRecord at its line; the parser goes on with the next one.
#pragma once

#include <string>
#include <string_view>

#include "trace/record.h"

namespace rjsim::trace {

ParsedFile parse_kubectl_watch(std::string_view text, const std::string& file, RecordHook on_record = {});

}  // namespace rjsim::trace
