// Helpers for the command-line tests: run `rjsim ARGS...` in-process through run_cli and keep its
// exit code and both outputs.
#pragma once

#include "cli/cli.h"

#include <sstream>
#include <string>
#include <vector>

namespace rjsim::cli::testing {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

inline Result invoke(std::vector<std::string> args) {
  std::ostringstream out;
  std::ostringstream err;
  Result result;
  result.code = run_cli(std::move(args), out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace rjsim::cli::testing
