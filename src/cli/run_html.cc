#include "cli/run_html.h"

#include <set>

#include <fmt/format.h>

#include "cli/junit.h"
#include "cli/state_graph_svg.h"
#include "cli/swimlane_svg.h"
#include "cli/swimlanes.h"
#include "cli/timeline.h"
#include "cli/transition_graph.h"

namespace rjsim::cli {
namespace {

constexpr std::string_view kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dt { color: #666; } dd { margin: 0; font-family: monospace; }
table { border-collapse: collapse; font-family: monospace; font-size: 12.5px; }
td, th { padding: .15em .6em; text-align: left; vertical-align: top; border-bottom: 1px solid #eee; }
th { background: #f4f4f4; position: sticky; top: 0; }
tr.transition { background: #e8f4ff; font-weight: bold; }
tr.violation, .violation h3 { background: #ffe8e8; }
tr:target { outline: 2px solid #f90; }
td.body { color: #555; word-break: break-all; }
pre { background: #f7f7f7; padding: .6em; overflow-x: auto; }
.picture { overflow-x: auto; border: 1px solid #eee; } summary { cursor: pointer; margin: .6em 0; }
section.violation:target { outline: 2px solid #f90; }
.outcome-pass { color: #070; } .outcome-violation, .outcome-diverged, .outcome-error { color: #b00; }
)";

std::string seq_link(std::int64_t seq) { return fmt::format("<a href=\"#seq-{0}\">#{0}</a>", seq); }

std::string optional_text(const std::optional<std::string>& value) { return value ? *value : "-"; }

std::string header(const store::RunInfo& info) {
  std::string html = "<dl>\n";
  auto row = [&](std::string_view name, const std::string& value) {
    html += fmt::format("<dt>{}</dt><dd>{}</dd>\n", name, value);
  };
  row("kind", xml_text(info.kind));
  row("scenario", xml_text(info.scenario));
  row("model", xml_text(info.controller));
  row("seed", fmt::format("{}", recorded_seed(info)));
  const std::string outcome = info.outcome.value_or("(not finished)");
  row("outcome", fmt::format("<span class=\"outcome-{0}\">{0}</span>", xml_text(outcome)));
  row("steps", info.steps ? fmt::format("{}", *info.steps) : "-");
  row("virtual time", info.virtual_ms ? format_virtual_time(*info.virtual_ms) : "-");
  row("log hash", xml_text(optional_text(info.log_hash)));
  row("parent run", info.parent_run ? fmt::format("{}", *info.parent_run) : "none");
  return html + "</dl>\n";
}

std::string transitions_table(const std::vector<store::Transition>& transitions) {
  std::string html = fmt::format("<h2>Transitions ({})</h2>\n", transitions.size());
  if (transitions.empty()) return html + "<p>none persisted</p>\n";
  html += "<table>\n<tr><th>time</th><th>seq</th><th>RayJob</th><th>from</th><th>to</th><th>jobStatus</th>"
          "<th>reason</th></tr>\n";
  for (const store::Transition& t : transitions) {
    html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                        format_virtual_time(t.at_ms), seq_link(t.seq), xml_text(object_name(t.rayjob)),
                        xml_text(deployment_label(t.from_deployment)),
                        xml_text(deployment_label(t.to_deployment)), xml_text(t.to_job_status),
                        xml_text(t.reason));
  }
  return html + "</table>\n";
}

std::string violations_section(const std::vector<store::Violation>& violations,
                               const std::vector<ViolationExcerpt>& excerpts) {
  std::string html = fmt::format("<h2>Violations ({})</h2>\n", violations.size());
  for (std::size_t i = 0; i < violations.size(); ++i) {
    html += fmt::format("<section class=\"violation\" id=\"violation-{}\"><h3>{} at {}</h3>\n<p>{}</p>\n", i,
                        xml_text(violations[i].invariant), seq_link(violations[i].seq),
                        xml_text(violations[i].message));
    html += "<p>the steps that led to it (* = its step and the seqs it names):</p>\n<pre>";
    for (const std::string& line : excerpts[i].lines) html += xml_text(line) + "\n";
    html += "</pre></section>\n";
  }
  return html;
}

std::string timeline_table(store::EventReader events, const std::set<std::int64_t>& violation_seqs) {
  std::string rows;
  std::int64_t count = 0;
  events::Event event;
  while (events.next(event)) {
    ++count;
    const bool transition = event.type == "status.transition";
    const bool violation = violation_seqs.contains(event.seq);
    const char* row_class = transition && violation ? " class=\"transition violation\""
                            : transition            ? " class=\"transition\""
                            : violation             ? " class=\"violation\""
                                                    : "";
    rows += fmt::format(
        "<tr id=\"seq-{}\"{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"body\">{}</td></tr>\n",
        event.seq, row_class, format_virtual_time(event.at_ms), event.seq, events::to_string(event.origin),
        xml_text(event.actor), xml_text(event.type), xml_text(event.object), xml_text(format_body(event.body)));
  }
  return fmt::format("<h2>Timeline ({} events)</h2>\n<table>\n<tr><th>time</th><th>seq</th><th>origin</th>"
                     "<th>actor</th><th>type</th><th>object</th><th>body</th></tr>\n{}</table>\n",
                     count, rows);
}

std::string picture(const std::string& svg) { return "<div class=\"picture\">\n" + svg + "</div>\n"; }

// The swimlanes: with a violation, the steps its excerpt shows, and the whole run folded below.
std::string swimlanes_section(const RunRecord& run, const std::vector<ViolationExcerpt>& excerpts,
                              const store::Database& database, const std::string& title) {
  std::vector<std::vector<std::int64_t>> shown;
  for (const ViolationExcerpt& excerpt : excerpts) shown.push_back(excerpt.seqs);
  const std::optional<SeqWindow> window = violation_window(shown, run.violations);
  const Swimlanes whole = collect_swimlanes(database.events(run.info.run_id), run.violations);
  std::string html = "<h2>Swimlanes</h2>\n";
  if (!window) return html + picture(swimlane_svg(whole, title));
  const Swimlanes around = collect_swimlanes(database.events(run.info.run_id), run.violations, window);
  html += fmt::format("<p>The steps that led to the violation (#{} to #{}); a stale read is drawn in orange "
                      "with the cache's and the API server's resourceVersion, a violation as a red line.</p>\n",
                      around.first_seq, around.last_seq);
  html += picture(swimlane_svg(around, title));
  html += fmt::format("<details><summary>The whole run ({} events)</summary>\n{}</details>\n", whole.events,
                      picture(swimlane_svg(whole, title)));
  return html;
}

}  // namespace

std::string run_html(const RunRecord& run, const std::vector<ViolationExcerpt>& excerpts,
                     const store::Database& database) {
  const std::string title = describe_run(run.info);
  std::set<std::int64_t> violation_seqs;
  for (const store::Violation& violation : run.violations) violation_seqs.insert(violation.seq);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rjsim {}</title>\n"
      "<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
      xml_text(title), kStyle, xml_text(title));
  html += header(run.info);
  html += swimlanes_section(run, excerpts, database, title);
  html += transitions_table(run.transitions);
  html += violations_section(run.violations, excerpts);
  const TransitionGraph graph = transition_graph(run.transitions);
  html += "<h2>Transition graph</h2>\n" + picture(state_graph_svg(graph, title));
  html += "<details><summary>Mermaid source</summary>\n<pre>" + xml_text(graph_mermaid(graph, title)) +
          "</pre></details>\n";
  html += timeline_table(database.events(run.info.run_id), violation_seqs);
  return html + "</body>\n</html>\n";
}

}  // namespace rjsim::cli
