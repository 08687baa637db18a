// CopyOnWrite (engine/copy_on_write.h): copies share one value until one of them is edited;
// an edit is never seen by another copy; == compares contents; the serial names a value as it is.
// SharedString (engine/shared_string.h), its immutable cousin for the work queue's keys, likewise.
#include "engine/copy_on_write.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/shared_string.h"

namespace copy_on_write_test {
namespace {

using rjsim::engine::CopyOnWrite;
using rjsim::engine::SharedString;

struct Spec {
  std::string entrypoint;
  std::vector<std::string> args;
  friend bool operator==(const Spec&, const Spec&) = default;
};

TEST_CASE("copy-on-write: a copy shares the value until it is edited, and the edit stays its own") {
  CopyOnWrite<Spec> original(Spec{"python main.py", {"--fast"}});
  CopyOnWrite<Spec> copy = original;
  CHECK(copy.shares_value_with(original));
  CHECK(&*copy == &*original);

  copy.edit().entrypoint = "python other.py";
  CHECK_FALSE(copy.shares_value_with(original));
  CHECK(original->entrypoint == "python main.py");   // the edit is not seen by the other copy
  CHECK(copy->entrypoint == "python other.py");
  CHECK(copy->args == std::vector<std::string>{"--fast"});   // the rest was copied
}

TEST_CASE("copy-on-write: a value no other copy holds is edited in place") {
  CopyOnWrite<Spec> only(Spec{"python main.py", {}});
  const Spec* before = &*only;
  only.edit().args.push_back("--fast");
  CHECK(&*only == before);

  CopyOnWrite<Spec> copy = only;
  {
    CopyOnWrite<Spec> dropped = copy;   // shared by three, then by two again
  }
  copy.edit().entrypoint = "python other.py";   // still shared with `only`: copied
  CHECK(&*copy != before);
  CHECK(only->entrypoint == "python main.py");
}

TEST_CASE("copy-on-write: default values share one value that an edit never changes") {
  CopyOnWrite<Spec> first;
  CopyOnWrite<Spec> second;
  CHECK(first.shares_value_with(second));
  first.edit().entrypoint = "python main.py";
  CHECK(second->entrypoint.empty());
  CHECK(CopyOnWrite<Spec>()->entrypoint.empty());
}

TEST_CASE("copy-on-write: == compares contents, not which value is shared") {
  const CopyOnWrite<Spec> a(Spec{"python main.py", {}});
  const CopyOnWrite<Spec> b(Spec{"python main.py", {}});
  CHECK_FALSE(a.shares_value_with(b));
  CHECK(a == b);
  CHECK(a == Spec{"python main.py", {}});
  CHECK_FALSE(a == CopyOnWrite<Spec>(Spec{"python other.py", {}}));
}

TEST_CASE("copy-on-write: the serial names the value as it is now, without keeping it") {
  CopyOnWrite<Spec> world(Spec{"python main.py", {}});
  const std::uint64_t seen = world.serial();   // a reader that asks only whether it changed
  CHECK(seen != 0);
  CHECK(CopyOnWrite<Spec>(world).serial() == seen);   // copies share the value and its serial
  CHECK(CopyOnWrite<Spec>().serial() == 0);           // the default value

  // The serial keeps nothing alive: the edit is made in place, and the value has a new serial.
  const Spec* before = &*world;
  world.edit().args.push_back("--fast");
  CHECK(&*world == before);
  CHECK(world.serial() != seen);

  // Copied for an edit: a new serial for the copy, the old one for the value left behind.
  const CopyOnWrite<Spec> kept = world;
  const std::uint64_t kept_serial = kept.serial();
  world.edit().entrypoint = "python other.py";
  CHECK(kept.serial() == kept_serial);
  CHECK(world.serial() != kept_serial);
  CHECK(world.serial() != seen);
}

TEST_CASE("copy-on-write: serials are not repeated across threads") {
  std::vector<std::uint64_t> serials(2'000);
  std::thread other([&] {
    for (std::size_t i = 0; i < serials.size() / 2; ++i) serials[i] = CopyOnWrite<Spec>(Spec{}).serial();
  });
  for (std::size_t i = serials.size() / 2; i < serials.size(); ++i) serials[i] = CopyOnWrite<Spec>(Spec{}).serial();
  other.join();
  std::sort(serials.begin(), serials.end());
  CHECK(std::adjacent_find(serials.begin(), serials.end()) == serials.end());
}

// SharedString (engine/shared_string.h): the work queue's keys.
TEST_CASE("shared string: copies share one text; == and ordering compare the text, not the copy") {
  const SharedString key(std::string("default/rayjob-sample-with-a-long-name"));
  const SharedString copy = key;
  CHECK(&copy.str() == &key.str());   // no second text
  const SharedString made_apart(std::string("default/rayjob-sample-with-a-long-name"));
  CHECK(&made_apart.str() != &key.str());
  CHECK(made_apart == key);
  CHECK_FALSE(made_apart < key);
  CHECK(SharedString(std::string("default/a")) < SharedString(std::string("default/b")));
  CHECK(key == std::string_view("default/rayjob-sample-with-a-long-name"));
  CHECK(SharedString(std::string("default/a")) < std::string_view("default/b"));
  CHECK(SharedString().empty());
  CHECK(SharedString(std::string()) == SharedString());
  CHECK(SharedString().str().empty());
}

}  // namespace

}  // namespace copy_on_write_test
