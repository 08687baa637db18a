// Copying whole runs between databases, as `rjsim merge` does (src/store/copy_run.h).
#include "store/copy_run.h"
#include "store_test_support.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using rjsim::events::Event;

namespace copy_run_test {
using namespace rjsim::store;
using namespace rjsim::store::testing;

namespace {

std::vector<Event> all_events(const Database& database, std::int64_t run_id) {
  std::vector<Event> events;
  EventReader reader = database.events(run_id);
  Event event;
  while (reader.next(event)) events.push_back(event);
  return events;
}

}  // namespace

TEST_CASE("copy_run copies the run row, events and violations under a new id and parent") {
  ScratchDirectory directory;
  Database shard = Database::open(directory.file("shard.db"));
  const std::int64_t original = write_run(shard, 20);
  RunHeader shrunk_header = header();
  shrunk_header.kind = "shrink";
  shrunk_header.parent_run = original;
  RunWriter writer = shard.begin_run(shrunk_header);
  for (int seq = 0; seq < 7; ++seq) writer.emit(event(seq));
  writer.add_violation(Violation{6, "single-cluster", "RayJob/default/demo: second cluster"});
  const std::int64_t shrunk = writer.commit(RunSummary{"violation", 7, 70, "ab"});

  Database merged = Database::open(directory.file("merged.db"));
  write_run(merged, 1);   // so that ids differ between the files
  const std::int64_t merged_original = copy_run(shard, original, merged, std::nullopt);
  const std::int64_t merged_shrunk = copy_run(shard, shrunk, merged, merged_original);

  CHECK(merged_original == 2);
  CHECK(merged_shrunk == 3);
  RunInfo expected = *shard.run(shrunk);
  expected.run_id = merged_shrunk;
  expected.parent_run = merged_original;
  CHECK(*merged.run(merged_shrunk) == expected);
  CHECK(all_events(merged, merged_shrunk) == all_events(shard, shrunk));
  CHECK(merged.violations(merged_shrunk) == shard.violations(shrunk));
  CHECK(all_events(merged, merged_original) == all_events(shard, original));
}

TEST_CASE("copy_run of a run the source does not hold throws StoreError and copies nothing") {
  ScratchDirectory directory;
  Database source = Database::open(directory.file("source.db"));
  Database destination = Database::open(directory.file("destination.db"));
  CHECK_THROWS_AS(copy_run(source, 4, destination, std::nullopt), StoreError);
  write_run(source, 1);
  CHECK_THROWS_WITH_AS(copy_run(source, 1, destination, 12),
                       doctest::Contains("no run 12"), StoreError);
  CHECK(destination.runs().empty());
}

}  // namespace copy_run_test
