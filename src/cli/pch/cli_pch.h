// Precompiled for every file of src/cli: CLI11 is a large header-only library, and parsing it
// once instead of once per subcommand file saves most of the cli's build time.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>
