// A reader that follows a kind's watch log (watch_log_mark.h, followed_answers.h) learns exactly
// which objects changed since its mark, and nothing from a log that went another way (a fork, a
// return to a snapshot, another run): its kept answers are always those a walk of every object
// gives, in store order. Random sequences come from a seeded generator: a failure names the seed.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/api_server.h"
#include "engine/followed_answers.h"
#include "engine/watch_log_mark.h"

namespace followed_answers_test {

namespace {

using namespace rjsim::engine;

constexpr std::string_view kNamespace = "default";

void create_service(ApiServer& api, const std::string& name, const std::string& namespace_ = "default") {
  Service service;
  service.metadata.name = name;
  service.metadata.namespace_ = namespace_;
  Object object = std::move(service);
  api.create(object, 0);
}

void label(ApiServer& api, const std::string& name, const std::string& value, const std::string& namespace_ = "default") {
  api.patch(Kind::Service, namespace_, name,
            [&](Object& object) { meta(object).labels.edit()["pick"] = value; }, 0);
}

// The answer a test reader keeps: the Service's label `pick`, for Services labelled "yes" only.
struct Picked {
  std::string name;
};
bool pick(const ObjectVersion& object, Picked& answer) {
  const ObjectMeta& m = meta(*object);
  const auto found = m.labels->find("pick");
  if (found == m.labels->end() || found->second != "yes") return false;
  answer.name = m.namespace_ + "/" + m.name;
  return true;
}

// What a walk of every Service picks, in store order.
std::vector<std::string> walk(const ApiServer& api) {
  std::vector<std::string> names;
  for (const ObjectVersion& object : api.objects(Kind::Service)) {
    Picked answer;
    if (pick(object, answer)) names.push_back(answer.name);
  }
  return names;
}

std::vector<std::string> kept_names(const FollowedAnswers<Picked>& followed) {
  std::vector<std::string> names;
  for (const auto& entry : followed.kept()) names.push_back(entry.answer.name);
  return names;
}

}  // namespace

TEST_CASE("a watch log mark gives the events after it, and nothing from a log that went another way") {
  ApiServer api;
  WatchLogMark mark;
  CHECK_FALSE(mark.events_since(api.watch_log(Kind::Service)).has_value());   // no mark yet

  mark.take(api.watch_log(Kind::Service));   // an empty log: continued by every log
  create_service(api, "a");
  create_service(api, "b");
  REQUIRE(mark.events_since(api.watch_log(Kind::Service)).has_value());
  CHECK(mark.events_since(api.watch_log(Kind::Service))->size() == 2);

  mark.take(api.watch_log(Kind::Service));
  CHECK(mark.at_end_of(api.watch_log(Kind::Service)));
  const ApiServer fork = api;   // a snapshot
  label(api, "a", "yes");
  const auto since = mark.events_since(api.watch_log(Kind::Service));
  REQUIRE(since.has_value());
  REQUIRE(since->size() == 1);
  CHECK((*since)[0].key_hash == KeyIndex::hash_key("default", "a"));
  CHECK_FALSE(mark.at_end_of(api.watch_log(Kind::Service)));

  // The snapshot goes another way, to a log of the same length: its last event is not the mark's.
  ApiServer other = fork;
  label(other, "b", "yes");
  mark.take(api.watch_log(Kind::Service));
  CHECK(other.watch_log(Kind::Service).size() == api.watch_log(Kind::Service).size());
  CHECK_FALSE(mark.events_since(other.watch_log(Kind::Service)).has_value());
  CHECK_FALSE(mark.at_end_of(other.watch_log(Kind::Service)));
  // A log shorter than the mark (a return to the snapshot) gives nothing either.
  CHECK_FALSE(mark.events_since(fork.watch_log(Kind::Service)).has_value());
}

TEST_CASE("the serial that tells logs apart takes no part in a server's value") {
  ApiServer first;
  ApiServer second;
  create_service(first, "a");
  create_service(second, "a");
  CHECK(first.watch_log(Kind::Service)[0].write_serial != second.watch_log(Kind::Service)[0].write_serial);
  CHECK(first == second);
}

TEST_CASE("followed answers are those a walk of every object gives, across writes and returns to earlier "
          "servers") {
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  const std::vector<std::string> namespaces = {"default", "other"};
  std::size_t picked = 0;
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    FollowedAnswers<Picked> followed;
    ApiServer api;
    std::vector<ApiServer> snapshots;
    for (int step = 0; step < 200; ++step) {
      CAPTURE(step);
      if (random() % 20 == 0) snapshots.push_back(api);
      if (!snapshots.empty() && random() % 30 == 0) api = snapshots[random() % snapshots.size()];
      const std::string& name = names[random() % names.size()];
      const std::string& namespace_ = namespaces[random() % namespaces.size()];
      const unsigned writes = random() % 3;   // none now and then: a listing with no write since
      for (unsigned write = 0; write < writes; ++write) {
        switch (random() % 4) {
          case 0: create_service(api, name, namespace_); break;
          case 1: api.remove(Kind::Service, namespace_, name, Propagation::background, 0); break;
          default: label(api, name, random() % 2 == 0 ? "yes" : "no", namespace_); break;
        }
      }
      followed.follow(api, Kind::Service, /*afresh=*/random() % 50 == 0, pick);
      REQUIRE(kept_names(followed) == walk(api));
      picked += followed.kept().size();
    }
  }
  CHECK(picked > 1'000);   // the sequences do pick Services
}

TEST_CASE("following the log asks again only about the objects written since") {
  ApiServer api;
  for (const char* name : {"a", "b", "c", "d"}) create_service(api, name);
  FollowedAnswers<Picked> followed;
  followed.follow(api, Kind::Service, false, pick);
  CHECK(followed.computed() == 4);
  followed.follow(api, Kind::Service, false, pick);   // no write since
  CHECK(followed.computed() == 4);
  label(api, "c", "yes");
  label(api, "c", "no");
  label(api, "b", "yes");
  followed.follow(api, Kind::Service, false, pick);
  CHECK(followed.computed() == 6);   // c once, b once
  CHECK(kept_names(followed) == std::vector<std::string>{"default/b"});
  api.remove(Kind::Service, kNamespace, "b", Propagation::background, 0);
  followed.follow(api, Kind::Service, false, pick);
  CHECK(followed.computed() == 6);   // b is gone: nothing to ask
  CHECK(followed.kept().empty());
  followed.follow(api, Kind::Service, true, pick);   // afresh: every object
  CHECK(followed.computed() == 9);
}

}  // namespace followed_answers_test
