#include "engine/actor_answers.h"

#include <cassert>

namespace rjsim::engine {

namespace {

// Keeps a share of `now` in `kept`; true when `kept` held another value.
template <class T>
bool keep_share(CopyOnWrite<T>& kept, const CopyOnWrite<T>& now) {
  if (kept.shares_value_with(now)) return false;
  kept = now;
  return true;
}

// Keeps the digests of the logs of the kinds the answer reads; true when one changed.
bool keep_log_digests(ActorAnswers::Answer& answer, const ApiServer& api) {
  bool changed = false;
  for (Kind kind : kAllKinds) {
    if (!answer.inputs.objects[kind_index(kind)]) continue;
    const Hash128& digest = api.watch_log_digest(kind);
    Hash128& kept = answer.log_digests[kind_index(kind)];
    if (kept != digest) {
      kept = digest;
      changed = true;
    }
  }
  return changed;
}

// True when answers given at answer.now_ms still hold at `now_ms`: an actor that reads the clock
// answers alike up to its next timer (actor.h), so they do when its timer is known and not
// reached yet (most clock steps advance to another actor's or the queue's timer).
bool hold_until(const ActorAnswers::Answer& answer, std::int64_t now_ms) {
  if (!answer.known || !answer.has_timer || now_ms < answer.now_ms) return false;
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
    for (Answer& answer : answers_) answer.resource_version.reset();   // a new run
    seen_.resource_version.reset();
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
  for (Answer& answer : answers_) {
    if (!answer.inputs.whole_world) bring_up_to(answer, world);
  }
  seen_.resource_version = world.api.resource_version();
  seen_.now_ms = world.now_ms;
  keep_share(seen_.ray, world.ray);
  keep_share(seen_.environment, world.environment);
}

bool ActorAnswers::seen_unchanged(const World& world) const {
  return seen_.resource_version == world.api.resource_version() && seen_.now_ms == world.now_ms &&
         seen_.ray.shares_value_with(world.ray) && seen_.environment.shares_value_with(world.environment);
}

void ActorAnswers::bring_up_to(Answer& answer, const World& world) {
  const ActorInputs& inputs = answer.inputs;
  bool changed = !answer.known;
  // Within one run, the same resourceVersion means that no object changed since the last look.
  const std::int64_t resource_version = world.api.resource_version();
  if (answer.resource_version != resource_version) {
    changed = keep_log_digests(answer, world.api) || changed;
    answer.resource_version = resource_version;
  }
  if (inputs.clock && answer.now_ms != world.now_ms) {
    changed = !hold_until(answer, world.now_ms) || changed;
    answer.now_ms = world.now_ms;
  }
  if (inputs.ray_and_environment) {
    changed = keep_share(answer.ray, world.ray) || changed;
    changed = keep_share(answer.environment, world.environment) || changed;
  }
  if (changed) {
    answer.known = true;
    answer.has_work = false;
    answer.has_timer = false;
  }
}

void ActorAnswers::forget() {
  for (Answer& answer : answers_) {
    answer.known = false;
    answer.resource_version.reset();
  }
  seen_ = Seen{};
}

}  // namespace rjsim::engine
