// parse_body has a fast path for the canonical text body_json writes and falls back to
// nlohmann for everything else. These tests compare it, on many generated bodies in several
// textual forms, with a reference built from nlohmann alone: they must always agree.
#include "events/event.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

using rjsim::events::Field;
using rjsim::events::RawJson;
using rjsim::events::Value;

namespace body_parse_differential_test {
namespace {

using OrderedJson = nlohmann::ordered_json;

bool contains_float(const OrderedJson& json) {
  if (json.is_number_float()) return true;
  if (!json.is_structured()) return false;
  for (const OrderedJson& element : json) {
    if (contains_float(element)) return true;
  }
  return false;
}

// What parse_body must return for `text`, computed with nlohmann only; nullopt: must reject.
std::optional<std::vector<Field>> reference_parse(const std::string& text) {
  OrderedJson document;
  std::size_t top_level_keys = 0;
  try {
    document = OrderedJson::parse(text, [&](int depth, OrderedJson::parse_event_t event, auto&) {
      top_level_keys += depth == 1 && event == OrderedJson::parse_event_t::key;
      return true;
    });
  } catch (const OrderedJson::parse_error&) {
    return std::nullopt;
  }
  if (!document.is_object()) return std::nullopt;
  if (document.size() != top_level_keys) return std::nullopt;   // nlohmann merged a duplicate
  std::vector<Field> fields;
  for (const auto& [key, json] : document.items()) {
    if (json.is_null()) {
      fields.push_back({key, Value{}});
    } else if (json.is_boolean()) {
      fields.push_back({key, Value{json.get<bool>()}});
    } else if (json.is_number_integer() && json.is_number_unsigned() &&
               json.get<std::uint64_t>() >
                   static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    } else if (json.is_number_integer()) {
      fields.push_back({key, Value{json.get<std::int64_t>()}});
    } else if (json.is_string()) {
      fields.push_back({key, Value{json.get<std::string>()}});
    } else if (json.is_structured()) {
      if (contains_float(json)) return std::nullopt;
      fields.push_back({key, Value{RawJson{nlohmann::json(json).dump()}}});
    } else {
      return std::nullopt;   // floats
    }
  }
  return fields;
}

class JsonGenerator {
 public:
  explicit JsonGenerator(std::uint64_t seed) : random_(seed) {}

  OrderedJson body() {
    OrderedJson object = OrderedJson::object();
    const int size = pick(0, 6);
    for (int index = 0; index < size; ++index) object[text()] = value(0, /*top_level=*/true);
    return object;
  }

 private:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

  std::string text() {
    static const std::array<std::string, 17> pieces = {
        "a", "b", "B", "z", "key", "\xc3\xa9", "\xf0\x9f\x9a\x80", "\"", "\\", "\n", "\t",
        "\b", "\x01", "\x1f", "/", "\x7f", " "};
    std::string text;
    const int length = pick(0, 4);
    for (int index = 0; index < length; ++index) text += pieces[pick(0, pieces.size() - 1)];
    return text;
  }

  OrderedJson integer(bool top_level) {
    switch (pick(0, 7)) {
      case 0: return 0;
      case 1: return -1;
      case 2: return std::numeric_limits<std::int64_t>::min();
      case 3: return std::numeric_limits<std::int64_t>::max();
      case 4:
        if (top_level && pick(0, 3) != 0) return 5;   // mostly valid bodies at the top level
        return std::numeric_limits<std::uint64_t>::max();
      default: return std::uniform_int_distribution<std::int64_t>(-1'000'000, 1'000'000)(random_);
    }
  }

  OrderedJson value(int depth, bool top_level) {
    switch (pick(0, depth >= 3 ? 4 : 6)) {
      case 0: return nullptr;
      case 1: return pick(0, 1) == 1;
      case 2: return integer(top_level);
      case 3:
      case 4: return text();
      case 5: {
        OrderedJson array = OrderedJson::array();
        const int size = pick(0, 3);
        for (int index = 0; index < size; ++index) array.push_back(value(depth + 1, false));
        return array;
      }
      default: {
        OrderedJson object = OrderedJson::object();
        const int size = pick(0, 3);
        for (int index = 0; index < size; ++index) object[text()] = value(depth + 1, false);
        return object;
      }
    }
  }

  std::mt19937_64 random_;
};

// The compact text with nested objects key-sorted: what body_json writes for such a body.
std::string canonical_text(const OrderedJson& body) {
  std::string text = "{";
  bool first = true;
  for (const auto& [key, json] : body.items()) {
    if (!first) text += ',';
    first = false;
    text += nlohmann::json(key).dump() + ":" + nlohmann::json(json).dump();
  }
  return text + "}";
}

void check_agrees_with_reference(const std::string& text) {
  CAPTURE(text);
  const std::optional<std::vector<Field>> expected = reference_parse(text);
  std::vector<Field> fields;
  std::string error;
  const bool accepted = rjsim::events::parse_body(text, fields, error);
  CHECK(accepted == expected.has_value());
  if (accepted && expected) {
    CHECK(fields == *expected);
    // And rendering what was parsed is a fixed point.
    const std::string rendered = rjsim::events::fields_json(fields);
    std::vector<Field> again;
    CHECK(rjsim::events::parse_body(rendered, again, error));
    CHECK(again == fields);
    CHECK(rjsim::events::fields_json(again) == rendered);
  }
}

}  // namespace

TEST_CASE("parse_body agrees with nlohmann on generated bodies in canonical, insertion-ordered "
          "and pretty forms") {
  JsonGenerator generator(20240501);
  for (int round = 0; round < 3000; ++round) {
    const OrderedJson body = generator.body();
    check_agrees_with_reference(canonical_text(body));   // the fast path's own input
    check_agrees_with_reference(body.dump());            // nested keys in insertion order
    check_agrees_with_reference(body.dump(1));           // whitespace everywhere
  }
}

TEST_CASE("parse_body agrees with nlohmann on hand-picked edge cases of the fast path") {
  const std::vector<std::string> texts = {
      "{}", "{ }", R"({"a":-0})", R"({"a":00})", R"({"a":-})", R"({"a":1e2})", R"({"a":1.0})",
      R"({"a":-9223372036854775808})", R"({"a":-9223372036854775809})",
      R"({"a":9223372036854775807})", R"({"a":9223372036854775808})",
      R"({"a":{"x":-0}})", R"({"a":[18446744073709551615]})", R"({"a":[18446744073709551616]})",
      R"({"a":[-9223372036854775809]})", R"({"a":{"b":1,"a":2}})", R"({"a":{"a":1,"a":2}})",
      R"({"a":{"\u0041":1}})", R"({"a":["\u0041"]})", R"({"a":["\u001f"]})", R"({"a":["\u001F"]})",
      R"({"a":["\u0008"]})", R"({"a":["\u0009"]})", R"({"a":["\u000a"]})",
      R"({"a":["\u000c"]})", R"({"a":["\u000d"]})", R"({"a":["\u0022"]})", R"({"a":["\/"]})", R"({"a":"\ud83d\ude80"})", R"({"a":"\ud83d"})",
      R"({"a":"\ude80"})", R"({"a":"\u00e9\u00E9"})", R"({"a":1,"a":1})", R"({"a":1,})",
      R"({"a":[1,]})", R"({"a":{}})", R"({"a":[]})", R"({"a":nul})", R"({"a":truex})",
      "{\"a\":\"\t\"}", "{\"a\":[\"\xff\"]}", R"({"a":1}x)", R"({"a":"x)", R"([])", R"("a")",
      R"({"a":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]})", R"({"\"":{"\"":1,"#":2}})",
  };
  for (const std::string& text : texts) check_agrees_with_reference(text);
}

}  // namespace body_parse_differential_test
