// A world and the means to apply an actor's work to it outside a Simulation: a StepContext over
// the world, a default chooser and every event type; and the random comparison of an actor that
// keeps answers with fresh ones. For the tests of the actors' kept answers.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/actor.h"

#include "engine/chooser.h"
#include "engine/step_context.h"
#include "engine/world.h"
#include "events/event.h"

namespace rjsim::testing {

struct ActorBench {
  engine::World world;
  engine::DefaultChooser chooser{1};
  std::int64_t next_seq = 0;
  engine::StepEvents events;
  events::EventTypes every_type = events::EventTypes::all();
  engine::StepContext context{world, chooser, next_seq, events, every_type};
};

// What an actor answers for one world: its work and its next timer.
struct ActorListing {
  std::vector<engine::ActorWork> work;
  std::optional<std::int64_t> timer_ms;
  friend bool operator==(const ActorListing&, const ActorListing&) = default;
};

inline ActorListing listing_of(const engine::Actor& actor, const engine::World& world) {
  ActorListing listing;
  actor.enabled(world, listing.work);
  listing.timer_ms = actor.next_timer_ms(world);
  return listing;
}

// Random sequences, seeds 1 to `seeds` of 300 steps each, after each of which an actor that keeps
// answers (made by `make`, as every fresh one is) lists what a fresh actor lists. A step is the
// work of a fresh actor, applied by the kept one, or `change(world, random)`; now and then the world
// returns to an earlier one (another run from a snapshot: the kept answers were given for worlds of
// other runs). Returns how much work the fresh actors listed, for the caller to check that the
// sequences make some. A failure names the seed and the step. `prepare` sets the API server up
// before the first write (which watch events keep their versions, a watch's selector).
template <class Make, class Change, class Prepare = void (*)(engine::World&)>
std::size_t compare_kept_with_fresh(std::uint32_t seeds, const Make& make, const Change& change,
                                    const Prepare& prepare = [](engine::World&) {}) {
  std::size_t work_listed = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    const auto kept = make();
    ActorBench bench;
    engine::World& world = bench.world;
    prepare(world);
    std::vector<engine::World> snapshots;
    for (int step = 0; step < 300; ++step) {
      if (random() % 25 == 0) snapshots.push_back(world);
      if (!snapshots.empty() && random() % 40 == 0) world = snapshots[random() % snapshots.size()];
      const ActorListing fresh = listing_of(*make(), world);
      if (!fresh.work.empty() && random() % 3 == 0) {
        kept->apply(fresh.work[random() % fresh.work.size()], bench.context);
      } else {
        change(world, random);
      }
      CAPTURE(step);
      const ActorListing expected = listing_of(*make(), world);
      REQUIRE(listing_of(*kept, world) == expected);
      work_listed += expected.work.size();
    }
  }
  return work_listed;
}

}  // namespace rjsim::testing

namespace doctest {
template <>
struct StringMaker<rjsim::testing::ActorListing> {
  static String convert(const rjsim::testing::ActorListing& listing) {
    std::string text = "timer " + (listing.timer_ms ? std::to_string(*listing.timer_ms) : std::string("none"));
    text += ", work";
    for (const auto& work : listing.work) {
      text.append(" ").append(work.what).append(":").append(work.object.str()).append(":").append(std::to_string(work.index));
    }
    return String(text.c_str());
  }
};
}  // namespace doctest
