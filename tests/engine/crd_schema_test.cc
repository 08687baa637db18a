// The CRDs of KubeRay v1.0.0, v1.1.0 and v1.7.0 as the API server applies them on create
// (crd_schema.h): each release's required fields, unknown fields, enums, minimums, CEL rules and
// defaults, with messages that name the release.
#include "engine/crd_schema.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace crd_schema_test {
namespace {

using nlohmann::json;
using rjsim::engine::apply_crd;
using rjsim::engine::CrdError;
using rjsim::engine::CrdKind;
using rjsim::engine::kuberay_release_of;

// A RayJob every release accepts: an entrypoint, and a head and a worker group with their
// rayStartParams and templates.
json rayjob() {
  return json::parse(R"({"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "demo"},
    "spec": {"entrypoint": "python main.py", "rayClusterSpec": {
      "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [{"name": "ray-head"}]}}},
      "workerGroupSpecs": [{"groupName": "small", "rayStartParams": {},
                            "template": {"spec": {"containers": [{"name": "ray-worker"}]}}}]}}})");
}

std::vector<CrdError> errors_of(json object, const char* controller, CrdKind kind = CrdKind::RayJob) {
  return apply_crd(object, kind, controller);
}

// The path and message of the only error, or "" when there is none.
std::string only_error(json object, const char* controller, CrdKind kind = CrdKind::RayJob) {
  const std::vector<CrdError> errors = errors_of(std::move(object), controller, kind);
  if (errors.empty()) return "";
  CHECK(errors.size() == 1);
  return errors.front().path + ": " + errors.front().message;
}

}  // namespace

TEST_CASE("the models stand for the tags v1.0.0, v1.1.0 and v1.7.0") {
  CHECK(kuberay_release_of("kuberay-1.0") == "v1.0.0");
  CHECK(kuberay_release_of("kuberay-1.1") == "v1.1.0");
  CHECK(kuberay_release_of("kuberay-1.7") == "v1.7.0");
  CHECK(kuberay_release_of("kuberay-latest").empty());   // the loader makes names canonical first
}

TEST_CASE("every release accepts the common RayJob") {
  for (const char* controller : {"kuberay-1.0", "kuberay-1.1", "kuberay-1.7"}) {
    CAPTURE(controller);
    CHECK(errors_of(rayjob(), controller).empty());
  }
}

TEST_CASE("entrypoint is required up to v1.1.0 and optional in v1.7.0") {
  json object = rayjob();
  object["spec"].erase("entrypoint");
  CHECK(only_error(object, "kuberay-1.0") == "spec.entrypoint: missing: KubeRay v1.0.0's RayJob CRD requires it");
  CHECK(only_error(object, "kuberay-1.1") == "spec.entrypoint: missing: KubeRay v1.1.0's RayJob CRD requires it");
  CHECK(only_error(object, "kuberay-1.7").empty());
}

TEST_CASE("a field a release does not know is refused, naming the releases that have it") {
  json object = rayjob();
  object["spec"]["backoffLimit"] = 2;
  CHECK(only_error(object, "kuberay-1.1") ==
        "spec.backoffLimit: unknown field: KubeRay v1.1.0's RayJob CRD has no backoffLimit (kubectl's strict field "
        "validation refuses it; v1.7.0 has it)");
  CHECK(only_error(object, "kuberay-1.7").empty());
  object = rayjob();
  object["spec"]["runtimeEnv"] = "e30=";
  CHECK(only_error(object, "kuberay-1.0").empty());
  CHECK(only_error(object, "kuberay-1.7").find("v1.0.0 has it") != std::string::npos);
  object = rayjob();
  object["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["suspend"] = true;
  CHECK(only_error(object, "kuberay-1.1").starts_with("spec.rayClusterSpec.workerGroupSpecs[0].suspend: unknown field"));
  object = rayjob();
  object["spec"]["submissionMode"] = "HTTPMode";
  CHECK(only_error(object, "kuberay-1.0").starts_with("spec.submissionMode: unknown field"));
  object = rayjob();
  object["spec"]["entrypont"] = "typo";
  CHECK(only_error(object, "kuberay-1.7").find("no KubeRay release has it") != std::string::npos);
}

TEST_CASE("inside a pod template or an option block nothing is checked but the block's own name") {
  json object = rayjob();
  object["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["anything"] = 1;
  object["spec"]["rayClusterSpec"]["autoscalerOptions"] = {{"notAField", true}};
  CHECK(errors_of(object, "kuberay-1.0").empty());
  object["spec"]["rayClusterSpec"]["gcsFaultToleranceOptions"] = {{"redisAddress", "redis:6379"}};
  CHECK(errors_of(object, "kuberay-1.7").empty());
  CHECK(only_error(object, "kuberay-1.1").starts_with("spec.rayClusterSpec.gcsFaultToleranceOptions: unknown field"));
}

TEST_CASE("a worker group needs its template in every release and its rayStartParams up to v1.1.0") {
  json object = rayjob();
  object["spec"]["rayClusterSpec"]["workerGroupSpecs"][0].erase("template");
  CHECK(only_error(object, "kuberay-1.7") ==
        "spec.rayClusterSpec.workerGroupSpecs[0].template: missing: KubeRay v1.7.0's RayJob CRD requires it");
  object = rayjob();
  object["spec"]["rayClusterSpec"]["workerGroupSpecs"][0].erase("rayStartParams");
  object["spec"]["rayClusterSpec"]["headGroupSpec"].erase("rayStartParams");
  CHECK(errors_of(object, "kuberay-1.1").size() == 2);
  CHECK(errors_of(object, "kuberay-1.7").empty());
  object["spec"]["rayClusterSpec"].erase("headGroupSpec");
  CHECK(only_error(object, "kuberay-1.7") ==
        "spec.rayClusterSpec.headGroupSpec: missing: KubeRay v1.7.0's RayJob CRD requires it");
}

TEST_CASE("the CRD's defaults fill what is left out, before required fields are checked") {
  json object = rayjob();
  SUBCASE("v1.0.0: the worker group's replica counts, nothing at the RayJob's level") {
    REQUIRE(errors_of(object, "kuberay-1.0").empty());
    apply_crd(object, CrdKind::RayJob, "kuberay-1.0");
    CHECK_FALSE(object["spec"].contains("submissionMode"));
    CHECK_FALSE(object["spec"].contains("ttlSecondsAfterFinished"));
    const json& group = object["spec"]["rayClusterSpec"]["workerGroupSpecs"][0];
    CHECK(group["replicas"] == 0);
    CHECK(group["minReplicas"] == 0);   // required, but defaulted first
    CHECK(group["maxReplicas"] == 2147483647);
    CHECK_FALSE(group.contains("numOfHosts"));
  }
  SUBCASE("v1.1.0: submissionMode K8sJobMode, ttlSecondsAfterFinished 0, numOfHosts 1") {
    apply_crd(object, CrdKind::RayJob, "kuberay-1.1");
    CHECK(object["spec"]["submissionMode"] == "K8sJobMode");
    CHECK(object["spec"]["ttlSecondsAfterFinished"] == 0);
    CHECK(object["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["numOfHosts"] == 1);
    CHECK_FALSE(object["spec"].contains("backoffLimit"));
  }
  SUBCASE("v1.7.0: backoffLimit 0 too; a given value stays; a null is pruned and then defaulted") {
    object["spec"]["submissionMode"] = "HTTPMode";
    object["spec"]["ttlSecondsAfterFinished"] = nullptr;
    apply_crd(object, CrdKind::RayJob, "kuberay-1.7");
    CHECK(object["spec"]["backoffLimit"] == 0);
    CHECK(object["spec"]["submissionMode"] == "HTTPMode");
    CHECK(object["spec"]["ttlSecondsAfterFinished"] == 0);
  }
}

TEST_CASE("v1.7.0's enums, minimums and CEL rules") {
  json object = rayjob();
  std::string expected;
  SUBCASE("preRunningDeadlineSeconds has minimum 1") {
    object["spec"]["preRunningDeadlineSeconds"] = 0;
    expected = "spec.preRunningDeadlineSeconds: 0 is less than 1, the minimum in KubeRay v1.7.0's RayJob CRD";
  }
  SUBCASE("a deletion policy from the enum") {
    object["spec"]["deletionStrategy"] = json::parse(
        R"({"onSuccess": {"policy": "DeleteAll"}, "onFailure": {"policy": "DeleteNone"}})");
    expected = "spec.deletionStrategy.onSuccess.policy: \"DeleteAll\" is not one of DeleteCluster, DeleteWorkers, "
               "DeleteSelf, DeleteNone (KubeRay v1.7.0's RayJob CRD's enum)";
  }
  SUBCASE("the legacy style needs both onSuccess and onFailure") {
    object["spec"]["deletionStrategy"] = json::parse(R"({"onSuccess": {"policy": "DeleteCluster"}})");
    expected = "spec.deletionStrategy: needs both onSuccess and onFailure, or deletionRules (KubeRay v1.7.0's RayJob "
               "CRD's rule)";
  }
  SUBCASE("not both styles") {
    object["spec"]["deletionStrategy"] = json::parse(
        R"({"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "DeleteCluster"},
            "deletionRules": [{"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}}]})");
    expected = "spec.deletionStrategy: either onSuccess and onFailure, or deletionRules, not both (KubeRay v1.7.0's "
               "RayJob CRD's rule)";
  }
  SUBCASE("deletionRules is not empty") {
    object["spec"]["deletionStrategy"] = json::parse(R"({"deletionRules": []})");
    expected = "spec.deletionStrategy.deletionRules: needs at least 1 item (minItems in KubeRay v1.7.0's RayJob CRD)";
  }
  SUBCASE("a rule's condition names exactly one status") {
    object["spec"]["deletionStrategy"] = json::parse(
        R"({"deletionRules": [{"policy": "DeleteSelf",
            "condition": {"jobStatus": "FAILED", "jobDeploymentStatus": "Failed"}}]})");
    expected = "spec.deletionStrategy.deletionRules[0].condition: needs exactly one of jobStatus and "
               "jobDeploymentStatus (KubeRay v1.7.0's RayJob CRD's rule)";
  }
  SUBCASE("a rule needs its policy; its ttlSeconds defaults to 0 and is not negative") {
    object["spec"]["deletionStrategy"] = json::parse(
        R"({"deletionRules": [{"condition": {"jobStatus": "FAILED"}},
                              {"policy": "DeleteSelf", "condition": {"jobStatus": "FAILED", "ttlSeconds": -1}}]})");
    const std::vector<CrdError> errors = errors_of(object, "kuberay-1.7");
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].path == "spec.deletionStrategy.deletionRules[0].policy");
    CHECK(errors[1].path == "spec.deletionStrategy.deletionRules[1].condition.ttlSeconds");
    apply_crd(object, CrdKind::RayJob, "kuberay-1.7");
    CHECK(object["spec"]["deletionStrategy"]["deletionRules"][0]["condition"]["ttlSeconds"] == 0);
    return;
  }
  SUBCASE("managedBy is KubeRay or MultiKueue") {
    object["spec"]["managedBy"] = "someone-else";
    expected = "spec.managedBy: \"someone-else\": KubeRay v1.7.0's RayJob CRD allows only ray.io/kuberay-operator "
               "or kueue.x-k8s.io/multikueue";
  }
  CHECK(only_error(object, "kuberay-1.7") == expected);
}

TEST_CASE("a RayCluster's spec is checked as a RayJob's rayClusterSpec, naming the RayCluster CRD") {
  json cluster = json::parse(R"({"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "c"}})");
  cluster["spec"] = rayjob()["spec"]["rayClusterSpec"];
  CHECK(errors_of(cluster, "kuberay-1.0", CrdKind::RayCluster).empty());
  cluster["spec"]["suspend"] = true;
  CHECK(only_error(cluster, "kuberay-1.0", CrdKind::RayCluster) ==
        "spec.suspend: unknown field: KubeRay v1.0.0's RayCluster CRD has no suspend (kubectl's strict field "
        "validation refuses it; v1.1.0 and v1.7.0 have it)");
  CHECK(errors_of(cluster, "kuberay-1.1", CrdKind::RayCluster).empty());
}

}  // namespace crd_schema_test
