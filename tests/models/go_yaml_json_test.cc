// runtimeEnvYAML as the operator's Go turns it into JSON (models/shared/go_yaml_json.h): go-yaml
// v2's scalar types (fidelity-1.1-1.0.md D2, D3) and encoding/json's text, and what each caller
// makes of a YAML that is not a map.
#include "models/shared/go_yaml_json.h"

#include <doctest/doctest.h>

#include <string>

#include "models/kuberay_1_1/runtime_env.h"

namespace go_yaml_json_test {
namespace {

using rjsim::engine::Error;

// yaml.YAMLToJSON's text, or "error: ..." when it fails.
std::string converted(const std::string& yaml) {
  std::string json;
  const Error err = rjsim::models::shared::yaml_to_json(yaml, json);
  return err ? "error: " + err.message() : json;
}

}  // namespace

TEST_SUITE("go yaml to json") {

TEST_CASE("plain scalars take go-yaml v2's types; quoted ones stay strings") {
  CHECK(converted("config: {setup_timeout_seconds: 600, eager_install: false}") ==
        R"({"config":{"eager_install":false,"setup_timeout_seconds":600}})");
  CHECK(converted("a: '600'\nb: \"false\"\nc: !!str 7") == R"({"a":"600","b":"false","c":"7"})");
  // YAML 1.1 booleans, nulls, ints in Go's bases, underscores, floats in Go's shortest form.
  CHECK(converted("[yes, No, on, OFF, y, ~, null, '']") == R"([true,false,true,false,true,null,null,""])");
  CHECK(converted("[0x1F, 0o17, 017, 0b101, 1_000, +12, -3]") == "[31,15,15,5,1000,12,-3]");
  CHECK(converted("[1.5, .5, 600.0, 1e3, -2.5e-8, 1e21, 09]") == "[1.5,0.5,600,1000,-2.5e-8,1e+21,9]");
  CHECK(converted("[18446744073709551615, 2026-01-01, 1.2.3, -, .x, 0x]") ==
        R"([18446744073709551615,"2026-01-01","1.2.3","-",".x","0x"])");
  CHECK(converted("n: .inf") == "error: json: unsupported value: +Inf");
}

TEST_CASE("the escapes \\N and \\_ are the characters U+0085 and U+00A0, as go-yaml reads them") {
  // yaml-cpp 0.7 leaves them as the bytes 0x85 and 0xA0, which are not UTF-8.
  CHECK(converted("a: \"\\N\\_\"") == "{\"a\":\"\xc2\x85\xc2\xa0\"}");
}

TEST_CASE("keys that are not strings are written as Go formats their values, and keys sort") {
  CHECK(converted("{b: 1, a: 2, 3: x, yes: y, 1.5: z}") == R"({"1.5":"z","3":"x","a":2,"b":1,"true":true})");
}

TEST_CASE("strings are escaped as encoding/json escapes them, HTML-safe") {
  CHECK(converted("pip: ['requests>=2.0', 'a<b&c', \"tab\\there\"]") ==
        R"({"pip":["requests\u003e=2.0","a\u003cb\u0026c","tab\there"]})");
}

TEST_CASE("an empty document is null; any YAML converts for the submitter command") {
  using rjsim::models::kuberay_1_1::runtime_env_command_json;
  using rjsim::models::kuberay_1_1::runtime_env_yaml_to_json;
  std::string json;
  REQUIRE_FALSE(runtime_env_command_json("# only a comment", json));
  CHECK(json == "null");   // Go appends --runtime-env-json null
  REQUIRE_FALSE(runtime_env_command_json("- a\n- 1", json));
  CHECK(json == R"(["a",1])");   // v1.0.0 validates nothing first
  REQUIRE_FALSE(runtime_env_command_json("", json));
  CHECK(json.empty());
  // UnmarshalRuntimeEnvYAML (validation, the HTTP request) wants a map; null is a nil map.
  REQUIRE_FALSE(runtime_env_yaml_to_json("~", json));
  CHECK(json.empty());
  const Error err = runtime_env_yaml_to_json("- a", json);
  REQUIRE(err);
  CHECK(err.message().find("cannot unmarshal array into Go value of type map[string]interface {}") !=
        std::string::npos);
}

}  // TEST_SUITE

}  // namespace go_yaml_json_test
