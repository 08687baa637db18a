// Object refs ("Kind/namespace/name", objects.h): every event about an object names it so, and the
// checks and replay parse it back. assign_object_ref writes into a string an event slot reuses, so
// whatever the slot held before (longer, shorter, empty) must not leak into the new ref.
#include <doctest/doctest.h>

#include <string>

#include "engine/objects.h"

namespace object_ref_test {
namespace {

using rjsim::engine::assign_object_ref;
using rjsim::engine::Kind;
using rjsim::engine::object_ref;
using rjsim::engine::ObjectRef;
using rjsim::engine::parse_object_ref;

TEST_CASE("object refs: a reused string holds exactly the new ref, whatever it held before") {
  std::string ref = "RayCluster/a-much-longer-namespace-than-default/rayjob-sample-raycluster-abcde";
  assign_object_ref(ref, Kind::Pod, "default", "head");
  CHECK(ref == "Pod/default/head");

  assign_object_ref(ref, Kind::RayJob, "team-a", "rayjob-with-a-name-longer-than-the-last-one");
  CHECK(ref == "RayJob/team-a/rayjob-with-a-name-longer-than-the-last-one");

  std::string empty;
  assign_object_ref(empty, Kind::Job, "ns", "j");
  CHECK(empty == "Job/ns/j");
  CHECK(empty.size() == 8);
}

TEST_CASE("object refs: each kind's ref parses back to its kind, namespace and name") {
  for (Kind kind : rjsim::engine::kAllKinds) {
    const std::string ref = object_ref(kind, "default", "rayjob-sample");
    ObjectRef parsed;
    REQUIRE(parse_object_ref(ref, parsed));
    CHECK(parsed.kind == kind);
    CHECK(parsed.namespace_ == "default");
    CHECK(parsed.name == "rayjob-sample");
  }
}

}  // namespace
}  // namespace object_ref_test
