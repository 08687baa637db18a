#include "engine/actor_answers.h"

#include <cassert>

namespace rjsim::engine {

namespace {

// Keeps the serial of `now` in `kept`; true when `kept` named another value.
template <class T>
bool keep_serial(std::uint64_t& kept, const CopyOnWrite<T>& now) {
  if (kept == now.serial()) return false;
  kept = now.serial();
  return true;
}

// True when answers given at `was_ms` still hold at `now_ms`: an actor that reads the clock
// answers alike up to its next timer (actor.h), so they do when its timer is known and not
// reached yet (most clock steps advance to another actor's or the queue's timer).
bool hold_until(const ActorAnswers::Answer& answer, std::int64_t was_ms, std::int64_t now_ms) {
  if (!answer.has_timer || now_ms < was_ms) return false;
  return !answer.timer_ms || now_ms < *answer.timer_ms;
}

bool answered_for(const ActorAnswers::Answer& answer, const Actor& actor) {
  return answer.actor == actor.name() && answer.inputs == actor.inputs();
}

}  // namespace

void ActorAnswers::adopt(std::span<const Actor* const> actors) {
  bool same = answers_.size() == actors.size();
  for (std::size_t i = 0; same && i < actors.size(); ++i) same = answered_for(answers_[i], *actors[i]);
  if (same) {
    seen_.resource_version.reset();   // a new run
    return;
  }
  seen_ = Seen{};
  answers_.assign(actors.size(), Answer{});
  for (std::size_t i = 0; i < actors.size(); ++i) {
    answers_[i].actor = std::string(actors[i]->name());
    answers_[i].inputs = actors[i]->inputs();
  }
}

void ActorAnswers::refresh(const World& world) {
  if (seen_unchanged(world)) return;
  const Changes changes = see(world);
  for (Answer& answer : answers_) {
    if (answer.inputs.whole_world) continue;
    if (answer.known && !reads_a_change(answer, changes, world.now_ms)) continue;
    answer.known = true;
    answer.has_work = false;
    answer.has_timer = false;
  }
}

bool ActorAnswers::seen_unchanged(const World& world) const {
  return seen_.resource_version == world.api.resource_version() && seen_.now_ms == world.now_ms &&
         seen_.ray_serial == world.ray.serial() && seen_.environment_serial == world.environment.serial();
}

ActorAnswers::Changes ActorAnswers::see(const World& world) {
  Changes changes;
  // Within one run, the same resourceVersion means that no object changed since the last look.
  const std::int64_t resource_version = world.api.resource_version();
  if (seen_.resource_version != resource_version) {
    for (Kind kind : kAllKinds) {
      const Hash128& digest = world.api.watch_log_digest(kind);
      Hash128& kept = seen_.log_digests[kind_index(kind)];
      if (kept == digest) continue;
      kept = digest;
      changes.kinds.add(kind);
      const Hash128& ownership = world.api.ownership_digest(kind);
      Hash128& kept_ownership = seen_.ownership_digests[kind_index(kind)];
      if (kept_ownership == ownership) continue;
      kept_ownership = ownership;
      changes.ownership.add(kind);
    }
    seen_.resource_version = resource_version;
  }
  changes.clock = seen_.now_ms != world.now_ms;
  changes.clock_was_ms = seen_.now_ms;
  seen_.now_ms = world.now_ms;
  const bool ray_changed = keep_serial(seen_.ray_serial, world.ray);
  const bool environment_changed = keep_serial(seen_.environment_serial, world.environment);
  changes.ray_or_environment = ray_changed || environment_changed;
  return changes;
}

bool ActorAnswers::reads_a_change(const Answer& answer, const Changes& changes, std::int64_t now_ms) {
  const ActorInputs& inputs = answer.inputs;
  if (inputs.objects.intersects(changes.kinds) || inputs.ownership.intersects(changes.ownership)) return true;
  if (inputs.clock && changes.clock && !hold_until(answer, changes.clock_was_ms, now_ms)) return true;
  return inputs.ray_and_environment && changes.ray_or_environment;
}

void ActorAnswers::forget() {
  for (Answer& answer : answers_) answer.known = false;
  seen_ = Seen{};
}

}  // namespace rjsim::engine
