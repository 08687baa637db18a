// Turns recorded trace files into a `trace` run (DESIGN §3, §6; docs/traces.md): read every file,
// parse it (kubectl_watch.h, audit_log.h, watch_stream.h), merge the files (merge.h), render the
// events (docs/events.md, "Recorded traces"), and store them in one transaction. Everything is
// parsed before the database is opened, so bad input leaves the database as it was: a bad record
// throws TraceError "FILE:LINE: message" unless skip_bad, which counts and drops it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "events/event.h"
#include "trace/record.h"

namespace rjsim::trace {

struct TraceInput {
  std::string file;   // as named on the command line
  std::string text;
};

struct Trace {
  std::vector<events::Event> events;   // seq 0 is trace.import
  std::int64_t records = 0;            // observations kept (watch events, audit writes)
  std::int64_t objects = 0;            // distinct objects (by uid; by Kind/namespace/name without one)
  std::vector<BadRecord> skipped;      // bad records dropped (skip_bad)
  std::int64_t duplicates = 0;         // a state of an object seen a second time
  std::int64_t ignored = 0;            // audit reads and early stages
  std::int64_t virtual_ms = 0;         // the last at_ms
};

// Pure: the events of a trace run. Throws TraceError at the first bad record unless skip_bad.
Trace build_trace(Format format, const std::vector<TraceInput>& inputs, bool skip_bad);

struct ImportSummary {
  std::int64_t run_id = 0;
  Trace trace;
};

// Reads the files (TraceError when one cannot be read), builds the trace, and writes it to the
// database at `db_path` as one run of kind `trace`.
ImportSummary import_trace(Format format, const std::vector<std::string>& files, const std::string& db_path,
                           bool skip_bad);

}  // namespace rjsim::trace
