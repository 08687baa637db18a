#include "events/event.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace rjsim::events {
namespace {

// A broken contract between rjsim's own components: report it as ours and stop.
[[noreturn]] void internal_error(std::string_view message) {
  std::fprintf(stderr, "rjsim internal error (a bug in rjsim, not a finding about KubeRay): %.*s\n",
               static_cast<int>(message.size()), message.data());
  std::abort();
}

// ---- Rendering (hot path: no nlohmann here) ----------------------------------------------

// How the escaper treats each byte: copied as is, escaped, or the start of a UTF-8 sequence.
enum class ByteClass : std::uint8_t { plain, escape, non_ascii };

constexpr std::array<ByteClass, 256> make_byte_classes() {
  std::array<ByteClass, 256> classes{};
  for (int byte = 0; byte < 256; ++byte) {
    if (byte < 0x20 || byte == '"' || byte == '\\') {
      classes[byte] = ByteClass::escape;
    } else if (byte >= 0x80) {
      classes[byte] = ByteClass::non_ascii;
    } else {
      classes[byte] = ByteClass::plain;
    }
  }
  return classes;
}
constexpr std::array<ByteClass, 256> byte_classes = make_byte_classes();

// The escape nlohmann::json::dump() writes for a byte below 0x20, '"' or '\\'.
void append_escape(unsigned char byte, std::string& out) {
  switch (byte) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: {
      constexpr char hex_digits[] = "0123456789abcdef";
      const char escaped[] = {'\\', 'u', '0', '0', hex_digits[byte >> 4], hex_digits[byte & 0xf]};
      out.append(escaped, sizeof escaped);
    }
  }
}

bool is_continuation(unsigned char byte) { return (byte & 0xc0) == 0x80; }

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF) that starts text[0], or 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t index) { return static_cast<unsigned char>(text[index]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) second_min = 0xa0;   // overlong
    if (lead == 0xed) second_max = 0x9f;   // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) second_min = 0x90;   // overlong
    if (lead == 0xf4) second_max = 0x8f;   // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  if (byte(1) < second_min || byte(1) > second_max) return 0;
  for (std::size_t index = 2; index < length; ++index) {
    if (!is_continuation(byte(index))) return 0;
  }
  return length;
}

void append_json_string(std::string_view text, std::string& out) {
  out += '"';
  std::size_t run_start = 0;   // start of the bytes copied as they are
  std::size_t index = 0;
  while (index < text.size()) {
    const auto byte = static_cast<unsigned char>(text[index]);
    const ByteClass byte_class = byte_classes[byte];
    if (byte_class == ByteClass::plain) {
      ++index;
      continue;
    }
    if (byte_class == ByteClass::non_ascii) {
      const std::size_t length = utf8_sequence_length(text.substr(index));
      if (length != 0) {
        index += length;   // valid UTF-8 passes through with the plain run
        continue;
      }
    }
    out.append(text.data() + run_start, index - run_start);
    if (byte_class == ByteClass::escape) {
      append_escape(byte, out);
    } else {
      out += "\xef\xbf\xbd";   // U+FFFD REPLACEMENT CHARACTER for a byte of invalid UTF-8
    }
    ++index;
    run_start = index;
  }
  out.append(text.data() + run_start, text.size() - run_start);
  out += '"';
}

void append_integer(std::int64_t value, std::string& out) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, result.ptr);
}

void append_value(const Value& value, std::string& out) {
  switch (value.index()) {
    case 0: out += "null"; return;
    case 1: out += std::get<bool>(value) ? "true" : "false"; return;
    case 2: append_integer(std::get<std::int64_t>(value), out); return;
    case 3: append_json_string(std::get<std::string>(value), out); return;
    case 4: {
      const std::string& text = std::get<RawJson>(value).text;
      if (text.empty() || (text.front() != '{' && text.front() != '[')) {
        internal_error(fmt::format("RawJson must hold a JSON object or array, got '{}'", text));
      }
      out += text;
      return;
    }
  }
  internal_error("an event body Value holds an alternative that body_json does not render");
}

// A canonical line is tab-separated, so its text columns may hold neither tab nor newline.
void require_single_column(std::string_view column_name, std::string_view text) {
  if (text.find_first_of("\t\n") != std::string_view::npos) {
    internal_error(fmt::format("event {} '{}' contains a tab or newline", column_name, text));
  }
}

// ---- Parsing (read path: nlohmann) --------------------------------------------------------

using OrderedJson = nlohmann::ordered_json;

// nlohmann prefixes its messages with "[json.exception.parse_error.101] "; people need the rest.
std::string without_exception_id(std::string_view message) {
  if (!message.empty() && message.front() == '[') {
    const std::size_t end = message.find("] ");
    if (end != std::string_view::npos) message.remove_prefix(end + 2);
  }
  return std::string(message);
}

bool contains_non_integer_number(const OrderedJson& json) {
  if (json.is_number_float()) return true;
  if (json.is_structured()) {
    for (const OrderedJson& element : json) {
      if (contains_non_integer_number(element)) return true;
    }
  }
  return false;
}

// Converts one top-level value; returns false and sets `error` for numbers that are not int64.
bool to_value(const std::string& key, const OrderedJson& json, Value& value, std::string& error) {
  switch (json.type()) {
    case OrderedJson::value_t::null: value = std::monostate{}; return true;
    case OrderedJson::value_t::boolean: value = json.get<bool>(); return true;
    case OrderedJson::value_t::number_integer: value = json.get<std::int64_t>(); return true;
    case OrderedJson::value_t::number_unsigned: {
      const auto number = json.get<std::uint64_t>();
      if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        error = fmt::format("key \"{}\": {} does not fit in a 64-bit signed integer", key, number);
        return false;
      }
      value = static_cast<std::int64_t>(number);
      return true;
    }
    case OrderedJson::value_t::number_float:
      error = fmt::format("key \"{}\": {} is not an integer (body numbers must be integers)", key,
                          json.dump());
      return false;
    case OrderedJson::value_t::string: value = json.get<std::string>(); return true;
    case OrderedJson::value_t::object:
    case OrderedJson::value_t::array:
      if (contains_non_integer_number(json)) {
        error = fmt::format("key \"{}\": nested value holds a number that is not an integer "
                            "(body numbers must be integers)", key);
        return false;
      }
      // nlohmann::json (not ordered_json) sorts object keys: the canonical nested form.
      value = RawJson{nlohmann::json(json).dump()};
      return true;
    default:
      error = fmt::format("key \"{}\": unsupported JSON value", key);
      return false;
  }
}

// The first top-level key that appears twice in `json` (slow path, only after a count mismatch).
std::string find_duplicate_key(std::string_view json) {
  std::vector<std::string> seen;
  std::string duplicate;
  auto on_parse_event = [&](int depth, OrderedJson::parse_event_t event, OrderedJson& parsed) {
    if (depth == 1 && event == OrderedJson::parse_event_t::key && duplicate.empty()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) duplicate = key;
      seen.push_back(key);
    }
    return true;
  };
  [[maybe_unused]] const OrderedJson parsed_only_for_its_keys =
      OrderedJson::parse(json, on_parse_event);
  return duplicate;
}

}  // namespace

// ---- Origin, Event ------------------------------------------------------------------------

std::string_view to_string(Origin origin) {
  return origin == Origin::input ? "input" : "effect";
}

bool parse_origin(std::string_view text, Origin& origin) {
  if (text == "input") {
    origin = Origin::input;
    return true;
  }
  if (text == "effect") {
    origin = Origin::effect;
    return true;
  }
  return false;
}

Event& Event::with(std::string key, Value value) {
  body.push_back(Field{std::move(key), std::move(value)});
  return *this;
}

Event& Event::with(std::string key, const char* value) {
  return with(std::move(key), Value{std::string(value)});
}

Event& Event::with(std::string key, std::string_view value) {
  return with(std::move(key), Value{std::string(value)});
}

Event& Event::with(std::string key, std::string value) {
  return with(std::move(key), Value{std::move(value)});
}

Event& Event::with(std::string key, bool value) { return with(std::move(key), Value{value}); }

const Value* Event::find(std::string_view key) const {
  for (const Field& field : body) {
    if (field.key == key) return &field.value;
  }
  return nullptr;
}

// ---- JSON -----------------------------------------------------------------------------------

void append_fields_json(const std::vector<Field>& fields, std::string& out) {
  out += '{';
  bool first = true;
  for (const Field& field : fields) {
    if (!first) out += ',';
    first = false;
    append_json_string(field.key, out);
    out += ':';
    append_value(field.value, out);
  }
  out += '}';
}

std::string fields_json(const std::vector<Field>& fields) {
  std::string out;
  out.reserve(16 + fields.size() * 24);
  append_fields_json(fields, out);
  return out;
}

std::string body_json(const Event& event) { return fields_json(event.body); }

bool parse_body(std::string_view json, std::vector<Field>& fields, std::string& error) {
  fields.clear();
  std::size_t top_level_keys = 0;
  auto count_top_level_keys = [&](int depth, OrderedJson::parse_event_t event, OrderedJson&) {
    if (depth == 1 && event == OrderedJson::parse_event_t::key) ++top_level_keys;
    return true;
  };
  OrderedJson document;
  try {
    document = OrderedJson::parse(json, count_top_level_keys);
  } catch (const OrderedJson::parse_error& parse_error) {
    error = without_exception_id(parse_error.what());
    return false;
  }
  if (!document.is_object()) {
    error = fmt::format("expected a JSON object, found {} {}",
                        document.is_array() ? "an" : "a", document.type_name());
    return false;
  }
  if (document.size() != top_level_keys) {
    error = fmt::format("key \"{}\" appears more than once", find_duplicate_key(json));
    return false;
  }
  fields.reserve(document.size());
  for (auto& [key, json_value] : document.items()) {
    Value value;
    if (!to_value(key, json_value, value, error)) {
      fields.clear();
      return false;
    }
    fields.push_back(Field{key, std::move(value)});
  }
  return true;
}

// ---- Canonical line and log hash ----------------------------------------------------------

void append_canonical_line(const Event& event, std::string& out) {
  require_single_column("type", event.type);
  require_single_column("actor", event.actor);
  require_single_column("object", event.object);
  append_integer(event.seq, out);
  out += '\t';
  append_integer(event.at_ms, out);
  out += '\t';
  out += to_string(event.origin);
  out += '\t';
  out += event.type;
  out += '\t';
  out += event.actor;
  out += '\t';
  out += event.object;
  out += '\t';
  append_fields_json(event.body, out);
  out += '\n';
}

LogHasher::LogHasher() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}

LogHasher::~LogHasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void LogHasher::add(const Event& event) {
  line_.clear();
  append_canonical_line(event, line_);
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), line_.data(), line_.size());
}

std::string LogHasher::hex() const {
  const XXH128_hash_t digest = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
  return fmt::format("{:016x}{:016x}", digest.high64, digest.low64);
}

}  // namespace rjsim::events
