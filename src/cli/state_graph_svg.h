// The transition graph of a run (cli/transition_graph.h) drawn as one self-contained SVG element,
// a small layered layout: each state on the layer of its shortest path from the first state,
// in order of first appearance within a layer; an edge to a later layer is a straight arrow, an
// edge back (a retry, a resume) curves round the right, a change of jobStatus alone is a loop;
// every edge carries its count. Deterministic: the same graph draws the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "cli/transition_graph.h"

namespace rjsim::cli {

std::string state_graph_svg(const TransitionGraph& graph, std::string_view title);

}  // namespace rjsim::cli
