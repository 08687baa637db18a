// The API server's Pod indexes (label_index.h): after any sequence of creates, relabels, owner
// changes and deletes, the Pods it finds by ray.io/cluster label and by controller owner are
// exactly those a walk of the store finds, in store order; and a copy of a server changes its own
// indexes only. Random sequences come from a seeded generator: a failure names the seed.
#include "engine/label_index.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/api_server.h"

namespace label_index_test {
namespace {

using namespace rjsim::engine;

const std::vector<std::string> kNamespaces = {"default", "team"};
const std::vector<std::string> kClusters = {"a", "b", "a-b"};
const std::vector<std::string> kOwners = {"uid-1", "uid-2"};

Object pod(const std::string& namespace_, const std::string& name, const std::string& cluster,
           const std::string& owner_uid) {
  Pod typed;
  typed.metadata.name = name;
  typed.metadata.namespace_ = namespace_;
  if (!cluster.empty()) typed.metadata.labels.edit()[std::string(kRayClusterLabel)] = cluster;
  if (!owner_uid.empty()) {
    typed.metadata.owner_references.edit().push_back(OwnerReference{"batch/v1", Kind::Job, "job", owner_uid, true, true});
  }
  return typed;
}

// What the indexes must give: a walk of the store.
std::vector<const ObjectVersion*> walk(const ApiServer& api, const std::string& namespace_, const std::string& cluster,
                                       const std::string& owner_uid) {
  std::vector<const ObjectVersion*> out;
  for (const ObjectVersion& version : api.objects(Kind::Pod)) {
    const ObjectMeta& m = meta(*version);
    if (m.namespace_ != namespace_) continue;
    if (!cluster.empty()) {
      const auto label = m.labels->find(kRayClusterLabel);
      if (label != m.labels->end() && label->second == cluster) out.push_back(&version);
    } else {
      const OwnerReference* owner = controller_owner(m);
      if (owner && owner->uid == owner_uid) out.push_back(&version);
    }
  }
  return out;
}

void check_indexes(const ApiServer& api) {
  for (const std::string& namespace_ : kNamespaces) {
    for (const std::string& cluster : kClusters) {
      CHECK(api.labelled(Kind::Pod, namespace_, kRayClusterLabel, cluster) == walk(api, namespace_, cluster, ""));
    }
    for (const std::string& owner : kOwners) {
      CHECK(api.controlled_by(Kind::Pod, namespace_, owner) == walk(api, namespace_, "", owner));
    }
  }
}

template <class Items>
const std::string& pick(std::mt19937_64& random, const Items& items) {
  return items[random() % items.size()];
}

TEST_CASE("the Pod indexes agree with a walk of the store after random creates, relabels and deletes") {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 random(seed);
    ApiServer api;
    ApiServer copy;
    for (int step = 0; step < 60; ++step) {
      const std::string namespace_ = pick(random, kNamespaces);
      const std::string name = "pod-" + std::to_string(random() % 12);
      const std::string cluster = random() % 4 == 0 ? "" : pick(random, kClusters);
      const std::string owner = random() % 3 == 0 ? "" : pick(random, kOwners);
      switch (random() % 3) {
        case 0: {
          Object object = pod(namespace_, name, cluster, owner);
          api.create(object, step);   // AlreadyExists when taken: nothing changes
          break;
        }
        case 1:
          api.patch(Kind::Pod, namespace_, name, [&](Object& object) {
            Object relabelled = pod(namespace_, name, cluster, owner);
            meta(object).labels = meta(relabelled).labels;
            meta(object).owner_references = meta(relabelled).owner_references;
          }, step);
          break;
        default:
          api.remove(Kind::Pod, namespace_, name, Propagation::background, step);
      }
      check_indexes(api);
      if (step == 30) copy = api;   // from here on the copy must keep its own answers
    }
    check_indexes(copy);
  }
}

TEST_CASE("a lookup by label finds only that value, also among names that share a prefix") {
  ApiServer api;
  for (const auto& [name, cluster] : {std::pair{"a-head", "a"}, std::pair{"a-b-head", "a-b"}, std::pair{"a-worker", "a"}}) {
    Object object = pod("default", name, cluster, "");
    REQUIRE(!api.create(object, 0).error);
  }
  const std::vector<const ObjectVersion*> of_a = api.labelled(Kind::Pod, "default", kRayClusterLabel, "a");
  REQUIRE(of_a.size() == 2);
  CHECK(meta(**of_a[0]).name == "a-head");
  CHECK(meta(**of_a[1]).name == "a-worker");
  CHECK(api.labelled(Kind::Pod, "team", kRayClusterLabel, "a").empty());
}

}  // namespace
}  // namespace label_index_test
