// Parser of a kube-apiserver audit log (audit.k8s.io/v1 Event, v1beta1 accepted; trace-formats.md
// §1b): JSON lines as the log backend writes them, or EventList batches as the webhook backend
// posts them (one per line or pretty-printed). Levels Metadata, Request and RequestResponse.
// Each write (verbs create, update, patch, delete) at stage ResponseComplete or Panic becomes one
// Record: type is the verb, with `_status` for the status subresource (update_status,
// patch_status); code, reason and message come from responseStatus (409 Conflict included);
// requestObject is kept at Request and RequestResponse, responseObject (the stored object, with
// its new resourceVersion) at RequestResponse when the write succeeded. Reads (get, list, watch),
// deletecollection and the other stages carry no write and are counted in ParsedFile::ignored.
// An event missing what a write needs is a BadRecord at its line (for an EventList, the list's
// line, and the message names the item). A create may lack a name (generateName, below level
// RequestResponse).
#pragma once

#include <string>
#include <string_view>

#include "trace/record.h"

namespace rjsim::trace {

ParsedFile parse_audit_log(std::string_view text, const std::string& file, RecordHook on_record = {});

// The kind of an audit objectRef.resource ("rayjobs" -> "RayJob"), or the resource itself when
// it is none of the kinds rjsim models.
std::string kind_of_resource(std::string_view resource);

}  // namespace rjsim::trace
