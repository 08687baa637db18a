// JUnit XML for `rjsim check --junit F`, in the shape the JUnit readers of GitHub Actions
// (test-reporter actions), GitLab (artifacts:reports:junit) and Jenkins (junit step) accept:
//   <testsuites><testsuite name="rjsim check" tests= failures= errors= time=>
//     <testcase name="SCENARIO" classname="DIR" file="FILE" time=> [<failure message=>BODY</failure>]
//     <system-out>model, outcome, steps, virtual time, log hash</system-out></testcase>
// one testcase per scenario, in the order given. classname is the scenario file's directory
// with "/" as "." (dots inside a directory name as "_", since Jenkins splits classnames at
// dots); "rjsim" for a file in the working directory. A failure's message is the first reason it
// failed; its body every reason and the replay command. Times are wall-clock seconds (the only
// wall clock in the file); errors is always 0: bad input ends `check` before any XML is written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/check_result.h"

namespace rjsim::cli {

std::string junit_xml(const std::vector<CheckResult>& results, std::int64_t suite_wall_ms);

// `text` escaped for XML 1.0: & < > " ' as entities, the control characters XML 1.0 cannot hold
// as U+FFFD, and carriage return as a character reference. xml_attribute also writes tab and
// newline as character references (an attribute value would otherwise lose them); xml_text keeps
// them as they are, for a readable file.
std::string xml_attribute(std::string_view text);
std::string xml_text(std::string_view text);

std::string junit_classname(const std::string& scenario_file);

}  // namespace rjsim::cli
