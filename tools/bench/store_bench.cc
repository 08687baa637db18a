// store_bench: how fast the SQLite event log writes and reads a run (DESIGN §8 "log").
// Writes one run of N synthetic events (default 1,000,000) shaped like the engine's (type,
// actor, object, a body of five to seven fields with a nested status), commits it, then reads
// it back through EventReader (parsing every body) and through LogHasher, and prints events/s
// beside the targets: write >= 1,000,000/s, read for replay >= 100,000/s.
//
//   store_bench [EVENTS] [DB_PATH]     (DB_PATH defaults to a fresh file in /tmp, removed after)
#include "events/event.h"
#include "store/database.h"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using rjsim::events::Event;
using rjsim::events::Origin;
using rjsim::events::RawJson;
using rjsim::events::Value;

constexpr double write_target_per_s = 1'000'000;
constexpr double read_target_per_s = 100'000;

// A pool of distinct events in the proportions a RayJob run produces; emitted round-robin with
// the seq and time rewritten, so that building events costs the benchmark nothing.
std::vector<Event> event_pool() {
  std::vector<Event> pool;
  for (int index = 0; index < 64; ++index) {
    const std::string object = fmt::format("RayJob/default/job-{}", index % 4);
    Event choice{0, 0, Origin::input, "choice", "chooser", "", {}};
    choice.with("kind", "next_step").with("options", 5).with("picked", index % 5);
    pool.push_back(choice);
    Event update{0, 0, Origin::effect, "api.update_status", "controller", object, {}};
    update.with("verb", "update_status")
        .with("outcome", index % 7 == 0 ? "conflict" : "ok")
        .with("rv_before", 1000 + index)
        .with("rv_after", 1001 + index)
        .with("status", Value{RawJson{fmt::format(
                            R"({{"jobDeploymentStatus":"Running","jobId":"rayjob-{}-x7k2p",)"
                            R"("jobStatus":"RUNNING"}})", index)}});
    pool.push_back(update);
    Event read{0, 0, Origin::effect, "cache.read", "controller", object, {}};
    read.with("kind", "RayCluster").with("name", fmt::format("job-{}-raycluster-abcde", index))
        .with("rv_seen", 990 + index).with("rv_latest", 1000 + index).with("found", true);
    pool.push_back(read);
    Event queue{0, 0, Origin::effect, "queue.add", "workqueue", object, {}};
    queue.with("key", fmt::format("default/job-{}", index % 4)).with("after_ms", 3000);
    pool.push_back(queue);
  }
  return pool;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void report(const char* what, std::int64_t events, double seconds, double target) {
  const double per_second = static_cast<double>(events) / seconds;
  fmt::print("{:<28} {:>9} events in {:6.3f} s = {:>11.0f} events/s   target >= {:>9.0f}/s  {}\n",
             what, events, seconds, per_second, target, per_second >= target ? "ok" : "BELOW");
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t event_count = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
  const bool own_file = argc <= 2;
  const std::string path = own_file ? fmt::format("/tmp/rjsim-store-bench-{}.db", ::getpid())
                                    : std::string(argv[2]);
  const std::vector<Event> pool = event_pool();

  rjsim::store::Database database = rjsim::store::Database::open(path);
  rjsim::store::RunHeader header{std::nullopt, "run", "store-bench", "name: store-bench\n",
                                 "kuberay-1.1", 1};

  auto start = std::chrono::steady_clock::now();
  rjsim::store::RunWriter writer = database.begin_run(header);
  Event event;
  for (std::int64_t seq = 0; seq < event_count; ++seq) {
    const Event& model = pool[static_cast<std::size_t>(seq) % pool.size()];
    event.origin = model.origin;
    event.type = model.type;
    event.actor = model.actor;
    event.object = model.object;
    event.body = model.body;
    event.seq = seq;
    event.at_ms = seq / 4;
    writer.emit(event);
  }
  const std::int64_t run_id = writer.commit({"pass", event_count / 4, event_count / 4, ""});
  report("write (emit + commit)", event_count, seconds_since(start), write_target_per_s);

  start = std::chrono::steady_clock::now();
  std::int64_t read = 0;
  rjsim::store::EventReader reader = database.events(run_id);
  while (reader.next(event)) ++read;
  report("read (EventReader)", read, seconds_since(start), read_target_per_s);

  start = std::chrono::steady_clock::now();
  rjsim::events::LogHasher hasher;
  rjsim::store::EventReader hashed = database.events(run_id);
  while (hashed.next(event)) hasher.add(event);
  report("read + log hash", event_count, seconds_since(start), read_target_per_s);

  if (read != event_count) {
    fmt::print(stderr, "store_bench: wrote {} events but read back {}\n", event_count, read);
    return 1;
  }
  fmt::print("database {} ({:.1f} MiB)\n", path,
             static_cast<double>(std::filesystem::file_size(path)) / (1024 * 1024));
  if (own_file) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  }
  return 0;
}
