#include "cli/junit.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/timeline.h"

namespace rjsim::cli {
namespace {

std::string xml_escaped(std::string_view text, bool attribute) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&apos;"; break;
      case '\r': escaped += "&#13;"; break;
      case '\t': escaped += attribute ? "&#9;" : "\t"; break;
      case '\n': escaped += attribute ? "&#10;" : "\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          escaped += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to write these
        } else {
          escaped += c;
        }
    }
  }
  return escaped;
}

std::string seconds(std::int64_t wall_ms) { return fmt::format("{}.{:03}", wall_ms / 1000, wall_ms % 1000); }

std::string testcase_xml(const CheckResult& result) {
  std::string xml = fmt::format(R"(    <testcase name="{}" classname="{}" file="{}" time="{}">)", xml_attribute(result.scenario),
                                xml_attribute(junit_classname(result.file)), xml_attribute(result.file),
                                seconds(result.wall_ms));
  xml += "\n";
  if (!result.passed()) {
    xml += fmt::format(R"(      <failure message="{}">{}</failure>)", xml_attribute(result.message()),
                       xml_text(fmt::format("{}", fmt::join(result.failure_lines(), "\n"))));
    xml += "\n";
  }
  const std::string summary =
      fmt::format("model {}, outcome {}, {} steps, virtual time {}, log hash {}", result.controller, result.outcome,
                  result.steps, format_virtual_time(result.virtual_ms), result.log_hash);
  xml += fmt::format("      <system-out>{}</system-out>\n    </testcase>\n", xml_text(summary));
  return xml;
}

}  // namespace

std::string xml_attribute(std::string_view text) { return xml_escaped(text, true); }
std::string xml_text(std::string_view text) { return xml_escaped(text, false); }

std::string junit_classname(const std::string& scenario_file) {
  std::string classname;
  for (const std::filesystem::path& part : std::filesystem::path(scenario_file).parent_path().lexically_normal()) {
    std::string name = part.string();
    if (name.empty() || name == "." || name == ".." || name == "/") continue;
    std::replace(name.begin(), name.end(), '.', '_');
    classname += (classname.empty() ? "" : ".") + name;
  }
  return classname.empty() ? "rjsim" : classname;
}

std::string junit_xml(const std::vector<CheckResult>& results, std::int64_t suite_wall_ms) {
  const auto failures = std::count_if(results.begin(), results.end(), [](const CheckResult& r) { return !r.passed(); });
  const std::string counts = fmt::format(R"(tests="{}" failures="{}" errors="0" time="{}")", results.size(), failures,
                                         seconds(suite_wall_ms));
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"rjsim check\" {}>\n", counts);
  xml += fmt::format("  <testsuite name=\"rjsim check\" {} skipped=\"0\">\n", counts);
  for (const CheckResult& result : results) xml += testcase_xml(result);
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace rjsim::cli
