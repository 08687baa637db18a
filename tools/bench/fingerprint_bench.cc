// fingerprint_bench: how fast a World is fingerprinted (engine/fingerprint.h) for the visited set
// of exhaustive exploration, and how big a world is (DESIGN §8). Exhaustive exploration must reach
// 500,000 distinct states per second per core, 2 µs a state for stepping, copying, checking and
// hashing together; the fingerprint's own target is a quarter of that, 2,000,000/s.
// The worlds are taken through a StepObserver from the fault-free run of a bundled scenario: the
// one halfway through the run, and the last one (the largest: watch logs only grow). For each it
// prints its size (sizeof(World), the heap of its containers and of its object versions, each
// version and each spec counted once; target < 64 KiB), what a copy costs (it shares the versions), how fast it
// copies (exploration forks worlds), and fingerprints/s at 64 and 128 bits.
//
//   fingerprint_bench [SCENARIO_FILE] [SECONDS_PER_FIGURE]
//   (default: scenarios/suspend-in-running-then-resume.yaml of the source tree, 1 s)
#include <fmt/format.h>
#include <jemalloc/jemalloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <variant>
#include <span>
#include <string>
#include <vector>

#include "engine/fingerprint.h"
#include "engine/scenario_loader.h"
#include "explore/scenario_run.h"
#include "stopwatch.h"

namespace {

namespace fs = std::filesystem;
using rjsim::bench::Stopwatch;
using rjsim::engine::World;

constexpr double fingerprint_target_per_s = 2'000'000;
constexpr std::size_t world_target_bytes = 64 * 1024;
// A run's writes are a fraction of its steps, and random exploration wants ~1M steps/s (§8):
// extending a log digest should cost well under a step, so at least 2,000,000 events/s.
constexpr double events_target_per_s = 2'000'000;

class WorldRecorder final : public rjsim::engine::StepObserver {
 public:
  rjsim::events::EventTypes reads() const override { return rjsim::events::EventTypes::none(); }
  void after_step(const World& world, const rjsim::engine::StepLog&) override {
    worlds.push_back(world);
  }
  std::vector<World> worlds;
};

// Calls `work` in batches until `seconds` of wall time have passed; returns how many calls.
template <class Work>
std::int64_t repeat_for(double seconds, Work work) {
  constexpr int batch = 1000;
  std::int64_t count = 0;
  const Stopwatch stopwatch;
  while (stopwatch.wall_seconds() < seconds) {
    for (int i = 0; i < batch; ++i) work();
    count += batch;
  }
  return count;
}

// The bytes this thread has allocated and not freed, by jemalloc's own per-thread counters
// (the benchmarks link jemalloc: meson.build's allocator_dep; glibc's mallinfo2 does not see its
// allocations).
std::size_t heap_in_use() {
  std::uint64_t allocated = 0;
  std::uint64_t deallocated = 0;
  std::size_t size = sizeof(std::uint64_t);
  mallctl("thread.allocated", &allocated, &size, nullptr, 0);
  size = sizeof(std::uint64_t);
  mallctl("thread.deallocated", &deallocated, &size, nullptr, 0);
  return static_cast<std::size_t>(allocated - deallocated);
}

// The heap the world's object versions take, each counted once however many places share it
// (the store, watch events, caches), and each spec counted once however many versions share it:
// measured by copying each distinct version once (the copy shares its spec) and each distinct spec
// once. Only the copies are counted: the lists of distinct versions and specs are made before.
std::size_t heap_of_versions(const World& world) {
  std::set<const void*> seen;
  std::vector<const rjsim::engine::Object*> distinct;
  std::vector<const rjsim::engine::Object*> spec_owners;   // one version per distinct spec
  auto note = [&](const rjsim::engine::ObjectVersion& version) {
    if (!seen.insert(&*version).second) return;
    distinct.push_back(&*version);
    const void* spec = std::visit([](const auto& typed) -> const void* { return &*typed.spec; }, *version);
    if (seen.insert(spec).second) spec_owners.push_back(&*version);
  };
  for (rjsim::engine::Kind kind : rjsim::engine::kAllKinds) {
    for (const rjsim::engine::ObjectVersion& version : world.api.objects(kind)) note(version);
    for (const rjsim::engine::WatchEvent& event : world.api.watch_log(kind)) note(event.object);
  }
  for (const rjsim::engine::Informer& informer : world.process.informers) {
    for (const rjsim::engine::ObjectVersion& version : informer.cached()) note(version);
  }
  std::vector<std::shared_ptr<const rjsim::engine::Object>> copies;
  std::vector<std::shared_ptr<const void>> spec_copies;
  copies.reserve(distinct.size());
  spec_copies.reserve(spec_owners.size());
  const std::size_t heap_before = heap_in_use();
  for (const rjsim::engine::Object* object : distinct) copies.push_back(std::make_shared<const rjsim::engine::Object>(*object));
  for (const rjsim::engine::Object* object : spec_owners) {
    spec_copies.push_back(std::visit(
        [](const auto& typed) -> std::shared_ptr<const void> {
          return std::make_shared<const std::decay_t<decltype(*typed.spec)>>(*typed.spec);
        },
        *object));
  }
  return heap_in_use() - heap_before;
}

void measure(const char* label, const World& world, double seconds) {
  const std::size_t heap_before = heap_in_use();
  const std::vector<World> copy = {world};   // alive while the heap is counted
  const std::size_t container_bytes = heap_in_use() - heap_before - sizeof(World);
  const std::size_t version_bytes = heap_of_versions(world);
  const std::size_t size = sizeof(World) + container_bytes + version_bytes;
  fmt::print("{} (after step {}, virtual time {} ms)\n", label, world.steps, world.now_ms);
  fmt::print("  {:<30} {:>9} bytes ({} inline + {} in containers + {} in object versions)  target < {} bytes  {}\n",
             "world size", size, sizeof(World), container_bytes, version_bytes, world_target_bytes,
             size < world_target_bytes ? "ok" : "ABOVE");
  fmt::print("  {:<30} {:>9} bytes (a copy shares the versions)\n", "heap of a copy", container_bytes);

  {
    const Stopwatch stopwatch;
    const std::int64_t copies = repeat_for(seconds, [&] {
      const World copy = world;
      static_cast<void>(copy);
    });
    const double per_s = static_cast<double>(copies) / stopwatch.wall_seconds();
    fmt::print("  {:<30} {:>9.0f}/s (no target; informative)\n", "world copies", per_s);
  }

  std::uint64_t sink = 0;   // keeps the results alive
  {
    const Stopwatch stopwatch;
    const std::int64_t count =
        repeat_for(seconds, [&] { sink += rjsim::engine::fingerprint(world); });
    fmt::print("  ");
    stopwatch.report_rate("fingerprint (64 bit)", count, "worlds", fingerprint_target_per_s);
  }
  {
    const Stopwatch stopwatch;
    const std::int64_t count =
        repeat_for(seconds, [&] { sink += rjsim::engine::fingerprint128(world).low; });
    fmt::print("  ");
    stopwatch.report_rate("fingerprint128", count, "worlds", fingerprint_target_per_s);
  }
  fmt::print("  (sum of all fingerprints: {:016x})\n", sink);
}

// What the API server pays on each write for the fingerprints' sake: extending its kind's
// watch-log digest by the new event (engine/fingerprint.h), over every event of `world`'s logs.
void measure_log_digests(const World& world, double seconds) {
  std::vector<const rjsim::engine::WatchEvent*> events;
  for (rjsim::engine::Kind kind : rjsim::engine::kAllKinds) {
    for (const rjsim::engine::WatchEvent& event : world.api.watch_log(kind)) {
      events.push_back(&event);
    }
  }
  rjsim::engine::Hash128 digest;
  std::size_t next = 0;
  const Stopwatch stopwatch;
  const std::int64_t count = repeat_for(seconds, [&] {
    digest = rjsim::engine::extend_watch_log_digest(digest, *events[next]);
    next = next + 1 == events.size() ? 0 : next + 1;
  });
  fmt::print("watch-log digest, on each write ({} events of all kinds, cycled; last {:016x})\n  ",
             events.size(), digest.low);
  stopwatch.report_rate("extend_watch_log_digest", count, "events", events_target_per_s);
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path file = argc > 1 ? fs::path(argv[1])
                                 : fs::path(RJSIM_SOURCE_DIR) / "scenarios" /
                                       "suspend-in-running-then-resume.yaml";
  const double seconds = argc > 2 ? std::max(0.1, std::atof(argv[2])) : 1.0;

  const rjsim::engine::Scenario scenario = rjsim::engine::load_scenario(file.string());
  WorldRecorder recorder;
  rjsim::explore::RunOptions options;
  options.keep_events = false;
  options.observers.push_back(&recorder);
  const rjsim::explore::RunReport report = rjsim::explore::run_scenario(scenario, options);
  if (recorder.worlds.empty()) {
    fmt::print(stderr, "fingerprint_bench: {} ran no step\n", file.string());
    return 3;
  }
  fmt::print("fingerprint_bench: {} ({} steps, {})\n", scenario.name, report.steps, report.outcome);
  measure("mid-run world", recorder.worlds[recorder.worlds.size() / 2], seconds);
  measure("last world", recorder.worlds.back(), seconds);
  measure_log_digests(recorder.worlds.back(), seconds);
  return 0;
}
