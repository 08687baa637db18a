#include "models/shared/go_yaml_json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "engine/yaml_scalar.h"

namespace rjsim::models::shared {

using nlohmann::json;

namespace {

// ---- go-yaml v2's resolve (resolve.go) for a plain scalar ----

// strconv.ParseUint(s, 0, 64) of an unsigned text: a 0x, 0o or 0b prefix or a leading 0 (octal)
// picks the base.
std::optional<std::uint64_t> parse_go_uint(std::string_view text) {
  int base = 10;
  if (text.size() > 1 && text[0] == '0') {
    const char prefix = static_cast<char>(text[1] | 0x20);
    if (prefix == 'x' || prefix == 'o' || prefix == 'b') {
      base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
      text.remove_prefix(2);
    } else {
      base = 8;
      text.remove_prefix(1);
    }
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// strconv.ParseInt(s, 0, 64): an optional sign, then as parse_go_uint, within int64.
std::optional<std::int64_t> parse_go_int(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  const std::optional<std::uint64_t> magnitude = parse_go_uint(text);
  if (!magnitude) return std::nullopt;
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!negative && *magnitude > limit) return std::nullopt;
  if (negative && *magnitude > limit + 1) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - *magnitude) : static_cast<std::int64_t>(*magnitude);
}

// strconv.ParseFloat(s, 64) of a decimal text (no underscores, no hex floats).
std::optional<double> parse_go_float(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return negative ? -value : value;
}

// yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool is_yaml_style_float(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i > start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  } else {
    if (!digits()) return false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

// resolveMap: the exact texts with a type of their own.
std::optional<json> resolve_exact(std::string_view text) {
  static const std::string_view kTrue[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const std::string_view kFalse[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  static const std::string_view kNull[] = {"", "~", "null", "Null", "NULL"};
  for (std::string_view each : kTrue) if (text == each) return json(true);
  for (std::string_view each : kFalse) if (text == each) return json(false);
  for (std::string_view each : kNull) if (text == each) return json(nullptr);
  const double infinity = std::numeric_limits<double>::infinity();
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return json(std::numeric_limits<double>::quiet_NaN());
  if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf" || text == "+.Inf" || text == "+.INF") {
    return json(infinity);
  }
  if (text == "-.inf" || text == "-.Inf" || text == "-.INF") return json(-infinity);
  return std::nullopt;
}

// resolve(): a plain scalar's value, by the hint its first character gives.
json resolve_plain(const std::string& text) {
  if (std::optional<json> exact = resolve_exact(text)) return *exact;
  const char first = text.empty() ? 'N' : text[0];
  if (first == '.') {
    if (std::optional<double> value = parse_go_float(text)) return *value;
    return text;
  }
  const bool digit_or_sign = std::isdigit(static_cast<unsigned char>(first)) || first == '+' || first == '-';
  if (!digit_or_sign) return text;
  std::string plain;
  for (char c : text) {
    if (c != '_') plain += c;
  }
  if (std::optional<std::int64_t> value = parse_go_int(plain)) return *value;
  if (plain[0] != '+' && plain[0] != '-') {
    if (std::optional<std::uint64_t> value = parse_go_uint(plain)) return *value;
  }
  if (is_yaml_style_float(plain)) {
    if (std::optional<double> value = parse_go_float(plain)) return *value;
  }
  return text;
}

// ---- sigs.k8s.io/yaml: decoded YAML as JSON-able values ----

json scalar_value(const YAML::Node& node) {
  const std::string text = engine::scalar_utf8(node);
  // yaml-cpp tags a quoted scalar "!": it stays a string, as one tagged !!str does; go-yaml
  // resolves every other one (a plain scalar is tagged "?").
  if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return text;
  return resolve_plain(text);
}

// convertToJSONableObject's key strings: a non-string key as Go formats its decoded value.
std::string key_text(const YAML::Node& key) {
  if (!key.IsScalar()) return key.IsNull() ? "null" : YAML::Dump(key);
  const json value = scalar_value(key);
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "null";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return value.dump();
  const double number = value.get<double>();
  if (std::isnan(number)) return ".nan";
  if (std::isinf(number)) return number > 0 ? ".inf" : "-.inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(number));   // 'g', 32 bits
  return std::string(buffer, result.ptr);
}

json to_value(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json object = json::object();
      for (const auto& entry : node) object[key_text(entry.first)] = to_value(entry.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      json array = json::array();
      for (const auto& item : node) array.push_back(to_value(item));
      return array;
    }
    case YAML::NodeType::Scalar: return scalar_value(node);
    default: return nullptr;
  }
}

// ---- encoding/json ----

void append_go_string(std::string_view text, std::string& out) {
  out += '"';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '<': case '>': case '&': out += fmt::format("\\u00{:02x}", c); continue;   // HTML-safe
      default: break;
    }
    if (c < 0x20) {
      out += fmt::format("\\u00{:02x}", c);
    } else if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(text[i + 2]) == 0xA8 || static_cast<unsigned char>(text[i + 2]) == 0xA9)) {
      out += static_cast<unsigned char>(text[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

// floatEncoder: the shortest text that reads back, in 'f' form but for very small or large
// values, which take 'e' form with a one-digit negative exponent ("1e-7").
void append_go_float(double value, std::string& out) {
  char buffer[512];
  const double magnitude = std::abs(value);
  const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value,
                                    exponent ? std::chars_format::scientific : std::chars_format::fixed);
  std::string text(buffer, result.ptr);
  if (exponent) {
    const std::size_t e = text.find('e');
    if (e != std::string::npos && e + 2 < text.size() && text[e + 1] == '-' && text[e + 2] == '0') text.erase(e + 2, 1);
  }
  out += text;
}

void append_go_json(const json& value, std::string& out) {
  switch (value.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.items()) {   // nlohmann's objects are sorted, as Go's maps are
        if (!first) out += ',';
        first = false;
        append_go_string(key, out);
        out += ':';
        append_go_json(item, out);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += ',';
        append_go_json(value[i], out);
      }
      out += ']';
      return;
    }
    case json::value_t::string: append_go_string(value.get_ref<const std::string&>(), out); return;
    case json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: out += value.dump(); return;
    case json::value_t::number_float: append_go_float(value.get<double>(), out); return;
    default: out += "null"; return;
  }
}

// json.Marshal refuses NaN and the infinities: the first one found, as Go names it.
std::optional<std::string> unsupported_float(const json& value) {
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isnan(number)) return "NaN";
    if (std::isinf(number)) return number > 0 ? "+Inf" : "-Inf";
    return std::nullopt;
  }
  if (value.is_structured()) {
    for (const json& item : value) {
      if (std::optional<std::string> found = unsupported_float(item)) return found;
    }
  }
  return std::nullopt;
}

}  // namespace

engine::Error yaml_to_json_value(const std::string& yaml, json& value) {
  try {
    value = to_value(YAML::Load(yaml));
  } catch (const YAML::Exception& e) {
    return engine::Error(engine::ErrorCode::other, fmt::format("error converting YAML to JSON: yaml: {}", e.what()));
  }
  if (std::optional<std::string> unsupported = unsupported_float(value)) {
    return engine::Error(engine::ErrorCode::other, fmt::format("json: unsupported value: {}", *unsupported));
  }
  return {};
}

engine::Error yaml_to_json(const std::string& yaml, std::string& json_text) {
  json_text.clear();
  json value;
  if (engine::Error err = yaml_to_json_value(yaml, value)) return err;
  json_text = go_json_marshal(value);
  return {};
}

const char* go_json_kind(const json& value) {
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  return "number";
}

std::string go_json_marshal(const json& value) {
  std::string out;
  append_go_json(value, out);
  return out;
}

}  // namespace rjsim::models::shared
