#include "cli/state_graph_svg.h"

#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "cli/junit.h"
#include "cli/run_record.h"
#include "cli/swimlane_svg.h"

namespace rjsim::cli {
namespace {

constexpr int kNodeWidth = 128;
constexpr int kNodeHeight = 30;
constexpr int kLayerGap = 74;
constexpr int kNodeGap = 28;
constexpr int kGraphMargin = 24;
constexpr int kGraphTop = 40;

constexpr std::string_view kStateGraphStyle = R"(
.state-graph text { font: 12px system-ui, sans-serif; fill: #222; }
.state-graph .node rect { stroke: #555; }
.state-graph .node text { text-anchor: middle; dominant-baseline: central; }
.state-graph .edge path { fill: none; stroke: #555; stroke-width: 1.2; }
.state-graph .edge text { font-size: 11px; fill: #1d4ed8; font-weight: 600; }
)";

struct NodePlace {
  int layer = 0;
  int x = 0;   // left
  int y = 0;   // top
};

// Each state's layer: its shortest path from the first state along the edges, in edge order;
// a state no path reaches goes below the others.
std::map<std::string, int> layers_of(const TransitionGraph& graph) {
  std::map<std::string, int> layer;
  if (graph.states.empty()) return layer;
  std::deque<std::string> queue{graph.states.front()};
  layer[graph.states.front()] = 0;
  while (!queue.empty()) {
    const std::string state = queue.front();
    queue.pop_front();
    for (const TransitionGraph::Edge& edge : graph.edges) {
      if (edge.from != state || layer.contains(edge.to)) continue;
      layer[edge.to] = layer[state] + 1;
      queue.push_back(edge.to);
    }
  }
  int deepest = 0;
  for (const auto& entry : layer) deepest = std::max(deepest, entry.second);
  for (const std::string& state : graph.states) layer.emplace(state, deepest + 1);
  return layer;
}

std::map<std::string, NodePlace> places_of(const TransitionGraph& graph) {
  const std::map<std::string, int> layer = layers_of(graph);
  std::map<int, int> placed_in_layer;
  std::map<std::string, NodePlace> places;
  for (const std::string& state : graph.states) {
    const int l = layer.at(state);
    const int index = placed_in_layer[l]++;
    places[state] = NodePlace{l, kGraphMargin + index * (kNodeWidth + kNodeGap), kGraphTop + l * kLayerGap};
  }
  return places;
}

std::string edge_path(const NodePlace& from, const NodePlace& to, int back_edges_drawn) {
  const int from_cx = from.x + kNodeWidth / 2;
  const int to_cx = to.x + kNodeWidth / 2;
  if (&from == &to) {   // a loop: jobStatus changed, the deployment status did not
    const int right = from.x + kNodeWidth;
    return fmt::format("M {} {} C {} {} {} {} {} {}", right, from.y + 8, right + 34, from.y - 10, right + 34,
                       from.y + kNodeHeight + 10, right, from.y + kNodeHeight - 8);
  }
  if (to.layer > from.layer) {
    return fmt::format("M {} {} L {} {}", from_cx, from.y + kNodeHeight, to_cx, to.y);
  }
  const int bulge = 40 + 18 * back_edges_drawn;   // back edges side by side, not on top of each other
  const int right = std::max(from.x, to.x) + kNodeWidth;
  return fmt::format("M {} {} C {} {} {} {} {} {}", from.x + kNodeWidth, from.y + kNodeHeight / 2, right + bulge,
                     from.y + kNodeHeight / 2, right + bulge, to.y + kNodeHeight / 2, to.x + kNodeWidth,
                     to.y + kNodeHeight / 2);
}

// Where an edge's count is written: the middle of its straight line, or out on its curve.
std::pair<int, int> count_position(const NodePlace& from, const NodePlace& to, int back_edges_drawn) {
  if (&from == &to) return {from.x + kNodeWidth + 30, from.y + kNodeHeight / 2 + 4};
  if (to.layer > from.layer) {
    return {(from.x + to.x) / 2 + kNodeWidth / 2 + 5, (from.y + kNodeHeight + to.y) / 2 + 4};
  }
  const int right = std::max(from.x, to.x) + kNodeWidth;
  return {right + 30 + 18 * back_edges_drawn, (from.y + to.y) / 2 + kNodeHeight / 2 + 4};
}

}  // namespace

std::string state_graph_svg(const TransitionGraph& graph, std::string_view title) {
  const std::map<std::string, NodePlace> places = places_of(graph);
  int width = 2 * kGraphMargin + kNodeWidth, height = kGraphTop + kNodeHeight + kGraphMargin;
  for (const auto& entry : places) {
    width = std::max(width, entry.second.x + kNodeWidth + kGraphMargin);
    height = std::max(height, entry.second.y + kNodeHeight + kGraphMargin);
  }
  width += 40 + 18 * static_cast<int>(graph.edges.size());   // room for the back edges' curves
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"state-graph\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n<title>{2}</title>\n<style>{3}</style>\n"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
      "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#555\"/></marker></defs>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n<text x=\"{4}\" y=\"20\">{2}</text>\n",
      width, height, xml_text(title), kStateGraphStyle, kGraphMargin);
  int back_edges_drawn = 0;
  for (const TransitionGraph::Edge& edge : graph.edges) {
    const NodePlace& from = places.at(edge.from);
    const NodePlace& to = places.at(edge.to);
    const bool back = &from != &to && to.layer <= from.layer;
    const auto [count_x, count_y] = count_position(from, to, back_edges_drawn);
    svg += fmt::format(
        "<g class=\"edge\" data-from=\"{}\" data-to=\"{}\" data-count=\"{}\"><path d=\"{}\" marker-end=\"url(#arrow)\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text></g>\n",
        xml_attribute(deployment_label(edge.from)), xml_attribute(deployment_label(edge.to)), edge.count,
        edge_path(from, to, back_edges_drawn), count_x, count_y, edge.count);
    if (back) ++back_edges_drawn;
  }
  for (const std::string& state : graph.states) {
    const NodePlace& place = places.at(state);
    const std::string name = deployment_label(state);
    svg += fmt::format(
        "<g class=\"node\" data-status=\"{0}\"><rect x=\"{1}\" y=\"{2}\" width=\"{3}\" height=\"{4}\" rx=\"15\" "
        "fill=\"{5}\"/><text x=\"{6}\" y=\"{7}\">{8}</text></g>\n",
        xml_attribute(name), place.x, place.y, kNodeWidth, kNodeHeight, deployment_colour(state),
        place.x + kNodeWidth / 2, place.y + kNodeHeight / 2, xml_text(name));
  }
  return svg + "</svg>\n";
}

}  // namespace rjsim::cli
