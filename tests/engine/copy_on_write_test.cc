// CopyOnWrite (engine/copy_on_write.h): copies share one value until one of them is edited;
// an edit is never seen by another copy; == compares contents.
#include "engine/copy_on_write.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace copy_on_write_test {
namespace {

using rjsim::engine::CopyOnWrite;

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

}  // namespace

}  // namespace copy_on_write_test
