// The plumbing between informers and the work queue inside the controller process: applying a
// pop of a kind's informer, mapping each handler notification to keys (For gives the object's
// own key; Owns gives its controller owner's key, for the old and the new object on update;
// kubernetes-semantics §2.3), and adding them to the queue. Used by delivery steps and by cache
// reads that advance an informer in the middle of a reconcile.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/controller.h"
#include "engine/step_context.h"

namespace rjsim::engine {

// The keys a notification of `kind` enqueues; empty when no handler is interested.
std::vector<std::string> keys_for(const Watches& watches, Kind kind, const Notification& notification);

// Adds `key` to the process's queue now and logs what the add did (queue.add, queue.squash).
void enqueue(StepContext& context, const std::string& key, int priority, std::string_view cause);

// Lets the kind's informer receive what the server has appended to the kind's log.
void receive_watch_events(World& world, Kind kind);

// Applies the next pop of the kind's informer (watch.deliver events) and runs the handlers.
void deliver_one(StepContext& context, const Watches& watches, Kind kind);

}  // namespace rjsim::engine
