// Informer rules (kubernetes-semantics §1.1, §1.3, §1.7, §7.3): RealFIFO keeps each kind's cache
// a prefix of its watch log; DeltaFIFO pops all of a key's events at once, keys in first-arrival
// order; the cache holds an event before its notification is handed out; OnUpdate carries the
// old object; a label selector hides objects; lastSyncResourceVersion never goes backwards within
// one incarnation; a relist copies the server state at head or at an older revision (time
// travel). Each test writes to a real ApiServer and feeds its watch log to one informer.
#include "engine/informer.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace informer_test {
namespace {

using rjsim::engine::ApiServer;
using rjsim::engine::FifoBehaviour;
using rjsim::engine::Informer;
using rjsim::engine::Kind;
using rjsim::engine::LabelSelector;
using rjsim::engine::meta;
using rjsim::engine::Notification;
using rjsim::engine::Object;
using rjsim::engine::Pod;
using rjsim::engine::Propagation;
using rjsim::engine::RayJob;
using rjsim::engine::WatchEvent;
using rjsim::engine::WatchType;

constexpr std::string_view kNamespace = "default";
constexpr FifoBehaviour kBothFifos[] = {FifoBehaviour::real_fifo, FifoBehaviour::delta_fifo};

std::string name(FifoBehaviour fifo) {
  return fifo == FifoBehaviour::real_fifo ? "RealFIFO" : "DeltaFIFO";
}

Object pod(std::string_view name, std::string_view namespace_ = kNamespace) {
  Pod typed;
  typed.metadata.name = std::string(name);
  typed.metadata.namespace_ = std::string(namespace_);
  return typed;
}

// Small write helpers: each REQUIREs that the server accepted the write and returns its rv.
std::int64_t create(ApiServer& api, Object object) {
  REQUIRE(!api.create(object, 0).error);
  return meta(object).resource_version;
}

std::int64_t set_label(ApiServer& api, std::string_view pod_name, std::string key,
                       std::string value) {
  const auto outcome = api.patch(
      Kind::Pod, kNamespace, pod_name, [&](Object& o) { meta(o).labels.edit()[key] = value; }, 0);
  REQUIRE(!outcome.error);
  REQUIRE(outcome.changed);
  return outcome.resource_version_after;
}

std::int64_t remove_label(ApiServer& api, std::string_view pod_name, const std::string& key) {
  const auto outcome =
      api.patch(Kind::Pod, kNamespace, pod_name, [&](Object& o) { meta(o).labels.edit().erase(key); }, 0);
  REQUIRE(!outcome.error);
  REQUIRE(outcome.changed);
  return outcome.resource_version_after;
}

std::int64_t set_phase(ApiServer& api, std::string_view pod_name, std::string phase) {
  const auto outcome = api.patch_status(
      Kind::Pod, kNamespace, pod_name, [&](Object& o) { std::get<Pod>(o).status.phase = phase; }, 0);
  REQUIRE(!outcome.error);
  REQUIRE(outcome.changed);
  return outcome.resource_version_after;
}

std::int64_t remove(ApiServer& api, std::string_view pod_name) {
  const auto outcome = api.remove(Kind::Pod, kNamespace, pod_name, Propagation::background, 0);
  REQUIRE(!outcome.error);
  REQUIRE(outcome.watch_type == WatchType::Deleted);
  return outcome.resource_version_after;
}

const Object& stored(const ApiServer& api, std::string_view pod_name) {
  const Object* found = api.find(Kind::Pod, kNamespace, pod_name);
  REQUIRE(found != nullptr);
  return *found;
}

// The kind's server state as of `resource_version`, folded from its watch log independently of
// the informer, in cache order (namespace, then name).
std::vector<Object> state_at(const std::vector<WatchEvent>& log, std::int64_t resource_version) {
  std::map<std::pair<std::string, std::string>, Object> state;
  for (const WatchEvent& event : log) {
    if (event.resource_version > resource_version) break;
    auto key = std::make_pair(meta(event.object).namespace_, meta(event.object).name);
    if (event.type == WatchType::Deleted) {
      state.erase(key);
    } else {
      state.insert_or_assign(std::move(key), *event.object);
    }
  }
  std::vector<Object> objects;
  for (auto& [key, object] : state) objects.push_back(std::move(object));
  return objects;
}

// The objects a cache holds (its versions are shared with the log; == compares contents).
std::vector<Object> contents(const std::vector<rjsim::engine::ObjectVersion>& versions) {
  return std::vector<Object>(versions.begin(), versions.end());
}

std::vector<std::string> names(const std::vector<Notification>& notifications) {
  std::vector<std::string> out;
  for (const Notification& n : notifications) out.push_back(meta(n.object).name);
  return out;
}

std::vector<std::int64_t> resource_versions(const std::vector<Notification>& notifications) {
  std::vector<std::int64_t> out;
  for (const Notification& n : notifications) out.push_back(meta(n.object).resource_version);
  return out;
}

}  // namespace

TEST_SUITE("informer") {

TEST_CASE("RealFIFO: after every pop the cache is the kind's server state at that event's rv") {
  ApiServer api;
  create(api, pod("a"));
  RayJob rayjob;   // another kind's write between this kind's events
  rayjob.metadata.name = "job";
  rayjob.metadata.namespace_ = std::string(kNamespace);
  create(api, rayjob);
  create(api, pod("b"));
  set_label(api, "a", "app", "ray");
  remove(api, "b");
  set_phase(api, "a", "Running");
  create(api, pod("c"));
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  REQUIRE(log.size() == 6);
  Informer informer(Kind::Pod, FifoBehaviour::real_fifo);
  informer.receive(log);

  for (std::size_t i = 0; i < log.size(); ++i) {
    CAPTURE(i);
    REQUIRE(informer.pending_pops(log) == log.size() - i);
    informer.pop(log);
    CHECK(informer.last_sync_resource_version() == log[i].resource_version);
    CHECK(contents(informer.cached()) == state_at(log, log[i].resource_version));
  }
  CHECK(!informer.has_pending(log));
  CHECK(contents(informer.cached()) == std::vector<Object>(api.objects(Kind::Pod).begin(),
                                                 api.objects(Kind::Pod).end()));
}

TEST_CASE("DeltaFIFO applies A1, B1, A2 as A1, A2, B1: one pop applies all of a key's events") {
  ApiServer api;
  const std::int64_t a1 = create(api, pod("a"));
  const std::int64_t b1 = create(api, pod("b"));
  const std::int64_t a2 = set_label(api, "a", "app", "ray");
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  Informer informer(Kind::Pod, FifoBehaviour::delta_fifo);
  informer.receive(log);
  REQUIRE(informer.pending_pops(log) == 2);

  const std::vector<Notification> first = informer.pop(log);

  REQUIRE(first.size() == 2);
  CHECK(first[0].type == WatchType::Added);
  CHECK(first[1].type == WatchType::Modified);
  CHECK(names(first) == std::vector<std::string>{"a", "a"});
  CHECK(resource_versions(first) == std::vector<std::int64_t>{a1, a2});
  // A at A2 without B: a state the server never had (a non-prefix of the log).
  CHECK(contents(informer.cached()) == std::vector<Object>{stored(api, "a")});
  for (const WatchEvent& event : log) {
    CHECK(contents(informer.cached()) != state_at(log, event.resource_version));
  }

  const std::vector<Notification> second = informer.pop(log);
  REQUIRE(second.size() == 1);
  CHECK(second[0].type == WatchType::Added);
  CHECK(names(second) == std::vector<std::string>{"b"});
  CHECK(resource_versions(second) == std::vector<std::int64_t>{b1});
  CHECK(!informer.has_pending(log));
}

TEST_CASE("DeltaFIFO: a key popped and then updated again goes to the back of the queue") {
  ApiServer api;
  create(api, pod("a"));
  create(api, pod("b"));
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  Informer informer(Kind::Pod, FifoBehaviour::delta_fifo);
  informer.receive(log);
  REQUIRE(names(informer.pop(log)) == std::vector<std::string>{"a"});
  const std::int64_t a2 = set_label(api, "a", "app", "ray");

  informer.receive(log);

  CHECK(names(informer.pop(log)) == std::vector<std::string>{"b"});
  const std::vector<Notification> last = informer.pop(log);
  CHECK(names(last) == std::vector<std::string>{"a"});
  CHECK(resource_versions(last) == std::vector<std::int64_t>{a2});
}

TEST_CASE("the cache holds an event's object by the time its notification is handed out") {
  for (FifoBehaviour fifo : kBothFifos) {
    CAPTURE(name(fifo));
    ApiServer api;
    create(api, pod("a"));
    set_label(api, "a", "app", "ray");
    create(api, pod("b"));
    remove(api, "b");
    const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
    Informer informer(Kind::Pod, fifo);
    informer.receive(log);
    std::size_t notified = 0;

    while (informer.has_pending(log)) {
      const std::vector<Notification> notifications = informer.pop(log);
      REQUIRE(!notifications.empty());
      // The last notification of a pop is of the newest event applied for its key.
      const Notification& newest = notifications.back();
      const Object* cached = informer.get(meta(newest.object).namespace_, meta(newest.object).name);
      if (newest.type == WatchType::Deleted) {
        CHECK(cached == nullptr);
      } else {
        REQUIRE(cached != nullptr);
        CHECK(*cached == newest.object);
      }
      notified += notifications.size();
    }
    CHECK(notified == log.size());
  }
}

TEST_CASE("OnUpdate carries the old object and the new one") {
  ApiServer api;
  create(api, pod("a"));
  const Object before = stored(api, "a");
  set_phase(api, "a", "Running");
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  Informer informer(Kind::Pod, FifoBehaviour::real_fifo);
  informer.receive(log);
  informer.pop(log);
  REQUIRE(informer.has_pending(log));

  const std::vector<Notification> notifications = informer.pop(log);

  REQUIRE(notifications.size() == 1);
  CHECK(notifications[0].type == WatchType::Modified);
  REQUIRE(notifications[0].old_object.has_value());
  CHECK(*notifications[0].old_object == before);
  CHECK(notifications[0].object == stored(api, "a"));
}

TEST_CASE("a delete gives a Deleted notification and removes the key from the cache") {
  for (FifoBehaviour fifo : kBothFifos) {
    CAPTURE(name(fifo));
    ApiServer api;
    create(api, pod("a"));
    create(api, pod("b"));
    const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
    Informer informer(Kind::Pod, fifo);
    informer.receive(log);
    informer.pop(log);
    informer.pop(log);
    REQUIRE(informer.get(kNamespace, "a") != nullptr);
    const std::int64_t deleted_at = remove(api, "a");
    informer.receive(log);

    const std::vector<Notification> notifications = informer.pop(log);

    REQUIRE(notifications.size() == 1);
    CHECK(notifications[0].type == WatchType::Deleted);
    CHECK(meta(notifications[0].object).name == "a");
    CHECK(meta(notifications[0].object).resource_version == deleted_at);
    CHECK(informer.get(kNamespace, "a") == nullptr);
    CHECK(informer.get(kNamespace, "b") != nullptr);
  }
}

TEST_CASE("within one incarnation last_sync_resource_version never decreases") {
  for (FifoBehaviour fifo : kBothFifos) {
    CAPTURE(name(fifo));
    ApiServer api;
    // A1, B1, A2, C1, B2: DeltaFIFO applies A's rv 3 before B's rv 2.
    create(api, pod("a"));
    create(api, pod("b"));
    set_label(api, "a", "app", "ray");
    create(api, pod("c"));
    set_phase(api, "b", "Running");
    const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
    Informer informer(Kind::Pod, fifo);
    informer.receive(log);
    std::int64_t previous = informer.last_sync_resource_version();

    while (informer.has_pending(log)) {
      informer.pop(log);
      CHECK(informer.last_sync_resource_version() >= previous);
      previous = informer.last_sync_resource_version();
    }
    CHECK(previous == api.resource_version());
  }
}

TEST_CASE("a label selector hides objects that do not match") {
  ApiServer api;
  Object labelled = pod("a");
  meta(labelled).labels.edit()["app"] = "ray";
  create(api, labelled);
  create(api, pod("b"));
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  Informer informer(Kind::Pod, FifoBehaviour::real_fifo, LabelSelector{"app", {"ray"}});
  informer.receive(log);

  CHECK(names(informer.pop(log)) == std::vector<std::string>{"a"});
  CHECK(informer.pop(log).empty());   // b: no notification
  CHECK(informer.get(kNamespace, "a") != nullptr);
  CHECK(informer.get(kNamespace, "b") == nullptr);
  CHECK(informer.cached().size() == 1);
}

TEST_CASE("an object that loses the selected label reads as deleted; one that gains it, as added") {
  ApiServer api;
  Object labelled = pod("a");
  meta(labelled).labels.edit()["app"] = "ray";
  create(api, labelled);
  create(api, pod("b"));
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  Informer informer(Kind::Pod, FifoBehaviour::real_fifo, LabelSelector{"app", {"ray"}});
  informer.receive(log);
  informer.pop(log);
  informer.pop(log);
  const std::int64_t left_at = remove_label(api, "a", "app");
  set_label(api, "b", "app", "ray");
  informer.receive(log);

  const std::vector<Notification> lost = informer.pop(log);
  const std::vector<Notification> gained = informer.pop(log);

  REQUIRE(lost.size() == 1);
  CHECK(lost[0].type == WatchType::Deleted);
  CHECK(meta(lost[0].object).name == "a");
  // The previous content (still labelled), stamped with the event's resourceVersion.
  CHECK(meta(lost[0].object).labels->count("app") == 1);
  CHECK(meta(lost[0].object).resource_version == left_at);
  CHECK(informer.get(kNamespace, "a") == nullptr);
  REQUIRE(gained.size() == 1);
  CHECK(gained[0].type == WatchType::Added);
  CHECK(meta(gained[0].object).name == "b");
  CHECK(informer.get(kNamespace, "b") != nullptr);
  CHECK(api.find(Kind::Pod, kNamespace, "a") != nullptr);   // still on the server
}

// The server filters a selector's watch (§1.7): an event is sent when the selector selects the
// object before or after the write, so the reflector never receives the others, and they neither
// wait to be applied nor count toward the informer's lag.
TEST_CASE("a selector watch sends only events whose object the selector selects before or after the write") {
  ApiServer api;
  const LabelSelector selector{"ray.io/node-type", {"head", "worker"}};
  api.watch_with_selector(Kind::Pod, selector);
  Object submitter = pod("submitter");   // no node-type: never sent
  REQUIRE(!api.create(submitter, 10).error);
  Informer informer(Kind::Pod, FifoBehaviour::real_fifo, selector);
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);

  CHECK_FALSE(informer.has_pending(log));
  CHECK_FALSE(informer.oldest_unapplied_written_at(log).has_value());

  Object worker = pod("worker");
  meta(worker).labels.edit()["ray.io/node-type"] = "worker";
  REQUIRE(!api.create(worker, 20).error);
  Object second_submitter = pod("submitter-2");
  REQUIRE(!api.create(second_submitter, 30).error);
  CHECK(informer.has_pending(log));
  CHECK(informer.oldest_unapplied_written_at(log) == 20);   // the worker's write, not the submitter's
  informer.receive(log);
  CHECK(informer.pending_events() == 1);
  CHECK(names(informer.pop(log)) == std::vector<std::string>{"worker"});
  CHECK_FALSE(informer.has_pending(log));

  remove_label(api, "worker", "ray.io/node-type");   // leaves the selector: sent once, as a delete
  set_phase(api, "worker", "Running");               // outside it: not sent
  informer.receive(log);
  CHECK(informer.pending_events() == 1);
  const std::vector<Notification> left = informer.pop(log);
  REQUIRE(left.size() == 1);
  CHECK(left[0].type == WatchType::Deleted);
  CHECK_FALSE(informer.has_pending(log));
  CHECK(informer.cached().empty());

  set_label(api, "worker", "ray.io/node-type", "head");   // back in: sent, as an add
  informer.receive(log);
  const std::vector<Notification> back = informer.pop(log);
  REQUIRE(back.size() == 1);
  CHECK(back[0].type == WatchType::Added);
  CHECK(informer.get(kNamespace, "worker") != nullptr);
}

TEST_CASE("a relist at an older rv under a selector watch folds only the events the watch sends") {
  ApiServer api;
  const LabelSelector selector{"app", {"ray"}};
  api.watch_with_selector(Kind::Pod, selector);
  Object labelled = pod("a");
  meta(labelled).labels.edit()["app"] = "ray";
  const std::int64_t a_created = create(api, labelled);
  create(api, pod("b"));
  create(api, pod("c"));
  Informer informer(Kind::Pod, FifoBehaviour::delta_fifo, selector);

  const std::vector<Notification> listed = informer.relist(api, a_created + 1);

  CHECK(names(listed) == std::vector<std::string>{"a"});
  CHECK(informer.last_sync_resource_version() == a_created + 1);
  CHECK_FALSE(informer.has_pending(api.watch_log(Kind::Pod)));   // c is not sent either
}

TEST_CASE("a relist at head copies the server state and notifies one Added per object in key "
          "order") {
  ApiServer api;
  create(api, pod("z", "ns-a"));
  create(api, pod("b", "ns-b"));
  create(api, pod("a", "ns-b"));
  create(api, pod("gone", "ns-b"));
  REQUIRE(api.remove(Kind::Pod, "ns-b", "gone", Propagation::background, 0).watch_type ==
          WatchType::Deleted);
  REQUIRE(!api.patch_status(Kind::Pod, "ns-a", "z",
                            [](Object& o) { std::get<Pod>(o).status.phase = "Running"; }, 0)
               .error);
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  Informer informer(Kind::Pod, FifoBehaviour::real_fifo);
  informer.receive(log);
  informer.pop(log);   // a stale cache that the relist replaces

  const std::vector<Notification> listed = informer.relist(api, api.resource_version());

  const std::vector<Object> truth(api.objects(Kind::Pod).begin(), api.objects(Kind::Pod).end());
  CHECK(contents(informer.cached()) == truth);
  REQUIRE(listed.size() == 3);
  for (std::size_t i = 0; i < listed.size(); ++i) {
    CAPTURE(i);
    CHECK(listed[i].type == WatchType::Added);
    CHECK(!listed[i].old_object.has_value());
    CHECK(listed[i].object == truth[i]);
  }
  CHECK(names(listed) == std::vector<std::string>{"z", "a", "b"});   // ns-a/z, ns-b/a, ns-b/b
  CHECK(informer.last_sync_resource_version() == api.resource_version());
  CHECK(!informer.has_pending(log));
}

TEST_CASE("a relist at an older rv yields that older state and leaves later events pending") {
  ApiServer api;
  create(api, pod("a"));
  const std::int64_t snapshot = create(api, pod("b"));
  set_label(api, "a", "app", "ray");
  remove(api, "b");
  const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
  Informer informer(Kind::Pod, FifoBehaviour::real_fifo);
  informer.receive(log);
  while (informer.has_pending(log)) informer.pop(log);   // the previous incarnation saw it all

  const std::vector<Notification> listed = informer.relist(api, snapshot);

  CHECK(contents(informer.cached()) == state_at(log, snapshot));
  CHECK(names(listed) == std::vector<std::string>{"a", "b"});
  CHECK(informer.last_sync_resource_version() == snapshot);
  REQUIRE(informer.has_pending(log));
  // The later events are still delivered, in order, from there.
  informer.receive(log);
  REQUIRE(informer.pending_events() == 2);
  const std::vector<Notification> next = informer.pop(log);
  REQUIRE(next.size() == 1);
  CHECK(next[0].type == WatchType::Modified);
  CHECK(meta(next[0].object).name == "a");
  informer.pop(log);
  CHECK(contents(informer.cached()) == state_at(log, api.resource_version()));
}

}  // TEST_SUITE

TEST_CASE("a read finds every cached object by its key and nothing else, after random creates, deletes, label "
          "changes, relists and copies") {
  // The cache is indexed by key (key_index.h); a linear search of cached() is what a read must
  // agree with. A failure names the seed.
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    ApiServer api;
    const std::string namespaces[] = {"default", "team-b"};
    const auto key = [&] {
      return std::pair<std::string, std::string>{namespaces[random() % 2], "pod-" + std::to_string(random() % 12)};
    };
    Informer informer(Kind::Pod, kBothFifos[seed % 2], seed % 3 == 0 ? LabelSelector{"app", {"ray"}} : LabelSelector{});
    std::vector<Informer> copies;
    for (int step = 0; step < 200; ++step) {
      const auto [namespace_, pod_name] = key();
      switch (random() % 6) {
        case 0:
        case 1: {
          Object object = pod(pod_name, namespace_);
          if (random() % 2 == 0) meta(object).labels.edit()["app"] = "ray";
          (void)api.create(object, 0);
          break;
        }
        case 2: (void)api.remove(Kind::Pod, namespace_, pod_name, Propagation::background, 0); break;
        case 3: {
          const std::string value = random() % 2 == 0 ? "ray" : "other";
          (void)api.patch(Kind::Pod, namespace_, pod_name, [&](Object& o) { meta(o).labels.edit()["app"] = value; }, 0);
          break;
        }
        case 4:
          if (random() % 8 == 0) {
            (void)informer.relist(api, random() % 2 == 0 ? api.resource_version() : api.resource_version() / 2);
          }
          break;
        default:
          if (random() % 4 == 0) copies.push_back(informer);   // a copy shares the index until it changes
          if (!copies.empty() && random() % 6 == 0) informer = copies[random() % copies.size()];
          break;
      }
      const std::vector<WatchEvent>& log = api.watch_log(Kind::Pod);
      informer.receive(log);
      while (informer.pending_pops(log) > 0 && random() % 3 != 0) informer.pop(log);
      for (const std::string& namespace_name : namespaces) {
        for (int n = 0; n < 12; ++n) {
          const std::string wanted = "pod-" + std::to_string(n);
          const Object* expected = nullptr;
          for (const auto& cached : informer.cached()) {
            if (meta(*cached).name == wanted && meta(*cached).namespace_ == namespace_name) expected = &*cached;
          }
          CAPTURE(step);
          REQUIRE(informer.get(namespace_name, wanted) == expected);
        }
      }
    }
  }
}

}  // namespace informer_test
