// The precompiled header of every rjsim target (meson's cpp_pch): the standard library and the
// third-party headers most files include. Parsing them was about half of each file's compile
// time (docs/performance.md, "The test loop"). Only headers that are not ours belong here, so
// a layer's PCH never lets it see a layer above it (docs/design.md, layout). Sources still
// include what they use; with the PCH those includes cost nothing.

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
