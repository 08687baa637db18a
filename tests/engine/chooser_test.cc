// The chooser (engine/chooser.h): seeded answers are the same on every run, and a replayed list
// of decisions is answered in order until the run asks for something else.
#include <doctest/doctest.h>

#include "engine/chooser.h"

namespace rjsim::engine {
namespace chooser_test {
namespace {

TEST_CASE("the same seed gives the same random answers; another seed other ones") {
  RandomChooser first(42), second(42), other(43);
  bool differs = false;
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t answer = first.choose(ChoicePoint::step, 1000);
    CHECK(answer < 1000);
    CHECK(answer == second.choose(ChoicePoint::step, 1000));
    differs = differs || answer != other.choose(ChoicePoint::step, 1000);
  }
  CHECK(differs);
}

TEST_CASE("the fault-free chooser always takes alternative 0 except for name suffixes") {
  DefaultChooser chooser(7);
  CHECK(chooser.choose(ChoicePoint::step, 5) == 0);
  CHECK(chooser.choose(ChoicePoint::write_outcome, 4) == 0);
  bool some_suffix_not_zero = false;
  for (int i = 0; i < 16; ++i) some_suffix_not_zero |= chooser.choose(ChoicePoint::name_suffix, 27) != 0;
  CHECK(some_suffix_not_zero);
}

TEST_CASE("a replay chooser answers the recorded decisions in order") {
  ReplayChooser chooser({{ChoicePoint::step, 3, 2}, {ChoicePoint::http_outcome, 3, 1}});
  CHECK(chooser.choose(ChoicePoint::step, 3) == 2);
  CHECK(chooser.choose(ChoicePoint::http_outcome, 3) == 1);
  CHECK(chooser.used() == 2);
  CHECK_THROWS_AS(chooser.choose(ChoicePoint::step, 2), ReplayDiverged);
}

TEST_CASE("without a fallback, a question other than the recorded one throws ReplayDiverged") {
  ReplayChooser chooser({{ChoicePoint::step, 3, 2}});
  CHECK_THROWS_AS(chooser.choose(ChoicePoint::step, 4), ReplayDiverged);
  ReplayChooser other_point({{ChoicePoint::step, 3, 2}});
  CHECK_THROWS_AS(other_point.choose(ChoicePoint::cache_advance, 3), ReplayDiverged);
}

TEST_CASE("with a fallback, a diverged replay is answered by the fallback from then on") {
  DefaultChooser fault_free(1);
  ReplayChooser chooser({{ChoicePoint::step, 3, 2}, {ChoicePoint::step, 3, 2}}, &fault_free);
  CHECK(chooser.choose(ChoicePoint::step, 4) == 0);   // recorded with 3 options: diverged
  CHECK(chooser.diverged());
  CHECK(chooser.choose(ChoicePoint::step, 3) == 0);   // would match the recording, but too late
  CHECK(chooser.used() == 0);
}

TEST_CASE("with a fallback, a replay past the end of the recording is answered by the fallback") {
  DefaultChooser fault_free(1);
  ReplayChooser chooser({{ChoicePoint::step, 3, 2}}, &fault_free);
  CHECK(chooser.choose(ChoicePoint::step, 3) == 2);
  CHECK(chooser.choose(ChoicePoint::step, 3) == 0);
  CHECK_FALSE(chooser.diverged());
  CHECK(chooser.used() == 1);
}

}  // namespace
}  // namespace chooser_test
}  // namespace rjsim::engine

