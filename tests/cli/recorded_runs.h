// Helpers for the tests of `show` and `diff`: record bundled (or scratch) scenarios into a
// scratch database with `rjsim run`, in-process, and cut a section out of what a command printed.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli_test_support.h"

#include "../store/store_test_support.h"

namespace rjsim::cli::testing {

using store::testing::ScratchDirectory;

inline std::string bundled_scenario(const std::string& name) {
  return std::string(RJSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml";
}

// `rjsim run SCENARIO --db DB EXTRA...`: records one run; it must run (exit 0 or 1, not 2 or 3).
inline void record_run(const std::string& db, const std::string& scenario_file,
                       std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", scenario_file, "--db", db};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result result = invoke(args);
  INFO("rjsim run ", scenario_file, ": ", result.err);
  REQUIRE((result.code == 0 || result.code == 1));
}

// `text` from the first line that begins with `heading` to the end ("" when there is none).
inline std::string section(const std::string& text, const std::string& heading) {
  const std::size_t at = text.find("\n" + heading);
  return at == std::string::npos ? "" : text.substr(at + 1);
}

}  // namespace rjsim::cli::testing
