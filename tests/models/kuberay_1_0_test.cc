// The kuberay-1.0 model, pipeline step by step (reference kuberay-rayjob.md §3.3-3.4, §3.8,
// rayjob_controller.go at v1.0.0): each test builds the world at the step, reconciles once and
// asserts the persisted status, the writes and the result.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "engine/object_json.h"
#include "engine/objects.h"
#include "model_harness.h"
#include "rayjob_fixtures.h"
#include "models/kuberay_1_0/rayjob_controller.h"

namespace rjsim::models::kuberay_1_0 {
namespace kuberay_1_0_test {
namespace {

using namespace rjsim::engine;
using testing::ModelHarness;
using testing::cluster_for;
using testing::head_service_for;
using testing::sample_rayjob;

constexpr std::int64_t kRequeueMs = 3'000;
constexpr const char* kUrl = "demo-raycluster-abcde-head-svc.default.svc.cluster.local:8265";

// A RayJob after its first pass: finalizer, names, PENDING, labelled `label`.
RayJob initialized_rayjob(const std::string& label = "Initializing") {
  RayJob rayjob = sample_rayjob();
  rayjob.metadata.finalizers = std::vector<std::string>{"ray.io/rayjob-finalizer"};
  rayjob.status.job_id = "demo-abcde";
  rayjob.status.ray_cluster_name = "demo-raycluster-abcde";
  rayjob.status.job_status = "PENDING";
  rayjob.status.job_deployment_status = label;
  return rayjob;
}

// A RayJob whose URL is known and whose Ray status was last seen as `job_status`.
RayJob running_rayjob(const std::string& job_status = "RUNNING", const std::string& label = "Running") {
  RayJob rayjob = initialized_rayjob(label);
  rayjob.status.dashboard_url = kUrl;
  rayjob.status.job_status = job_status;
  return rayjob;
}

Job submitter_job() {
  Job job;
  job.metadata.name = "demo";
  job.metadata.namespace_ = "default";
  job.metadata.labels.edit()["app.kubernetes.io/created-by"] = "kuberay-operator";
  return job;
}

void put_cluster_and_head(ModelHarness& harness, const RayJob& rayjob, const std::string& state,
                          const std::string& ray_status) {
  testing::put_ray_head(harness, rayjob, state, ray_status);
}

bool is_requeue_without_error(const ReconcileResult& result) {
  return !result.err && result.requeue_after_ms == kRequeueMs && !result.requeue;
}
bool is_done(const ReconcileResult& result) {
  return !result.err && result.requeue_after_ms == 0 && !result.requeue;
}
const RayJobStatus& persisted(const ModelHarness& harness) { return harness.truth<RayJob>("demo")->status; }

// ---- step 1-4: entry, finalizer, deletion, Complete (RJC:L81-128) ----

TEST_CASE("kuberay-1.0: a RayJob missing from the cache ends the reconcile without requeue") {
  RayJobReconciler model;
  ModelHarness harness(model);
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.0: any reconcile adds a missing finalizer and goes on, even for Complete") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob("SUCCEEDED", "Complete");
  rayjob.metadata.finalizers.edit().clear();
  harness.put(rayjob);
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"update RayJob/default/demo"});
  CHECK(has_finalizer(harness.truth<RayJob>("demo")->metadata, "ray.io/rayjob-finalizer"));
}

TEST_CASE("kuberay-1.0: a deleted RayJob with JobStatus RUNNING stops the Ray job and drops the finalizer") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("RUNNING"));
  put_cluster_and_head(harness, rayjob, "ready", "RUNNING");
  harness.world.api.remove(Kind::RayJob, "default", "demo", Propagation::background, 0);
  harness.sync();
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.events_of("dashboard.stop_job").size() == 1);
  CHECK(harness.world.ray->heads.back()->jobs.front().status == "STOPPED");
  CHECK(harness.truth<RayJob>("demo") == nullptr);
}

TEST_CASE("kuberay-1.0: a deleted RayJob with JobStatus STOPPED or empty is not stopped") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob("");
  harness.put(rayjob);
  harness.world.api.remove(Kind::RayJob, "default", "demo", Propagation::background, 0);
  harness.sync();
  harness.reconcile("demo");
  CHECK(harness.events_of("dashboard.stop_job").empty());
  CHECK(harness.truth<RayJob>("demo") == nullptr);
}

TEST_CASE("kuberay-1.0: a deletion whose finalizer update gets 409 returns the error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob(""));
  harness.world.api.remove(Kind::RayJob, "default", "demo", Propagation::background, 0);
  harness.sync();
  harness.world.api.patch(Kind::RayJob, "default", "demo", [](Object& object) {
    std::get<RayJob>(object).metadata.labels.edit()["edited"] = "yes";
  }, 0);
  harness.faults.max_lag = 1;   // the controller reads the RayJob before that edit
  CHECK(is_conflict(harness.reconcile("demo").err));
  CHECK(harness.truth<RayJob>("demo") != nullptr);
}

TEST_CASE("kuberay-1.0: Complete ends every pass without reading or writing anything else") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob("SUCCEEDED", "Complete"));
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  CHECK(harness.events_of("dashboard.get_job_info").empty());
}

// ---- step 5: Complete only once the cluster is gone (RJC:L133-156) ----

TEST_CASE("kuberay-1.0: SUCCEEDED with the cluster gone persists Complete and asks for Requeue") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob("SUCCEEDED"));
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.requeue);
  CHECK_FALSE(result.err);
  CHECK(result.requeue_after_ms == 0);
  CHECK(persisted(harness).job_deployment_status == "Complete");
  CHECK(persisted(harness).job_status == "SUCCEEDED");
}

TEST_CASE("kuberay-1.0: FAILED with the cluster being deleted persists Complete") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("FAILED"));
  RayCluster cluster = cluster_for(rayjob, "ready");
  cluster.metadata.finalizers = std::vector<std::string>{"someone-else"};
  harness.put(cluster);
  harness.world.api.remove(Kind::RayCluster, "default", "demo-raycluster-abcde", Propagation::background, 0);
  harness.sync();
  CHECK(harness.reconcile("demo").requeue);
  CHECK(persisted(harness).job_deployment_status == "Complete");
  CHECK(persisted(harness).job_status == "FAILED");
}

TEST_CASE("kuberay-1.0: STOPPED with the cluster gone is not Complete") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(running_rayjob("STOPPED"));
  harness.reconcile("demo");
  CHECK(persisted(harness).job_deployment_status != "Complete");
}

// ---- step 6: initRayJobStatusIfNeed (RJC:L158-164, L489-525) ----

TEST_CASE("kuberay-1.0: the first pass persists the names and PENDING before it creates the cluster") {
  RayJobReconciler model;
  ModelHarness harness(model);
  harness.put(sample_rayjob());
  const ReconcileResult result = harness.reconcile("demo");
  const std::vector<std::string> writes = harness.writes();
  REQUIRE(writes.size() == 4);
  CHECK(writes[0] == "update RayJob/default/demo");          // the finalizer
  CHECK(writes[1] == "update_status RayJob/default/demo");   // names, PENDING, Initializing
  CHECK(writes[2].starts_with("create RayCluster/default/demo-raycluster-"));
  CHECK(writes[3] == "update_status RayJob/default/demo");   // WaitForDashboard: no head Service yet
  CHECK(result.err);
  const RayJobStatus& status = persisted(harness);
  CHECK(status.job_status == "PENDING");
  CHECK(status.job_deployment_status == "WaitForDashboard");
  CHECK(status.ray_cluster_name.starts_with("demo-raycluster-"));
  CHECK(status.ray_cluster_name.size() == std::string("demo-raycluster-").size() + 5);
  CHECK(status.job_id.size() == std::string("demo-").size() + 5);
}

TEST_CASE("kuberay-1.0: the cluster name comes from the selector, the job id from spec.jobId") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.spec.edit().job_id = "my-id";
  rayjob.spec.edit().cluster_selector = {{"ray.io/cluster", "shared"}};
  harness.put(rayjob);
  harness.reconcile("demo");
  CHECK(persisted(harness).job_id == "my-id");
  CHECK(persisted(harness).ray_cluster_name == "shared");
}

TEST_CASE("kuberay-1.0: a selector without ray.io/cluster returns an error and writes no status") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.metadata.finalizers = std::vector<std::string>{"ray.io/rayjob-finalizer"};
  rayjob.spec.edit().cluster_selector = {{"other", "x"}};
  harness.put(rayjob);
  CHECK(harness.reconcile("demo").err);
  CHECK(harness.writes().empty());
}

// ---- step 7-8: getOrCreateRayClusterInstance and the nil cluster (RJC:L166-184, L569-682) ----

TEST_CASE("kuberay-1.0: a selected cluster that is missing persists FailedToGetOrCreateRayCluster with an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initialized_rayjob();
  rayjob.spec.edit().cluster_selector = {{"ray.io/cluster", "demo-raycluster-abcde"}};
  harness.put(rayjob);
  CHECK(harness.reconcile("demo").err);
  CHECK(persisted(harness).job_deployment_status == "FailedToGetOrCreateRayCluster");
}

TEST_CASE("kuberay-1.0: suspend before any cluster exists persists Suspended and creates nothing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initialized_rayjob();
  rayjob.spec.edit().suspend = true;
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(persisted(harness).job_deployment_status == "Suspended");
  CHECK(harness.truth<RayCluster>("demo-raycluster-abcde") == nullptr);
}

TEST_CASE("kuberay-1.0: Suspended with no cluster polls every 3 s without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = initialized_rayjob("Suspended");
  rayjob.spec.edit().suspend = true;
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.0: a replica edit on the RayJob is pushed into the RayCluster unless in-tree autoscaling is on") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  WorkerGroupSpec group;
  group.group_name = "small";
  group.replicas = 1;
  rayjob.spec.edit().ray_cluster_spec->worker_group_specs.push_back(group);
  bool autoscaling = false;
  SUBCASE("autoscaling off: RJC:L611-634 Case3 pushes the replicas") {}
  SUBCASE("in-tree autoscaling: RJC:L601-607 Case2 leaves them to the autoscaler") {
    rayjob.spec.edit().ray_cluster_spec->enable_in_tree_autoscaling = true;
    autoscaling = true;
  }
  harness.put(rayjob);
  harness.put(cluster_for(rayjob, "ready"));
  harness.world.api.patch(Kind::RayJob, "default", "demo", [](Object& object) {
    std::get<RayJob>(object).spec.edit().ray_cluster_spec->worker_group_specs[0].replicas = 3;
  }, 0);
  harness.sync();
  harness.reconcile("demo");
  const int replicas = *harness.truth<RayCluster>("demo-raycluster-abcde")->spec->worker_group_specs[0].replicas;
  CHECK(replicas == (autoscaling ? 1 : 3));
  CHECK(harness.events_of("api.update", "RayCluster/default/demo-raycluster-abcde").size() == (autoscaling ? 0 : 1));
}

TEST_CASE("kuberay-1.0: a replica Update answered NotFound persists Suspended although suspend is false") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  WorkerGroupSpec group;
  group.group_name = "small";
  group.replicas = 1;
  rayjob.spec.edit().ray_cluster_spec->worker_group_specs.push_back(group);
  harness.put(rayjob);
  RayCluster cluster = cluster_for(rayjob, "ready");
  cluster.spec.edit().worker_group_specs[0].replicas = 2;
  harness.put(cluster);
  // Gone from the API server, still in the cache: the DELETED event is held back.
  harness.world.api.remove(Kind::RayCluster, "default", "demo-raycluster-abcde", Propagation::background, 0);
  harness.faults.max_lag = 1;
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"update RayCluster/default/demo-raycluster-abcde (failed)",
                                                     "update_status RayJob/default/demo"});
  CHECK(persisted(harness).job_deployment_status == "Suspended");
  CHECK_FALSE(harness.truth<RayJob>("demo")->spec->suspend);
}

TEST_CASE("kuberay-1.0: a RayCluster with fewer worker groups than the RayJob panics the replica push") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = running_rayjob();
  harness.put(rayjob);
  harness.put(cluster_for(rayjob, "ready"));   // no worker group
  rayjob.spec.edit().ray_cluster_spec->worker_group_specs.push_back(WorkerGroupSpec{"small", 1, {}, {}, 1, {}, {}, {}});
  harness.put(rayjob);
  CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
}

// ---- step 10: the dashboard URL and its readiness probe (RJC:L189-210) ----

TEST_CASE("kuberay-1.0: no head Service persists WaitForDashboard and returns an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initialized_rayjob());
  harness.put(cluster_for(rayjob, ""));
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(result.err);
  CHECK(persisted(harness).job_deployment_status == "WaitForDashboard");
}

TEST_CASE("kuberay-1.0: a repeated wait label is not rewritten and its error is dropped (3 s poll, no backoff)") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initialized_rayjob("WaitForDashboard"));
  harness.put(cluster_for(rayjob, ""));
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.0: a dashboard probe that fails persists WaitForDashboardReady with an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initialized_rayjob());
  const RayCluster& cluster = harness.put(cluster_for(rayjob, ""));
  harness.put(head_service_for(cluster));   // no Ray head: the call is refused
  CHECK(harness.reconcile("demo").err);
  CHECK(persisted(harness).job_deployment_status == "WaitForDashboardReady");
  CHECK(persisted(harness).dashboard_url.empty());
}

TEST_CASE("kuberay-1.0: a probe 404 counts as ready; a cluster not ready persists Initializing with the URL") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initialized_rayjob("WaitForDashboardReady"));
  put_cluster_and_head(harness, rayjob, "", "");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(persisted(harness).job_deployment_status == "Initializing");
  CHECK(persisted(harness).dashboard_url == kUrl);
  CHECK(harness.events_of("dashboard.get_job_info").size() == 1);
}

// ---- step 11: readiness on every pass (RJC:L212-217) ----

TEST_CASE("kuberay-1.0: a cluster that leaves ready sends Running back to Initializing") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("RUNNING"));
  put_cluster_and_head(harness, rayjob, "failed", "RUNNING");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(persisted(harness).job_deployment_status == "Initializing");
  CHECK(persisted(harness).ray_cluster_status->state == "failed");
}

// ---- step 12-13: the submitter Job (RJC:L219-246, L342-440) ----

TEST_CASE("kuberay-1.0: a ready cluster creates the submitter Job; with no label change the URL is not persisted") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initialized_rayjob("WaitForDashboardReady"));
  put_cluster_and_head(harness, rayjob, "ready", "");
  // The Job's ADDED event reaches the cache before the second read (a fault-free cache), Ray
  // answers 404 (nil info), PENDING is unchanged: no label write, so nothing carries the URL
  // (reference §6.2 item 5) and the next pass probes the dashboard again.
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"create Job/default/demo"});
  CHECK(persisted(harness).job_deployment_status == "WaitForDashboardReady");
  CHECK(persisted(harness).dashboard_url.empty());
  const Job* job = harness.truth<Job>("demo");
  REQUIRE(job != nullptr);
  CHECK(job->metadata.labels == StringMap{{"app.kubernetes.io/created-by", "kuberay-operator"}});
  CHECK(job->spec->backoff_limit == 2);
  const Container& container = job->spec->template_.containers.front();
  CHECK(container.env == StringMap{{"PYTHONUNBUFFERED", "1"}});
  const std::vector<std::string>& command = container.command;
  CHECK(std::find(command.begin(), command.end(), "--submission-id") != command.end());
  CHECK(command[4] == std::string("http://") + kUrl);
}

TEST_CASE("kuberay-1.0: a created submitter Job missing from a lagging cache persists WaitForK8sJob with an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(initialized_rayjob("WaitForDashboardReady"));
  put_cluster_and_head(harness, rayjob, "ready", "");
  harness.faults.max_lag = 1;   // the Job's ADDED event is held back
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(is_not_found(result.err));
  CHECK(harness.writes() == std::vector<std::string>{"create Job/default/demo", "update_status RayJob/default/demo"});
  CHECK(persisted(harness).job_deployment_status == "WaitForK8sJob");
  CHECK(persisted(harness).dashboard_url == kUrl);   // carried by the label write
}

TEST_CASE("kuberay-1.0: a submitter Job invisible to the cache fails Create and persists FailedJobDeploy") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("PENDING", "WaitForK8sJob"));
  Job unlabelled = submitter_job();
  unlabelled.metadata.labels.edit().clear();   // outside the Job cache's label selector
  harness.put(unlabelled);
  put_cluster_and_head(harness, rayjob, "ready", "");
  const ReconcileResult result = harness.reconcile("demo");
  CHECK(is_already_exists(result.err));
  CHECK(persisted(harness).job_deployment_status == "FailedJobDeploy");
}

TEST_CASE("kuberay-1.0: a submitter command that cannot be built persists FailedJobDeploy with an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("PENDING", "Initializing");
  wanted.spec.edit().metadata = {{"owner", "me"}};
  wanted.spec.edit().ray_cluster_spec->ray_version = "2.5.0";
  const RayJob& rayjob = harness.put(wanted);
  put_cluster_and_head(harness, rayjob, "ready", "");
  CHECK(harness.reconcile("demo").err);
  CHECK(persisted(harness).job_deployment_status == "FailedJobDeploy");
  CHECK(harness.truth<Job>("demo") == nullptr);
}

TEST_CASE("kuberay-1.0: an existing submitter Job is used whatever attempt created it") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("PENDING", "WaitForK8sJob"));
  Job old = submitter_job();
  old.spec.edit().template_.containers.push_back(Container{"old", "img", {"ray", "job", "submit", "--submission-id", "old-id"}, {}, {}, {}});
  harness.put(old);
  put_cluster_and_head(harness, rayjob, "ready", "");
  harness.reconcile("demo");
  CHECK(harness.events_of("api.create").empty());
  CHECK(harness.truth<Job>("demo")->spec->template_.containers.front().name == "old");
}

// ---- step 14-15: GetJobInfo and shouldUpdateJobStatus (RJC:L248-262, L527-536) ----

TEST_CASE("kuberay-1.0: a GetJobInfo error persists FailedToGetJobStatus with an error") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("RUNNING"));
  harness.put(submitter_job());
  const RayCluster& cluster = harness.put(cluster_for(rayjob, "ready"));
  harness.put(head_service_for(cluster));   // no Ray head: refused
  CHECK(harness.reconcile("demo").err);
  CHECK(persisted(harness).job_deployment_status == "FailedToGetJobStatus");
  CHECK(persisted(harness).job_status == "RUNNING");
}

TEST_CASE("kuberay-1.0: a changed Ray status persists Running with Ray's message and times") {
  RayJobReconciler model;
  ModelHarness harness(model);
  std::string ray_status;
  std::int64_t ray_start_ms = 1'000;
  std::int64_t expected_start_ms = 1'000;
  RayJob wanted = running_rayjob("PENDING", "WaitForK8sJob");
  SUBCASE("a job Ray started") { ray_status = "RUNNING"; }
  SUBCASE("a job Ray has not started: Go's time of Ray's 0 is the Unix epoch") {
    // RJC:L551 ConvertUnixTimeToMetav1Time(jobInfo.StartTime); the persisted RUNNING differs from
    // Ray's PENDING (a job Ray has queued again), so updateState writes Ray's times.
    wanted = running_rayjob("RUNNING", "Running");
    ray_status = "PENDING";
    ray_start_ms = 0;
    expected_start_ms = -kVirtualEpochUnixMs;
  }
  const RayJob& rayjob = harness.put(wanted);
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", ray_status);
  harness.world.ray.edit().heads.back().edit().jobs.back().start_time_ms = ray_start_ms;
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  const RayJobStatus& status = persisted(harness);
  CHECK(status.job_deployment_status == "Running");
  CHECK(status.job_status == ray_status);
  CHECK(status.message == "from Ray");
  REQUIRE(status.start_time_ms.has_value());
  CHECK(*status.start_time_ms == expected_start_ms);
  if (ray_start_ms == 0) CHECK(format_timestamp(*status.start_time_ms) == "1970-01-01T00:00:00Z");
  CHECK_FALSE(status.end_time_ms.has_value());   // end (0) is not after start
}

TEST_CASE("kuberay-1.0: an unchanged PENDING keeps the last label and polls without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("PENDING", "WaitForK8sJob"));
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "PENDING");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  CHECK(persisted(harness).job_deployment_status == "WaitForK8sJob");
}

TEST_CASE("kuberay-1.0: after FailedToGetJobStatus an unchanged Ray status still persists Running") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("RUNNING", "FailedToGetJobStatus"));
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "RUNNING");
  harness.reconcile("demo");
  CHECK(persisted(harness).job_deployment_status == "Running");
}

// ---- step 16: Running (RJC:L264-306) ----

TEST_CASE("kuberay-1.0: a 404 from GetJobInfo in Running panics the operator") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("RUNNING"));
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "");   // the head lost its table
  CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
}

TEST_CASE("kuberay-1.0: Running with Ray RUNNING polls every 3 s without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  const RayJob& rayjob = harness.put(running_rayjob("RUNNING"));
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "RUNNING");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.0: suspend in Running stops the Ray job before deleting the cluster") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("RUNNING");
  wanted.spec.edit().suspend = true;
  const RayJob& rayjob = harness.put(wanted);
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "RUNNING");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.events_of("dashboard.stop_job").size() == 1);
  CHECK(harness.writes().empty());   // the info read before StopJob was RUNNING: wait
  CHECK(harness.truth<RayCluster>("demo-raycluster-abcde") != nullptr);
}

TEST_CASE("kuberay-1.0: suspend in Running with Ray STOPPED deletes the cluster, keeps the Job and persists Suspended") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("STOPPED");
  wanted.spec.edit().suspend = true;
  const RayJob& rayjob = harness.put(wanted);
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "STOPPED");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-raycluster-abcde",
                                                     "update_status RayJob/default/demo"});
  const RayJobStatus& status = persisted(harness);
  CHECK(status.job_deployment_status == "Suspended");
  CHECK(status.job_status == "STOPPED");
  CHECK(status.ray_cluster_name.empty());
  CHECK(status.job_id.empty());
  CHECK(status.dashboard_url.empty());
  CHECK(status.message == "from Ray");   // re-filled from the step-14 jobInfo
  CHECK(harness.truth<Job>("demo") != nullptr);
}

TEST_CASE("kuberay-1.0: suspend after Ray SUCCEEDED never sees STOPPED and loops without stopping or deleting") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("SUCCEEDED");
  wanted.spec.edit().suspend = true;
  const RayJob& rayjob = harness.put(wanted);
  RayCluster cluster = cluster_for(rayjob, "ready");
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "SUCCEEDED");
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.events_of("dashboard.stop_job").empty());
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.0: suspend in Running panics when the second GetJobInfo answers 404") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("RUNNING", "FailedToGetJobStatus");
  const RayJob& rayjob = harness.put(wanted);
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "");
  // JDS Running needs a Ray answer; with 404 (nil) step 15 does not write and, with JDS Running,
  // step 16 would dereference. Here JDS is FailedToGetJobStatus and nil info: no write, no panic.
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  RayJob running = *harness.truth<RayJob>("demo");
  running.status.job_deployment_status = "Running";
  running.spec.edit().suspend = true;
  harness.put(running);
  CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
}

// `wanted` in the harness beside its submitter Job, a ready cluster and Ray's job SUCCEEDED: the
// TTL wait and cleanup of RJC:L308-330 come next.
void put_succeeded(ModelHarness& harness, const RayJob& wanted) {
  const RayJob& rayjob = harness.put(wanted);
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "SUCCEEDED");
}

RayJob succeeded_with_ttl(std::optional<int> ttl_seconds) {
  RayJob wanted = running_rayjob("SUCCEEDED");
  wanted.spec.edit().ttl_seconds_after_finished = ttl_seconds;
  return wanted;
}

TEST_CASE("kuberay-1.0: the TTL wait with a nil EndTime panics") {
  RayJobReconciler model;
  ModelHarness harness(model);
  put_succeeded(harness, succeeded_with_ttl(10));   // EndTime stays nil: Ray's end was not after start
  CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
}

TEST_CASE("kuberay-1.0: an explicit ttlSecondsAfterFinished 0 is a TTL like any other") {
  // TTLSecondsAfterFinished is a *int32 at v1.0.0: 0 is not nil, and RJC:L313-316 dereference
  // EndTime for it (a nil TTL skips the wait: the cleanup test below).
  RayJobReconciler model;
  ModelHarness harness(model);
  SUBCASE("with a nil EndTime it panics") {
    put_succeeded(harness, succeeded_with_ttl(0));
    CHECK_THROWS_AS(harness.reconcile("demo"), ModelPanic);
  }
  SUBCASE("with an EndTime it deletes the cluster at once") {
    RayJob wanted = succeeded_with_ttl(0);
    wanted.status.end_time_ms = 9'000;
    put_succeeded(harness, wanted);
    harness.world.now_ms = 9'000;
    CHECK(is_done(harness.reconcile("demo")));
    CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-raycluster-abcde"});
  }
}

// ---- step 17-18: cleanup after the job finished (RJC:L308-338) ----

TEST_CASE("kuberay-1.0: SUCCEEDED in Running with shutdown deletes the cluster and ends without a write") {
  RayJobReconciler model;
  ModelHarness harness(model);
  put_succeeded(harness, succeeded_with_ttl(std::nullopt));
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"delete RayCluster/default/demo-raycluster-abcde"});
  CHECK(persisted(harness).job_deployment_status == "Running");
}

TEST_CASE("kuberay-1.0: before EndTime+TTL the pass requeues for the whole seconds until EndTime+TTL+2s") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = succeeded_with_ttl(10);
  wanted.status.end_time_ms = 9'000;
  put_succeeded(harness, wanted);
  harness.world.now_ms = 12'500;
  const ReconcileResult result = harness.reconcile("demo");
  CHECK_FALSE(result.err);
  CHECK(result.requeue_after_ms == 8'000);   // int32(21.0 - 12.5 s)
  CHECK(harness.writes().empty());
}

TEST_CASE("kuberay-1.0: a finished job whose cluster is kept ends the pass Done and is never Complete") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("FAILED");
  wanted.spec.edit().shutdown_after_job_finishes = false;
  const RayJob& rayjob = harness.put(wanted);
  harness.put(submitter_job());
  put_cluster_and_head(harness, rayjob, "ready", "FAILED");
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.writes().empty());
  CHECK(persisted(harness).job_deployment_status == "Running");
}

// ---- resume after suspension (§3.8) ----

TEST_CASE("kuberay-1.0: the pass after Suspended writes Initializing and Suspended again (two writes)") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob rayjob = sample_rayjob();
  rayjob.metadata.finalizers = std::vector<std::string>{"ray.io/rayjob-finalizer"};
  rayjob.spec.edit().suspend = true;
  rayjob.status.job_status = "STOPPED";
  rayjob.status.job_deployment_status = "Suspended";
  harness.put(rayjob);
  CHECK(is_requeue_without_error(harness.reconcile("demo")));
  CHECK(harness.writes() == std::vector<std::string>{"update_status RayJob/default/demo",
                                                     "update_status RayJob/default/demo"});
  CHECK(persisted(harness).job_deployment_status == "Suspended");
  CHECK(persisted(harness).job_status == "STOPPED");   // kept: init fills only an empty JobStatus
  CHECK_FALSE(persisted(harness).ray_cluster_name.empty());
}

TEST_CASE("kuberay-1.0: after resume the old submitter Job is reused and STOPPED ends every pass Done") {
  RayJobReconciler model;
  ModelHarness harness(model);
  RayJob wanted = running_rayjob("STOPPED", "Initializing");
  const RayJob& rayjob = harness.put(wanted);
  harness.put(submitter_job());   // left over from before the suspension
  put_cluster_and_head(harness, rayjob, "ready", "");   // the new cluster knows no job
  CHECK(is_done(harness.reconcile("demo")));
  CHECK(harness.events_of("api.create").empty());
  CHECK(harness.writes().empty());
}

// ---- the transition table (§3.6) ----

TEST_CASE("kuberay-1.0: the transition table starts with Initializing and never leaves Complete") {
  RayJobReconciler model;
  const auto edges = model.transition_table();
  auto has = [&](const std::string& from, const std::string& to) {
    return std::find(edges.begin(), edges.end(), std::pair<std::string, std::string>{from, to}) != edges.end();
  };
  CHECK(has("", "Initializing"));
  CHECK_FALSE(has("", "Running"));
  CHECK(has("Running", "Initializing"));
  CHECK(has("WaitForK8sJob", "Running"));
  CHECK(has("Initializing", "Complete"));
  CHECK(has("Suspended", "Initializing"));
  CHECK(std::none_of(edges.begin(), edges.end(), [](const auto& edge) { return edge.first == "Complete"; }));
  CHECK(std::none_of(edges.begin(), edges.end(), [](const auto& edge) { return edge.second.empty(); }));
}

}  // namespace
}  // namespace kuberay_1_0_test
}  // namespace rjsim::models::kuberay_1_0

