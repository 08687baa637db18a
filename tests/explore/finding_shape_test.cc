// The shape of a counterexample: departures only, names and times abstracted, repeats said once.
#include "explore/finding_shape.h"

#include <doctest/doctest.h>

namespace rjsim::explore {
namespace {

events::Event choice(std::string_view point, std::int64_t picked, std::string_view field, std::string_view text) {
  events::Event event;
  event.type = "choice";
  event.actor = "chooser";
  event.with("point", point).with("options", 3).with("picked", picked).with(field, text);
  return event;
}

TEST_CASE("abstract_label keeps kinds and drops names, namespaces and numbers") {
  CHECK(abstract_label("action.patch RayJob/default/rayjob-sample") == "action.patch RayJob");
  CHECK(abstract_label("update RayCluster/team-a/rayjob-sample-x7k2q") == "update RayCluster");
  CHECK(abstract_label("clock to 61000ms") == "clock to Nms");
  CHECK(abstract_label("deliver RayJob") == "deliver RayJob");
}

TEST_CASE("abstract_message: the same symptom in two runs reads the same") {
  const std::string first = abstract_message(
      "RayJob/default/rayjob-sample: Failed was persisted at seq 416 (reason \"X\"), but its Ray job "
      "rayjob-sample-2mzwt on RayCluster/default/rayjob-sample-z7d84 (head incarnation 1) ended SUCCEEDED at seq 365");
  const std::string second = abstract_message(
      "RayJob/team/rayjob-http: Failed was persisted at seq 860 (reason \"X\"), but its Ray job "
      "rayjob-http-cww7l on RayCluster/team/rayjob-http-zd5lv (head incarnation 2) ended SUCCEEDED at seq 827");
  CHECK(first == second);
  CHECK(first == "RayJob: Failed was persisted at seq N (reason \"X\"), but its Ray job NAME on RayCluster "
                 "(head incarnation N) ended SUCCEEDED at seq N");
  CHECK(abstract_message("Complete was persisted at seq 3") != first);
}

TEST_CASE("departure_label: only choices that depart from the default chooser's pick") {
  CHECK(departure_label(choice("step", 0, "step", "reconcile")).empty());
  CHECK(departure_label(choice("step", 2, "step", "reconcile")) == "step reconcile");
  CHECK(departure_label(choice("cache_advance", 1, "about", "RayCluster")) == "stale read of RayCluster");
  CHECK(departure_label(choice("write_outcome", 1, "about", "update RayJob/default/x")) == "failed write update RayJob");
  CHECK(departure_label(choice("http_outcome", 2, "about", "GetJobInfo http://x-head-svc:8265")) ==
        "failed dashboard call GetJobInfo");
  CHECK(departure_label(choice("name_suffix", 77, "about", "name suffix")).empty());
  events::Event not_a_choice = choice("step", 1, "step", "reconcile");
  not_a_choice.type = "watch.deliver";
  CHECK(departure_label(not_a_choice).empty());
}

TEST_CASE("departure_shape: the same race in two scenarios with other names has one shape") {
  const std::vector<events::Event> first = {
      choice("step", 1, "step", "action.patch RayJob/default/a"), choice("cache_advance", 0, "about", "RayJob"),
      choice("cache_advance", 1, "about", "RayCluster"), choice("cache_advance", 1, "about", "RayCluster")};
  const std::vector<events::Event> second = {
      choice("name_suffix", 5, "about", "name suffix"), choice("step", 3, "step", "action.patch RayJob/ns/b"),
      choice("cache_advance", 2, "about", "RayCluster")};
  const std::vector<std::string> expected = {"step action.patch RayJob", "stale read of RayCluster"};
  CHECK(departure_shape(first) == expected);
  CHECK(departure_shape(second) == expected);
  CHECK(departure_shape({choice("step", 1, "step", "reconcile")}) != expected);
}

}  // namespace
}  // namespace rjsim::explore
