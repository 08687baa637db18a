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

// `text` quoted and escaped; a byte of invalid UTF-8 is replaced (replace_invalid) or ends the
// string: false, and `out` holds part of it.
bool append_json_string(std::string_view text, std::string& out, bool replace_invalid) {
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
      if (!replace_invalid) return false;
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
  return true;
}

void append_json_string(std::string_view text, std::string& out) { (void)append_json_string(text, out, true); }

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

// ---- Parsing, general path: nlohmann ------------------------------------------------------

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

// ---- Parsing, fast path: the text body_json writes ----------------------------------------

// Parses the compact text body_json writes, without building a JSON tree: top-level strings
// are decoded, and a nested object or array is kept verbatim when it is already in canonical
// form (exactly what nlohmann::json::dump() would give back: compact, object keys strictly
// increasing, strings escaped the way dump escapes them, integers as dump writes them).
// Anything else (whitespace, floats, duplicate keys, unsorted or unusual nested JSON, errors)
// makes parse() return false, and the nlohmann parser decides. So this parser may be
// conservative but must never accept a text with a different meaning than nlohmann gives it.
class CanonicalBodyParser {
 public:
  explicit CanonicalBodyParser(std::string_view text) : text_(text) {}

  bool parse(std::vector<Field>& fields) {
    std::size_t count = 0;
    if (!consume('{')) return false;
    if (!consume('}')) {
      do {
        if (count == fields.size()) fields.emplace_back();
        Field& field = fields[count++];
        if (!consume('"') || !decode_string(field.key) || !consume(':')) return false;
        if (!parse_value(field.value)) return false;
      } while (consume(','));
      if (!consume('}')) return false;
    }
    fields.resize(count);
    return position_ == text_.size() && !has_duplicate_key(fields);
  }

 private:
  static constexpr int max_nesting_depth = 256;   // deeper: the nlohmann parser decides

  bool at_end() const { return position_ >= text_.size(); }
  char peek() const { return text_[position_]; }
  bool consume(char expected) {
    if (at_end() || peek() != expected) return false;
    ++position_;
    return true;
  }
  bool consume_literal(std::string_view literal) {
    if (text_.substr(position_, literal.size()) != literal) return false;
    position_ += literal.size();
    return true;
  }

  bool parse_value(Value& value) {
    if (at_end()) return false;
    const char first = peek();
    if (first == '"') {
      ++position_;
      if (!std::holds_alternative<std::string>(value)) value = std::string();
      return decode_string(std::get<std::string>(value));
    }
    if (first == '-' || (first >= '0' && first <= '9')) {
      std::int64_t number = 0;
      if (!parse_int64(number)) return false;
      value = number;
      return true;
    }
    if (first == '{' || first == '[') {
      const std::size_t start = position_;
      if (!skip_canonical_value(0)) return false;
      value = RawJson{std::string(text_.substr(start, position_ - start))};
      return true;
    }
    if (consume_literal("null")) {
      value = std::monostate{};
      return true;
    }
    if (consume_literal("true")) {
      value = true;
      return true;
    }
    if (consume_literal("false")) {
      value = false;
      return true;
    }
    return false;
  }

  // -?(0|[1-9][0-9]*) within int64, not followed by a fraction or exponent.
  bool parse_int64(std::int64_t& number) {
    const bool negative = consume('-');
    const std::size_t digits_start = position_;
    std::uint64_t magnitude = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      const auto digit = static_cast<std::uint64_t>(peek() - '0');
      if (magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
      magnitude = magnitude * 10 + digit;
      ++position_;
    }
    const std::size_t digit_count = position_ - digits_start;
    if (digit_count == 0 || (digit_count > 1 && text_[digits_start] == '0')) return false;
    if (!at_end() && (peek() == '.' || peek() == 'e' || peek() == 'E')) return false;
    constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (magnitude > max + (negative ? 1 : 0)) return false;
    number = negative ? static_cast<std::int64_t>(0 - magnitude)
                      : static_cast<std::int64_t>(magnitude);
    return true;
  }

  // After the opening quote: decodes a JSON string into `out` up to and past the closing quote.
  bool decode_string(std::string& out) {
    out.clear();
    std::size_t run_start = position_;
    while (!at_end()) {
      const auto byte = static_cast<unsigned char>(peek());
      const ByteClass byte_class = byte_classes[byte];
      if (byte_class == ByteClass::plain) {
        ++position_;
      } else if (byte_class == ByteClass::non_ascii) {
        const std::size_t length = utf8_sequence_length(text_.substr(position_));
        if (length == 0) return false;
        position_ += length;
      } else if (byte == '"') {
        out.append(text_.data() + run_start, position_ - run_start);
        ++position_;
        return true;
      } else if (byte == '\\') {
        out.append(text_.data() + run_start, position_ - run_start);
        ++position_;
        if (!decode_escape(out)) return false;
        run_start = position_;
      } else {
        return false;   // a raw control character
      }
    }
    return false;
  }

  bool decode_escape(std::string& out) {
    if (at_end()) return false;
    const char escape = text_[position_++];
    switch (escape) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': return decode_unicode_escape(out);
      default: return false;
    }
  }

  bool read_hex4(std::uint32_t& code_unit) {
    if (text_.size() - position_ < 4) return false;
    code_unit = 0;
    for (int index = 0; index < 4; ++index) {
      const char digit = text_[position_++];
      code_unit <<= 4;
      if (digit >= '0' && digit <= '9') {
        code_unit |= static_cast<std::uint32_t>(digit - '0');
      } else if (digit >= 'a' && digit <= 'f') {
        code_unit |= static_cast<std::uint32_t>(digit - 'a' + 10);
      } else if (digit >= 'A' && digit <= 'F') {
        code_unit |= static_cast<std::uint32_t>(digit - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  // After "\u": one code point, a surrogate pair counting as one; a lone surrogate is refused.
  bool decode_unicode_escape(std::string& out) {
    std::uint32_t code_point = 0;
    if (!read_hex4(code_point)) return false;
    if (code_point >= 0xdc00 && code_point <= 0xdfff) return false;
    if (code_point >= 0xd800 && code_point <= 0xdbff) {
      std::uint32_t low = 0;
      if (!consume_literal("\\u") || !read_hex4(low) || low < 0xdc00 || low > 0xdfff) return false;
      code_point = 0x10000 + ((code_point - 0xd800) << 10) + (low - 0xdc00);
    }
    append_utf8(code_point, out);
    return true;
  }

  static void append_utf8(std::uint32_t code_point, std::string& out) {
    if (code_point < 0x80) {
      out += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
      out += static_cast<char>(0xc0 | (code_point >> 6));
      out += static_cast<char>(0x80 | (code_point & 0x3f));
    } else if (code_point < 0x10000) {
      out += static_cast<char>(0xe0 | (code_point >> 12));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code_point & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code_point >> 18));
      out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code_point & 0x3f));
    }
  }

  // ---- nested values: validated as canonical, not decoded ----

  bool skip_canonical_value(int depth) {
    if (at_end() || depth > max_nesting_depth) return false;
    switch (peek()) {
      case '{': return skip_canonical_object(depth);
      case '[': return skip_canonical_array(depth);
      case '"': {
        std::string_view ignored;
        return skip_canonical_string(ignored);
      }
      case 'n': return consume_literal("null");
      case 't': return consume_literal("true");
      case 'f': return consume_literal("false");
      default: return skip_canonical_integer();
    }
  }

  bool skip_canonical_object(int depth) {
    ++position_;   // '{'
    if (consume('}')) return true;
    std::string_view previous_key;
    bool first = true;
    do {
      std::string_view key;
      if (!skip_canonical_string(key) || !consume(':')) return false;
      // Keys must be strictly increasing, as std::map orders the decoded keys. Escaped keys
      // compare differently from their decoded form: leave them to nlohmann.
      if (key.find('\\') != std::string_view::npos) return false;
      if (!first && !(previous_key < key)) return false;
      previous_key = key;
      first = false;
      if (!skip_canonical_value(depth + 1)) return false;
    } while (consume(','));
    return consume('}');
  }

  bool skip_canonical_array(int depth) {
    ++position_;   // '['
    if (consume(']')) return true;
    do {
      if (!skip_canonical_value(depth + 1)) return false;
    } while (consume(','));
    return consume(']');
  }

  // A string as nlohmann::json::dump() writes it; `content` is the text between the quotes.
  bool skip_canonical_string(std::string_view& content) {
    if (!consume('"')) return false;
    const std::size_t start = position_;
    while (!at_end()) {
      const auto byte = static_cast<unsigned char>(peek());
      const ByteClass byte_class = byte_classes[byte];
      if (byte_class == ByteClass::plain) {
        ++position_;
      } else if (byte_class == ByteClass::non_ascii) {
        const std::size_t length = utf8_sequence_length(text_.substr(position_));
        if (length == 0) return false;
        position_ += length;
      } else if (byte == '"') {
        content = text_.substr(start, position_ - start);
        ++position_;
        return true;
      } else if (byte == '\\') {
        if (!skip_canonical_escape()) return false;
      } else {
        return false;   // a raw control character
      }
    }
    return false;
  }

  // dump() escapes '"', '\\', \b \f \n \r \t by name and other control characters as \u00xx.
  bool skip_canonical_escape() {
    ++position_;   // '\\'
    if (at_end()) return false;
    const char escape = text_[position_++];
    if (std::string_view("\"\\bfnrt").find(escape) != std::string_view::npos) return true;
    if (escape != 'u') return false;
    const std::size_t start = position_;
    std::uint32_t code_unit = 0;
    if (!read_hex4(code_unit) || code_unit >= 0x20) return false;
    if (code_unit == '\b' || code_unit == '\f' || code_unit == '\n' || code_unit == '\r' ||
        code_unit == '\t') {
      return false;
    }
    return text_.substr(start, 4).find_first_of("ABCDEF") == std::string_view::npos;
  }

  // An integer as dump() writes it: no "-0", within int64 when negative and uint64 otherwise.
  bool skip_canonical_integer() {
    const bool negative = consume('-');
    const std::size_t digits_start = position_;
    std::uint64_t magnitude = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      const auto digit = static_cast<std::uint64_t>(peek() - '0');
      if (magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
      magnitude = magnitude * 10 + digit;
      ++position_;
    }
    const std::size_t digit_count = position_ - digits_start;
    if (digit_count == 0 || (digit_count > 1 && text_[digits_start] == '0')) return false;
    if (!at_end() && (peek() == '.' || peek() == 'e' || peek() == 'E')) return false;
    if (negative) {
      constexpr auto min_magnitude =
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
      if (magnitude == 0 || magnitude > min_magnitude) return false;
    }
    return true;
  }

  static bool has_duplicate_key(const std::vector<Field>& fields) {
    for (std::size_t later = 1; later < fields.size(); ++later) {
      for (std::size_t earlier = 0; earlier < later; ++earlier) {
        if (fields[earlier].key == fields[later].key) return true;
      }
    }
    return false;
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

// The general parser: any JSON text, and the error message for anything that is not a body.
bool parse_body_with_nlohmann(std::string_view json, std::vector<Field>& fields,
                              std::string& error) {
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

Field& Event::add_field(std::string_view key) {
  Field& field = body.emplace_back();
  field.key.assign(key);
  return field;
}

Event& Event::with(std::string_view key, Value value) {
  add_field(key).value = std::move(value);
  return *this;
}

Event& Event::with(std::string_view key, const char* value) { return with(key, std::string_view(value)); }

Event& Event::with(std::string_view key, std::string_view value) {
  add_field(key).value.emplace<std::string>(value);
  return *this;
}

Event& Event::with(std::string_view key, std::string value) {
  add_field(key).value.emplace<std::string>(std::move(value));
  return *this;
}

Event& Event::with(std::string_view key, bool value) {
  add_field(key).value.emplace<bool>(value);
  return *this;
}

const Value* Event::find(std::string_view key) const {
  for (const Field& field : body) {
    if (field.key == key) return &field.value;
  }
  return nullptr;
}

const std::string& Event::text(std::string_view key) const {
  static const std::string empty;
  const Value* value = find(key);
  const std::string* text = value != nullptr ? std::get_if<std::string>(value) : nullptr;
  return text != nullptr ? *text : empty;
}

std::int64_t Event::integer(std::string_view key) const {
  const Value* value = find(key);
  const std::int64_t* number = value != nullptr ? std::get_if<std::int64_t>(value) : nullptr;
  return number != nullptr ? *number : 0;
}

const std::string* Event::nested_json(std::string_view key) const {
  const Value* value = find(key);
  const RawJson* json = value != nullptr ? std::get_if<RawJson>(value) : nullptr;
  return json != nullptr ? &json->text : nullptr;
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
  if (CanonicalBodyParser(json).parse(fields)) return true;
  return parse_body_with_nlohmann(json, fields, error);
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t index = 0;
  while (index < text.size()) {
    if (static_cast<unsigned char>(text[index]) < 0x80) {
      ++index;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text.substr(index));
    if (length == 0) return index;
    index += length;
  }
  return std::nullopt;
}

bool append_utf8_json_string(std::string_view text, std::string& out) {
  const std::size_t before = out.size();
  if (append_json_string(text, out, false)) return true;
  out.resize(before);
  return false;
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
