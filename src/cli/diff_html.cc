#include "cli/diff_html.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/junit.h"
#include "cli/swimlane_svg.h"
#include "cli/swimlanes.h"
#include "cli/timeline.h"

namespace rjsim::cli {
namespace {

constexpr std::int64_t kStepsBefore = 40;    // of the common prefix, before the first difference
constexpr std::int64_t kStepsAfter = 160;    // of each run, after it

constexpr std::string_view kDiffStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
.picture { overflow-x: auto; border: 1px solid #eee; }
pre { background: #f7f7f7; padding: .6em; overflow-x: auto; }
)";

std::string one_run(const RunRecord& run, std::string_view side, const store::Database& database,
                    std::optional<SeqWindow> window, std::optional<std::int64_t> difference) {
  const Swimlanes lanes = collect_swimlanes(database.events(run.info.run_id), run.violations, window);
  const std::string title = fmt::format("{}: {}", side, describe_run(run.info));
  return fmt::format("<h2>{}</h2>\n<div class=\"picture\" data-run=\"{}\">\n{}</div>\n", xml_text(title), side,
                     swimlane_svg(lanes, title, difference, "first difference"));
}

std::string transitions_of(const RunRecord& run) {
  std::string text;
  for (const store::Transition& t : run.transitions) {
    text += fmt::format("{:>10} #{:<5} {} {} -> {} jobStatus={}\n", format_virtual_time(t.at_ms), t.seq,
                        object_name(t.rayjob), deployment_label(t.from_deployment), deployment_label(t.to_deployment),
                        t.to_job_status);
  }
  return xml_text(text);
}

}  // namespace

std::string diff_html(const RunRecord& a, const RunRecord& b, const EventComparison& comparison,
                      const store::Database& database) {
  const std::string title = fmt::format("rjsim diff: run {} and run {}", a.info.run_id, b.info.run_id);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{0}</title>\n"
      "<style>{1}</style>\n</head>\n<body>\n<h1>{0}</h1>\n",
      xml_text(title), kDiffStyle);
  std::optional<SeqWindow> window;
  std::optional<std::int64_t> difference;
  if (const auto& first = comparison.first_difference) {
    difference = first->seq;
    window = SeqWindow{std::max<std::int64_t>(0, first->seq - kStepsBefore), first->seq + kStepsAfter};
    html += fmt::format("<p id=\"first-difference\">First difference at seq {} ({}): {} events in common before "
                        "it. Both pictures start at seq {}, so the common steps line up; the blue line marks "
                        "the first difference.</p>\n",
                        first->seq, xml_text(fmt::format("{}", fmt::join(first->fields, ", "))), first->seq,
                        window->first);
  } else {
    html += fmt::format("<p id=\"first-difference\">The runs are identical: the same {} events.</p>\n",
                        comparison.events_a);
  }
  html += one_run(a, "A", database, window, difference);
  html += one_run(b, "B", database, window, difference);
  html += fmt::format("<h2>Transitions</h2>\n<h3>A (run {})</h3>\n<pre>{}</pre>\n<h3>B (run {})</h3>\n<pre>{}</pre>\n",
                      a.info.run_id, transitions_of(a), b.info.run_id, transitions_of(b));
  return html + "</body>\n</html>\n";
}

}  // namespace rjsim::cli
