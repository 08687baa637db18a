#include "trace/record.h"

#include <fmt/format.h>

namespace rjsim::trace {

std::string_view to_string(Format format) {
  switch (format) {
    case Format::kubectl_watch: return "kubectl-watch";
    case Format::audit: return "audit";
    case Format::watch_stream: return "watch-stream";
  }
  return "?";
}

bool parse_format(std::string_view text, Format& format) {
  for (Format candidate : {Format::kubectl_watch, Format::audit, Format::watch_stream}) {
    if (text == to_string(candidate)) {
      format = candidate;
      return true;
    }
  }
  return false;
}

std::string BadRecord::text() const { return fmt::format("{}:{}: {}", file, line, message); }

}  // namespace rjsim::trace
