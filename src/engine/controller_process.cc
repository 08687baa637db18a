#include "engine/controller_process.h"

#include <algorithm>
#include <cassert>

namespace rjsim::engine {

namespace {

void add_owner_key(const Watches& watches, const Object& object, std::vector<std::string>& keys) {
  const ObjectMeta& m = meta(object);
  const OwnerReference* owner = controller_owner(m);
  // EnqueueRequestForOwner(OnlyControllerOwner): the owner's name in the dependent's namespace;
  // the uid is not checked (§2.3).
  if (!owner || owner->kind != watches.for_kind) return;
  std::string key = key_of(m.namespace_, owner->name);
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
}

}  // namespace

std::vector<std::string> keys_for(const Watches& watches, Kind kind, const Notification& notification) {
  std::vector<std::string> keys;
  if (kind == watches.for_kind) {
    keys.push_back(key_of(meta(notification.object)));
    return keys;
  }
  if (std::find(watches.owns.begin(), watches.owns.end(), kind) == watches.owns.end()) return keys;
  if (notification.old_object) add_owner_key(watches, *notification.old_object, keys);
  add_owner_key(watches, notification.object, keys);
  return keys;
}

void enqueue(StepContext& context, const std::string& key, int priority, std::string_view cause) {
  WorkQueue& queue = context.world().process.queue;
  const AddOutcome outcome = queue.add(key, context.now_ms(), priority);
  const char* type = outcome == AddOutcome::squashed ? "queue.squash" : "queue.add";
  EventBuilder event = context.effect(type, "workqueue").with("key", key).with("cause", cause);
  if (outcome == AddOutcome::deferred) event.with("deferred", true);
  if (priority != 0) event.with("priority", priority);
}

void receive_watch_events(World& world, Kind kind) {
  const Informer* informer = world.informer(kind);
  assert(informer && "rjsim bug: no informer for a kind the controller uses");
  const std::vector<WatchEvent>& log = world.api.watch_log(kind);
  // Nothing new leaves the informer shared with the world's copies.
  if (informer->has_unreceived(log)) world.edit_informer(kind).receive(log);
}

void deliver_one(StepContext& context, const Watches& watches, Kind kind) {
  World& world = context.world();
  receive_watch_events(world, kind);
  Informer& informer = world.edit_informer(kind);
  const std::vector<WatchEvent>& log = world.api.watch_log(kind);
  const std::vector<Notification> notifications = informer.pop(log);
  const std::string_view actor = informer_actor(kind);
  for (const Notification& notification : notifications) {
    EventBuilder event = context.effect("watch.deliver", actor);
    if (event.kept()) {
      event.object(object_ref(notification.object))
          .with("watch", to_string(notification.type))
          .with("rv", meta(notification.object).resource_version)
          .with("pending", static_cast<std::int64_t>(informer.pending_events()));
    }
    for (const std::string& key : keys_for(watches, kind, notification)) {
      enqueue(context, key, 0, actor);
    }
  }
}

}  // namespace rjsim::engine
