// WorkOnce (actor.h): an actor whose one step does the work of a whole group (a cluster's Pods)
// lists that work once per group, in the order the groups first came, however many groups it
// lists: searched among few works, looked up by hash among many, and told apart from works of
// another name on the same group and from works listed before it began.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/actor.h"

namespace work_once_test {
namespace {

using rjsim::engine::ActorWork;
using rjsim::engine::SharedString;
using rjsim::engine::WorkOnce;

constexpr std::string_view kStart = "start";
constexpr std::string_view kStop = "stop";

// What WorkOnce must list: each (what, group) once, at its first occurrence.
std::vector<ActorWork> first_occurrences(const std::vector<std::pair<std::string_view, std::string>>& asked) {
  std::vector<ActorWork> out;
  for (const auto& [what, group] : asked) {
    bool listed = false;
    for (const ActorWork& work : out) listed = listed || (work.what == what && work.object.str() == group);
    if (!listed) out.push_back({what, SharedString(group), 0});
  }
  return out;
}

TEST_CASE("WorkOnce lists each work once, in first-come order, for few groups and for hundreds") {
  for (const int groups : {1, 5, 16, 17, 40, 300}) {
    for (std::uint32_t seed = 1; seed <= 5; ++seed) {
      CAPTURE(groups);
      CAPTURE(seed);
      std::mt19937 random(seed);
      std::vector<std::pair<std::string_view, std::string>> asked;
      for (int i = 0; i < groups * 3; ++i) {
        asked.emplace_back(random() % 4 ? kStart : kStop, "Cluster/default/group-" + std::to_string(random() % groups));
      }
      std::vector<ActorWork> out;
      WorkOnce once(out);
      // Half as texts, half as shared strings: both name the same group.
      for (std::size_t i = 0; i < asked.size(); ++i) {
        if (i % 2) once.add(asked[i].first, asked[i].second);
        else once.add(asked[i].first, SharedString(asked[i].second));
      }
      CHECK(out == first_occurrences(asked));
    }
  }
}

TEST_CASE("WorkOnce leaves the works listed before it alone and does not count them as its own") {
  std::vector<ActorWork> out = {{kStart, SharedString("Cluster/default/a"), 0}};
  WorkOnce once(out);
  once.add(kStart, std::string("Cluster/default/a"));
  for (int i = 0; i < 30; ++i) once.add(kStart, "Cluster/default/g-" + std::to_string(i % 20));
  REQUIRE(out.size() == 22);   // the earlier work, a again, and 20 groups
  CHECK(out[1].object.str() == "Cluster/default/a");
  CHECK(out.back().object.str() == "Cluster/default/g-19");
}

}  // namespace
}  // namespace work_once_test
