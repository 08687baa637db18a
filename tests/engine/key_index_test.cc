// The API server's lookup by key (key_index.h): after any sequence of creates and deletes, every
// object it holds is found at its own place in the kind's ordered store, and none it dropped is;
// keys that share a hash are told apart; and a copy of a server changes its own index only.
// Random sequences come from a seeded
// generator: a failure names the seed.
#include "engine/key_index.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/api_server.h"

namespace key_index_test {
namespace {

using rjsim::engine::ApiServer;
using rjsim::engine::KeyIndex;
using rjsim::engine::Kind;
using rjsim::engine::meta;
using rjsim::engine::Object;
using rjsim::engine::Pod;
using rjsim::engine::Propagation;

Object pod(const std::string& namespace_, const std::string& name) {
  Pod typed;
  typed.metadata.name = name;
  typed.metadata.namespace_ = namespace_;
  return typed;
}

void create(ApiServer& api, const std::string& namespace_, const std::string& name) {
  Object object = pod(namespace_, name);
  REQUIRE(!api.create(object, 1'000).error);
}

// Every key of `held` is found at its place in the store, and the store holds nothing else.
void check_lookups(const ApiServer& api, const std::set<std::pair<std::string, std::string>>& held,
                   const std::vector<std::pair<std::string, std::string>>& dropped) {
  REQUIRE(api.objects(Kind::Pod).size() == held.size());
  for (const auto& [namespace_, name] : held) {
    const auto* found = api.find_version(Kind::Pod, namespace_, name);
    REQUIRE(found != nullptr);
    CHECK(meta(**found).name == name);
    CHECK(meta(**found).namespace_ == namespace_);
    const auto objects = api.objects(Kind::Pod);
    CHECK((found >= objects.data() && found < objects.data() + objects.size()));
  }
  for (const auto& [namespace_, name] : dropped) {
    if (held.count({namespace_, name}) == 0) CHECK(api.find(Kind::Pod, namespace_, name) == nullptr);
  }
}

}  // namespace

TEST_SUITE("key index") {

TEST_CASE("every object the server holds is found at its own place after random creates and deletes") {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    ApiServer api;
    std::set<std::pair<std::string, std::string>> held;
    std::vector<std::pair<std::string, std::string>> dropped;
    for (int operation = 0; operation < 120; ++operation) {
      const std::string namespace_ = random() % 4 == 0 ? "team-b" : "default";
      const std::string name = "rayjob-" + std::to_string(random() % 40) + "-raycluster-head";
      if (held.count({namespace_, name}) != 0) {
        REQUIRE(!api.remove(Kind::Pod, namespace_, name, Propagation::background, 2'000).error);
        held.erase({namespace_, name});
        dropped.emplace_back(namespace_, name);
      } else {
        create(api, namespace_, name);
        held.insert({namespace_, name});
      }
    }
    check_lookups(api, held, dropped);
    // The store stays ordered by namespace, then name: listing depends on it.
    const auto objects = api.objects(Kind::Pod);
    CHECK(std::is_sorted(objects.begin(), objects.end(), [](const Object& a, const Object& b) {
      return std::pair(meta(a).namespace_, meta(a).name) < std::pair(meta(b).namespace_, meta(b).name);
    }));
  }
}

TEST_CASE("a name in two namespaces is two keys: the lookup compares the whole key, not the hash") {
  ApiServer api;
  create(api, "default", "shared-name");
  create(api, "team-b", "shared-name");
  CHECK(KeyIndex::hash_key("default", "shared-name") == KeyIndex::hash_key("team-b", "shared-name"));
  const auto* in_default = api.find_version(Kind::Pod, "default", "shared-name");
  const auto* in_team_b = api.find_version(Kind::Pod, "team-b", "shared-name");
  REQUIRE(in_default != nullptr);
  REQUIRE(in_team_b != nullptr);
  CHECK(meta(**in_default).namespace_ == "default");
  CHECK(meta(**in_team_b).namespace_ == "team-b");
  CHECK(api.find(Kind::Pod, "team-c", "shared-name") == nullptr);
}

TEST_CASE("the index follows places: inserts and erases move the later places, lookups confirm through matches") {
  KeyIndex index;
  std::vector<std::string> keys;   // what a store would hold, in order
  const auto insert = [&](std::size_t place, const std::string& key) {
    keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(place), key);
    index.inserted(place, KeyIndex::hash_key("default", key));
  };
  const auto place_of = [&](const std::string& key) {
    return index.find(KeyIndex::hash_key("default", key), [&](std::size_t at) { return keys[at] == key; });
  };
  for (int i = 0; i < 40; ++i) insert(keys.size() / 2, "key-" + std::to_string(i));   // past a table's growth
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(place_of(keys[i]) == i);
  index.erased(3);
  keys.erase(keys.begin() + 3);
  CHECK(index.size() == keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(place_of(keys[i]) == i);
  CHECK_FALSE(place_of("absent").has_value());
}

// Hashes of eight values put every key on one probe run, which wraps past the table's end: an erase must leave every other key reachable (linear probing cannot simply empty a slot).
TEST_CASE("random inserts and erases of colliding hashes leave every key at its place and the erased ones gone") {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    KeyIndex index;
    std::vector<std::pair<int, std::uint64_t>> held;   // (key, hash) in store order
    std::vector<std::pair<int, std::uint64_t>> gone;
    for (int key = 0; key < 200; ++key) {
      if (!held.empty() && random() % 3 == 0) {
        const std::size_t place = random() % held.size();
        gone.push_back(held[place]);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(place));
        index.erased(place);
      } else {
        const std::size_t place = random() % (held.size() + 1);
        // Homes at the last four slots of the table and its first four, whatever its size.
        const std::uint64_t hash = (std::uint64_t{1} << 40) - 4 + random() % 8;
        held.insert(held.begin() + static_cast<std::ptrdiff_t>(place), {key, hash});
        index.inserted(place, hash);
      }
      REQUIRE(index.size() == held.size());
      for (std::size_t place = 0; place < held.size(); ++place) {
        const int wanted = held[place].first;
        CHECK(index.find(held[place].second, [&](std::size_t at) { return held[at].first == wanted; }) == place);
      }
      for (const std::pair<int, std::uint64_t>& erased : gone) {
        CHECK_FALSE(index.find(erased.second, [&](std::size_t at) { return held[at].first == erased.first; }).has_value());
      }
    }
  }
}

TEST_CASE("assign holds exactly the listed keys, each at its place, and later inserts move them as usual") {
  KeyIndex index;
  index.inserted(0, KeyIndex::hash_key("default", "gone"));   // replaced by the assignment
  std::vector<std::string> keys;
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < 40; ++i) {
    keys.push_back("key-" + std::to_string(i));
    hashes.push_back(KeyIndex::hash_key("default", keys.back()));
  }
  index.assign(hashes);
  const auto place_of = [&](const std::string& key) {
    return index.find(KeyIndex::hash_key("default", key), [&](std::size_t at) { return keys[at] == key; });
  };
  CHECK(index.size() == keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(place_of(keys[i]) == i);
  CHECK_FALSE(place_of("gone").has_value());
  keys.insert(keys.begin(), "first");
  index.inserted(0, KeyIndex::hash_key("default", "first"));
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(place_of(keys[i]) == i);
}

TEST_CASE("a copy's creates and deletes move its own index, not the index of the server it was copied from") {
  ApiServer original;
  for (int i = 0; i < 20; ++i) create(original, "default", "pod-" + std::to_string(i));
  const std::string uid_before = meta(*original.find(Kind::Pod, "default", "pod-7")).uid;
  ApiServer copy = original;
  REQUIRE(!copy.remove(Kind::Pod, "default", "pod-3", Propagation::background, 2'000).error);
  REQUIRE(!copy.remove(Kind::Pod, "default", "pod-7", Propagation::background, 2'000).error);
  create(copy, "default", "pod-7");
  create(copy, "default", "pod-20");
  CHECK(meta(*copy.find(Kind::Pod, "default", "pod-7")).uid != uid_before);
  CHECK(copy.find(Kind::Pod, "default", "pod-3") == nullptr);
  // The original still finds each of its objects, at its own places.
  std::set<std::pair<std::string, std::string>> held;
  for (int i = 0; i < 20; ++i) held.insert({"default", "pod-" + std::to_string(i)});
  check_lookups(original, held, {{"default", "pod-20"}});
  CHECK(meta(*original.find(Kind::Pod, "default", "pod-7")).uid == uid_before);
}

}  // TEST_SUITE

}  // namespace key_index_test
