#include "cli/check_result.h"

#include <fmt/format.h>

namespace rjsim::cli {

std::string_view to_string(GoldenVerdict verdict) {
  switch (verdict) {
    case GoldenVerdict::none: return "none";
    case GoldenVerdict::match: return "match";
    case GoldenVerdict::differs: return "differs";
    case GoldenVerdict::written: return "written";
  }
  return "none";
}

namespace {
std::string golden_headline(const CheckResult& result) {
  return fmt::format("golden {}: the run differs from it", result.golden_file);
}
}  // namespace

std::string CheckResult::message() const {
  if (!unmet.empty()) return unmet.front();
  if (golden == GoldenVerdict::differs) return golden_headline(*this);
  return "";
}

std::vector<std::string> CheckResult::failure_lines() const {
  std::vector<std::string> lines = unmet;
  if (golden == GoldenVerdict::differs) {
    lines.push_back(golden_headline(*this));
    for (const std::string& line : golden_differences) lines.push_back("  " + line);
  }
  if (!replay_command.empty()) lines.push_back("replay: " + replay_command);
  return lines;
}

}  // namespace rjsim::cli
