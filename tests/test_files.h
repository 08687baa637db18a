// Whole-file reads and writes for tests (to show a file was left untouched, to damage one, to
// read what a command wrote). A file that cannot be read reads as empty: the assertion on its
// content that follows then fails and says what it expected.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rjsim::testing {

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace rjsim::testing
