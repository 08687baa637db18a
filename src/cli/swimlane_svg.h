// Swimlanes (cli/swimlanes.h) drawn as one self-contained SVG element: no script, no external
// file, its style inside it, so it works inline in `rjsim show --format html`, alone from
// `--format svg`, and pasted into an issue. Steps run across, one column per step drawn (so steps
// at the same virtual time never overlap), with the virtual time written above the column where
// it moves on; a band per RayJob shows its jobDeploymentStatus; a lane per actor shows its marks
// (writes and deliveries carry the resourceVersion in them, a stale read is drawn in the warning
// colour with both versions, a violation is a red line across every lane linked to its text);
// the controller's reconciles are bars. Every mark links to its row of the page's timeline and
// has the event as its tooltip. Elements carry classes and data- attributes (`lane`, `mark`,
// `stale-read`, `data-lane`, `data-seq`) so that a test can read the picture from the DOM.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/swimlanes.h"

namespace rjsim::cli {

// `marked_seq`, when given, is drawn as a blue line across every lane with `marked_label` above
// it (`rjsim diff --format html`: where two runs first differ).
std::string swimlane_svg(const Swimlanes& lanes, std::string_view title,
                         std::optional<std::int64_t> marked_seq = std::nullopt, std::string_view marked_label = "");

// The fill a jobDeploymentStatus is drawn in ("" is New), here and in the state graph.
std::string_view deployment_colour(std::string_view deployment);

}  // namespace rjsim::cli
