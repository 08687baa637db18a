// TEMPORARY scratch (not a deliverable): real runs with the checker attached.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <map>
#include <chrono>
#include <iostream>
#include "checks/invariant_checker.h"
#include "engine/garbage_collector.h"
#include "engine/job_controller.h"
#include "engine/ray_dashboard.h"
#include "engine/raycluster_controller.h"
#include "engine/submitter.h"
#include "engine/user_actions.h"
#include "engine/scenario_loader.h"
#include "models/registry.h"

using namespace rjsim::engine;
namespace {
struct Biased final : Chooser {
  explicit Biased(std::uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override {
    if (point == ChoicePoint::name_suffix) return next() % options;
    if (static_cast<int>(next() % 100) < (getenv("SCRATCH_BIAS") ? atoi(getenv("SCRATCH_BIAS")) : 85)) return 0;
    return next() % options;
  }
  std::uint64_t state;
};
struct Env {
  explicit Env(const Scenario& s) : ray(s.world.dashboard, s.world.ray), rcc(s.world.ray_cluster), submitter(s.world.submitter, &ray), user(s.actions, &ray) {}
  std::vector<const Actor*> actors() const { return {&user, &rcc, &jc, &submitter, &ray, &gc}; }
  RayDashboard ray; RayClusterController rcc; JobController jc; Submitter submitter; UserActions user; GarbageCollector gc;
};
std::vector<rjsim::checks::Violation> run_one(const Scenario& s, Chooser& chooser, FaultBudget faults, RunEnd* end_out, std::vector<rjsim::events::Event>* log) {
  auto model = rjsim::models::make_model(s.controller);
  Env env(s);
  rjsim::events::MemorySink memory;
  Limits limits; limits.steps = s.limits.steps; limits.time_ms = s.limits.time_ms;
  Simulation sim(Simulation::initial_world(*model), *model, env.actors(), chooser, memory, faults, limits);
  sim.set_dashboard(&env.ray);
  rjsim::checks::InvariantChecker checker(s.invariants, model->transition_table(), s.limits.eventually_ms);
  if (!getenv("SCRATCH_NOCHECK")) sim.add_observer(&checker);
  sim.run_as_step([&](StepContext& c) {
    LoggedApi api(c, "user");
    for (const RayJob& r : s.rayjobs) { Object o = r; c.emit(rjsim::events::Origin::input, "action.create", "user", object_ref(o)); api.create(o); }
  });
  RunEnd end = sim.run();
  checker.finish(sim.world(), end);
  if (end_out) *end_out = end;
  if (log) *log = memory.events;
  return checker.violations();
}
}

TEST_CASE("scratch: real runs") {
  const char* dir = getenv("SCRATCH_DIR");
  if (!dir) return;
  const int seeds = getenv("SCRATCH_SEEDS") ? atoi(getenv("SCRATCH_SEEDS")) : 100;
  std::vector<std::string> files = {"base", "suspend-early", "suspend-running", "head-restart", "delete", "http-restart", "failed", "ttl", "suspend-race"};
  if (getenv("SCRATCH_FILES")) { files.clear(); std::string f = getenv("SCRATCH_FILES"); size_t p = 0; while (p <= f.size()) { size_t q = f.find(',', p); if (q == std::string::npos) q = f.size(); files.push_back(f.substr(p, q - p)); p = q + 1; } }
  for (const std::string& file : files) {
    std::string path = std::string(dir) + "/" + file + ".yaml";
    Scenario s = load_scenario(path);
    RunEnd end;
    DefaultChooser ff(1);
    std::vector<rjsim::events::Event> log;
    auto v = run_one(s, ff, {}, &end, &log);
    std::cout << "== " << file << " fault-free: end=" << to_string(end) << " violations=" << v.size() << "\n";
    for (auto& x : v) std::cout << "   " << x.invariant << " @" << x.seq << ": " << x.message << "\n";
    std::map<std::string, std::pair<int, std::string>> counts;
    std::map<std::string, int> ends;
    auto t0 = std::chrono::steady_clock::now();
    for (int seed = 1; seed <= seeds; ++seed) {
      Biased rc(static_cast<std::uint64_t>(seed));
      std::vector<rjsim::events::Event> flog;
      auto vs = run_one(s, rc, s.faults, &end, getenv("SCRATCH_NOLOG") ? nullptr : &flog);
      if (seed <= 0) { int tr = 0; for (auto& e : flog) if (e.type == "status.transition" || e.type.starts_with("ray.") || e.type.starts_with("dashboard.submit") || e.type.starts_with("action.") || e.type.starts_with("submitter.")) { ++tr; std::cout << "     t " << e.seq << " " << e.at_ms << " " << e.type << " " << e.object << " " << rjsim::events::body_json(e) << "\n"; } std::cout << "   seed " << seed << " events " << flog.size() << " transitions " << tr << "\n"; }
      ends[std::string(to_string(end))]++;
      for (auto& x : vs) { auto& c = counts[x.invariant]; if (c.first++ == 0) c.second = fmt::format("seed {} @{}: {}", seed, x.seq, x.message); }
    }
    std::cout << "   " << seeds << " runs in " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
    for (auto& [e, n] : ends) std::cout << "   end " << e << ": " << n << "\n";
    for (auto& [inv, c] : counts) std::cout << "   [faults] " << inv << " x" << c.first << " e.g. " << c.second << "\n";
  }
}
