#include "cli/transition_graph.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/run_record.h"

namespace rjsim::cli {
namespace {

void add_state(std::vector<std::string>& states, const std::string& state) {
  if (std::find(states.begin(), states.end(), state) == states.end()) states.push_back(state);
}

void count_edge(std::vector<TransitionGraph::Edge>& edges, const std::string& from,
                const std::string& to) {
  auto edge = std::find_if(edges.begin(), edges.end(), [&](const TransitionGraph::Edge& e) {
    return e.from == from && e.to == to;
  });
  if (edge == edges.end()) {
    edges.push_back(TransitionGraph::Edge{from, to, 1});
  } else {
    ++edge->count;
  }
}

// A DOT double-quoted string: backslashes and quotes escaped.
std::string dot_quoted(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// Mermaid state ids are identifiers: every other character becomes '_', and an id already
// taken by another state gets its node's index appended.
std::vector<std::string> mermaid_ids(const std::vector<std::string>& states) {
  std::vector<std::string> ids;
  for (std::size_t index = 0; index < states.size(); ++index) {
    std::string id = deployment_label(states[index]);
    for (char& c : id) {
      const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (!word) c = '_';
    }
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) id += fmt::format("_{}", index);
    ids.push_back(id);
  }
  return ids;
}

// Mermaid labels: quotes and line breaks would end the label; drop them.
std::string mermaid_label(std::string_view text) {
  std::string label;
  for (char c : text) {
    if (c != '"' && c != '\n' && c != '\r') label += c;
  }
  return label;
}

std::size_t state_index(const std::vector<std::string>& states, const std::string& state) {
  return static_cast<std::size_t>(std::find(states.begin(), states.end(), state) - states.begin());
}

}  // namespace

TransitionGraph transition_graph(const std::vector<store::Transition>& transitions) {
  TransitionGraph graph;
  for (const store::Transition& t : transitions) {
    add_state(graph.states, t.from_deployment);
    add_state(graph.states, t.to_deployment);
    count_edge(graph.edges, t.from_deployment, t.to_deployment);
  }
  return graph;
}

std::string graph_dot(const TransitionGraph& graph, std::string_view title) {
  std::string dot = "digraph transitions {\n";
  dot += fmt::format("  label={};\n  labelloc=t;\n  rankdir=LR;\n", dot_quoted(title));
  dot += "  node [shape=box, style=rounded];\n";
  for (const std::string& state : graph.states) {
    dot += fmt::format("  {};\n", dot_quoted(deployment_label(state)));
  }
  for (const TransitionGraph::Edge& edge : graph.edges) {
    dot += fmt::format("  {} -> {} [label=\"{}\"];\n", dot_quoted(deployment_label(edge.from)),
                       dot_quoted(deployment_label(edge.to)), edge.count);
  }
  return dot + "}\n";
}

std::string graph_mermaid(const TransitionGraph& graph, std::string_view title) {
  const std::vector<std::string> ids = mermaid_ids(graph.states);
  std::string mermaid = "stateDiagram-v2\n";
  mermaid += fmt::format("  %% {}\n", mermaid_label(title));
  for (std::size_t index = 0; index < graph.states.size(); ++index) {
    mermaid += fmt::format("  state \"{}\" as {}\n",
                           mermaid_label(deployment_label(graph.states[index])), ids[index]);
  }
  for (const TransitionGraph::Edge& edge : graph.edges) {
    mermaid += fmt::format("  {} --> {} : {}\n", ids[state_index(graph.states, edge.from)],
                           ids[state_index(graph.states, edge.to)], edge.count);
  }
  return mermaid;
}

nlohmann::ordered_json graph_json(const TransitionGraph& graph) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const std::string& state : graph.states) {
    nodes.push_back({{"status", state}, {"label", deployment_label(state)}});
  }
  nlohmann::ordered_json edges = nlohmann::ordered_json::array();
  for (const TransitionGraph::Edge& edge : graph.edges) {
    edges.push_back({{"from", edge.from}, {"to", edge.to}, {"count", edge.count}});
  }
  return {{"nodes", nodes}, {"edges", edges}};
}

}  // namespace rjsim::cli
