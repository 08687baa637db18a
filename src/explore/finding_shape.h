// The shape of a counterexample (issue 32's hunt): what a shrunk run did differently from the
// fault-free run, with names, versions and times left out, so that two counterexamples that
// found the same race the same way compare equal whatever the scenario called its objects.
// A departure is a logged choice whose pick is not the default chooser's (DESIGN §1: the default
// chooser picks 0 everywhere): a step run before its turn, a stale cache read, a failed write or
// dashboard call, a rewound re-list. Name suffixes are drawn in every run and are no departure.
// `rjsim hunt` counts distinct findings by invariant and symptom (the violation's message without
// names or numbers) and shows the shape of each finding's smallest counterexample: grouping by
// the whole shape split one race into as many findings as its counterexamples, since shrinking
// within a budget leaves incidental departures that differ from one counterexample to the next.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"

namespace rjsim::explore {

// "RayCluster/default/rayjob-sample-x7k2q" -> "RayCluster", "clock to 61000ms" -> "clock to Nms":
// the label of a choice without what only names or times the thing chosen.
std::string abstract_label(std::string_view text);

// A violation message with object references, generated names and numbers abstracted: the
// symptom ("Failed was persisted at seq N ... ended SUCCEEDED"), the same wherever it happened.
std::string abstract_message(std::string_view message);

// The departure a `choice` event records, as a short label ("stale read of RayCluster", "step
// reconcile", "failed write update RayJob"); empty when the event is not a departure.
std::string departure_label(const events::Event& event);

// The departures of a run's events in order, a departure repeated back to back said once.
std::vector<std::string> departure_shape(const std::vector<events::Event>& events);

}  // namespace rjsim::explore
