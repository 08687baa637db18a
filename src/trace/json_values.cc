#include "trace/json_values.h"

#include <algorithm>

#include <fmt/format.h>

namespace rjsim::trace {
namespace {

using nlohmann::json;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// One past the end of the object or array that opens at text[begin], or npos when the text ends
// first. Brackets inside strings do not count.
std::size_t value_end(std::string_view text, std::size_t begin) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = begin; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

int count_lines(std::string_view text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// Parses one value; on failure the error names the column and what nlohmann's parser expected,
// and `line` moves to the line of the error.
JsonValue parse_value(std::string_view text, int line) {
  JsonValue result;
  result.line = line;
  try {
    result.value = json::parse(text);
  } catch (const json::parse_error& e) {
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const std::string_view before = text.substr(0, at);
    const std::size_t line_start = before.rfind('\n');
    const std::size_t column = line_start == std::string_view::npos ? at + 1 : at - line_start;
    std::string what = e.what();
    const std::size_t detail = what.find(": ", what.find("column"));
    what = detail == std::string::npos ? what : what.substr(detail + 2);
    result.line = line + count_lines(before);
    result.value = nullptr;
    result.error = fmt::format("not JSON (column {}): {}", column, what);
  } catch (const json::out_of_range& e) {
    // A number the grammar allows but a double cannot hold (1e400): nlohmann refuses it after the
    // parse, without a position.
    std::string what = e.what();
    const std::size_t detail = what.find("] ");
    result.value = nullptr;
    result.error = fmt::format("not JSON: {}", detail == std::string::npos ? what : what.substr(detail + 2));
  }
  return result;
}

void for_each_concatenated(std::string_view text, const EachJsonValue& each) {
  int line = 1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (is_blank(text[pos])) {
      if (text[pos] == '\n') ++line;
      ++pos;
      continue;
    }
    const std::size_t end = text[pos] == '{' || text[pos] == '[' ? value_end(text, pos) : std::string_view::npos;
    JsonValue value;
    if (end == std::string_view::npos) {
      value.line = line;
      value.error = text[pos] == '{' || text[pos] == '['
                        ? "a JSON value starts here but is not closed (the file ends first)"
                        : fmt::format("expected a JSON object, got '{}'", text[pos]);
    } else {
      value = parse_value(text.substr(pos, end - pos), line);
    }
    const bool bad = !value.error.empty();
    each(value);
    // A bad value spoils only itself: go on at the next line that opens a value (kubectl prints
    // each object from column 0, and everything inside it indented).
    const std::size_t next = bad ? text.find("\n{", pos) : end - 1;
    if (next == std::string_view::npos) break;
    line += count_lines(text.substr(pos, next + 1 - pos));
    pos = next + 1;
  }
}

}  // namespace

void for_each_json_line(std::string_view text, const EachJsonValue& each) {
  int line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    const std::string_view content = text.substr(pos, end - pos);
    if (!std::all_of(content.begin(), content.end(), is_blank)) {
      JsonValue value = parse_value(content, line);
      each(value);
    }
    pos = end + 1;
  }
}

namespace {

// Where the first line that opens with `{` starts, or npos.
std::size_t first_object_line(std::string_view text) {
  if (!text.empty() && text.front() == '{') return 0;
  const std::size_t found = text.find("\n{");
  return found == std::string_view::npos ? found : found + 1;
}

}  // namespace

bool looks_like_json(std::string_view text) { return first_object_line(text) != std::string_view::npos; }

void for_each_json_value(std::string_view text, const EachJsonValue& each) {
  const std::size_t begin = first_object_line(text);
  if (begin == std::string_view::npos) return for_each_json_line(text, each);   // every line is bad (or blank)
  const std::size_t end = value_end(text, begin);
  const bool one_per_line =
      end == std::string_view::npos || text.substr(begin, end - begin).find('\n') == std::string_view::npos;
  if (one_per_line) {
    for_each_json_line(text, each);
  } else {
    for_each_concatenated(text, each);
  }
}

}  // namespace rjsim::trace
