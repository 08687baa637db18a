#include "cli/demo.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/json_output.h"
#include "cli/timeline.h"
#include "engine/garbage_collector.h"
#include "engine/simulation.h"
#include "models/toy/toy_controller.h"
#include "store/database.h"
#include "store/run_writer.h"

namespace rjsim::cli {

namespace {

using namespace rjsim::engine;

// Under --faults the demo lets the chooser hold deliveries, serve reads one event stale, and
// inject one conflict: enough to see the schedule change with the seed.
FaultBudget demo_faults(bool random_schedule) {
  FaultBudget faults;
  if (!random_schedule) return faults;
  faults.squash = true;
  faults.max_lag = 1;
  faults.conflicts = 1;
  return faults;
}

class HashSink final : public events::EventSink {
 public:
  void emit(const events::Event& event) override { hasher.add(event); }
  events::LogHasher hasher;
};

nlohmann::ordered_json run_json(std::int64_t run_id, std::uint64_t seed, const World& world,
                                const std::string& log_hash, const std::vector<TransitionRow>& rows) {
  nlohmann::ordered_json transitions = nlohmann::ordered_json::array();
  for (const TransitionRow& row : rows) {
    transitions.push_back({{"rayjob", row.rayjob}, {"from", row.from}, {"to", row.to},
                           {"job_status", row.job_status}, {"at_ms", row.at_ms}});
  }
  nlohmann::ordered_json run = {
      {"run_id", run_id == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(run_id)},
      {"scenario", "kernel-demo"}, {"controller", "kernel-toy"}, {"seed", seed},
      {"outcome", "pass"}, {"steps", world.steps}, {"virtual_ms", world.now_ms},
      {"log_hash", log_hash}, {"transitions", transitions},
      {"violations", nlohmann::ordered_json::array()}};
  return run;
}

}  // namespace

int run_kernel_demo(const DemoOptions& options, std::ostream& out) {
  models::toy::ToyController controller;
  models::toy::ToyClusterReadiness readiness(10'000);
  GarbageCollector gc;
  DefaultChooser fault_free(options.seed);
  RandomChooser random(options.seed);
  Chooser& chooser = options.random_schedule ? static_cast<Chooser&>(random) : fault_free;

  std::optional<store::Database> database;
  std::optional<store::RunWriter> writer;
  if (!options.db_path.empty()) {
    database.emplace(store::Database::open(options.db_path));
    writer.emplace(database->begin_run(store::RunHeader{
        std::nullopt, "run", "kernel-demo", "(built-in kernel demo)", "kernel-toy",
        static_cast<std::int64_t>(options.seed)}));
  }
  events::MemorySink memory;
  HashSink hash;
  std::vector<events::EventSink*> sinks = {&memory, &hash};
  if (writer) sinks.push_back(&*writer);
  events::TeeSink sink(sinks);

  Simulation simulation(Simulation::initial_world(controller), controller, {&readiness, &gc}, chooser,
                        sink, demo_faults(options.random_schedule));
  simulation.run_as_step([](StepContext& context) {
    Object rayjob = models::toy::toy_rayjob("demo");
    context.emit(events::Origin::input, "action.create", "user", object_ref(rayjob));
    LoggedApi(context, "user").create(rayjob);
  });
  const RunEnd end = simulation.run();
  const World& world = simulation.world();
  const std::string log_hash = hash.hasher.hex();
  std::int64_t run_id = 0;
  if (writer) run_id = writer->commit(store::RunSummary{"pass", world.steps, world.now_ms, log_hash});

  const std::vector<TransitionRow> transitions = transitions_of(memory.events);
  if (options.json) {
    print_json_line(out, run_json(run_id, options.seed, world, log_hash, transitions));
    return 0;
  }
  out << fmt::format("kernel demo: the toy controller (src/models/toy), seed {}, {} schedule\n\n",
                     options.seed, options.random_schedule ? "random" : "fault-free");
  for (const events::Event& event : memory.events) out << format_timeline_line(event) << "\n";
  out << "\n";
  print_transitions(out, transitions);
  out << fmt::format("\nended: {} after {} steps, {} events, virtual time {}\nlog hash: {}\n",
                     to_string(end), world.steps, memory.events.size(),
                     format_virtual_time(world.now_ms), log_hash);
  if (run_id != 0) out << fmt::format("stored as run {} in {}\n", run_id, options.db_path);
  return 0;
}

}  // namespace rjsim::cli
