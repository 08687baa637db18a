// The canonical JSON form of event bodies (src/events/event.h): rendering, escaping, parsing.
#include "events/event.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using rjsim::events::Event;
using rjsim::events::Field;
using rjsim::events::RawJson;
using rjsim::events::Value;

namespace event_json_test {
namespace {

std::vector<Field> parsed(std::string_view json) {
  std::vector<Field> fields;
  std::string error;
  REQUIRE_MESSAGE(rjsim::events::parse_body(json, fields, error), error);
  return fields;
}

// The error parse_body reports for `json`, which must be rejected.
std::string rejection(std::string_view json) {
  std::vector<Field> fields{{"left", Value{std::int64_t{1}}}};
  std::string error;
  CHECK_FALSE(rjsim::events::parse_body(json, fields, error));
  CHECK(fields.empty());
  return error;
}

std::string one_string_body(std::string_view text) {
  return rjsim::events::body_json(Event{}.with("s", text));
}

}  // namespace

TEST_CASE("body renders as compact JSON with keys in field order, not sorted") {
  Event event;
  event.with("zeta", 1).with("alpha", "a").with("mid", true);
  CHECK(rjsim::events::body_json(event) == R"({"zeta":1,"alpha":"a","mid":true})");
  CHECK(rjsim::events::body_json(Event{}) == "{}");
}

TEST_CASE("every kind of value renders: null, booleans, 64-bit integers, strings, nested JSON") {
  Event event;
  event.with("none", Value{})
      .with("yes", true)
      .with("no", false)
      .with("min", std::numeric_limits<std::int64_t>::min())
      .with("max", std::numeric_limits<std::int64_t>::max())
      .with("text", std::string("x"))
      .with("nested", Value{RawJson{R"({"a":[1,2]})"}});
  CHECK(rjsim::events::body_json(event) ==
        R"({"none":null,"yes":true,"no":false,"min":-9223372036854775808,)"
        R"("max":9223372036854775807,"text":"x","nested":{"a":[1,2]}})");
}

TEST_CASE("with() keeps a bool boolean and a 64-bit integer whole") {
  Event event;
  event.with("flag", true).with("rv", std::int64_t{1} << 40).with("small", 7u);
  CHECK(std::holds_alternative<bool>(*event.find("flag")));
  CHECK(std::get<std::int64_t>(*event.find("rv")) == std::int64_t{1} << 40);
  CHECK(std::get<std::int64_t>(*event.find("small")) == 7);
}

TEST_CASE("find returns the first field with the key, or nullptr") {
  Event event;
  event.with("a", 1).with("b", "two");
  REQUIRE(event.find("b") != nullptr);
  CHECK(std::get<std::string>(*event.find("b")) == "two");
  CHECK(event.find("c") == nullptr);
}

TEST_CASE("strings are escaped per JSON: quote, backslash and control characters") {
  CHECK(one_string_body("say \"hi\"\\") == R"({"s":"say \"hi\"\\"})");
  CHECK(one_string_body("\b\f\n\r\t") == R"({"s":"\b\f\n\r\t"})");
  CHECK(one_string_body(std::string_view("\x00\x01\x1f", 3)) == R"({"s":"\u0000\u0001\u001f"})");
  CHECK(one_string_body("/ and \x7f stay") == "{\"s\":\"/ and \x7f stay\"}");
  CHECK(rjsim::events::body_json(Event{}.with("k\"ey", 1)) == R"({"k\"ey":1})");
}

TEST_CASE("every ASCII character is escaped exactly as nlohmann::json::dump escapes it") {
  for (int code = 0; code < 0x80; ++code) {
    const std::string text(1, static_cast<char>(code));
    CAPTURE(code);
    CHECK(one_string_body(text) == nlohmann::ordered_json{{"s", text}}.dump());
  }
}

TEST_CASE("non-ASCII UTF-8 passes through unescaped") {
  const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80";   // café € 🚀
  CHECK(one_string_body(text) == "{\"s\":\"" + text + "\"}");
  CHECK(parsed(one_string_body(text)) == Event{}.with("s", text).body);
}

TEST_CASE("a byte that is not valid UTF-8 renders as U+FFFD, so the body stays valid JSON") {
  const std::string replacement = "\xef\xbf\xbd";
  CHECK(one_string_body("a\xff" "b") == "{\"s\":\"a" + replacement + "b\"}");
  CHECK(one_string_body("\xc3") == "{\"s\":\"" + replacement + "\"}");         // truncated
  CHECK(one_string_body("\xc0\xaf") ==   // overlong
        "{\"s\":\"" + replacement + replacement + "\"}");
  CHECK(one_string_body("\xed\xa0\x80").find(replacement) != std::string::npos);   // surrogate
  CHECK(nlohmann::json::accept(one_string_body("x\x80\xfe")));
}

TEST_CASE("parse_body gives back the fields body_json rendered, keys in text order") {
  Event event;
  event.with("z", Value{})
      .with("flag", false)
      .with("rv", std::int64_t{-42})
      .with("text", "tab\there \"quoted\" \xc3\xa9")
      .with("list", Value{RawJson{R"([1,"two",{"a":null}])"}})
      .with("object", Value{RawJson{R"({"a":1,"b":{"c":true}})"}});
  const std::string json = rjsim::events::body_json(event);
  CHECK(parsed(json) == event.body);
  CHECK(rjsim::events::fields_json(parsed(json)) == json);
}

TEST_CASE("nested objects come back key-sorted and a second round trip is byte-stable") {
  const std::string written = R"({"b":2,"a":{"z":1,"y":[{"d":1,"c":2}]},"arr":[ 3 , 1 ]})";
  const std::vector<Field> first = parsed(written);
  const std::string first_render = rjsim::events::fields_json(first);
  // Top-level keys keep their order; nested objects are sorted; whitespace is gone.
  CHECK(first_render == R"({"b":2,"a":{"y":[{"c":2,"d":1}],"z":1},"arr":[3,1]})");
  const std::vector<Field> second = parsed(first_render);
  CHECK(second == first);
  CHECK(rjsim::events::fields_json(second) == first_render);
}

TEST_CASE("escapes in the text parse to the characters they stand for") {
  CHECK(parsed(R"({"s":"\u00e9\n\/"})") == Event{}.with("s", "\xc3\xa9\n/").body);
}

TEST_CASE("fields_json and append_fields_json agree with body_json") {
  Event event;
  event.with("a", 1).with("b", "x");
  std::string out = "prefix:";
  rjsim::events::append_fields_json(event.body, out);
  CHECK(out == "prefix:" + rjsim::events::body_json(event));
  CHECK(rjsim::events::fields_json(event.body) == rjsim::events::body_json(event));
}

TEST_CASE("parse_body rejects text that is not JSON, with nlohmann's position") {
  const std::string error = rejection(R"({"a":)");
  CHECK(error.find("parse error") != std::string::npos);
  CHECK(error.find("json.exception") == std::string::npos);
  CHECK_FALSE(rejection(R"({"a":1} trailing)").empty());
  CHECK_FALSE(rejection("").empty());
  CHECK_FALSE(rejection("{\"a\":\"\xff\"}").empty());   // invalid UTF-8 in the text
}

TEST_CASE("parse_body rejects a body that is not an object") {
  CHECK(rejection("[1,2]") == "expected a JSON object, found an array");
  CHECK(rejection("\"text\"") == "expected a JSON object, found a string");
  CHECK(rejection("7") == "expected a JSON object, found a number");
}

TEST_CASE("parse_body rejects numbers that are not 64-bit integers, nested ones included") {
  CHECK(rejection(R"({"ratio":1.5})") ==
        R"(key "ratio": 1.5 is not an integer (body numbers must be integers))");
  CHECK(rejection(R"({"big":9223372036854775808})") ==
        R"(key "big": 9223372036854775808 does not fit in a 64-bit signed integer)");
  CHECK(rejection(R"({"n":{"deep":[1e3]}})").find(R"(key "n": nested)") == 0);
  CHECK(parsed(R"({"big":9223372036854775807})") ==
        Event{}.with("big", std::numeric_limits<std::int64_t>::max()).body);
}

TEST_CASE("parse_body rejects a top-level key that appears twice, naming it") {
  CHECK(rejection(R"({"a":1,"b":{"x":1},"a":2})") == R"(key "a" appears more than once)");
  // Nested objects are nlohmann's business: not a top-level duplicate.
  CHECK(parsed(R"({"a":{"x":1},"b":{"x":2}})").size() == 2);
}

TEST_CASE("origin renders and parses as input or effect, nothing else") {
  rjsim::events::Origin origin = rjsim::events::Origin::effect;
  CHECK(rjsim::events::parse_origin("input", origin));
  CHECK(origin == rjsim::events::Origin::input);
  CHECK(rjsim::events::to_string(origin) == "input");
  CHECK(rjsim::events::parse_origin("effect", origin));
  CHECK(rjsim::events::to_string(origin) == "effect");
  CHECK_FALSE(rjsim::events::parse_origin("Input", origin));
  CHECK_FALSE(rjsim::events::parse_origin("", origin));
}

}  // namespace event_json_test
