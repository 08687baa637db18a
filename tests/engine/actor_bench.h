// A world and the means to apply an actor's work to it outside a Simulation: a StepContext over
// the world, a default chooser and every event type. For the tests of the actors' kept answers.
#pragma once

#include <cstdint>

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

}  // namespace rjsim::testing
