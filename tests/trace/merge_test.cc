// merge_records: files recorded side by side interleave by resourceVersion (trace-formats.md §6).
#include <doctest/doctest.h>

#include "trace/merge.h"

namespace rjsim::trace {
namespace merge_test {
namespace {

Record record(const std::string& file, int line, const std::string& type, const std::string& uid,
              const std::string& rv) {
  Record r;
  r.file = file;
  r.line = line;
  r.type = type;
  r.kind = "RayJob";
  r.name = "x";
  r.uid = uid;
  r.resource_version = rv;
  return r;
}

std::vector<std::string> order(const MergedTrace& merged) {
  std::vector<std::string> out;
  for (const Record& r : merged.records) out.push_back(r.file + ":" + std::to_string(r.line) + " " + r.type);
  return out;
}

TEST_CASE("import merge: files interleave by resourceVersion, an ERROR stays after its predecessor") {
  std::vector<Record> rayjobs = {record("j", 1, "ADDED", "uj", "100"), record("j", 2, "MODIFIED", "uj", "104"),
                                 record("j", 3, "ERROR", "", ""), record("j", 4, "MODIFIED", "uj", "1000")};
  std::vector<Record> clusters = {record("c", 1, "ADDED", "uc", "99"), record("c", 2, "MODIFIED", "uc", "102")};
  const MergedTrace merged = merge_records(Format::kubectl_watch, {rayjobs, clusters});
  CHECK(order(merged) == std::vector<std::string>{"c:1 ADDED", "j:1 ADDED", "c:2 MODIFIED", "j:2 MODIFIED",
                                                  "j:3 ERROR", "j:4 MODIFIED"});   // 1000 > 104 numerically
}

TEST_CASE("import merge: a non-numeric resourceVersion keeps file order") {
  const MergedTrace merged = merge_records(
      Format::watch_stream,
      {{record("a", 1, "ADDED", "u1", "b7"), record("a", 2, "MODIFIED", "u1", "c1")}, {record("b", 1, "ADDED", "u2", "a1")}});
  CHECK(order(merged) == std::vector<std::string>{"a:1 ADDED", "a:2 MODIFIED", "b:1 ADDED"});
}

TEST_CASE("import merge: untyped objects become ADDED then MODIFIED, a repeated state is kept once") {
  const MergedTrace merged = merge_records(
      Format::kubectl_watch, {{record("p", 1, "", "u1", "5"), record("p", 9, "", "u1", "8"),
                               record("p", 20, "", "u1", "8"),   // kubectl restarted and re-listed
                               record("p", 30, "", "u2", "9")}});
  CHECK(order(merged) == std::vector<std::string>{"p:1 ADDED", "p:9 MODIFIED", "p:30 ADDED"});
  CHECK(merged.duplicates == 1);
  CHECK(merged.type_inferred == std::vector<bool>{true, true, true});
}

TEST_CASE("import merge: audit writes go by stageTimestamp when a write has no new resourceVersion") {
  Record a = record("log", 1, "update_status", "u", "");
  a.code = 200;
  a.time_ms = 300;
  Record b = record("log", 2, "update_status", "u", "");
  b.code = 409;
  b.time_ms = 100;
  Record c = record("log", 3, "update", "u", "");
  c.code = 200;
  c.time_ms = 200;
  a.audit_id = "id-a";
  b.audit_id = "id-b";
  c.audit_id = "id-c";
  Record again = a;   // the same event in an overlapping rotated file
  again.file = "log.1";
  const MergedTrace merged = merge_records(Format::audit, {{a, b, c}, {again}});
  CHECK(order(merged) == std::vector<std::string>{"log:2 update_status", "log:3 update", "log:1 update_status"});
  CHECK(merged.duplicates == 1);
}

}  // namespace
}  // namespace merge_test
}  // namespace rjsim::trace

