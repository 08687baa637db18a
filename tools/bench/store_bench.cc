// store_bench: how fast the SQLite event log writes and reads runs (DESIGN §8 "log").
//
// Events are shaped like the engine's (the types, actors, objects and bodies `rjsim run --demo`
// records: about 40 bytes of body JSON, 85 bytes a row), emitted round-robin from a pool so
// that building them costs the benchmark nothing. It measures:
//   - one run of N events (default 1,000,000): emit + commit;
//   - the CI shape: N/1000 runs of 1,000 events, each its own transaction;
//   - reading the big run back through EventReader (every body parsed), and with LogHasher.
// Each figure is printed beside its target (write >= 1,000,000/s; read for replay >= 100,000/s)
// with the wall time and the process CPU time, since a busy machine slows wall time only.
//
//   store_bench [EVENTS] [DB_PATH]   (default: 1000000, a fresh file in /tmp removed after)
#include "events/event.h"
#include "store/database.h"
#include "stopwatch.h"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using rjsim::events::Event;
using rjsim::events::Origin;

constexpr double write_target_per_s = 1'000'000;
constexpr double read_target_per_s = 100'000;

Event make(Origin origin, const char* type, const char* actor, std::string object) {
  return Event{0, 0, origin, type, actor, std::move(object), {}};
}

// One reconcile's worth of events for RayJob default/job-N, as the engine writes them.
void add_reconcile_events(int index, std::vector<Event>& pool) {
  const std::string name = fmt::format("job-{}", index);
  const std::string rayjob = "RayJob/default/" + name;
  const std::string key = "default/" + name;
  const std::int64_t rv = 100 + index;
  pool.push_back(make(Origin::input, "choice", "chooser", "")
                     .with("point", "next_step").with("options", 3).with("picked", index % 3));
  pool.push_back(make(Origin::effect, "watch.deliver", "informer/RayJob", rayjob)
                     .with("watch", "MODIFIED").with("rv", rv).with("pending", 0));
  pool.push_back(make(Origin::effect, "queue.add", "workqueue", "")
                     .with("key", key).with("cause", "informer/RayJob"));
  pool.push_back(make(Origin::effect, "queue.get", "workqueue", "").with("key", key));
  pool.push_back(make(Origin::effect, "reconcile.begin", "controller", rayjob)
                     .with("incarnation", 1));
  pool.push_back(make(Origin::effect, "cache.read", "controller", rayjob)
                     .with("found", true).with("rv_seen", rv).with("rv_latest", rv + 1)
                     .with("lag", 1));
  pool.push_back(make(Origin::effect, "api.update_status", "controller", rayjob)
                     .with("outcome", "ok").with("rv_sent", rv).with("changed", true)
                     .with("rv_before", rv).with("rv_after", rv + 2).with("watch", "MODIFIED"));
  pool.push_back(make(Origin::effect, "status.transition", "apiserver", rayjob)
                     .with("from_deployment", "Initializing").with("to_deployment", "Running")
                     .with("from_job_status", "PENDING").with("to_job_status", "RUNNING")
                     .with("reason", "").with("rv", rv + 2));
  pool.push_back(make(Origin::effect, "reconcile.end", "controller", rayjob)
                     .with("result", "requeue_after").with("after_ms", 3000));
  pool.push_back(make(Origin::effect, "queue.done", "workqueue", "").with("key", key));
  pool.push_back(make(Origin::effect, "clock.advance", "clock", "").with("to_ms", 3000 + index));
}

std::vector<Event> event_pool() {
  std::vector<Event> pool;
  for (int index = 0; index < 16; ++index) add_reconcile_events(index, pool);
  return pool;
}

using rjsim::bench::Stopwatch;

rjsim::store::RunHeader bench_header() {
  return {std::nullopt, "run", "store-bench", "name: store-bench\n", "kuberay-1.1", 1};
}

std::int64_t write_run(rjsim::store::Database& database, std::vector<Event>& pool,
                       std::int64_t event_count) {
  rjsim::store::RunWriter writer = database.begin_run(bench_header());
  for (std::int64_t seq = 0; seq < event_count; ++seq) {
    Event& event = pool[static_cast<std::size_t>(seq) % pool.size()];
    event.seq = seq;
    event.at_ms = seq / 4;
    writer.emit(event);
  }
  return writer.commit({"pass", event_count / 11, event_count / 4, ""});
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t event_count = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
  const bool own_file = argc <= 2;
  const std::string path = own_file ? fmt::format("/tmp/rjsim-store-bench-{}.db", ::getpid())
                                    : std::string(argv[2]);
  if (event_count < 1000) {
    fmt::print(stderr, "store_bench: EVENTS must be at least 1000\n");
    return 2;
  }
  std::vector<Event> pool = event_pool();
  rjsim::store::Database database = rjsim::store::Database::open(path);

  Stopwatch big_run;
  const std::int64_t run_id = write_run(database, pool, event_count);
  big_run.report_rate("write: one run", event_count, "events", write_target_per_s);

  Stopwatch small_runs;
  const std::int64_t run_count = event_count / 1000;
  for (std::int64_t run = 0; run < run_count; ++run) write_run(database, pool, 1000);
  small_runs.report_rate(fmt::format("write: {} runs of 1000", run_count).c_str(), run_count * 1000, "events",
                    write_target_per_s);

  Event event;
  Stopwatch reading;
  std::int64_t read = 0;
  rjsim::store::EventReader reader = database.events(run_id);
  while (reader.next(event)) ++read;
  reading.report_rate("read: EventReader", read, "events", read_target_per_s);

  Stopwatch hashing;
  rjsim::events::LogHasher hasher;
  rjsim::store::EventReader hashed = database.events(run_id);
  while (hashed.next(event)) hasher.add(event);
  hashing.report_rate("read: EventReader + LogHasher", event_count, "events", read_target_per_s);

  if (read != event_count) {
    fmt::print(stderr, "store_bench: wrote {} events but read back {}\n", event_count, read);
    return 1;
  }
  fmt::print("database {}: {:.1f} MiB for {} events ({:.0f} bytes an event)\n", path,
             static_cast<double>(std::filesystem::file_size(path)) / (1024 * 1024),
             event_count + run_count * 1000,
             static_cast<double>(std::filesystem::file_size(path)) /
                 static_cast<double>(event_count + run_count * 1000));
  if (own_file) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  }
  return 0;
}
