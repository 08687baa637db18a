// A 128-bit hash value (XXH3-128): world fingerprints and watch-log digests (fingerprint.h).
// Ordered and comparable, so that it can key a sorted or hashed visited set.
#pragma once

#include <compare>
#include <cstdint>

namespace rjsim::engine {

struct Hash128 {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  friend auto operator<=>(const Hash128&, const Hash128&) = default;
};

}  // namespace rjsim::engine
