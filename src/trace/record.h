// What the trace parsers produce: one Record per observation read from a recorded cluster trace
// (a watch event, or a write in an audit log), with the file and line it came from, and one
// BadRecord per record that could not be read. The parsers are pure (text in, ParsedFile out)
// and never stop at a bad record when they can find the next one; whoever stores the trace
// decides whether a bad record fails the import (exit 2) or is skipped (--skip-bad).
// Reference: trace-formats.md §1a-§1c, §3.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace rjsim::trace {

enum class Format : std::uint8_t { kubectl_watch, audit, watch_stream };

std::string_view to_string(Format format);
// "kubectl-watch", "audit" or "watch-stream"; false for anything else.
bool parse_format(std::string_view text, Format& format);

// The RayJob status fields a status.transition compares; "" when absent.
struct RayJobStatus {
  std::string deployment;   // status.jobDeploymentStatus
  std::string job_status;
  std::string reason;
};

// An object as the importer keeps it once it has rendered it (import.h): its canonical JSON
// (compact, keys sorted, as an event body holds it) and, for a RayJob, its status fields.
struct RenderedObject {
  std::string json;
  RayJobStatus status;
};

struct Record {
  std::string file;
  int line = 0;                   // 1-based line where the record starts
  // Watch formats: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR, or "" for plain `kubectl get -w
  // -o json|yaml` output, which prints objects without their event type.
  // Audit: the write, create, update, update_status, patch, patch_status or delete.
  std::string type;
  std::string kind;               // "RayJob", "Pod", ...; for audit writes of other resources, the resource
  std::string namespace_;
  std::string name;
  std::string uid;                // "" when the record does not carry one
  std::string resource_version;   // the object's resourceVersion after the event; "" when unknown
  nlohmann::json object;          // the object, volatile metadata normalised; null when not recorded
  // Set by the importer as each record is read, when it also sets `object` to null: a long trace
  // is never held as JSON trees at once (ParsedFile::on_record).
  std::optional<RenderedObject> rendered;

  // A BOOKMARK annotated k8s.io/initial-events-end: the end of a streaming initial list
  // (sendInitialEvents=true).
  bool initial_events_end = false;

  // ERROR watch events and audit responses: the HTTP code and the Status' reason and message.
  int code = 0;
  std::string reason;
  std::string message;

  // Audit only.
  std::string verb;               // as logged: create, update, patch, delete
  std::string subresource;        // "status", "scale", ... or ""
  std::string level;              // Metadata, Request or RequestResponse
  std::string audit_id;
  std::string user;               // user.username
  std::string rv_sent;            // objectRef.resourceVersion: the version the writer based its write on
  std::string time;               // stageTimestamp as logged
  std::optional<std::int64_t> time_ms;   // stageTimestamp in rjsim's virtual ms (engine/object_json.h)
  nlohmann::json request;         // requestObject (levels Request, RequestResponse), normalised
};

// A record that could not be read: what() of the import error is "FILE:LINE: message".
struct BadRecord {
  std::string file;
  int line = 0;
  std::string message;
  std::string text() const;
};

// Called on each record as it is kept, before the next one is read.
using RecordHook = std::function<void(Record&)>;

struct ParsedFile {
  std::vector<Record> records;
  std::vector<BadRecord> bad;
  int ignored = 0;   // well-formed records that carry no observation (audit reads, early stages)
  RecordHook on_record;   // none by default

  void keep(Record&& record) {
    if (on_record) on_record(record);
    records.push_back(std::move(record));
  }
};

// Bad input found while importing (a bad record without --skip-bad, an unreadable file): exit 2.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rjsim::trace
