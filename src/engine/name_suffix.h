// The random 5-character suffixes of generated names (k8s.io/apimachinery utilrand.String: "the
// consonants and digits that cannot spell words", 27 of them), drawn through the chooser as one
// `name_suffix` decision among 27^length, so that a run logs and replays them (DESIGN §1).
#pragma once

#include <string>
#include <string_view>

#include "engine/step_context.h"

namespace rjsim::engine {

inline constexpr std::string_view kNameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

// The suffix whose base-27 value is `value` (digits of kNameSuffixAlphabet, most significant first).
std::string name_suffix_of(std::uint64_t value, int length);

// One chooser decision; `about` says what the name is for in the `choice` event.
std::string random_name_suffix(StepContext& context, int length, std::string_view about = "name suffix");

}  // namespace rjsim::engine
