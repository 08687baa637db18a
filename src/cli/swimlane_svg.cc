#include "cli/swimlane_svg.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cli/junit.h"
#include "cli/run_record.h"
#include "cli/timeline.h"

namespace rjsim::cli {
namespace {

constexpr int kLaneNamesWidth = 190;          // lane names
constexpr int kStepColumn = 18;         // one step drawn
constexpr int kTimeAxisHeight = 56;           // the time scale
constexpr int kBandHeight = 22;           // a RayJob's status band
constexpr int kLaneHeight = 34;           // an actor's lane
constexpr int kRightRoom = 260;         // room for the last labels
constexpr int kMinLabelColumns = 4; // columns between two time labels

constexpr std::string_view kSwimlaneStyle = R"(
.swimlanes text { font: 11px system-ui, sans-serif; fill: #333; }
.swimlanes .lane-name { font-weight: 600; }
.swimlanes .lane-line { stroke: #e5e5e5; }
.swimlanes .tick { stroke: #bbb; } .swimlanes .time { font-size: 10px; fill: #666; }
.swimlanes .bar { fill: #e0e7ff; stroke: #6366f1; } .swimlanes .bar.crashed { stroke: #dc2626; stroke-dasharray: 3 2; }
.swimlanes .mark .shape { stroke: #555; stroke-width: .8; fill: #fff; }
.swimlanes .mark text.number { font-size: 8px; text-anchor: middle; dominant-baseline: central; }
.swimlanes .write .shape, .swimlanes .stored .shape { fill: #dbeafe; }
.swimlanes .deliver .shape { fill: #dcfce7; } .swimlanes .read .shape { fill: #f1f5f9; }
.swimlanes .stale-read .shape { fill: #f59e0b; stroke: #b45309; stroke-width: 1.5; }
.swimlanes text.label.stale-read { fill: #b45309; font-weight: 700; }
.swimlanes .api-read .shape { fill: #ccfbf1; }
.swimlanes .fault .shape, .swimlanes .crash .shape { fill: #fca5a5; stroke: #b91c1c; }
.swimlanes text.label.fault, .swimlanes text.label.crash { fill: #b91c1c; }
.swimlanes .squash .shape, .swimlanes .backoff .shape { fill: #e9d5ff; stroke: #7e22ce; }
.swimlanes .departure .shape { fill: #fde68a; stroke: #a16207; }
.swimlanes .action .shape { fill: #bfdbfe; stroke: #1d4ed8; } .swimlanes .restart .shape { fill: #bbf7d0; }
.swimlanes .dashboard .shape, .swimlanes .ray .shape { fill: #fef3c7; } .swimlanes .relist .shape { fill: #cffafe; }
.swimlanes .violation .shape { fill: #dc2626; stroke: #7f1d1d; } .swimlanes text.label.violation { fill: #b91c1c; font-weight: 700; }
.swimlanes .marked-line { stroke: #2563eb; stroke-width: 2; } .swimlanes text.label.marked { fill: #1d4ed8; font-weight: 700; }
.swimlanes .violation-line { stroke: #dc2626; stroke-width: 1.5; stroke-dasharray: 5 3; }
.swimlanes .segment { stroke: #fff; } .swimlanes .segment-name { font-size: 10px; }
.swimlanes .in-flight { stroke: #16a34a; stroke-width: 1.5; } .swimlanes .in-flight.held { stroke: #d97706; stroke-dasharray: 4 3; }
.swimlanes text.label.held { fill: #b45309; font-size: 9px; }
)";

class SwimlaneDrawing {
 public:
  explicit SwimlaneDrawing(const Swimlanes& lanes) : lanes_(lanes) {
    int column = 0;
    for (const auto& entry : lanes.time_of_seq) column_of_.emplace(entry.first, column++);
    columns_ = column;
    for (std::size_t i = 0; i < lanes.lanes.size(); ++i) lane_index_.emplace(lanes.lanes[i], static_cast<int>(i));
  }

  int width() const { return kLaneNamesWidth + columns_ * kStepColumn + kRightRoom; }
  int height() const { return lanes_top() + static_cast<int>(lanes_.lanes.size()) * kLaneHeight + 10; }

  // The centre of the column of `seq`, or of the first column after it.
  int x(std::int64_t seq) const {
    auto it = column_of_.lower_bound(seq);
    const int column = it == column_of_.end() ? columns_ : it->second;
    return kLaneNamesWidth + column * kStepColumn + kStepColumn / 2;
  }
  int lanes_top() const { return kTimeAxisHeight + static_cast<int>(lanes_.bands.size()) * kBandHeight + 8; }
  int lane_y(const std::string& lane) const { return lanes_top() + lane_index_.at(lane) * kLaneHeight + kLaneHeight / 2; }

  std::string axis() const {
    std::string svg = "<g class=\"axis\">\n";
    std::int64_t previous_ms = -1;
    int last_label_column = -kMinLabelColumns;
    for (const auto& [seq, at_ms] : lanes_.time_of_seq) {
      if (at_ms == previous_ms) continue;
      previous_ms = at_ms;
      const int column = column_of_.at(seq);
      const int left = kLaneNamesWidth + column * kStepColumn;
      svg += fmt::format("<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", left, kTimeAxisHeight - 8, height());
      if (column - last_label_column < kMinLabelColumns) continue;
      last_label_column = column;
      svg += fmt::format("<text class=\"time\" x=\"{}\" y=\"{}\">{}</text>\n", left + 2, kTimeAxisHeight - 12,
                         format_virtual_time(at_ms));
    }
    return svg + "</g>\n";
  }

  std::string bands() const {
    std::string svg;
    for (std::size_t b = 0; b < lanes_.bands.size(); ++b) {
      const StatusBand& band = lanes_.bands[b];
      const int top = kTimeAxisHeight + static_cast<int>(b) * kBandHeight;
      svg += fmt::format("<g class=\"band\" data-rayjob=\"{}\">\n<text class=\"lane-name\" x=\"6\" y=\"{}\">{}</text>\n",
                         xml_attribute(band.rayjob), top + 15, xml_text(object_name(band.rayjob)));
      for (std::size_t i = 0; i < band.segments.size(); ++i) {
        const StatusSegment& segment = band.segments[i];
        const int left = x(segment.from_seq) - kStepColumn / 2;
        const int right = i + 1 < band.segments.size() ? x(band.segments[i + 1].from_seq) - kStepColumn / 2
                                                       : kLaneNamesWidth + columns_ * kStepColumn;
        const std::string name = deployment_label(segment.deployment);
        svg += fmt::format(
            "<a href=\"#seq-{}\"><rect class=\"segment\" data-status=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
            "height=\"{}\" fill=\"{}\"><title>{} jobStatus={} from #{}</title></rect></a>\n",
            segment.from_seq, xml_attribute(name), left, top + 2, std::max(right - left, 2), kBandHeight - 4,
            deployment_colour(segment.deployment), xml_text(name), xml_text(segment.job_status), segment.from_seq);
        if (right - left >= static_cast<int>(name.size()) * 6 + 4) {
          svg += fmt::format("<text class=\"segment-name\" x=\"{}\" y=\"{}\">{}</text>\n", left + 3, top + 15,
                             xml_text(name));
        }
      }
      svg += "</g>\n";
    }
    return svg;
  }

  std::string lane_rows() const {
    std::string svg;
    for (const std::string& lane : lanes_.lanes) {
      const int y = lane_y(lane);
      svg += fmt::format(
          "<g class=\"lane\" data-lane=\"{0}\"><text class=\"lane-name\" x=\"6\" y=\"{1}\">{2}</text>"
          "<line class=\"lane-line\" x1=\"{3}\" y1=\"{4}\" x2=\"{5}\" y2=\"{4}\"/></g>\n",
          xml_attribute(lane), y + 4, xml_text(lane), kLaneNamesWidth, y, kLaneNamesWidth + columns_ * kStepColumn);
    }
    return svg;
  }

  std::string bars() const {
    if (!lane_index_.contains("controller")) return "";
    std::string svg;
    const int y = lane_y("controller");
    for (const ReconcileBar& bar : lanes_.bars) {
      const int left = x(bar.begin_seq) - kStepColumn / 2 + 2;
      const int right = x(bar.end_seq) + kStepColumn / 2 - 2;
      svg += fmt::format(
          "<a href=\"#seq-{}\"><rect class=\"bar{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"22\" rx=\"3\">"
          "<title>reconcile {} (#{} to #{}): {}</title></rect></a>\n",
          bar.begin_seq, bar.result == "crashed" ? " crashed" : "", left, y - 11, std::max(right - left, 4),
          xml_text(bar.key), bar.begin_seq, bar.end_seq, xml_text(bar.result.empty() ? "(cut)" : bar.result));
    }
    return svg;
  }

  // A thin line in the informer's lane from the write to its delivery; one still held at the
  // window's end runs on to it, dashed, with the rv it holds.
  std::string in_flight() const {
    std::string svg;
    for (const WatchInFlight& event : lanes_.in_flight) {
      const int y = lane_y(event.lane) + 12;
      const int from = x(event.written_seq);
      if (event.delivered_seq) {
        svg += fmt::format("<line class=\"in-flight\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>rv {} "
                           "written at #{}, delivered at #{}</title></line>\n",
                           from, y, x(*event.delivered_seq), y, event.rv, event.written_seq, *event.delivered_seq);
        continue;
      }
      const int to = kLaneNamesWidth + columns_ * kStepColumn;
      svg += fmt::format("<g class=\"held\" data-rv=\"{}\"><line class=\"in-flight held\" x1=\"{}\" y1=\"{}\" x2=\"{}\" "
                         "y2=\"{}\"><title>rv {} written at #{}, not delivered</title></line>"
                         "<text class=\"label held\" x=\"{}\" y=\"{}\">rv {} held</text></g>\n",
                         event.rv, from, y, to, y, event.rv, event.written_seq, from + 4, y - 3, event.rv);
    }
    return svg;
  }

  std::string marks() const {
    std::string svg;
    for (const SwimlaneMark& mark : lanes_.marks) svg += one_mark(mark);
    return svg;
  }

  std::string marked_line(std::int64_t seq, std::string_view label) const {
    return fmt::format("<g class=\"marked\" data-seq=\"{0}\"><line class=\"marked-line\" x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" "
                       "y2=\"{3}\"/><text class=\"label marked\" x=\"{4}\" y=\"{5}\">{6}</text></g>\n",
                       seq, x(seq) - kStepColumn / 2, kTimeAxisHeight - 6, height() - 4, x(seq) - kStepColumn / 2 + 3,
                       kTimeAxisHeight - 2, xml_text(label));
  }

  std::string violation_lines() const {
    std::string svg;
    for (const SwimlaneMark& mark : lanes_.marks) {
      if (mark.kind != MarkKind::violation) continue;
      svg += fmt::format("<line class=\"violation-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", x(mark.seq),
                         kTimeAxisHeight - 6, height() - 6);
    }
    return svg;
  }

 private:
  std::string one_mark(const SwimlaneMark& mark) const {
    const int cx = x(mark.seq);
    const int cy = lane_y(mark.lane);
    const std::string_view kind = to_string(mark.kind);
    std::string shape;
    switch (mark.kind) {
      case MarkKind::write:
      case MarkKind::stored:
      case MarkKind::deliver:
      case MarkKind::read:
      case MarkKind::stale_read:
      case MarkKind::api_read:
        shape = fmt::format("<rect class=\"shape\" x=\"{}\" y=\"{}\" width=\"16\" height=\"14\" rx=\"2\"/>", cx - 8, cy - 7);
        break;
      case MarkKind::fault:
      case MarkKind::crash:
      case MarkKind::violation:
        shape = fmt::format("<polygon class=\"shape\" points=\"{},{} {},{} {},{} {},{}\"/>", cx, cy - 8, cx + 8, cy, cx,
                            cy + 8, cx - 8, cy);
        break;
      case MarkKind::departure:
        shape = fmt::format("<polygon class=\"shape\" points=\"{},{} {},{} {},{}\"/>", cx, cy - 7, cx + 7, cy + 6, cx - 7,
                            cy + 6);
        break;
      default:
        shape = fmt::format("<circle class=\"shape\" cx=\"{}\" cy=\"{}\" r=\"6\"/>", cx, cy);
    }
    std::string svg = fmt::format("<a href=\"{}\"><g class=\"mark {}\" data-seq=\"{}\" data-lane=\"{}\">{}",
                                  xml_attribute(mark.link), kind, mark.seq, xml_attribute(mark.lane), shape);
    if (mark.number) svg += fmt::format("<text class=\"number\" x=\"{}\" y=\"{}\">{}</text>", cx, cy, *mark.number);
    svg += fmt::format("<title>{}</title></g></a>\n", xml_text(mark.detail));
    if (!mark.label.empty()) {
      svg += fmt::format("<text class=\"label {}\" x=\"{}\" y=\"{}\">{}</text>\n", kind, cx + 9, cy - 10,
                         xml_text(mark.label));
    }
    return svg;
  }

  const Swimlanes& lanes_;
  std::map<std::int64_t, int> column_of_;
  int columns_ = 0;
  std::map<std::string, int> lane_index_;
};

}  // namespace

std::string_view deployment_colour(std::string_view deployment) {
  static const std::map<std::string_view, std::string_view> colours = {
      {"", "#e5e7eb"},          {"Initializing", "#bfdbfe"}, {"Running", "#bbf7d0"},
      {"Waiting", "#e9d5ff"},   {"Suspending", "#fde68a"},   {"Suspended", "#fcd34d"},
      {"Retrying", "#fed7aa"},  {"Complete", "#4ade80"},     {"Failed", "#f87171"},
      {"ValidationFailed", "#fca5a5"}};
  auto it = colours.find(deployment);
  return it == colours.end() ? "#d4d4d4" : it->second;
}

std::string swimlane_svg(const Swimlanes& lanes, std::string_view title, std::optional<std::int64_t> marked_seq,
                         std::string_view marked_label) {
  const SwimlaneDrawing drawing(lanes);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"swimlanes\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" data-first-seq=\"{2}\" data-last-seq=\"{3}\">\n<title>{4}</title>\n<style>{5}</style>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
      drawing.width(), drawing.height(), lanes.first_seq, lanes.last_seq, xml_text(title), kSwimlaneStyle);
  svg += fmt::format("<text x=\"6\" y=\"16\" class=\"lane-name\">{}</text>\n", xml_text(title));
  svg += fmt::format("<text x=\"6\" y=\"30\" class=\"time\">virtual time across, one column per step drawn "
                     "(#{} to #{})</text>\n",
                     lanes.first_seq, lanes.last_seq);
  svg += drawing.axis();
  svg += drawing.bands();
  svg += drawing.lane_rows();
  svg += drawing.bars();
  svg += drawing.in_flight();
  svg += drawing.violation_lines();
  if (marked_seq) svg += drawing.marked_line(*marked_seq, marked_label);
  svg += drawing.marks();
  return svg + "</svg>\n";
}

}  // namespace rjsim::cli
