#include "engine/name_suffix.h"

#include <cassert>

namespace rjsim::engine {

std::string name_suffix_of(std::uint64_t value, int length) {
  assert(length > 0 && length <= 12 && "rjsim bug: a name suffix length out of range");
  std::string suffix(static_cast<std::size_t>(length), ' ');
  for (int i = length - 1; i >= 0; --i) {
    suffix[static_cast<std::size_t>(i)] = kNameSuffixAlphabet[value % kNameSuffixAlphabet.size()];
    value /= kNameSuffixAlphabet.size();
  }
  return suffix;
}

std::string random_name_suffix(StepContext& context, int length, std::string_view about) {
  std::uint64_t options = 1;
  for (int i = 0; i < length; ++i) options *= kNameSuffixAlphabet.size();
  return name_suffix_of(context.decide(ChoicePoint::name_suffix, options, about), length);
}

}  // namespace rjsim::engine
