// The libFuzzer entry point of one target (RJSIM_FUZZ_TARGET, set by tests/fuzz/meson.build).
// An exception that escapes a target is a defect: it is named here (type and message) before the
// abort, so a crash report says more than libFuzzer's "deadly signal".
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <typeinfo>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rjsim::fuzz::FuzzTarget* target = rjsim::fuzz::find_fuzz_target(RJSIM_FUZZ_TARGET);
  try {
    target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& escaped) {
    std::fprintf(stderr, "rjsim fuzz: an exception escaped the target: %s: %s\n", typeid(escaped).name(),
                 escaped.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "rjsim fuzz: an exception escaped the target (not a std::exception)\n");
    std::abort();
  }
  return 0;
}
