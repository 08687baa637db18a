// The bundled scenarios (scenarios/**/*.yaml of the source tree), sorted, for tests that run
// every one of them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <vector>

namespace rjsim::explore::testing {

inline std::vector<std::filesystem::path> bundled_scenarios() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path root = std::filesystem::path(RJSIM_SOURCE_DIR) / "scenarios";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The .yaml files directly in `root`, sorted.
inline std::vector<std::filesystem::path> yaml_files_in(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The benchmark's scenarios (tools/bench/scenarios/*.yaml), sorted: no test tunes on them, but
// each must stay a valid scenario that passes, or the benchmark measures nothing.
inline std::vector<std::filesystem::path> bench_scenarios() {
  return yaml_files_in(std::filesystem::path(RJSIM_SOURCE_DIR) / "tools" / "bench" / "scenarios");
}

// The release build's profile training (tools/training/*.yaml), sorted: tools/release-build
// stops at one that does not load.
inline std::vector<std::filesystem::path> training_scenarios() {
  return yaml_files_in(std::filesystem::path(RJSIM_SOURCE_DIR) / "tools" / "training");
}

}  // namespace rjsim::explore::testing
