// The canonical line of an event and the log hash over a run (src/events/event.h).
#include "events/event.h"

#include <doctest/doctest.h>
#include <xxhash.h>

#include <fmt/format.h>

#include <functional>
#include <string>
#include <vector>

using rjsim::events::Event;
using rjsim::events::LogHasher;
using rjsim::events::Origin;
using rjsim::events::RawJson;
using rjsim::events::Value;

namespace log_hash_test {
namespace {

std::vector<Event> small_log() {
  Event first{0, 0, Origin::input, "choice", "chooser", "", {}};
  first.with("step", "reconcile").with("index", 0);
  Event second{1, 1500, Origin::effect, "api.update_status", "controller",
               "RayJob/default/demo", {}};
  second.with("outcome", "ok").with("rv_before", 7).with("rv_after", 8)
      .with("status", Value{RawJson{R"({"jobDeploymentStatus":"Initializing"})"}});
  return {first, second};
}

std::string hash_of(const std::vector<Event>& log) {
  LogHasher hasher;
  for (const Event& event : log) hasher.add(event);
  return hasher.hex();
}

}  // namespace

TEST_CASE("the canonical line is seq, at_ms, origin, type, actor, object, body, tab-separated") {
  const std::vector<Event> log = small_log();
  std::string lines;
  for (const Event& event : log) rjsim::events::append_canonical_line(event, lines);
  CHECK(lines ==
        "0\t0\tinput\tchoice\tchooser\t\t{\"step\":\"reconcile\",\"index\":0}\n"
        "1\t1500\teffect\tapi.update_status\tcontroller\tRayJob/default/demo\t"
        "{\"outcome\":\"ok\",\"rv_before\":7,\"rv_after\":8,"
        "\"status\":{\"jobDeploymentStatus\":\"Initializing\"}}\n");
}

TEST_CASE("the log hash is XXH3-128 of the canonical lines, 32 hex digits, high half first") {
  const std::vector<Event> log = small_log();
  std::string lines;
  for (const Event& event : log) rjsim::events::append_canonical_line(event, lines);
  const XXH128_hash_t expected = XXH3_128bits(lines.data(), lines.size());
  CHECK(hash_of(log) == fmt::format("{:016x}{:016x}", expected.high64, expected.low64));
  CHECK(hash_of(log).size() == 32);
  CHECK(hash_of(log).find_first_not_of("0123456789abcdef") == std::string::npos);
}

TEST_CASE("the log hash of a fixed log is pinned: stored hashes stay comparable across builds") {
  CHECK(hash_of({}) == "99aa06d3014798d86001c324468d497f");   // XXH3-128 of no bytes
  CHECK(hash_of(small_log()) == hash_of(small_log()));
}

TEST_CASE("the log hash changes when any field of any event changes, or the order does") {
  const std::string original = hash_of(small_log());
  const std::vector<std::function<void(std::vector<Event>&)>> changes = {
      [](auto& log) { log[1].seq = 2; },
      [](auto& log) { log[1].at_ms = 1501; },
      [](auto& log) { log[0].origin = Origin::effect; },
      [](auto& log) { log[1].type = "api.update"; },
      [](auto& log) { log[1].actor = "user"; },
      [](auto& log) { log[1].object = "RayJob/default/other"; },
      [](auto& log) { log[0].object = "RayJob/default/demo"; },
      [](auto& log) { log[1].body[1].key = "rv"; },
      [](auto& log) { log[1].body[1].value = Value{std::int64_t{9}}; },
      [](auto& log) { log[1].body[0].value = Value{std::string("OK")}; },
      [](auto& log) { log[1].body.pop_back(); },
      [](auto& log) { std::swap(log[1].body[1], log[1].body[2]); },
      [](auto& log) { std::swap(log[0], log[1]); },
      [](auto& log) { log.pop_back(); },
  };
  for (std::size_t index = 0; index < changes.size(); ++index) {
    std::vector<Event> log = small_log();
    changes[index](log);
    CAPTURE(index);
    CHECK(hash_of(log) != original);
  }
}

TEST_CASE("moving text between adjacent columns changes the log hash (columns are delimited)") {
  Event joined{0, 0, Origin::effect, "ab", "c", "", {}};
  Event split{0, 0, Origin::effect, "a", "bc", "", {}};
  CHECK(hash_of({joined}) != hash_of({split}));
}

}  // namespace log_hash_test
