#include "trace/import.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "store/database.h"
#include "trace/audit_log.h"
#include "trace/json_values.h"
#include "trace/kubectl_watch.h"
#include "trace/merge.h"
#include "trace/watch_stream.h"

namespace rjsim::trace {
namespace {

using nlohmann::json;

// Canonical nested JSON for an event body (keys sorted; bytes that are not UTF-8 replaced).
events::RawJson raw(const json& value) {
  return events::RawJson{value.dump(-1, ' ', false, json::error_handler_t::replace)};
}

RayJobStatus rayjob_status(const json& object) {
  RayJobStatus status;
  auto it = object.find("status");
  if (it == object.end() || !it->is_object()) return status;
  auto text = [&](const char* key) {
    auto field = it->find(key);
    return field != it->end() && field->is_string() ? field->get<std::string>() : std::string();
  };
  status.deployment = text("jobDeploymentStatus");
  status.job_status = text("jobStatus");
  status.reason = text("reason");
  return status;
}

// Appends what value.dump() writes (compact, object keys in order), for the values a parsed object
// holds; false where dump() would need its error handler (a string that is not UTF-8). A trace's
// objects are most of its bytes, and dump()'s general serializer takes several times as long.
bool append_dump(const json& value, std::string& out) {
  switch (value.type()) {
    case json::value_t::null: out += "null"; return true;
    case json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return true;
    case json::value_t::number_integer:
      fmt::format_to(std::back_inserter(out), "{}", value.get<std::int64_t>());
      return true;
    case json::value_t::number_unsigned:
      fmt::format_to(std::back_inserter(out), "{}", value.get<std::uint64_t>());
      return true;
    case json::value_t::string: return events::append_utf8_json_string(value.get_ref<const std::string&>(), out);
    case json::value_t::array: {
      out += '[';
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it != value.begin()) out += ',';
        if (!append_dump(*it, out)) return false;
      }
      out += ']';
      return true;
    }
    case json::value_t::object: {
      out += '{';
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it != value.begin()) out += ',';
        if (!events::append_utf8_json_string(it.key(), out)) return false;
        out += ':';
        if (!append_dump(it.value(), out)) return false;
      }
      out += '}';
      return true;
    }
    default: out += value.dump(); return true;   // floating point, binary: dump()'s own forms
  }
}

// raw(value).text, by append_dump where it can.
std::string canonical_text(const json& value) {
  std::string text;
  if (!append_dump(value, text)) return raw(value).text;
  return text;
}

// Each record's object is rendered as soon as it is read and its tree freed: a trace of tens of
// MB held as trees costs several times the time (and ten times the memory) of one tree at a time.
void render_object(Record& record) {
  if (record.object.is_null()) return;
  record.rendered = RenderedObject{canonical_text(record.object),
                                   record.kind == "RayJob" ? rayjob_status(record.object) : RayJobStatus{}};
  record.object = nullptr;
}

ParsedFile parse(Format format, std::string_view text, const std::string& file) {
  switch (format) {
    case Format::kubectl_watch: return parse_kubectl_watch(text, file, render_object);
    case Format::audit: return parse_audit_log(text, file, render_object);
    case Format::watch_stream: return parse_watch_stream(text, file, render_object);
  }
  return {};
}

// The object's canonical JSON (parse() rendered it), moved out of the record.
events::RawJson take_object(Record& record) {
  return record.rendered ? events::RawJson{std::move(record.rendered->json)} : raw(record.object);
}

std::string object_ref(const Record& record) {
  return fmt::format("{}/{}/{}", record.kind, record.namespace_, record.name);
}

// One audit write: api.<verb>, its outcome and code, and the bodies its level has.
void render_api_write(Record& record, const std::string& source, events::Event& event) {
  event.type = "api." + record.type;
  event.actor = record.user.empty() ? "unknown" : record.user;
  event.object = object_ref(record);
  const bool ok = record.code >= 200 && record.code < 300;
  event.with("outcome", ok ? "ok" : (record.reason.empty() ? "Failure" : record.reason));
  event.with("code", record.code);
  if (!ok && !record.message.empty()) event.with("message", record.message);
  event.with("verb", record.verb);
  if (!record.subresource.empty()) event.with("subresource", record.subresource);
  if (!record.rv_sent.empty()) event.with("rv_sent", record.rv_sent);
  if (!record.resource_version.empty()) event.with("rv_after", record.resource_version);
  if (!record.uid.empty()) event.with("uid", record.uid);
  event.with("level", record.level);
  event.with("audit_id", record.audit_id);
  if (!record.time.empty()) event.with("time", record.time);
  event.with("source", source);
  if (!record.request.is_null()) event.with("request", raw(record.request));
  if (record.rendered) event.with("object", take_object(record));
}

// One watch event: watch.observed, watch.bookmark or watch.error.
void render_watch_event(Record& record, bool type_inferred, const std::string& source, events::Event& event) {
  event.actor = record.kind.empty() ? "watch" : "watch/" + record.kind;
  if (record.type == "BOOKMARK") {
    event.type = "watch.bookmark";
    event.with("rv", record.resource_version);
    if (record.initial_events_end) event.with("initial_events_end", true);
  } else if (record.type == "ERROR") {
    event.type = "watch.error";
    event.with("code", record.code).with("reason", record.reason).with("message", record.message);
  } else {
    event.type = "watch.observed";
    event.object = object_ref(record);
    event.with("watch", record.type).with("rv", record.resource_version).with("uid", record.uid);
    if (type_inferred) event.with("type_inferred", true);
  }
  event.with("source", source);
  if (event.type == "watch.observed") event.with("object", take_object(record));
}

class EventBuilder {
 public:
  explicit EventBuilder(std::int64_t first_time_ms) : first_time_ms_(first_time_ms) {}

  void add(Record& record, bool type_inferred, std::vector<events::Event>& out) {
    events::Event event;
    event.seq = static_cast<std::int64_t>(out.size());
    event.at_ms = record.time_ms ? *record.time_ms - first_time_ms_ : 0;
    event.origin = events::Origin::input;
    const std::string source = fmt::format("{}:{}", record.file, record.line);
    if (record.audit_id.empty()) {
      render_watch_event(record, type_inferred, source, event);
    } else {
      render_api_write(record, source, event);
    }
    const std::int64_t at_ms = event.at_ms;
    out.push_back(std::move(event));
    add_transition(record, at_ms, out);
  }

 private:
  // A RayJob state whose jobDeploymentStatus or jobStatus differs from the previous observed
  // state of the same object is a persisted transition (the `transitions` view reads these). The
  // first state seen of an object is only where its history starts: a recording that begins
  // with a Running RayJob did not see it enter Running.
  void add_transition(const Record& record, std::int64_t at_ms, std::vector<events::Event>& out) {
    if (record.kind != "RayJob" || !record.rendered || record.type == "DELETED") return;
    const std::string key = record.uid.empty() ? object_ref(record) : record.uid;
    const RayJobStatus now = record.rendered->status;
    auto [seen, first_sight] = last_status_.try_emplace(key, now);
    RayJobStatus& before = seen->second;
    if (first_sight || (now.deployment == before.deployment && now.job_status == before.job_status)) return;
    events::Event transition;
    transition.seq = static_cast<std::int64_t>(out.size());
    transition.at_ms = at_ms;
    transition.origin = events::Origin::effect;
    transition.type = "status.transition";
    transition.actor = "apiserver";
    transition.object = object_ref(record);
    transition.with("from_deployment", before.deployment)
        .with("to_deployment", now.deployment)
        .with("from_job_status", before.job_status)
        .with("to_job_status", now.job_status)
        .with("reason", now.reason)
        .with("rv", record.resource_version);
    before = now;
    out.push_back(std::move(transition));
  }

  std::int64_t first_time_ms_;
  std::unordered_map<std::string, RayJobStatus> last_status_;
};

std::string read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TraceError(fmt::format("{}: cannot read the trace file: {}", file, std::strerror(errno)));
  std::string text;   // read in chunks: no stream buffer to copy it out of
  std::array<char, 1 << 16> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) text.append(chunk.data(), in.gcount());
  return text;
}

// A piece of a file: its text and how many lines of the file come before it.
struct Piece {
  const TraceInput* input = nullptr;
  std::string_view text;
  int lines_before = 0;
};

// `input` cut into about `count` pieces of JSON text, each cut made before a line that opens with
// `{`: in JSON lines (kubectl's watch events, audit logs, watch streams) and in kubectl's
// pretty-printed objects such a line starts a value. A cut inside a value (other layouts) leaves
// the piece before it unterminated, which does not parse: parse_all then parses the file whole.
// YAML is never cut (a document cut in two may read as two).
std::vector<Piece> pieces_of(const TraceInput& input, std::size_t count) {
  const std::string_view text = input.text;
  std::vector<Piece> pieces;
  if (count <= 1 || !looks_like_json(text)) return {Piece{&input, text, 0}};
  std::size_t begin = 0;
  int lines_before = 0;
  for (std::size_t k = 1; k < count; ++k) {
    std::size_t cut = text.find("\n{", std::max(begin, text.size() * k / count));
    if (cut == std::string_view::npos) break;
    cut += 1;
    pieces.push_back(Piece{&input, text.substr(begin, cut - begin), lines_before});
    lines_before += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(begin),
                                                text.begin() + static_cast<std::ptrdiff_t>(cut), '\n'));
    begin = cut;
  }
  pieces.push_back(Piece{&input, text.substr(begin), lines_before});
  return pieces;
}

ParsedFile parse_piece(Format format, const Piece& piece) {
  ParsedFile parsed = parse(format, piece.text, piece.input->file);
  for (Record& record : parsed.records) record.line += piece.lines_before;
  for (BadRecord& bad : parsed.bad) bad.line += piece.lines_before;
  return parsed;
}

// Every file parsed, in the order given, its records in file order. Files, and pieces of large
// JSON files, parse independently, so they are parsed on threads of their own (about two pieces
// a core, so that a large file does not leave the other cores idle). A file with a bad record is
// parsed again whole, so its errors read as one thread would have met them; the results, and the
// first error, are taken in file order.
std::vector<ParsedFile> parse_all(Format format, const std::vector<TraceInput>& inputs) {
  std::size_t total_bytes = 0;
  for (const TraceInput& input : inputs) total_bytes += input.text.size();
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t piece_bytes = std::max<std::size_t>(total_bytes / (2 * cores), std::size_t{1} << 20);
  std::vector<std::vector<std::future<ParsedFile>>> pending(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const Piece& piece : pieces_of(inputs[i], inputs[i].text.size() / piece_bytes)) {
      pending[i].push_back(std::async(std::launch::async, [format, piece] { return parse_piece(format, piece); }));
    }
  }
  std::vector<ParsedFile> parsed;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ParsedFile file;
    for (std::future<ParsedFile>& piece : pending[i]) {
      ParsedFile part = piece.get();
      file.records.insert(file.records.end(), std::make_move_iterator(part.records.begin()),
                          std::make_move_iterator(part.records.end()));
      file.bad.insert(file.bad.end(), part.bad.begin(), part.bad.end());
      file.ignored += part.ignored;
    }
    if (pending[i].size() > 1 && !file.bad.empty()) file = parse(format, inputs[i].text, inputs[i].file);
    parsed.push_back(std::move(file));
  }
  return parsed;
}

}  // namespace

Trace build_trace(Format format, const std::vector<TraceInput>& inputs, bool skip_bad) {
  Trace trace;
  std::vector<std::vector<Record>> files;
  for (ParsedFile& parsed : parse_all(format, inputs)) {
    if (!parsed.bad.empty() && !skip_bad) throw TraceError(parsed.bad.front().text());
    trace.skipped.insert(trace.skipped.end(), parsed.bad.begin(), parsed.bad.end());
    trace.ignored += parsed.ignored;
    files.push_back(std::move(parsed.records));
  }
  MergedTrace merged = merge_records(format, std::move(files));
  trace.duplicates = merged.duplicates;
  trace.records = static_cast<std::int64_t>(merged.records.size());

  std::int64_t first_time_ms = 0;
  bool timed = false;
  // Objects are counted by uid; a record without one (an audit write below RequestResponse that
  // did not name it) counts only when no record of the same Kind/namespace/name has a uid.
  std::unordered_set<std::string> uids;
  std::unordered_set<std::string> refs_without_uid;
  for (const Record& record : merged.records) {
    if (record.time_ms && (!timed || *record.time_ms < first_time_ms)) first_time_ms = *record.time_ms;
    timed = timed || record.time_ms.has_value();
    if (record.name.empty()) continue;
    if (record.uid.empty()) {
      refs_without_uid.insert(object_ref(record));
    } else {
      uids.insert(record.uid);
    }
  }
  trace.objects = static_cast<std::int64_t>(uids.size());
  if (!refs_without_uid.empty()) {
    std::unordered_set<std::string> refs_with_uid;
    for (const Record& record : merged.records) {
      if (!record.name.empty() && !record.uid.empty()) refs_with_uid.insert(object_ref(record));
    }
    for (const std::string& ref : refs_without_uid) trace.objects += refs_with_uid.count(ref) == 0 ? 1 : 0;
  }

  json file_names = json::array();
  for (const TraceInput& input : inputs) file_names.push_back(input.file);
  events::Event header;
  header.origin = events::Origin::input;
  header.type = "trace.import";
  header.actor = "rjsim";
  header.with("format", to_string(format))
      .with("files", raw(file_names))
      .with("records", trace.records)
      .with("skipped", static_cast<std::int64_t>(trace.skipped.size()))
      .with("duplicates", trace.duplicates)
      .with("ignored", trace.ignored);
  trace.events.push_back(std::move(header));

  EventBuilder builder(first_time_ms);
  for (std::size_t i = 0; i < merged.records.size(); ++i) {
    builder.add(merged.records[i], merged.type_inferred[i], trace.events);
  }
  for (const events::Event& event : trace.events) trace.virtual_ms = std::max(trace.virtual_ms, event.at_ms);
  return trace;
}

ImportSummary import_trace(Format format, const std::vector<std::string>& files, const std::string& db_path,
                           bool skip_bad) {
  std::vector<TraceInput> inputs;
  for (const std::string& file : files) inputs.push_back(TraceInput{file, read_text(file)});
  ImportSummary summary;
  summary.trace = build_trace(format, inputs, skip_bad);

  std::string scenario_text = fmt::format("# rjsim import --format {}\nformat: {}\nfiles:\n", to_string(format),
                                          to_string(format));
  for (const std::string& file : files) scenario_text += fmt::format("  - {}\n", json(file).dump());
  store::Database database = store::Database::open(db_path);
  store::RunWriter writer = database.begin_run(store::RunHeader{
      std::nullopt, "trace", fmt::format("trace-{}", to_string(format)), scenario_text, "recorded", 0});
  // The log hash reads the same events on a thread of its own while they are written: each pass
  // renders every event once, and together they were a third of an import.
  const std::vector<events::Event>& trace_events = summary.trace.events;
  std::future<std::string> log_hash = std::async(std::launch::async, [&trace_events] {
    events::LogHasher hasher;
    for (const events::Event& event : trace_events) hasher.add(event);
    return hasher.hex();
  });
  for (const events::Event& event : trace_events) writer.emit(event);
  summary.run_id = writer.commit(store::RunSummary{"pass", summary.trace.records, summary.trace.virtual_ms,
                                                   log_hash.get()});
  return summary;
}

}  // namespace rjsim::trace
