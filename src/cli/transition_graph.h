// The transition graph of a run: each persisted jobDeploymentStatus is a node ("" is shown as
// New), each persisted transition (a row of the transitions view, every RayJob of the run) adds
// one to the count of its edge from -> to; a change of jobStatus alone is a loop on its node.
// Nodes and edges are in the order they first appear in the log, so the output is deterministic
// and reads like the state machine. Rendered as Graphviz DOT, Mermaid stateDiagram-v2 or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/records.h"

namespace rjsim::cli {

struct TransitionGraph {
  struct Edge {
    std::string from;   // persisted jobDeploymentStatus values; "" is New
    std::string to;
    std::int64_t count = 0;
  };
  std::vector<std::string> states;
  std::vector<Edge> edges;
};

TransitionGraph transition_graph(const std::vector<store::Transition>& transitions);

// `title` names the run: a DOT graph label, a Mermaid comment.
std::string graph_dot(const TransitionGraph& graph, std::string_view title);
std::string graph_mermaid(const TransitionGraph& graph, std::string_view title);
// {"nodes": [{"status", "label"}], "edges": [{"from", "to", "count"}]}
nlohmann::ordered_json graph_json(const TransitionGraph& graph);

}  // namespace rjsim::cli
