// A line diff of two short sequences (a recorded transition list and a new one, say), shown the
// way `diff -u` does: only the differing regions, each with `context` unchanged lines around it.
// Lines are prefixed "- " (only in `before`), "+ " (only in `after`) or "  " (in both); each run
// of unchanged lines left out (before, between or after the regions) shows as one "  ..." line.
// Equal sequences give no lines. Meant for tens to hundreds of lines: the alignment is a longest
// common subsequence, O(|before|·|after|).
#pragma once

#include <string>
#include <vector>

namespace rjsim::cli {

std::vector<std::string> line_diff(const std::vector<std::string>& before,
                                   const std::vector<std::string>& after, int context = 1);

}  // namespace rjsim::cli
