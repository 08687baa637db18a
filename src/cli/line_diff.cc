#include "cli/line_diff.h"

#include <algorithm>
#include <cstddef>

namespace rjsim::cli {
namespace {

enum class Op { keep, remove, add };

struct Edit {
  Op op;
  const std::string* line;
};

// The edit script from `before` to `after` along a longest common subsequence; removals come
// before additions where both are possible, as in `diff`.
std::vector<Edit> edit_script(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  const std::size_t n = before.size();
  const std::size_t m = after.size();
  // common[i][j]: the length of the LCS of before[i..] and after[j..].
  std::vector<std::vector<std::size_t>> common(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      common[i][j] = before[i] == after[j] ? common[i + 1][j + 1] + 1
                                           : std::max(common[i + 1][j], common[i][j + 1]);
    }
  }
  std::vector<Edit> edits;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] == after[j]) {
      edits.push_back({Op::keep, &before[i++]});
      ++j;
    } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
      edits.push_back({Op::remove, &before[i++]});
    } else {
      edits.push_back({Op::add, &after[j++]});
    }
  }
  return edits;
}

// Whether edit `index` is within `context` edits of a change.
bool near_a_change(const std::vector<Edit>& edits, std::size_t index, int context) {
  const std::size_t from = index >= static_cast<std::size_t>(context) ? index - context : 0;
  const std::size_t to = std::min(edits.size() - 1, index + context);
  for (std::size_t k = from; k <= to; ++k) {
    if (edits[k].op != Op::keep) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> line_diff(const std::vector<std::string>& before,
                                   const std::vector<std::string>& after, int context) {
  if (before == after) return {};
  const std::vector<Edit> edits = edit_script(before, after);
  std::vector<std::string> lines;
  bool skipped = false;  // an unchanged line was left out since the last line shown
  for (std::size_t k = 0; k < edits.size(); ++k) {
    if (!near_a_change(edits, k, context)) {
      skipped = true;
      continue;
    }
    if (skipped) lines.push_back("  ...");
    skipped = false;
    const char* prefix = edits[k].op == Op::keep ? "  " : edits[k].op == Op::remove ? "- " : "+ ";
    lines.push_back(prefix + *edits[k].line);
  }
  if (skipped) lines.push_back("  ...");
  return lines;
}

}  // namespace rjsim::cli
