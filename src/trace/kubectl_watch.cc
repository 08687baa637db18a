#include "trace/kubectl_watch.h"

#include <algorithm>
#include <utility>

#include "engine/scenario_loader.h"
#include "trace/json_values.h"
#include "trace/trace_object.h"

namespace rjsim::trace {
namespace {

using nlohmann::json;

// A watch event when it has `type` and `object`, a list's items (`kubectl get -o json` without
// -w prints a List), else a plain object. The objects are moved into the records.
void add_value(json&& value, int line, const std::string& file, ParsedFile& parsed) {
  if (value.is_object() && value.contains("items") && value["items"].is_array() && value.contains("kind") &&
      value["kind"].is_string() && value["kind"].get<std::string>().ends_with("List")) {
    for (json& item : value["items"]) add_value(std::move(item), line, file, parsed);
    return;
  }
  Record record;
  record.file = file;
  record.line = line;
  std::string error;
  // A Secret or an Event has a top-level `type` too, but also a `kind`.
  const bool is_event =
      value.is_object() && (value.contains("object") || (value.contains("type") && !value.contains("kind")));
  // Moved from only when it reads: a bad record's hint below sees it as it was.
  if (is_event ? read_watch_event(std::move(value), record, error) : read_object(std::move(value), "", record, error)) {
    parsed.keep(std::move(record));
  } else {
    parsed.bad.push_back(BadRecord{file, line, error + other_format_hint(value, Format::kubectl_watch)});
  }
}

bool is_separator(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  return line == "---";
}

bool is_blank_document(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    auto first = std::find_if_not(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
    if (first != line.end() && *first != '#') return false;
    pos = end + 1;
  }
  return true;
}

void parse_yaml_document(std::string_view document, int first_line, const std::string& file, ParsedFile& parsed) {
  if (is_blank_document(document)) return;
  json value;
  int error_line = 1;
  std::string error;
  if (!engine::yaml_document_to_json(document, value, error_line, error)) {
    parsed.bad.push_back(BadRecord{file, first_line + error_line - 1, error});
    return;
  }
  add_value(std::move(value), first_line, file, parsed);
}

void parse_yaml(std::string_view text, const std::string& file, ParsedFile& parsed) {
  int line = 0;
  int document_line = 1;
  std::size_t document_begin = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    if (is_separator(text.substr(pos, end - pos))) {
      parse_yaml_document(text.substr(document_begin, pos - document_begin), document_line, file, parsed);
      document_begin = std::min(end + 1, text.size());
      document_line = line + 1;
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
  parse_yaml_document(text.substr(document_begin), document_line, file, parsed);
}

}  // namespace

ParsedFile parse_kubectl_watch(std::string_view text, const std::string& file, RecordHook on_record) {
  ParsedFile parsed;
  parsed.on_record = std::move(on_record);
  if (!looks_like_json(text)) {
    parse_yaml(text, file, parsed);
    return parsed;
  }
  for_each_json_value(text, [&](JsonValue& value) {
    if (!value.error.empty()) {
      parsed.bad.push_back(BadRecord{file, value.line, value.error});
    } else {
      add_value(std::move(value.value), value.line, file, parsed);
    }
  });
  return parsed;
}

}  // namespace rjsim::trace
