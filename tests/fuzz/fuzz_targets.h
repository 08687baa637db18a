// The inputs rjsim reads from people and other programs, one fuzz target per entry point
// (issue 34): a scenario file, a RayJob manifest, each trace format, and a database. A target takes
// one input and must return: the input either loads, or is refused with the project's error type
// and a message that says where (the file, and a line or a field). Anything else (an exception of
// another type, a message that names nothing, an internal-error exit) is a defect: the target
// prints what happened and aborts, which libFuzzer reports as a crash and the regression test
// (regressions_test.cc) as a failure. The same functions serve the libFuzzer binaries
// (fuzz_entry.cc, built by tools/fuzz) and the plain tests.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rjsim::fuzz {

struct FuzzTarget {
  std::string_view name;          // the binary is fuzz_<name>, its inputs tests/fuzz/*/<name>/
  void (*run)(std::string_view input);
};

// Every target, in the order tools/fuzz runs them.
std::span<const FuzzTarget> fuzz_targets();
// The target named `name`, or nullptr.
const FuzzTarget* find_fuzz_target(std::string_view name);

}  // namespace rjsim::fuzz
