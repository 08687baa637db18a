#include "engine/yaml_scalar.h"

#include <optional>

#include "events/event.h"

namespace rjsim::engine {

std::string latin1_bytes_as_utf8(std::string_view text) {
  std::optional<std::size_t> bad = events::first_invalid_utf8(text);
  if (!bad) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  while (bad) {
    out.append(text.substr(0, *bad));
    const auto byte = static_cast<unsigned char>(text[*bad]);
    out += static_cast<char>(0xC0 | (byte >> 6));
    out += static_cast<char>(0x80 | (byte & 0x3F));
    text.remove_prefix(*bad + 1);
    bad = events::first_invalid_utf8(text);
  }
  out.append(text);
  return out;
}

std::string scalar_utf8(const YAML::Node& node) { return latin1_bytes_as_utf8(node.Scalar()); }

}  // namespace rjsim::engine
