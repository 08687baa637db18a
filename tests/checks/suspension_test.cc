// suspended-only-when-requested and suspended-means-released (DESIGN §5; docs/invariants.md):
// judged at the step that persists Suspended, from spec.suspend of the RayJob the write was based
// on, and from the Pods in the API server.
#include <doctest/doctest.h>

#include "check_harness.h"

namespace suspension_test {
namespace {

using rjsim::engine::RayJobSpec;
using rjsim::engine::RunEnd;
using rjsim::testing::CheckRun;
using rjsim::testing::single_violation;

// A RayJob the user suspended, whose controller persisted Suspending.
void suspending(CheckRun& run) {
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = true; });
  run.persist("demo", "Suspending", "");
}

TEST_CASE("suspended-only-when-requested fires when Suspended is written over a RayJob that is no longer suspended") {
  CheckRun run("suspended-only-when-requested");
  suspending(run);
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = false; });
  const std::int64_t seq = run.persist("demo", "Suspended", "");
  run.finish(RunEnd::quiescent);
  single_violation(run, "suspended-only-when-requested", seq, {"Suspended", "Suspending", "spec.suspend was false"});
}

TEST_CASE("suspended-only-when-requested is silent while the RayJob asks to be suspended") {
  CheckRun run("suspended-only-when-requested");
  suspending(run);
  run.persist("demo", "Suspended", "");
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = false; });   // the resume, after
  run.persist("demo", "", "");
  run.finish(RunEnd::quiescent);
  CHECK(run.violations().empty());
}

constexpr const char* kCluster = "demo-raycluster-aaaaa";

// A running Pod of the cluster `cluster` (its ray.io/cluster label), as the kubelet reports it.
std::int64_t running_pod(CheckRun& run, const std::string& name, const std::string& cluster) {
  return run.step([&](rjsim::engine::StepContext& c) {
    rjsim::engine::Pod pod;
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    pod.metadata.labels.edit()[std::string(rjsim::engine::kRayClusterLabel)] = cluster;
    rjsim::engine::Object object = pod;
    REQUIRE(!rjsim::engine::LoggedApi(c, "raycluster-controller").create(object).error);
    rjsim::engine::LoggedApi(c, "kubelet").patch_status(rjsim::engine::Kind::Pod, "default", name,
                                                        [](rjsim::engine::Object& o) {
                                                          std::get<rjsim::engine::Pod>(o).status.phase = "Running";
                                                        });
  });
}

// A suspended RayJob whose cluster the controller deleted; its head Pod `pod` was running.
void suspend_with_pod(CheckRun& run) {
  run.create_rayjob("demo");
  run.persist("demo", "Initializing", "");
  run.create_cluster("demo", kCluster);
  running_pod(run, "head", kCluster);
  running_pod(run, "elsewhere", "another-cluster");
  run.user_patch("demo", [](RayJobSpec& spec) { spec.suspend = true; });
  run.persist("demo", "Suspending", "");
  run.remove(rjsim::engine::Kind::RayCluster, kCluster);
}

TEST_CASE("suspended-means-released fires when Suspended is persisted while a Pod of the RayJob's cluster runs") {
  CheckRun run("suspended-means-released");
  suspend_with_pod(run);
  const std::int64_t seq = run.persist("demo", "Suspended", "");
  run.finish(RunEnd::quiescent);
  single_violation(run, "suspended-means-released", seq, {"Pod/default/head", "its RayCluster"});
}

TEST_CASE("suspended-means-released is silent once the Pods are gone or stopped; other clusters' Pods do not count") {
  SUBCASE("deleted") {
    CheckRun run("suspended-means-released");
    suspend_with_pod(run);
    run.remove(rjsim::engine::Kind::Pod, "head", "kubelet");
    run.persist("demo", "Suspended", "");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
  SUBCASE("its containers stopped (grace period over), the object still held by a finalizer") {
    CheckRun run("suspended-means-released");
    suspend_with_pod(run);
    run.step([](rjsim::engine::StepContext& c) {
      c.world().api.patch(rjsim::engine::Kind::Pod, "default", "head",
                          [](rjsim::engine::Object& o) { rjsim::engine::meta(o).finalizers.edit().push_back("test/hold"); }, 0);
      REQUIRE(!c.world().api.remove(rjsim::engine::Kind::Pod, "default", "head",
                                    rjsim::engine::Propagation::background, 0, 0).error);
    });
    run.persist("demo", "Suspended", "");
    run.finish(RunEnd::quiescent);
    CHECK(run.violations().empty());
  }
}

}  // namespace
}  // namespace suspension_test
