#include "cli/scenario_files.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "cli/subcommand.h"

namespace rjsim::cli {
namespace {

std::vector<std::string> yaml_files_under(const std::string& directory) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") found.push_back(entry.path().string());
  }
  if (found.empty()) throw UsageError(fmt::format("PATH: {}: no scenario files (*.yaml) in this directory", directory));
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::vector<std::string> scenario_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  std::vector<std::filesystem::path> seen;
  auto add = [&](const std::string& file) {
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(file);
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) return;
    seen.push_back(canonical);
    files.push_back(file);
  };
  for (const std::string& path : paths) {
    if (std::filesystem::is_directory(path)) {
      for (const std::string& file : yaml_files_under(path)) add(file);
    } else if (std::filesystem::exists(path)) {
      add(path);
    } else {
      throw UsageError(fmt::format("PATH: {}: no such file or directory", path));
    }
  }
  return files;
}

}  // namespace rjsim::cli
