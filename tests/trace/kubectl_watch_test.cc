// parse_kubectl_watch on each layout kubectl prints (trace-formats.md §1a), built from
// KubeRay-shaped manifests (the own fixtures, and KubeRay's real samples when present), and on bad
// records.
#include <doctest/doctest.h>

#include <algorithm>

#include "trace/kubectl_watch.h"
#include "trace_test_support.h"

namespace rjsim::trace {
namespace kubectl_watch_test {
namespace {

using namespace testing;

// --output-watch-events -o json: the set's RayJob recorded as three watch events.
void check_json_lines(const rjsim::testing::ManifestSet& set) {
  INFO(set.label);
  const json job = manifest(set.rayjob, set);
  const std::string text = watch_line("ADDED", observed(job, "u-job", "1319263")) +
                           watch_line("MODIFIED", observed(job, "u-job", "1319267", rayjob_status("Initializing"))) +
                           "\n" +   // a blank line is no record
                           watch_line("DELETED", observed(job, "u-job", "1319500", rayjob_status("Complete", "SUCCEEDED")));
  const ParsedFile parsed = parse_kubectl_watch(text, "rayjobs.json");
  CHECK(parsed.bad.empty());
  REQUIRE(parsed.records.size() == 3);
  CHECK(parsed.records[0].type == "ADDED");
  CHECK(parsed.records[1].type == "MODIFIED");
  CHECK(parsed.records[2].type == "DELETED");
  CHECK(parsed.records[2].line == 4);
  const Record& modified = parsed.records[1];
  CHECK(modified.file == "rayjobs.json");
  CHECK(modified.line == 2);
  CHECK(modified.kind == "RayJob");
  CHECK(modified.namespace_ == "default");
  CHECK(modified.name == "rayjob-sample");
  CHECK(modified.uid == "u-job");
  CHECK(modified.resource_version == "1319267");
  CHECK(modified.object["status"]["jobDeploymentStatus"] == "Initializing");
  CHECK(modified.object["spec"]["entrypoint"] == "python /home/ray/samples/sample_code.py");
  CHECK_FALSE(modified.object["metadata"].contains("managedFields"));   // volatile metadata normalised
}

TEST_CASE("import kubectl-watch: --output-watch-events -o json lines become typed records") {
  check_json_lines(rjsim::testing::own_manifests());
}
TEST_CASE("KubeRay samples: the real RayJob as kubectl-watch JSON lines" * rjsim::testing::skip_without_kuberay_samples()) {
  check_json_lines(rjsim::testing::kuberay_samples());
}

// -o yaml: the manifest's own YAML, indented under `object:` with the server's metadata added,
// as sigs.k8s.io/yaml prints a WatchEvent (keys sorted: object, then type).
void check_yaml_documents(const rjsim::testing::ManifestSet& set) {
  INFO(set.label);
  std::string manifest_yaml = manifest_text(set.rayjob, set);
  const std::string plain_meta = "metadata:\n  name: rayjob-sample\n";
  REQUIRE(manifest_yaml.find(plain_meta) != std::string::npos);
  auto document = [&](const std::string& rv, const std::string& type, const std::string& status) {
    std::string object = manifest_yaml;
    object.replace(object.find(plain_meta), plain_meta.size(),
                   "metadata:\n  name: rayjob-sample\n  namespace: default\n  resourceVersion: \"" + rv +
                       "\"\n  uid: 5f2c-u\n" + status);
    std::string indented = "object:\n";
    std::size_t pos = 0;
    while (pos < object.size()) {
      std::size_t end = object.find('\n', pos);
      indented += "  " + object.substr(pos, end - pos) + "\n";
      pos = end + 1;
    }
    return indented + "type: " + type + "\n";
  };
  const std::string first = document("100", "ADDED", "");
  const std::string text =
      first + "---\n" + document("104", "MODIFIED", "status:\n  jobDeploymentStatus: Suspending\n");
  const ParsedFile parsed = parse_kubectl_watch(text, "rayjobs.yaml");
  for (const BadRecord& bad : parsed.bad) INFO(bad.text());
  CHECK(parsed.bad.empty());
  REQUIRE(parsed.records.size() == 2);
  CHECK(parsed.records[0].type == "ADDED");
  CHECK(parsed.records[0].line == 1);
  CHECK(parsed.records[1].type == "MODIFIED");
  CHECK(parsed.records[1].line == static_cast<int>(std::count(first.begin(), first.end(), '\n')) + 2);
  CHECK(parsed.records[1].resource_version == "104");   // quoted: stays a string
  CHECK(parsed.records[1].object["status"]["jobDeploymentStatus"] == "Suspending");
  CHECK(parsed.records[1].object["spec"]["rayClusterSpec"]["headGroupSpec"].is_object());
}

TEST_CASE("import kubectl-watch: -o yaml documents, object before type, from the manifest's own text") {
  check_yaml_documents(rjsim::testing::own_manifests());
}
TEST_CASE("KubeRay samples: the real RayJob's text as kubectl-watch -o yaml documents" *
          rjsim::testing::skip_without_kuberay_samples()) {
  check_yaml_documents(rjsim::testing::kuberay_samples());
}

TEST_CASE("import kubectl-watch: plain -o json prints pretty objects without types") {
  const json cluster = manifest("raycluster-sample.yaml");
  const std::string text = observed(cluster, "u-rc", "7", json{{"state", "ready"}}).dump(4) + "\n" +
                           observed(cluster, "u-rc", "9", json{{"state", "suspended"}}).dump(4) + "\n";
  const ParsedFile parsed = parse_kubectl_watch(text, "rayclusters.json");
  CHECK(parsed.bad.empty());
  REQUIRE(parsed.records.size() == 2);
  CHECK(parsed.records[0].type.empty());   // merge_records infers ADDED, MODIFIED
  CHECK(parsed.records[0].kind == "RayCluster");
  CHECK(parsed.records[0].line == 1);
  CHECK(parsed.records[1].line == 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n')) / 2);
  CHECK(parsed.records[1].resource_version == "9");
}

TEST_CASE("import kubectl-watch: plain -o yaml objects, and a List snapshot") {
  std::string cluster_yaml = manifest_text("raycluster-sample.yaml");
  const std::string plain_meta = "metadata:\n  name: raycluster-kuberay\n";
  REQUIRE(cluster_yaml.find(plain_meta) != std::string::npos);
  auto with_rv = [&](const std::string& rv) {
    std::string object = cluster_yaml;
    object.replace(object.find(plain_meta), plain_meta.size(),
                   plain_meta + "  namespace: default\n  uid: rc-1\n  resourceVersion: \"" + rv + "\"\n");
    return object;
  };
  const ParsedFile yaml = parse_kubectl_watch(with_rv("5") + "---\n" + with_rv("6"), "rc.yaml");
  CHECK(yaml.bad.empty());
  REQUIRE(yaml.records.size() == 2);
  CHECK(yaml.records[0].type.empty());
  CHECK(yaml.records[1].resource_version == "6");
  CHECK(yaml.records[1].kind == "RayCluster");

  const json cluster = manifest("raycluster-sample.yaml");
  const json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"metadata", {{"resourceVersion", ""}}},
                     {"items", {observed(cluster, "rc-1", "5"), observed(cluster, "rc-2", "7")}}};
  const ParsedFile snapshot = parse_kubectl_watch(list.dump(4) + "\n", "snapshot.json");
  CHECK(snapshot.bad.empty());
  REQUIRE(snapshot.records.size() == 2);
  CHECK(snapshot.records[1].uid == "rc-2");
  CHECK(snapshot.records[1].line == 1);
}

TEST_CASE("import kubectl-watch: a ray.io/v1alpha1 RayJob of a KubeRay 1.0 cluster reads") {
  const json old = manifest("rayjob-v1alpha1.yaml");
  REQUIRE(old["apiVersion"] == "ray.io/v1alpha1");
  json wrong = observed(old, "u-old", "8", rayjob_status("Running"));
  wrong["spec"]["shutdownAfterJobFinishes"] = "yes";
  const ParsedFile parsed = parse_kubectl_watch(
      watch_line("ADDED", observed(old, "u-old", "7", rayjob_status("Initializing"))) + watch_line("MODIFIED", wrong),
      "v1alpha1.json");
  REQUIRE(parsed.records.size() == 1);
  CHECK(parsed.records[0].object["apiVersion"] == "ray.io/v1alpha1");
  REQUIRE(parsed.bad.size() == 1);   // still checked against the typed RayJob
  CHECK(parsed.bad[0].message.rfind("object.spec.shutdownAfterJobFinishes: ", 0) == 0);
}

TEST_CASE("import kubectl-watch: a number no double can hold is a bad record, not a crash") {
  // Found by the kubectl_watch_yaml fuzzer: nlohmann throws out_of_range, not parse_error, on it.
  const json job = manifest("rayjob-sample.yaml");
  const std::string text = "{\"type\":\"ADDED\",\"object\":{\"spec\":{\"x\":4e444444444}}}\n" +
                           watch_line("ADDED", observed(job, "u-job", "10"));
  const ParsedFile parsed = parse_kubectl_watch(text, "w.json");
  REQUIRE(parsed.bad.size() == 1);
  CHECK(parsed.bad[0].text() == "w.json:1: not JSON: number overflow parsing '4e444444444'");
  CHECK(parsed.records.size() == 1);
}

TEST_CASE("import kubectl-watch: a bad record names its line and the others still read") {
  const json job = manifest("rayjob-sample.yaml");
  json wrong = observed(job, "u-job", "12", rayjob_status("Running"));
  wrong["status"]["jobDeploymentStatus"] = 3;
  json no_uid = observed(job, "u-job", "13");
  no_uid["metadata"].erase("uid");
  const std::string text = watch_line("ADDED", observed(job, "u-job", "10")) +
                           "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"RayJob\"\n" +
                           watch_line("MODIFIED", wrong) + watch_line("MODIFIED", no_uid) +
                           watch_line("SYNC", observed(job, "u-job", "14")) +
                           watch_line("MODIFIED", observed(job, "u-job", "15"));
  const ParsedFile parsed = parse_kubectl_watch(text, "w.json");
  REQUIRE(parsed.bad.size() == 4);
  CHECK(parsed.bad[0].text() ==
        "w.json:2: not JSON (column 45): syntax error while parsing object - unexpected end of input; expected '}'");
  CHECK(parsed.bad[1].text() ==
        "w.json:3: object.status.jobDeploymentStatus: expected a string, got the number 3 (quote it in YAML: \"3\")");
  CHECK(parsed.bad[2].text() == "w.json:4: object.metadata.uid: missing");
  CHECK(parsed.bad[3].text() ==
        "w.json:5: type: \"SYNC\" is not a watch event type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR)");
  REQUIRE(parsed.records.size() == 2);
  CHECK(parsed.records[1].resource_version == "15");
}

TEST_CASE("import kubectl-watch: a broken pretty object spoils only itself") {
  const json cluster = manifest("raycluster-sample.yaml");
  const std::string good = observed(cluster, "u-rc", "7").dump(4) + "\n";
  std::string broken = observed(cluster, "u-rc", "8").dump(4) + "\n";
  broken.erase(broken.rfind('}'));   // the last object's closing brace is lost
  const std::string text = good + broken + observed(cluster, "u-rc", "9").dump(4) + "\n";
  const ParsedFile parsed = parse_kubectl_watch(text, "rc.json");
  REQUIRE(parsed.bad.size() == 1);
  CHECK(parsed.bad[0].line == 1 + static_cast<int>(std::count(good.begin(), good.end(), '\n')));
  REQUIRE(parsed.records.size() == 2);
  CHECK(parsed.records[1].resource_version == "9");
}

TEST_CASE("import kubectl-watch: YAML that does not parse is a bad record at its line") {
  const std::string text = "object:\n  kind: RayJob\n  metadata: {name: a, uid: u, resourceVersion: \"1\"}\ntype: ADDED\n"
                           "---\nobject:\n  kind: [RayJob\ntype: MODIFIED\n";
  const ParsedFile parsed = parse_kubectl_watch(text, "w.yaml");
  CHECK(parsed.records.size() == 1);
  REQUIRE(parsed.bad.size() == 1);
  CHECK(parsed.bad[0].file == "w.yaml");
  CHECK(parsed.bad[0].line >= 7);
  CHECK(parsed.bad[0].message.rfind("not YAML: ", 0) == 0);
}

}  // namespace
}  // namespace kubectl_watch_test
}  // namespace rjsim::trace

