// The Job controller keeps the Jobs it manages and the Pods that carry its finalizer, found by
// following their watch logs (issue 30; followed_answers.h): after any create, delete or
// recreation of a Job or a Pod, a Job finishing, a Pod's phase moving, its finalizer going, a move
// of the clock, the controller's own work and any return to an earlier world (another run from a
// snapshot), its listing and its next timer are the ones a controller that keeps nothing gives,
// under both ways of counting Pods. Random sequences come from a seeded generator: a failure names
// the seed.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/job_controller.h"
#include "engine/world.h"
#include "actor_bench.h"

namespace job_controller_answers_test {
namespace {

using namespace rjsim::engine;
using rjsim::testing::compare_kept_with_fresh;

constexpr std::string_view kNamespace = "default";
const std::vector<std::string> kJobs = {"first", "second", "third"};

void create_job(World& world, const std::string& name) {
  Job job;
  job.metadata.name = name;
  job.metadata.namespace_ = std::string(kNamespace);
  job.spec.edit().backoff_limit = 2;
  Object object = std::move(job);
  world.api.create(object, world.now_ms);
}

// A Pod of the Job `job` (by its uid when it exists, else a uid no Job has), with the job-tracking
// finalizer when `tracked`.
void create_pod(World& world, const std::string& job, int index, bool tracked) {
  Pod pod;
  pod.metadata.name = job + "-" + std::to_string(index);
  pod.metadata.namespace_ = std::string(kNamespace);
  OwnerReference owner;
  owner.kind = Kind::Job;
  owner.name = job;
  const Object* found = world.api.find(Kind::Job, kNamespace, job);
  owner.uid = found ? meta(*found).uid : "gone-" + job;
  owner.controller = true;
  pod.metadata.owner_references.edit().push_back(owner);
  if (tracked) pod.metadata.finalizers.edit().emplace_back(kJobTrackingFinalizer);
  pod.status.phase = "Pending";
  Object object = std::move(pod);
  world.api.create(object, world.now_ms);
}

void change(World& world, std::mt19937& random) {
  const std::string& job = kJobs[random() % kJobs.size()];
  const int index = static_cast<int>(random() % 3);
  const std::string pod = job + "-" + std::to_string(index);
  const auto which = random() % 12;
  switch (which) {
    case 0: create_job(world, job); break;
    case 1: world.api.remove(Kind::Job, kNamespace, job, Propagation::background, world.now_ms); break;
    case 2:
    case 3: create_pod(world, job, index, random() % 3 != 0); break;
    case 4: {
      static constexpr std::string_view kPhases[] = {"Pending", "Running", "Succeeded", "Failed"};
      const std::string_view phase = kPhases[random() % 4];
      world.api.patch_status(Kind::Pod, kNamespace, pod, [&](Object& object) {
        std::get<Pod>(object).status.phase = std::string(phase);
      }, world.now_ms);
      break;
    }
    case 5:
      world.api.patch(Kind::Pod, kNamespace, pod, [](Object& object) { meta(object).finalizers.edit().clear(); },
                      world.now_ms);
      break;
    case 6: world.api.remove(Kind::Pod, kNamespace, pod, Propagation::background, world.now_ms); break;
    case 7:
      world.api.patch_status(Kind::Job, kNamespace, job, [&](Object& object) {
        std::get<Job>(object).status.conditions.push_back({"Complete", "True", "", "", world.now_ms});
      }, world.now_ms);
      break;
    case 8:
    case 10: {
      // The Pod's controller becomes another Job: it leaves one Job's Pods for another's.
      const std::string& other = kJobs[random() % kJobs.size()];
      const Object* found = world.api.find(Kind::Job, kNamespace, other);
      world.api.patch(Kind::Pod, kNamespace, pod, [&](Object& object) {
        OwnerReference& owner = meta(object).owner_references.edit().front();
        owner.name = other;
        owner.uid = found ? meta(*found).uid : "gone-" + other;
      }, world.now_ms);
      // 10: written again before the next listing, so the log's first event names the old Job.
      if (which == 10) {
        world.api.patch(Kind::Pod, kNamespace, pod, [](Object& object) { meta(object).labels.edit()["moved"] = "yes"; },
                        world.now_ms);
      }
      break;
    }
    case 9: {
      // A failure remembered for the Job (JobPodTracking::finalizers reads it for the backoff).
      const Object* found = world.api.find(Kind::Job, kNamespace, job);
      if (!found) break;
      world.environment.edit().job_backoffs.push_back({meta(*found).uid, world.now_ms});
      break;
    }
    default: world.now_ms += static_cast<std::int64_t>(random() % 15) * 1'000; break;
  }
}

}  // namespace

TEST_CASE("the Job controller's kept Jobs and Pods list what a fresh controller lists, across writes, time "
          "and returns to earlier worlds") {
  for (const JobPodTracking tracking : {JobPodTracking::listed_pods, JobPodTracking::finalizers}) {
    CAPTURE(static_cast<int>(tracking));
    const auto make = [tracking] { return std::make_unique<JobController>(tracking); };
    const std::size_t listed = compare_kept_with_fresh(30, make, change);
    CHECK(listed > 1'000);   // the sequences do create, count, fail and release Pods
  }
}

// The Pod log as a run keeps it: no versions where no informer watches Pods (kuberay-1.0 and 1.1),
// and under kuberay-1.7 only those of the events its node-type selector sends (never a Job's Pod,
// which is labelled by neither). The controller then reads a written Pod's owner from the store.
TEST_CASE("the Job controller's kept answers hold when the Pod log keeps no versions, or only those a selector sends") {
  for (const WatchLogObjects kept : {WatchLogObjects::no_event, WatchLogObjects::sent_events}) {
    CAPTURE(static_cast<int>(kept));
    const auto make = [] { return std::make_unique<JobController>(JobPodTracking::finalizers); };
    const auto prepare = [kept](World& world) {
      world.api.watch_with_selector(Kind::Pod, LabelSelector{"ray.io/node-type", {"head", "worker"}});
      world.api.keep_watch_objects(Kind::Pod, kept);
    };
    const std::size_t listed = compare_kept_with_fresh(30, make, change, prepare);
    CHECK(listed > 1'000);
  }
}

TEST_CASE("a Job's backoff record moving its replacement Pod's time is seen by the kept answers") {
  const JobController kept(JobPodTracking::finalizers);
  World world;
  create_job(world, "first");
  // One failed Pod counted, none left: the replacement waits 10 s from the recorded failure.
  world.api.patch_status(Kind::Job, kNamespace, "first", [](Object& object) { std::get<Job>(object).status.failed = 1; },
                         world.now_ms);
  const std::string uid = meta(*world.api.find(Kind::Job, kNamespace, "first")).uid;
  world.environment.edit().job_backoffs.push_back({uid, 5'000});
  const auto fresh = [&] { return rjsim::testing::listing_of(JobController(JobPodTracking::finalizers), world); };
  REQUIRE(rjsim::testing::listing_of(kept, world) == fresh());
  CHECK(fresh().timer_ms == 15'000);
  world.environment.edit().job_backoffs.front().last_failure_ms = 20'000;   // no Job or Pod write
  CHECK(rjsim::testing::listing_of(kept, world) == fresh());
  CHECK(fresh().timer_ms == 30'000);
}

}  // namespace job_controller_answers_test
