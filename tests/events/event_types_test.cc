// Which event types a reader reads (src/events/event_types.h), and the TeeSink that gives each of
// its sinks only those.
#include "events/event_types.h"

#include <doctest/doctest.h>

#include "events/event.h"

namespace rjsim::events {
namespace event_types_test {
namespace {

TEST_CASE("an entry ending in a dot reads every type it begins, any other entry one type") {
  const EventTypes types = EventTypes::only({"api.", "status.transition"});
  CHECK(types.contains("api.create"));
  CHECK(types.contains("api.update_status"));
  CHECK(types.contains("status.transition"));
  CHECK_FALSE(types.contains("status.transition.more"));
  CHECK_FALSE(types.contains("status"));
  CHECK_FALSE(types.contains("apis.create"));
  CHECK_FALSE(types.contains("cache.read"));
}

TEST_CASE("all reads every type, none reads no type") {
  CHECK(EventTypes::all().contains("cache.read"));
  CHECK(EventTypes::all().is_all());
  CHECK_FALSE(EventTypes::none().contains("cache.read"));
  CHECK(EventTypes::none().is_none());
  CHECK(EventTypes::only({}).is_none());
}

TEST_CASE("the union of readers reads what any of them reads; with all it is all") {
  EventTypes types = EventTypes::only({"choice"});
  types.add(EventTypes::only({"api.", "choice"}));
  CHECK(types == EventTypes::only({"api.", "choice"}));
  CHECK(types.contains("api.delete"));
  types.add(EventTypes::none());
  CHECK(types == EventTypes::only({"choice", "api."}));
  types.add(EventTypes::all());
  CHECK(types.is_all());
  CHECK(types.contains("queue.add"));
}

TEST_CASE("a union of more entries than a list holds reads every type, which is only slower") {
  EventTypes types = EventTypes::only({"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"});
  types.add(EventTypes::only({"b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"}));
  CHECK_FALSE(types.is_all());
  CHECK_FALSE(types.contains("c1"));
  types.add(EventTypes::only({"c1"}));
  CHECK(types.is_all());
  CHECK(types.contains("d1"));
}

TEST_CASE("a reader about some kinds reads its types only about objects of those kinds, or of none") {
  const EventTypes types = EventTypes::only({"api.", "status.transition"}).about({"RayJob", "RayCluster"});
  CHECK(types.contains("api.update", "RayJob/default/demo"));
  CHECK(types.contains("api.create", "RayCluster/default/demo-raycluster-abcde"));
  CHECK_FALSE(types.contains("api.patch_status", "Pod/default/demo-head"));
  CHECK_FALSE(types.contains("api.delete", "Service/default/demo-head-svc"));
  CHECK(types.contains("api.update", ""));   // named later by its emitter: built
  CHECK_FALSE(types.contains("cache.read", "RayJob/default/demo"));
  CHECK(types.about_kind("RayJob"));
  CHECK_FALSE(types.about_kind("Job"));
  // Without about(), and for a reader of every type, any object.
  CHECK(EventTypes::only({"api."}).contains("api.update", "Pod/default/p"));
  CHECK(EventTypes::all().contains("api.update", "Pod/default/p"));
}

TEST_CASE("the union of readers about some kinds is about the kinds of both, or about any") {
  EventTypes rayjobs = EventTypes::only({"api."}).about({"RayJob"});
  rayjobs.add(EventTypes::only({"status.transition"}).about({"RayCluster"}));
  CHECK(rayjobs.contains("api.update", "RayCluster/default/c"));
  CHECK_FALSE(rayjobs.contains("api.update", "Pod/default/p"));
  // A reader of nothing changes nothing; nothing read yet takes the other's kinds.
  rayjobs.add(EventTypes::none());
  CHECK_FALSE(rayjobs.contains("api.update", "Pod/default/p"));
  EventTypes fresh = EventTypes::none();
  fresh.add(EventTypes::only({"api."}).about({"RayJob"}));
  CHECK_FALSE(fresh.contains("api.update", "Pod/default/p"));
  // A reader about any object makes the union about any.
  rayjobs.add(EventTypes::only({"queue.get"}));
  CHECK(rayjobs.contains("api.update", "Pod/default/p"));
  // More kinds than kept: about any (building too many events is only slower).
  EventTypes many = EventTypes::only({"api."}).about({"A", "B", "C", "D", "E", "F"});
  CHECK(many.contains("api.update", "Z/default/z"));
}

class TypedSink final : public EventSink {
 public:
  explicit TypedSink(EventTypes reads) : reads_(std::move(reads)) {}
  void emit(const Event& event) override { received.push_back(event.type); }
  EventTypes reads() const override { return reads_; }
  std::vector<std::string> received;

 private:
  EventTypes reads_;
};

TEST_CASE("a tee gives each sink the events of the types it reads and reads their union") {
  TypedSink transitions(EventTypes::only({"status.transition"}));
  TypedSink writes(EventTypes::only({"api."}));
  MemorySink everything;
  TeeSink tee({&transitions, &writes});
  CHECK(tee.reads() == EventTypes::only({"api.", "status.transition"}));
  for (const char* type : {"cache.read", "api.update", "status.transition"}) {
    Event event;
    event.type = type;
    tee.emit(event);
  }
  CHECK(transitions.received == std::vector<std::string>{"status.transition"});
  CHECK(writes.received == std::vector<std::string>{"api.update"});
  CHECK(TeeSink({&transitions, &everything}).reads().is_all());
}

TEST_CASE("a tee gives a sink about some kinds only the events about them") {
  TypedSink rayjob_writes(EventTypes::only({"api."}).about({"RayJob"}));
  TeeSink tee({&rayjob_writes});
  for (const char* object : {"RayJob/default/demo", "Pod/default/demo-head"}) {
    Event event;
    event.type = "api.update";
    event.object = object;
    tee.emit(event);
  }
  CHECK(rayjob_writes.received == std::vector<std::string>{"api.update"});
}

}  // namespace
}  // namespace event_types_test
}  // namespace rjsim::events

