// The libFuzzer entry point of one target (RJSIM_FUZZ_TARGET, set by tests/fuzz/meson.build).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rjsim::fuzz::FuzzTarget* target = rjsim::fuzz::find_fuzz_target(RJSIM_FUZZ_TARGET);
  target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
