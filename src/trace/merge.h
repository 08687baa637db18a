// Puts the records of several files into one order (trace-formats.md §3, §6): objects are keyed
// by uid and ordered by resourceVersion, which on one cluster is the etcd revision shared by all
// kinds, so files recorded side by side (one kubectl per kind) interleave correctly.
//   - A record without a resourceVersion of its own (an ERROR event, a failed write) keeps its
//     place after the record before it in its file.
//   - When some resourceVersion is not a decimal number, nothing is sorted: files follow each
//     other in the order given (the order within a file is the recorder's).
//   - Audit writes: by the new resourceVersion of their responseObject when every successful
//     write has one (RequestResponse level), else by stageTimestamp (log order is completion
//     order, not commit order).
// Equal keys keep file order (first file first). The same state of an object seen twice (same uid
// and resourceVersion, e.g. kubectl re-listing after a restart) is kept once, and so is an audit
// event seen twice (same auditID, e.g. overlapping rotated logs). Plain kubectl
// output has no event types: an object's first record becomes ADDED, later ones MODIFIED, and
// `type_inferred` says so.
#pragma once

#include <vector>

#include "trace/record.h"

namespace rjsim::trace {

struct MergedTrace {
  std::vector<Record> records;
  std::vector<bool> type_inferred;   // one per record
  int duplicates = 0;                // records dropped as a second sight of the same state or audit event
};

MergedTrace merge_records(Format format, std::vector<std::vector<Record>> files);

}  // namespace rjsim::trace
