// The scenario files that PATH arguments name (`rjsim check PATH...`, `rjsim compare PATH...`):
// files as given, directories searched recursively for *.yaml (so golden files are never taken
// for scenarios), in a sorted order that never depends on the file system. A file named twice is
// taken once, where it first appears. A path that does not exist, or a directory without any
// *.yaml, is a UsageError (exit 2) naming it.
#pragma once

#include <string>
#include <vector>

namespace rjsim::cli {

std::vector<std::string> scenario_files(const std::vector<std::string>& paths);

}  // namespace rjsim::cli
