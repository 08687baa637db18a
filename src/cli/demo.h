// The built-in kernel demo: a tiny controller written against the engine's client interfaces,
// driven through create, a conflicting update, a requeue and a squash. It stands in for the
// bundled scenarios until the RayJob models exist (issue 3), so that `rjsim run --demo` and
// tools/run show the kernel working end to end.
#pragma once

#include <cstdint>
#include <iostream>
#include <ostream>
#include <string>

namespace rjsim::cli {

struct DemoOptions {
  std::string db_path;        // empty: do not store the run
  std::uint64_t seed = 1;
  bool random_schedule = false;  // true: the seeded random chooser; false: the fault-free order
  bool json = false;          // print the DESIGN §6 `run` JSON object instead of the timeline
};

// Runs the demo, prints the timeline (or JSON) to `out`, returns the process exit code
// (0 ok, 2 bad input such as a database that is not rjsim's).
int run_kernel_demo(const DemoOptions& options, std::ostream& out = std::cout);

}  // namespace rjsim::cli
