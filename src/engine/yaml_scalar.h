#pragma once
// The text of a YAML scalar as UTF-8. yaml-cpp 0.7 (Debian's) decodes the double-quoted escapes
// \N (U+0085, next line) and \_ (U+00A0, no-break space) to the single bytes 0x85 and 0xA0, which
// are not UTF-8; everything else it decodes is. rjsim takes every string to be UTF-8 (JSON needs
// it: nlohmann's dump() throws on such a byte, which the manifest fuzzer found), so every scalar a
// loader reads goes through here.
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

namespace rjsim::engine {

// node.Scalar(), with the bytes yaml-cpp's escapes left as UTF-8.
std::string scalar_utf8(const YAML::Node& node);

// `text` with each byte that does not begin a UTF-8 sequence read as the Latin-1 character of that
// value (0x85 becomes U+0085, encoded C2 85). Text that is UTF-8 comes back unchanged.
std::string latin1_bytes_as_utf8(std::string_view text);

}  // namespace rjsim::engine
