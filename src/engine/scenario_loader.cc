#include "engine/scenario_loader.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/crd_schema.h"
#include "engine/model_names.h"
#include "engine/object_json.h"
#include "engine/yaml_scalar.h"
#include "events/event.h"

namespace rjsim::engine {

namespace {

using nlohmann::json;

// DESIGN §5.
constexpr std::array<std::string_view, 22> kInvariantNames = {
    "single-submission",     "single-cluster",     "no-leaked-cluster",       "terminal-is-terminal",
    "legal-transition",      "suspend-atomic",     "suspended-is-clean",      "status-mirrors-ray",
    "eventually-terminal",   "no-stuck-state",     "no-rerun-after-terminal", "jobstatus-monotone",
    "retry-is-clean",        "validation-recoverable", "no-model-panic",
    "outcome-follows-ray",   "terminal-only-when-job-done", "submitter-finished-implies-terminal",
    "terminal-after-submitter", "suspended-only-when-requested", "suspended-means-released",
    "one-execution-at-a-time"};

// Every persisted jobDeploymentStatus of the three models (kuberay-rayjob.md §1.1, §2.1, §3.1).
constexpr std::array<std::string_view, 16> kDeploymentStatuses = {
    "",        "Initializing", "Running",  "Complete", "Failed",
    "ValidationFailed", "Suspending", "Suspended", "Retrying", "Waiting",
    "FailedToGetOrCreateRayCluster", "WaitForDashboard", "WaitForDashboardReady", "WaitForK8sJob",
    "FailedJobDeploy", "FailedToGetJobStatus"};

constexpr std::array<std::string_view, 6> kJobStatuses = {"", "PENDING", "RUNNING", "STOPPED", "SUCCEEDED",
                                                          "FAILED"};

// kuberay-rayjob.md §1.1 (JobFailedReason), plus "".
constexpr std::array<std::string_view, 8> kReasons = {
    "",
    "SubmissionFailed",
    "DeadlineExceeded",
    "PreRunningDeadlineExceeded",
    "AppFailed",
    "JobDeploymentStatusTransitionGracePeriodExceeded",
    "JobStatusCheckTimeoutExceeded",
    "ValidationFailed"};

constexpr std::array<std::string_view, 3> kRayResults = {"SUCCEEDED", "FAILED", "STOPPED"};

// The keys of expect.final (DESIGN §4).
constexpr std::array<std::string_view, 11> kFinalKeys = {
    "jobDeploymentStatus", "jobStatus", "reason", "rayJobs", "rayClusters", "submitterJobs",
    "jobId", "rayClusterName", "succeeded", "failed", "workerGroupsSuspended"};

template <class List>
std::string join(const List& list, bool quote_empty = false) {
  std::string out;
  for (const auto& item : list) {
    if (!out.empty()) out += ", ";
    if (quote_empty && std::string_view(item).empty()) {
      out += "\"\"";
    } else {
      out += item;
    }
  }
  return out;
}

template <class List>
bool contains(const List& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// `; did you mean "x"?` when one candidate is close to `word`.
template <class List>
std::string did_you_mean(std::string_view word, const List& candidates) {
  std::string_view best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  if (best.empty() || best_distance > std::max<std::size_t>(1, word.size() / 3)) return {};
  return fmt::format("; did you mean \"{}\"?", best);
}

std::string field_join(std::string_view prefix, std::string_view path) {
  if (prefix.empty()) return std::string(path);
  if (path.empty()) return std::string(prefix);
  if (path.front() == '[') return fmt::format("{}{}", prefix, path);
  return fmt::format("{}.{}", prefix, path);
}

// The JSON path one level up: "a.b[2]" → "a.b", "a.b" → "a", "a" → "".
std::string parent_path(const std::string& path) {
  if (!path.empty() && path.back() == ']') {
    const std::size_t open = path.size() >= 2 && path[path.size() - 2] == '"' ? path.rfind("[\"")
                                                                               : path.rfind('[');
    if (open != std::string::npos) return path.substr(0, open);
  }
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

int line_of(const YAML::Node& node, int otherwise) {
  const int line = node.Mark().line;
  return line >= 0 ? line + 1 : otherwise;
}

// The longest prefix of `text` of at most `bytes` bytes that does not cut a UTF-8 character.
std::string utf8_prefix(const std::string& text, std::size_t bytes) {
  if (text.size() <= bytes) return text;
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  return text.substr(0, bytes);
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: {
      std::string text = scalar_utf8(node);
      if (text.size() > 60) text = utf8_prefix(text, 57) + "...";
      return fmt::format("\"{}\"", text);
    }
    default: return "nothing";
  }
}

// ---- YAML scalars as JSON (the YAML 1.2 core schema) -----------------------------------------

bool is_digits(std::string_view text, bool hex = false) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [hex](char c) {
    return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
  });
}

std::optional<json> plain_integer(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    base = text[1] == 'x' ? 16 : 8;
    digits = text.substr(2);
    negative = false;
  }
  if (!is_digits(digits, base == 16)) return std::nullopt;
  if (base == 8 && !std::all_of(digits.begin(), digits.end(), [](char c) { return c <= '7'; })) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  for (char c : digits) {
    const unsigned digit = c <= '9' ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10);
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / unsigned(base)) {
      return std::nullopt;   // too large for an integer; read as a float below or kept as text
    }
    value = value * unsigned(base) + digit;
  }
  if (negative) {
    if (value > std::uint64_t(std::numeric_limits<std::int64_t>::max()) + 1) return std::nullopt;
    return json(value == 0 ? std::int64_t{0} : -static_cast<std::int64_t>(value - 1) - 1);
  }
  if (value <= std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
    return json(static_cast<std::int64_t>(value));
  }
  return json(value);
}

std::optional<json> plain_float(std::string_view text) {
  // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) ++pos;
  std::size_t mantissa_digits = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos, ++mantissa_digits;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) ++pos;
    if (pos >= text.size() || !is_digits(text.substr(pos))) return std::nullopt;
    pos = text.size();
  }
  if (pos != text.size()) return std::nullopt;
  // A float too large for a double (1e6969, the manifest fuzzer's find: std::stod threw) is left a
  // string, which the typed read then refuses by name; one too small is 0.
  const double value = std::strtod(std::string(text).c_str(), nullptr);
  if (std::isinf(value)) return std::nullopt;
  return json(value);
}

std::optional<bool> plain_bool(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

// The JSON value of a scalar node: quoted scalars are strings; plain ones are resolved as YAML
// 1.2's core schema does (booleans, integers, floats, otherwise strings); !!str and friends force
// a type. Throws ObjectFormatError for an explicitly tagged scalar that is not of its tag's type.
json scalar_to_json(const YAML::Node& node, const std::string& path) {
  const std::string text = scalar_utf8(node);
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return text;
  if (tag == "tag:yaml.org,2002:int") {
    if (auto value = plain_integer(text)) return *value;
    throw ObjectFormatError(path, fmt::format("\"{}\" is tagged !!int but is not an integer", text));
  }
  if (tag == "tag:yaml.org,2002:float") {
    if (auto value = plain_integer(text)) return json(value->get<double>());
    if (auto value = plain_float(text)) return *value;
    throw ObjectFormatError(path, fmt::format("\"{}\" is tagged !!float but is not a number", text));
  }
  if (tag == "tag:yaml.org,2002:bool") {
    if (auto value = plain_bool(text)) return *value;
    throw ObjectFormatError(path, fmt::format("\"{}\" is tagged !!bool but is not true or false", text));
  }
  if (tag != "?") return text;   // a local tag: keep the text
  if (auto value = plain_bool(text)) return *value;
  if (auto value = plain_integer(text)) return *value;
  if (auto value = plain_float(text)) return *value;
  return text;
}

// Converts a YAML node to JSON; `lines` receives the 1-based line of every JSON path (the line of
// a map entry is the line of its key). Throws ObjectFormatError for duplicate or non-scalar keys.
// Bounds on one document's conversion: an alias that contains itself (`&a [*a]`) nests forever,
// and aliases of aliases multiply (the scenario fuzzer overflowed the stack on the first). No
// Kubernetes object comes near either.
constexpr int kMostYamlDepth = 100;
constexpr std::int64_t kMostYamlValues = 1'000'000;

json yaml_to_json_within(const YAML::Node& node, const std::string& path, int line, std::map<std::string, int>& lines,
                         int depth, std::int64_t& values_left) {
  lines[path] = line;
  if (depth > kMostYamlDepth) {
    throw ObjectFormatError(path, fmt::format("nested deeper than {} levels (an alias that contains itself?)",
                                              kMostYamlDepth));
  }
  if (--values_left < 0) {
    throw ObjectFormatError(path, fmt::format("more than {} values (aliases that repeat aliases?)", kMostYamlValues));
  }
  const auto child_of = [&](const YAML::Node& child, const std::string& child_path, int child_line) {
    return yaml_to_json_within(child, child_path, child_line, lines, depth + 1, values_left);
  };
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (auto it = node.begin(); it != node.end(); ++it) {
        const int key_line = line_of(it->first, line);
        if (!it->first.IsScalar()) {
          lines[path] = key_line;
          throw ObjectFormatError(path.empty() ? "(root)" : path, "a map key must be a plain string");
        }
        const std::string key = scalar_utf8(it->first);
        const std::string child = json_path_key(path, key);
        if (out.contains(key)) {
          lines[child] = key_line;
          throw ObjectFormatError(child, fmt::format("duplicate key \"{}\"", key));
        }
        out[key] = child_of(it->second, child, key_line);
      }
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      std::size_t index = 0;
      for (const YAML::Node& item : node) {
        const std::string child = json_path_index(path, index++);
        out.push_back(child_of(item, child, line_of(item, line)));
      }
      return out;
    }
    case YAML::NodeType::Scalar: return scalar_to_json(node, path);
    default: return nullptr;
  }
}

json yaml_to_json(const YAML::Node& node, const std::string& path, int line, std::map<std::string, int>& lines) {
  std::int64_t values_left = kMostYamlValues;
  return yaml_to_json_within(node, path, line, lines, 0, values_left);
}

// ---- messages ------------------------------------------------------------------------------

// Where a piece of YAML came from, for messages: "file:line: field: what<suffix>".
struct Source {
  std::string file;
  std::string suffix;   // e.g. " (in rayjobFile of scenarios/x.yaml:5)"

  [[noreturn]] void fail(int line, std::string_view field, std::string_view what) const {
    if (field.empty()) throw ScenarioError(fmt::format("{}:{}: {}{}", file, line, what, suffix));
    throw ScenarioError(fmt::format("{}:{}: {}: {}{}", file, line, field, what, suffix));
  }
};

// A YAML value and where it stands.
struct Value {
  YAML::Node node;
  int line = 1;
  std::string field;   // "world.rayCluster.readyAfter"
};

std::string child_field(std::string_view parent, std::string_view key) { return field_join(parent, key); }
std::string item_field(std::string_view parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

// The entries of one YAML map, in file order; rejects duplicate keys and, unless `known` is
// empty, keys not in `known`. Null reads as an empty map.
class MapReader {
 public:
  MapReader(const Source& source, const Value& value, const std::vector<std::string_view>& known,
            std::string_view what = "a map")
      : source_(source), value_(value) {
    if (value.node.IsNull() || !value.node.IsDefined()) return;
    if (!value.node.IsMap()) {
      source.fail(value.line, value.field, fmt::format("expected {}, got {}", what, describe(value.node)));
    }
    for (auto it = value.node.begin(); it != value.node.end(); ++it) {
      const int line = line_of(it->first, value.line);
      if (!it->first.IsScalar()) source.fail(line, value.field, "a key must be a plain string");
      const std::string key = scalar_utf8(it->first);
      if (!known.empty() && !contains(known, key)) {
        const std::string list = join(known);
        source.fail(line, value.field,
                    fmt::format("unknown key \"{}\" (expected one of: {}{})", key, list, did_you_mean(key, known)));
      }
      for (const auto& [seen, seen_value] : entries_) {
        if (seen == key) {
          source.fail(line, child_field(value.field, key),
                      fmt::format("duplicate key (first given on line {})", seen_value.line));
        }
      }
      entries_.emplace_back(key, Value{it->second, line, child_field(value.field, key)});
    }
  }

  const Value* find(std::string_view key) const {
    for (const auto& [name, entry] : entries_) {
      if (name == key) return &entry;
    }
    return nullptr;
  }
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }
  const Value& value() const { return value_; }

  [[noreturn]] void missing(std::string_view key, std::string_view hint) const {
    source_.fail(value_.line, child_field(value_.field, key), fmt::format("missing ({})", hint));
  }

 private:
  const Source& source_;
  Value value_;
  std::vector<std::pair<std::string, Value>> entries_;
};

bool is_plain(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

std::string read_string(const Source& source, const Value& value) {
  if (!value.node.IsScalar()) {
    source.fail(value.line, value.field, fmt::format("expected a string, got {}", describe(value.node)));
  }
  return scalar_utf8(value.node);
}

std::int64_t read_int(const Source& source, const Value& value, std::int64_t min,
                      std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
  std::optional<json> number;
  if (is_plain(value.node)) number = plain_integer(value.node.Scalar());
  if (!number || (number->is_number_unsigned() && number->get<std::uint64_t>() > std::uint64_t(max))) {
    source.fail(value.line, value.field,
                fmt::format("expected {}, got {}", min == 0 ? "a non-negative integer" : "an integer",
                            describe(value.node)));
  }
  const auto result = number->get<std::int64_t>();
  if (result < min || result > max) {
    source.fail(value.line, value.field,
                fmt::format("{} is out of range (expected {} or more)", result, min));
  }
  return result;
}

bool read_bool(const Source& source, const Value& value) {
  std::optional<bool> flag;
  if (is_plain(value.node)) flag = plain_bool(value.node.Scalar());
  if (!flag) {
    source.fail(value.line, value.field, fmt::format("expected true or false, got {}", describe(value.node)));
  }
  return *flag;
}

std::int64_t read_duration(const Source& source, const Value& value) {
  std::int64_t ms = 0;
  if (!value.node.IsScalar() || !parse_duration(value.node.Scalar(), ms)) {
    source.fail(value.line, value.field,
                fmt::format("{} is not a duration (use 20s, 500ms, 2m)", describe(value.node)));
  }
  return ms;
}

// One of `allowed` (printed in the message when the value is not).
template <class List>
std::string read_choice(const Source& source, const Value& value, const List& allowed) {
  const std::string text = read_string(source, value);
  if (!contains(allowed, text)) {
    source.fail(value.line, value.field,
                fmt::format("\"{}\" is not one of: {}{}", text, join(allowed, true), did_you_mean(text, allowed)));
  }
  return text;
}

// A list; null reads as empty.
std::vector<Value> read_list(const Source& source, const Value& value, std::string_view what = "a list") {
  std::vector<Value> items;
  if (value.node.IsNull() || !value.node.IsDefined()) return items;
  if (!value.node.IsSequence()) {
    source.fail(value.line, value.field, fmt::format("expected {}, got {}", what, describe(value.node)));
  }
  std::size_t index = 0;
  for (const YAML::Node& item : value.node) {
    items.push_back(Value{item, line_of(item, value.line), item_field(value.field, index)});
    ++index;
  }
  return items;
}

std::string read_invariant_name(const Source& source, const Value& value) {
  const std::string name = read_string(source, value);
  if (!contains(kInvariantNames, name)) {
    source.fail(value.line, value.field,
                fmt::format("\"{}\" is not an invariant (expected one of: {}{})", name, join(kInvariantNames),
                            did_you_mean(name, kInvariantNames)));
  }
  return name;
}

// ---- files ---------------------------------------------------------------------------------

std::optional<std::string> read_file(const std::string& path, std::string& error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "it is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    error = "read error";
    return std::nullopt;
  }
  return text.str();
}

std::string resolve(const std::string& base_dir, const std::string& path) {
  std::filesystem::path file(path);
  if (file.is_absolute() || base_dir.empty()) return file.lexically_normal().string();
  return (std::filesystem::path(base_dir) / file).lexically_normal().string();
}

// Parses YAML, reporting a parse error with its line.
// Where `text` stops being UTF-8 text, as a 1-based line and a message. yaml-cpp would pass bad
// bytes through into names and manifests, which the rest of rjsim takes to be UTF-8 (JSON needs
// it), and takes NUL bytes for UTF-16 or UTF-32, whose decoding can give what is not UTF-8 either.
struct Utf8Error {
  int line = 1;
  std::string message;
};
std::optional<Utf8Error> utf8_error(std::string_view text) {
  std::optional<std::size_t> offset = events::first_invalid_utf8(text);
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos && (!offset || nul < *offset)) offset = nul;
  if (!offset) return std::nullopt;
  const std::string_view before = text.substr(0, *offset);
  const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return Utf8Error{static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1,
                   fmt::format("not valid UTF-8 (byte 0x{:02X} at column {}): YAML is read as UTF-8",
                               static_cast<unsigned char>(text[*offset]), *offset - line_start + 1)};
}

// Counts a stream's documents and nothing else.
class DocumentCounter final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7 reads some malformed input ("!,t[", found by the scenario fuzzer as a hang) as an
// endless stream of empty documents, so YAML::LoadAll never returns. The documents are counted
// first, up to this bound; a scenario file holds one.
constexpr int kMostYamlDocuments = 16;

bool has_few_documents(std::string_view text) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  DocumentCounter counter;
  for (int documents = 0; parser.HandleNextDocument(counter);) {
    if (++documents > kMostYamlDocuments) return false;
  }
  return true;
}

std::vector<YAML::Node> parse_yaml(const Source& source, std::string_view text) {
  if (const std::optional<Utf8Error> error = utf8_error(text)) source.fail(error->line, "", error->message);
  try {
    if (!has_few_documents(text)) {
      source.fail(1, "", fmt::format("more than {} YAML documents (a scenario file holds one; yaml-cpp reads some "
                                     "malformed YAML as endless empty documents)",
                                     kMostYamlDocuments));
    }
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::ParserException& e) {
    source.fail(e.mark.line >= 0 ? e.mark.line + 1 : 1, "",
                fmt::format("YAML does not parse: {} (column {})", e.msg, e.mark.column + 1));
  } catch (const YAML::Exception& e) {
    source.fail(e.mark.line >= 0 ? e.mark.line + 1 : 1, "", fmt::format("YAML does not parse: {}", e.msg));
  }
}

// ---- manifests -----------------------------------------------------------------------------

// A Kubernetes manifest converted to JSON, with the line of every JSON path.
struct Manifest {
  json object;
  std::map<std::string, int> lines;
  Source source;
  std::string prefix;   // the field of the manifest in the scenario ("rayjob", "rayjobs[1]") or ""
  int line = 1;

  int line_of_path(std::string path) const {
    while (true) {
      if (auto it = lines.find(path); it != lines.end()) return it->second;
      if (path.empty()) return line;
      path = parent_path(path);
    }
  }
  [[noreturn]] void fail(const std::string& path, std::string_view what) const {
    source.fail(line_of_path(path), field_join(prefix, path), what);
  }
};

Manifest to_manifest(const Source& source, const YAML::Node& node, int line, std::string prefix) {
  Manifest manifest{json(), {}, source, std::move(prefix), line};
  try {
    manifest.object = yaml_to_json(node, "", line, manifest.lines);
  } catch (const ObjectFormatError& e) {
    manifest.fail(e.path == "(root)" ? "" : e.path, e.message);
  }
  return manifest;
}

// The checks the API server makes before KubeRay sees the object: apiVersion, kind, a name.
void check_manifest_header(const Manifest& manifest, Kind kind) {
  const json& object = manifest.object;
  const std::string_view kind_name = to_string(kind);
  if (!object.is_object()) {
    manifest.fail("", fmt::format("expected a {} manifest (a map with apiVersion, kind, metadata and spec)",
                                  kind_name));
  }
  const auto api_version = object.find("apiVersion");
  if (api_version == object.end() || api_version->is_null()) {
    manifest.fail("apiVersion", fmt::format("missing (a {} has apiVersion: ray.io/v1)", kind_name));
  }
  if (!api_version->is_string() || *api_version != "ray.io/v1") {
    manifest.fail("apiVersion",
                  fmt::format("{} is not supported: expected ray.io/v1 (rjsim models the ray.io/v1 {} API "
                              "of KubeRay 1.0 and later)",
                              api_version->dump(), kind_name));
  }
  const auto kind_value = object.find("kind");
  if (kind_value == object.end() || kind_value->is_null()) {
    manifest.fail("kind", fmt::format("missing (expected kind: {})", kind_name));
  }
  if (*kind_value != kind_name) {
    manifest.fail("kind", fmt::format("{} is not a {} (expected kind: {})", kind_value->dump(), kind_name,
                                      kind_name));
  }
  const auto metadata = object.find("metadata");
  const json* name = nullptr;
  if (metadata != object.end() && metadata->is_object()) {
    if (auto it = metadata->find("name"); it != metadata->end()) name = &*it;
  }
  if (name == nullptr || name->is_null() || (name->is_string() && name->get<std::string>().empty())) {
    manifest.fail("metadata.name", fmt::format("missing (Kubernetes requires every {} to have a name)", kind_name));
  }
}

template <class T>
T read_object(const Manifest& manifest) {
  try {
    Object object = object_from_json(manifest.object, T::kind);
    T typed = std::get<T>(std::move(object));
    if (typed.metadata.namespace_.empty()) typed.metadata.namespace_ = "default";
    return typed;
  } catch (const ObjectFormatError& e) {
    manifest.fail(e.path == "(root)" ? "" : e.path, e.message);
  }
}

// The API server's part in a create: the model's release's CRD fills its defaults into the
// manifest and refuses what it does not accept (crd_schema.h); the first error in the file is
// reported.
void apply_release_crd(Manifest& manifest, CrdKind kind, std::string_view controller) {
  const std::vector<CrdError> errors = apply_crd(manifest.object, kind, controller);
  if (errors.empty()) return;
  const auto first = std::min_element(errors.begin(), errors.end(), [&](const CrdError& a, const CrdError& b) {
    return manifest.line_of_path(a.path) < manifest.line_of_path(b.path);
  });
  manifest.fail(first->path, first->message);
}

RayJob read_rayjob(Manifest manifest, std::string_view controller) {
  check_manifest_header(manifest, Kind::RayJob);
  apply_release_crd(manifest, CrdKind::RayJob, controller);
  return read_object<RayJob>(manifest);
}

RayCluster read_raycluster(Manifest manifest, std::string_view controller) {
  check_manifest_header(manifest, Kind::RayCluster);
  apply_release_crd(manifest, CrdKind::RayCluster, controller);
  return read_object<RayCluster>(manifest);
}

// ---- the scenario --------------------------------------------------------------------------

class Loader {
 public:
  Loader(std::string file, std::string base_dir) : source_{std::move(file), ""}, base_dir_(std::move(base_dir)) {}

  Scenario parse(std::string_view text) {
    Scenario scenario;
    scenario.file = source_.file;
    scenario.text = std::string(text);

    std::vector<YAML::Node> documents = parse_yaml(source_, text);
    // Empty documents (a stray `---` at the end) count as nothing.
    std::erase_if(documents, [](const YAML::Node& document) { return document.IsNull(); });
    if (documents.empty()) {
      source_.fail(1, "", "the file is empty (a scenario starts: apiVersion: rjsim/v1, kind: Scenario, name: ...)");
    }
    if (documents.size() > 1) {
      source_.fail(line_of(documents[1], 1), "",
                   "a scenario file holds one YAML document (found a second one after ---)");
    }
    const Value root{documents.front(), line_of(documents.front(), 1), ""};
    if (!root.node.IsMap()) {
      source_.fail(root.line, "", fmt::format("expected a scenario (a map with apiVersion: rjsim/v1, kind: Scenario, "
                                              "name: ...), got {}", describe(root.node)));
    }
    check_header(root);

    const MapReader top(source_, root,
                        {"apiVersion", "kind", "name", "description", "controller", "seed", "rayjob",
                         "rayjobFile", "rayjobs", "rayclusters", "world", "actions", "faults", "limits",
                         "invariants", "expect"});
    const Value* name = top.find("name");
    if (name == nullptr) top.missing("name", "a scenario needs a name matching [a-z0-9-]+");
    scenario.name = read_string(source_, *name);
    const bool name_ok = !scenario.name.empty() && std::all_of(scenario.name.begin(), scenario.name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
    if (!name_ok) {
      source_.fail(name->line, "name",
                   fmt::format("\"{}\" must match [a-z0-9-]+ (lowercase letters, digits and dashes)", scenario.name));
    }
    if (const Value* description = top.find("description")) scenario.description = read_string(source_, *description);
    if (const Value* controller = top.find("controller")) {
      const std::string text_value = read_string(source_, *controller);
      scenario.controller = canonical_model_name(text_value);
      if (scenario.controller.empty()) {
        source_.fail(controller->line, "controller",
                     fmt::format("\"{}\" is not a model (expected one of: {}{})", text_value, join(kModelNamesWithAlias),
                                 did_you_mean(text_value, kModelNamesWithAlias)));
      }
    }
    if (const Value* seed = top.find("seed")) scenario.seed = static_cast<std::uint64_t>(read_int(source_, *seed, 0));

    read_rayjobs(top, scenario);
    if (const Value* clusters = top.find("rayclusters")) read_rayclusters(*clusters, scenario);
    if (const Value* world = top.find("world")) read_world(*world, scenario.world);
    if (const Value* actions = top.find("actions")) read_actions(*actions, scenario);
    if (const Value* faults = top.find("faults")) {
      read_faults(*faults, scenario.faults);
      scenario.has_faults = true;
    }
    scenario.faults.watch_latency_max_ms = scenario.world.latency.watch.max_ms;   // what holding deliveries may
    if (const Value* limits = top.find("limits")) read_limits(*limits, scenario.limits);
    if (const Value* invariants = top.find("invariants")) read_invariants(*invariants, scenario.invariants);
    if (const Value* expect = top.find("expect")) read_expect(*expect, scenario);
    return scenario;
  }

 private:
  void check_header(const Value& root) const {
    const YAML::Node api_version = root.node["apiVersion"];
    const YAML::Node kind = root.node["kind"];
    if (!api_version.IsDefined() || api_version.IsNull()) {
      source_.fail(root.line, "apiVersion", "missing (a scenario starts: apiVersion: rjsim/v1, kind: Scenario)");
    }
    if (!api_version.IsScalar() || api_version.Scalar() != "rjsim/v1") {
      source_.fail(line_of(api_version, root.line), "apiVersion",
                   fmt::format("{} is not a scenario apiVersion (expected rjsim/v1)", describe(api_version)));
    }
    if (!kind.IsDefined() || kind.IsNull()) {
      source_.fail(root.line, "kind", "missing (expected kind: Scenario)");
    }
    if (!kind.IsScalar() || kind.Scalar() != "Scenario") {
      source_.fail(line_of(kind, root.line), "kind", fmt::format("{} is not a scenario (expected kind: Scenario)",
                                                                 describe(kind)));
    }
  }

  // ---- RayJobs and RayClusters ----

  // A manifest given inline at `value`, or in a file named by `file_value`.
  template <class T, class Read>
  T manifest_at(const Value& value, Read read) {
    return read(to_manifest(source_, value.node, value.line, value.field));
  }

  template <class T, class Read>
  T manifest_in_file(const Value& file_value, Read read) {
    const std::string path = read_string(source_, file_value);
    const std::string resolved = resolve(base_dir_, path);
    std::string error;
    std::optional<std::string> text = read_file(resolved, error);
    if (!text) {
      source_.fail(file_value.line, file_value.field,
                   fmt::format("cannot read \"{}\" (resolved to {}): {}", path, resolved, error));
    }
    const Source file_source{resolved, fmt::format(" (in {} of {}:{})", file_value.field, source_.file,
                                                   file_value.line)};
    std::vector<YAML::Node> documents = parse_yaml(file_source, *text);
    const std::string_view kind_name = to_string(T::kind);
    // The file may hold other documents (a ConfigMap beside the RayJob): take the one of our kind.
    std::vector<const YAML::Node*> candidates;
    std::vector<std::string> other_kinds;
    for (const YAML::Node& document : documents) {
      if (document.IsNull()) continue;
      const YAML::Node kind = document.IsMap() ? document["kind"] : YAML::Node();
      if (kind.IsScalar() && kind.Scalar() == kind_name) {
        candidates.push_back(&document);
      } else {
        other_kinds.push_back(kind.IsScalar() ? scalar_utf8(kind) : "(no kind)");
      }
    }
    if (candidates.size() > 1) {
      file_source.fail(line_of(*candidates[1], 1), "",
                       fmt::format("the file holds {} {} documents; name it once per {} (rayjobs: or rayclusters: "
                                   "take a list)",
                                   candidates.size(), kind_name, kind_name));
    }
    if (candidates.empty()) {
      if (other_kinds.size() == 1) {
        // Let the header check say what is wrong with the one document there is.
        for (const YAML::Node& document : documents) {
          if (!document.IsNull()) candidates.push_back(&document);
        }
      } else {
        file_source.fail(1, "", fmt::format("no {} document in the file (found: {})", kind_name,
                                            other_kinds.empty() ? std::string("nothing") : join(other_kinds)));
      }
    }
    const YAML::Node& document = *candidates.front();
    return read(to_manifest(file_source, document, line_of(document, 1), ""));
  }

  // An entry of `rayjobs:` or `rayclusters:`: a manifest, or {file: PATH}.
  template <class T, class Read>
  T manifest_entry(const Value& item, Read read) {
    if (item.node.IsMap() && item.node["file"].IsDefined()) {
      const MapReader entry(source_, item, {"file"}, "a manifest or {file: PATH}");
      return manifest_in_file<T>(*entry.find("file"), read);
    }
    return manifest_at<T>(item, read);
  }

  void read_rayjobs(const MapReader& top, Scenario& scenario) {
    const Value* given = nullptr;
    for (const char* key : {"rayjob", "rayjobFile", "rayjobs"}) {
      const Value* value = top.find(key);
      if (value == nullptr) continue;
      if (given != nullptr) {
        source_.fail(value->line, key,
                     fmt::format("give one of rayjob, rayjobFile or rayjobs (this file also gives {})", given->field));
      }
      given = value;
    }
    if (given == nullptr) {
      source_.fail(top.value().line, "",
                   "no RayJob: give rayjob: (a manifest), rayjobFile: (a path) or rayjobs: (a list)");
    }
    std::vector<std::string> fields;   // where each RayJob was given, for duplicate messages
    const auto read_rayjob = [&](Manifest manifest) { return engine::read_rayjob(std::move(manifest), scenario.controller); };
    if (given->field == "rayjob") {
      scenario.rayjobs.push_back(manifest_at<RayJob>(*given, read_rayjob));
      fields.push_back(given->field);
    } else if (given->field == "rayjobFile") {
      scenario.rayjobs.push_back(manifest_in_file<RayJob>(*given, read_rayjob));
      fields.push_back(given->field);
    } else {
      const std::vector<Value> items = read_list(source_, *given, "a list of RayJobs");
      if (items.empty()) source_.fail(given->line, given->field, "is empty (list at least one RayJob)");
      for (const Value& item : items) {
        RayJob rayjob = manifest_entry<RayJob>(item, read_rayjob);
        for (std::size_t i = 0; i < scenario.rayjobs.size(); ++i) {
          if (scenario.rayjobs[i].metadata.name == rayjob.metadata.name) {
            source_.fail(item.line, item.field,
                         fmt::format("a second RayJob named \"{}\" (the first is {}); RayJob names must be unique "
                                     "in a scenario",
                                     rayjob.metadata.name, fields[i]));
          }
        }
        scenario.rayjobs.push_back(std::move(rayjob));
        fields.push_back(item.field);
      }
    }
  }

  void read_rayclusters(const Value& value, Scenario& scenario) {
    const auto read_raycluster = [&](Manifest manifest) {
      return engine::read_raycluster(std::move(manifest), scenario.controller);
    };
    for (const Value& item : read_list(source_, value, "a list of RayClusters")) {
      RayCluster cluster = manifest_entry<RayCluster>(item, read_raycluster);
      for (const RayCluster& other : scenario.rayclusters) {
        if (key_of(other.metadata) == key_of(cluster.metadata)) {
          source_.fail(item.line, item.field,
                       fmt::format("a second RayCluster {}; names must be unique", key_of(cluster.metadata)));
        }
      }
      scenario.rayclusters.push_back(std::move(cluster));
    }
  }

  // ---- world ----

  void read_world(const Value& value, WorldBehaviour& world) {
    const MapReader map(source_, value, {"rayCluster", "submitter", "ray", "dashboard", "operator", "latency", "pods"});
    if (const Value* latency = map.find("latency")) read_latency(*latency, world.latency);
    if (const Value* pods = map.find("pods")) {
      const MapReader keys(source_, *pods, {"terminationGracePeriod"});
      if (const Value* v = keys.find("terminationGracePeriod")) {
        world.pods.termination_grace_period_ms = read_duration(source_, *v);
        // deletionGracePeriodSeconds, as the API server stamps it, is whole seconds.
        if (world.pods.termination_grace_period_ms % 1000 != 0) {
          source_.fail(v->line, v->field, "is not a whole number of seconds (a Pod's grace period is in seconds)");
        }
      }
    }
    if (const Value* cluster = map.find("rayCluster")) {
      const MapReader keys(source_, *cluster, {"readyAfter", "headReadyAfter", "runningBeforeReady", "deletionTakes"});
      RayClusterBehaviour& behaviour = world.ray_cluster;
      if (const Value* v = keys.find("readyAfter")) behaviour.ready_after_ms = read_duration(source_, *v);
      if (const Value* v = keys.find("headReadyAfter")) {
        behaviour.head_ready_after_ms = read_duration(source_, *v);
        if (*behaviour.head_ready_after_ms > behaviour.ready_after_ms) {
          source_.fail(v->line, v->field, "is later than readyAfter (the head Pod is Ready no later than every Pod)");
        }
      }
      if (const Value* v = keys.find("runningBeforeReady")) {
        behaviour.running_before_ready_ms = read_duration(source_, *v);
        if (behaviour.running_before_ready_ms > behaviour.head_ready_ms()) {
          source_.fail(v->line, v->field,
                       "is longer than the time to the head Pod's readiness (headReadyAfter, else readyAfter)");
        }
      }
      if (const Value* v = keys.find("deletionTakes")) behaviour.deletion_takes_ms = read_duration(source_, *v);
    }
    if (const Value* submitter = map.find("submitter")) {
      const MapReader keys(source_, *submitter, {"startAfter", "failAttempts", "failAfter", "finishesAfter"});
      if (const Value* v = keys.find("startAfter")) world.submitter.start_after_ms = read_duration(source_, *v);
      if (const Value* v = keys.find("failAttempts")) {
        world.submitter.fail_attempts = static_cast<int>(read_int(source_, *v, 0, std::numeric_limits<int>::max()));
      }
      if (const Value* v = keys.find("failAfter")) world.submitter.fail_after_ms = read_duration(source_, *v);
      if (const Value* v = keys.find("finishesAfter"); v != nullptr && !v->node.IsNull()) {
        world.submitter.finishes_after_ms = read_duration(source_, *v);
      }
    }
    if (const Value* ray = map.find("ray")) {
      const MapReader keys(source_, *ray, {"pendingFor", "runsFor", "result", "results"});
      if (const Value* v = keys.find("pendingFor")) world.ray.pending_for_ms = read_duration(source_, *v);
      if (const Value* v = keys.find("runsFor")) world.ray.runs_for_ms = read_duration(source_, *v);
      if (const Value* v = keys.find("result")) world.ray.results = {read_choice(source_, *v, kRayResults)};
      // `results` replaces `result` (DESIGN §4).
      if (const Value* v = keys.find("results")) {
        const std::vector<Value> items = read_list(source_, *v, "a list of results");
        if (items.empty()) {
          source_.fail(v->line, v->field, "is empty (give one result per submission, e.g. [FAILED, SUCCEEDED])");
        }
        world.ray.results.clear();
        for (const Value& item : items) world.ray.results.push_back(read_choice(source_, item, kRayResults));
      }
    }
    if (const Value* dashboard = map.find("dashboard")) {
      const MapReader keys(source_, *dashboard, {"latency", "timeout", "outages"});
      if (const Value* v = keys.find("latency")) world.dashboard.latency_ms = read_duration(source_, *v);
      if (const Value* v = keys.find("timeout")) world.dashboard.timeout_ms = read_duration(source_, *v);
      if (const Value* v = keys.find("outages")) {
        for (const Value& item : read_list(source_, *v, "a list of {from, for}")) {
          const MapReader outage_keys(source_, item, {"from", "for"}, "an outage {from: 10s, for: 400s}");
          const Value* from = outage_keys.find("from");
          const Value* length = outage_keys.find("for");
          if (from == nullptr) outage_keys.missing("from", "when the outage starts, e.g. from: 10s");
          if (length == nullptr) outage_keys.missing("for", "how long it lasts, e.g. for: 400s");
          world.dashboard.outages.push_back(Outage{read_duration(source_, *from), read_duration(source_, *length)});
        }
      }
    }
    if (const Value* operator_value = map.find("operator")) {
      const MapReader keys(source_, *operator_value, {"env", "featureGates"});
      if (const Value* v = keys.find("env")) {
        const MapReader env(source_, *v, {}, "a map of environment variables");
        for (const auto& [name, entry] : env.entries()) {
          // Environment values are text; an unquoted 300 is taken as "300".
          if (!entry.node.IsScalar()) {
            source_.fail(entry.line, entry.field, fmt::format("expected a string, got {}", describe(entry.node)));
          }
          world.operator_settings.env[name] = scalar_utf8(entry.node);
        }
      }
      if (const Value* v = keys.find("featureGates")) {
        const MapReader gates(source_, *v, {}, "a map of feature gates to true or false");
        for (const auto& [name, entry] : gates.entries()) {
          world.operator_settings.feature_gates[name] = read_bool(source_, entry);
        }
      }
    }
  }

  // ---- actions ----

  const RayJob& target_rayjob(const Scenario& scenario, const Value& action, const Value* rayjob_value,
                              std::string& name) const {
    if (rayjob_value == nullptr) {
      if (scenario.rayjobs.size() > 1) {
        std::vector<std::string> names;
        for (const RayJob& rayjob : scenario.rayjobs) names.push_back(rayjob.metadata.name);
        source_.fail(action.line, action.field,
                     fmt::format("this scenario has several RayJobs: name the target with rayjob: NAME (one of: {})",
                                 join(names)));
      }
      name = scenario.rayjobs.front().metadata.name;
      return scenario.rayjobs.front();
    }
    name = read_string(source_, *rayjob_value);
    for (const RayJob& rayjob : scenario.rayjobs) {
      if (rayjob.metadata.name == name) return rayjob;
    }
    std::vector<std::string> names;
    for (const RayJob& rayjob : scenario.rayjobs) names.push_back(rayjob.metadata.name);
    source_.fail(rayjob_value->line, rayjob_value->field,
                 fmt::format("no RayJob named \"{}\" in this scenario (expected one of: {})", name, join(names)));
  }

  // A patch is checked against the RayJob as the file creates it, so that a wrong type is reported
  // now rather than at the action's time. Unlike a manifest, a patch is written for the scenario:
  // a key rjsim does not model would change nothing, so it is an error (most likely a typo). The
  // typed RayJob's JSON has no unmodelled fields, so every ignored field comes from the patch.
  void check_patch(const Value& value, const RayJob& rayjob, const json& patch,
                   const std::map<std::string, int>& lines, std::string_view controller) const {
    Manifest manifest{patch, lines, source_, value.field, value.line};
    std::vector<std::string> ignored;
    Object patched = rayjob;
    json merged = to_json(rayjob);
    merged.merge_patch(patch);
    check_patch_against_crd(manifest, merged, controller);
    try {
      patched = object_from_json(merged, Kind::RayJob, &ignored);
    } catch (const ObjectFormatError& e) {
      manifest.fail(e.path == "(root)" ? "" : e.path, e.message);
    }
    if (!ignored.empty()) {
      manifest.fail(ignored.front(), "is not a RayJob field rjsim models, so the patch would change nothing");
    }
    const ObjectMeta& after = meta(patched);
    if (after.name != rayjob.metadata.name || after.namespace_ != rayjob.metadata.namespace_) {
      manifest.fail("metadata", "a patch cannot change a RayJob's name or namespace");
    }
  }

  // The API server checks the patched RayJob against the release's CRD. The patched object is
  // rebuilt from the typed RayJob, which drops what rjsim does not keep (an empty rayStartParams),
  // so only what the patch itself touches is judged: a field it sets, or one missing from an
  // object it writes.
  static void check_patch_against_crd(const Manifest& patch, json merged, std::string_view controller) {
    std::vector<CrdError> errors = apply_crd(merged, CrdKind::RayJob, controller);
    std::erase_if(errors, [&](const CrdError& e) {
      return !patch.lines.contains(e.path) && !patch.lines.contains(parent_path(e.path));
    });
    if (errors.empty()) return;
    patch.fail(errors.front().path, errors.front().message);
  }

  void read_actions(const Value& value, Scenario& scenario) {
    for (const Value& item : read_list(source_, value, "a list of actions")) {
      const MapReader keys(source_, item, {"at", "patch", "delete", "headRestart", "stopSubmitter", "rayjob"},
                           "an action such as {at: 5s, patch: {spec: {suspend: true}}}");
      Action action;
      action.line = item.line;
      const Value* at = keys.find("at");
      if (at == nullptr) keys.missing("at", "when the action happens, e.g. at: 5s");
      action.at_ms = read_duration(source_, *at);
      const Value* kind = nullptr;
      std::string_view kind_key;
      for (std::string_view key : {"patch", "delete", "headRestart", "stopSubmitter"}) {
        const Value* found = keys.find(key);
        if (found == nullptr) continue;
        if (kind != nullptr) {
          source_.fail(found->line, item.field,
                       fmt::format("an action does one thing: {} or {}, not both (write two actions)", kind_key, key));
        }
        kind = found;
        kind_key = key;
      }
      if (kind == nullptr) {
        source_.fail(item.line, item.field,
                     "says what happens with one of: patch: {...}, delete: {}, headRestart: {}, stopSubmitter: {}");
      }
      const RayJob& target = target_rayjob(scenario, item, keys.find("rayjob"), action.rayjob);
      if (kind_key == "patch") {
        action.type = Action::Type::patch;
        if (!kind->node.IsMap()) {
          source_.fail(kind->line, kind->field,
                       fmt::format("expected a JSON merge patch (a map such as {{spec: {{suspend: true}}}}), got {}",
                                   describe(kind->node)));
        }
        std::map<std::string, int> lines;
        try {
          action.patch = yaml_to_json(kind->node, "", kind->line, lines);
        } catch (const ObjectFormatError& e) {
          const Manifest manifest{json(), lines, source_, kind->field, kind->line};
          manifest.fail(e.path == "(root)" ? "" : e.path, e.message);
        }
        check_patch(*kind, target, action.patch, lines, scenario.controller);
      } else {
        action.type = kind_key == "delete"        ? Action::Type::delete_
                      : kind_key == "headRestart" ? Action::Type::head_restart
                                                  : Action::Type::stop_submitter;
        if (!kind->node.IsNull() && !(kind->node.IsMap() && kind->node.size() == 0)) {
          source_.fail(kind->line, kind->field, fmt::format("takes no settings (write {}: {{}})", kind_key));
        }
      }
      scenario.actions.push_back(std::move(action));
    }
    std::stable_sort(scenario.actions.begin(), scenario.actions.end(),
                     [](const Action& a, const Action& b) { return a.at_ms < b.at_ms; });
  }

  // `{min: 0s, max: 2s}`, or one duration for min = max.
  Latency read_latency_range(const Value& value) const {
    if (value.node.IsScalar()) {
      const std::int64_t ms = read_duration(source_, value);
      return {ms, ms};
    }
    const MapReader keys(source_, value, {"min", "max"}, "a duration or {min: 0s, max: 2s}");
    const Value* min = keys.find("min");
    const Value* max = keys.find("max");
    if (min == nullptr) keys.missing("min", "the shortest reaction, e.g. min: 0s");
    if (max == nullptr) keys.missing("max", "the longest reaction, e.g. max: 2s");
    const Latency latency{read_duration(source_, *min), read_duration(source_, *max)};
    if (latency.max_ms < latency.min_ms) source_.fail(max->line, max->field, "is shorter than min");
    return latency;
  }

  void read_latency(const Value& value, LatencyBehaviour& latency) {
    const MapReader keys(source_, value,
                         {"garbageCollector", "jobController", "kubelet", "rayClusterController", "operatorRestart",
                          "watch"});
    if (const Value* v = keys.find("garbageCollector")) latency.garbage_collector = read_latency_range(*v);
    if (const Value* v = keys.find("jobController")) latency.job_controller = read_latency_range(*v);
    if (const Value* v = keys.find("kubelet")) latency.kubelet = read_latency_range(*v);
    if (const Value* v = keys.find("rayClusterController")) latency.ray_cluster_controller = read_latency_range(*v);
    if (const Value* v = keys.find("operatorRestart")) latency.operator_restart = read_latency_range(*v);
    if (const Value* v = keys.find("watch")) {
      // A delivery is offered from its write on; only how long it may be held is a choice, so
      // one duration is the max.
      latency.watch = read_latency_range(*v);
      if (v->node.IsScalar()) latency.watch.min_ms = 0;
      if (latency.watch.min_ms != 0) {
        source_.fail(v->line, v->field, "min must be 0s: a watch event may always arrive at once; give {min: 0s, max: 5s}");
      }
    }
  }

  // ---- faults, limits, invariants ----

  int read_max(const Value& value, std::string_view key, std::string_view example) const {
    const MapReader keys(source_, value, {key}, fmt::format("a map such as {}", example));
    const Value* max = keys.find(key);
    if (max == nullptr) keys.missing(key, fmt::format("e.g. {}", example));
    return static_cast<int>(read_int(source_, *max, 0, std::numeric_limits<int>::max()));
  }

  // `true` ({maxRewind: 3}), `false`, or {maxRewind: N}.
  int read_time_travel(const Value& value) const {
    if (value.node.IsScalar()) return read_bool(source_, value) ? kDefaultMaxRewind : 0;
    return read_max(value, "maxRewind", "{maxRewind: 3}");
  }

  // `{max: N}`, or `{max: N, midReconcile: true}`: a crash may also land after any client call.
  void read_restarts(const Value& value, FaultBudget& faults) const {
    const MapReader keys(source_, value, {"max", "midReconcile"}, "a map such as {max: 1, midReconcile: true}");
    const Value* max = keys.find("max");
    if (max == nullptr) keys.missing("max", "e.g. {max: 1}");
    faults.restarts = static_cast<int>(read_int(source_, *max, 0, std::numeric_limits<int>::max()));
    if (const Value* v = keys.find("midReconcile")) faults.mid_reconcile = read_bool(source_, *v);
  }

  void read_faults(const Value& value, FaultBudget& faults) {
    const MapReader keys(source_, value, {kFaultKeys.begin(), kFaultKeys.end()});
    if (const Value* v = keys.find("staleReads")) faults.max_lag = read_max(*v, "maxLag", "{maxLag: 3}");
    if (const Value* v = keys.find("squash")) faults.squash = read_bool(source_, *v);
    if (const Value* v = keys.find("conflicts")) faults.conflicts = read_max(*v, "max", "{max: 2}");
    if (const Value* v = keys.find("writeFailures")) faults.write_failures = read_max(*v, "max", "{max: 1}");
    if (const Value* v = keys.find("httpErrors")) faults.http_errors = read_max(*v, "max", "{max: 2}");
    if (const Value* v = keys.find("restarts")) read_restarts(*v, faults);
    if (const Value* v = keys.find("timeTravel")) faults.max_rewind = read_time_travel(*v);
    if (const Value* v = keys.find("latency")) faults.latency = read_bool(source_, *v);
    if (const Value* v = keys.find("interleaveCalls")) faults.interleave_calls = read_bool(source_, *v);
  }

  void read_limits(const Value& value, ScenarioLimits& limits) {
    const MapReader keys(source_, value, {"steps", "time", "eventually"});
    if (const Value* v = keys.find("steps")) limits.steps = read_int(source_, *v, 1);
    if (const Value* v = keys.find("time")) limits.time_ms = read_duration(source_, *v);
    if (const Value* v = keys.find("eventually")) limits.eventually_ms = read_duration(source_, *v);
  }

  void read_invariants(const Value& value, InvariantSelection& selection) {
    const std::string_view forms = "all, a list of names, or {all: true, except: [...]}";
    if (value.node.IsScalar()) {
      if (value.node.Scalar() != "all") {
        source_.fail(value.line, value.field, fmt::format("{} is not a selection (expected {})", describe(value.node), forms));
      }
      selection = InvariantSelection{};
      return;
    }
    if (value.node.IsSequence() || value.node.IsNull()) {
      selection.all = false;
      selection.names.clear();
      for (const Value& item : read_list(source_, value)) selection.names.push_back(read_invariant_name(source_, item));
      return;
    }
    const MapReader keys(source_, value, {"all", "except"}, forms);
    selection.all = true;
    if (const Value* all = keys.find("all")) selection.all = read_bool(source_, *all);
    if (const Value* except = keys.find("except")) {
      if (!selection.all) {
        source_.fail(except->line, except->field, "goes with all: true (with all: false, list the names instead)");
      }
      for (const Value& item : read_list(source_, *except)) {
        selection.except.push_back(read_invariant_name(source_, item));
      }
    }
  }

  // ---- expect ----

  std::vector<std::string> rayjob_names(const Scenario& scenario) const {
    std::vector<std::string> names;
    for (const RayJob& rayjob : scenario.rayjobs) names.push_back(rayjob.metadata.name);
    return names;
  }

  // Whether a map under expect is keyed by RayJob name (`final: {demo: {...}}`) rather than
  // being the expectation of the only RayJob itself.
  bool keyed_by_rayjob(const Value& value, const Scenario& scenario) const {
    if (scenario.rayjobs.size() > 1) return true;
    if (!value.node.IsMap() || value.node.size() == 0) return false;
    for (auto it = value.node.begin(); it != value.node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? scalar_utf8(it->first) : "";
      if (contains(kFinalKeys, key) || key != scenario.rayjobs.front().metadata.name) return false;
    }
    return true;
  }

  // The entries of a map keyed by RayJob name, each checked to name a RayJob of the scenario.
  std::vector<std::pair<std::string, Value>> per_rayjob(const Value& value, const Scenario& scenario,
                                                        std::string_view what) const {
    const std::vector<std::string> names = rayjob_names(scenario);
    const MapReader map(source_, value, {}, fmt::format("a map from RayJob name to {}", what));
    for (const auto& [name, entry] : map.entries()) {
      if (!contains(names, name) && contains(kFinalKeys, name)) {
        source_.fail(entry.line, value.field,
                     fmt::format("this scenario has several RayJobs: key {} by RayJob name ({}: {{{}: ...}})",
                                 value.field, names.front(), name));
      }
      if (!contains(names, name)) {
        source_.fail(entry.line, value.field,
                     fmt::format("\"{}\" is not a RayJob of this scenario (expected one of: {})", name, join(names)));
      }
    }
    return map.entries();
  }

  std::vector<std::string> read_transitions(const Value& value) const {
    std::vector<std::string> transitions;
    for (const Value& item : read_list(source_, value, "a list of jobDeploymentStatus values such as [\"\", Initializing]")) {
      transitions.push_back(read_choice(source_, item, kDeploymentStatuses));
    }
    return transitions;
  }

  FinalExpectation read_final(const Value& value) const {
    const MapReader keys(source_, value, {kFinalKeys.begin(), kFinalKeys.end()});
    FinalExpectation final_state;
    auto count = [this](const Value* v) -> std::optional<int> {
      if (v == nullptr) return std::nullopt;
      return static_cast<int>(read_int(source_, *v, 0, std::numeric_limits<int>::max()));
    };
    constexpr std::array<std::string_view, 2> kSetOrEmpty = {"set", "empty"};
    if (const Value* v = keys.find("jobDeploymentStatus")) final_state.job_deployment_status = read_choice(source_, *v, kDeploymentStatuses);
    if (const Value* v = keys.find("jobStatus")) final_state.job_status = read_choice(source_, *v, kJobStatuses);
    if (const Value* v = keys.find("reason")) final_state.reason = read_choice(source_, *v, kReasons);
    final_state.ray_jobs = count(keys.find("rayJobs"));
    final_state.ray_clusters = count(keys.find("rayClusters"));
    final_state.submitter_jobs = count(keys.find("submitterJobs"));
    if (const Value* v = keys.find("jobId")) final_state.job_id = read_choice(source_, *v, kSetOrEmpty);
    if (const Value* v = keys.find("rayClusterName")) final_state.ray_cluster_name = read_choice(source_, *v, kSetOrEmpty);
    final_state.succeeded = count(keys.find("succeeded"));
    final_state.failed = count(keys.find("failed"));
    final_state.worker_groups_suspended = count(keys.find("workerGroupsSuspended"));
    return final_state;
  }

  void read_expect(const Value& value, Scenario& scenario) {
    const MapReader keys(source_, value, {"outcome", "violations", "transitions", "final"});
    Expectation& expect = scenario.expect;
    constexpr std::array<std::string_view, 2> kOutcomes = {"pass", "violation"};
    if (const Value* v = keys.find("outcome")) expect.outcome = read_choice(source_, *v, kOutcomes);
    if (const Value* v = keys.find("violations")) {
      expect.violations.emplace();
      for (const Value& item : read_list(source_, *v, "a list of invariant names")) {
        const std::string name = read_invariant_name(source_, item);
        if (!scenario.invariants.includes(name)) {
          source_.fail(item.line, item.field,
                       fmt::format("\"{}\" is expected to fire but the scenario's invariants: leave it out", name));
        }
        expect.violations->push_back(name);
      }
      if (expect.outcome == "pass" && !expect.violations->empty()) {
        source_.fail(v->line, v->field, "lists invariants that must fire, which contradicts outcome: pass "
                                        "(use outcome: violation)");
      }
    }
    const std::string only_name = scenario.rayjobs.front().metadata.name;
    if (const Value* v = keys.find("transitions")) {
      if (v->node.IsSequence()) {
        if (scenario.rayjobs.size() > 1) {
          source_.fail(v->line, v->field,
                       fmt::format("this scenario has several RayJobs: give a map from RayJob name to a list ({}: [...])",
                                   only_name));
        }
        expect.transitions[only_name] = read_transitions(*v);
      } else {
        for (const auto& [name, entry] : per_rayjob(*v, scenario, "a list of jobDeploymentStatus values")) {
          expect.transitions[name] = read_transitions(entry);
        }
      }
    }
    if (const Value* v = keys.find("final")) {
      if (keyed_by_rayjob(*v, scenario)) {
        for (const auto& [name, entry] : per_rayjob(*v, scenario, "final-state keys")) {
          expect.final[name] = read_final(entry);
        }
      } else {
        expect.final[only_name] = read_final(*v);
      }
    }
  }

  Source source_;
  std::string base_dir_;
};

}  // namespace

bool InvariantSelection::includes(const std::string& name) const {
  if (all) return std::find(except.begin(), except.end(), name) == except.end();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool parse_duration(std::string_view text, std::int64_t& ms) {
  if (text.empty()) return false;
  std::int64_t total = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    // A number: digits, optionally a fraction.
    std::int64_t whole = 0;
    std::int64_t fraction = 0;
    std::int64_t scale = 1;   // 10^(fraction digits)
    std::size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (whole > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return false;
      whole = whole * 10 + (text[pos] - '0');
      ++pos, ++digits;
    }
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (scale >= 1'000'000'000) return false;
        fraction = fraction * 10 + (text[pos] - '0');
        scale *= 10;
        ++pos, ++digits;
      }
    }
    if (digits == 0) return false;
    // A unit.
    std::int64_t unit_ms = 0;
    if (text.substr(pos, 2) == "ms") {
      unit_ms = 1;
      pos += 2;
    } else if (pos < text.size() && text[pos] == 's') {
      unit_ms = 1'000;
      ++pos;
    } else if (pos < text.size() && text[pos] == 'm') {
      unit_ms = 60'000;
      ++pos;
    } else if (pos < text.size() && text[pos] == 'h') {
      unit_ms = 3'600'000;
      ++pos;
    } else {
      return false;   // a bare number, or an unknown unit
    }
    std::int64_t part = 0;
    if (__builtin_mul_overflow(whole, unit_ms, &part)) return false;
    if (fraction * unit_ms % scale != 0) return false;   // not a whole number of milliseconds
    if (__builtin_add_overflow(part, fraction * unit_ms / scale, &part)) return false;
    if (__builtin_add_overflow(total, part, &total)) return false;
  }
  ms = total;
  return true;
}

bool yaml_document_to_json(std::string_view text, json& out, int& error_line, std::string& error) {
  if (const std::optional<Utf8Error> invalid = utf8_error(text)) {
    error_line = invalid->line;
    error = invalid->message;
    return false;
  }
  YAML::Node node;
  try {
    node = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    error_line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    error = fmt::format("not YAML: {}", e.msg);
    return false;
  }
  std::map<std::string, int> lines;
  try {
    out = yaml_to_json(node, "", line_of(node, 1), lines);
  } catch (const ObjectFormatError& e) {
    auto line = lines.find(e.path);
    error_line = line == lines.end() ? 1 : line->second;
    error = e.what();
    return false;
  }
  return true;
}

Scenario parse_scenario(std::string_view text, const std::string& file_for_messages, const std::string& base_dir) {
  return Loader(file_for_messages, base_dir).parse(text);
}

Scenario load_scenario(const std::string& path) {
  std::string error;
  std::optional<std::string> text = read_file(path, error);
  if (!text) throw ScenarioError(fmt::format("{}: cannot read the scenario file: {}", path, error));
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return parse_scenario(*text, path, base_dir);
}

}  // namespace rjsim::engine
