// The comparison half of conform.h: the model's transitions aligned with the recorded ones, and
// conform_trace, which derives the scenario, runs it and aligns.
#include "trace/conform.h"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/model_names.h"
#include "engine/scenario_loader.h"
#include "trace/conform_timing.h"

namespace rjsim::trace {
namespace {

bool same(const explore::Transition& a, const explore::Transition& b) {
  return a.from == b.from && a.to == b.to && a.job_status == b.job_status;
}

std::string labels(const std::vector<explore::Transition>& model, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t k = from; k < to; ++k) out += (out.empty() ? "" : ", ") + transition_label(model[k]);
  return out;
}

std::string at_text(std::int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{}s", ms / 1000) : fmt::format("{}.{:03}s", ms / 1000, ms % 1000);
}

// A watch does not say when the user changed the spec or the head restarted, only between which
// recorded states: an estimated action is moved to 1ms after the model's transition that matches the last recorded
// transition before the change (the model run with the actions before it only).
void anchor_estimated_actions(ConformScenario& derived) {
  for (std::size_t i = 0; i < derived.action_times.size(); ++i) {
    ActionTime& time = derived.action_times[i];
    if ((!time.estimated && !time.not_before_anchor) || time.after_recorded == 0) continue;
    const Alignment alignment = align_fault_free(derived, scenario_with_actions(derived, i));
    const ConformDetail& anchor = alignment.details[static_cast<std::size_t>(time.after_recorded - 1)];
    if (time.not_before_anchor) {
      if (anchor.agreed && anchor.model && anchor.model->at_ms >= time.at_ms) {
        time.at_ms = anchor.model->at_ms + 1;
        derived.assumptions[time.assumption] += fmt::format(
            "; kept 1ms after the model's {}, which the recording shows before it", transition_label(*anchor.model));
      }
      continue;
    }
    if (!anchor.agreed || !anchor.model) {
      time.left_out = time.inferred;
      derived.assumptions[time.assumption] += fmt::format("; the model did not make recorded #{} to anchor it to{}",
                                                          anchor.index, time.inferred ? ", so it is left out" : "");
      continue;
    }
    time.at_ms = anchor.model->at_ms + 1;
    for (std::size_t j = 0; j < i; ++j) time.at_ms = std::max(time.at_ms, derived.action_times[j].at_ms);
    derived.assumptions[time.assumption] =
        fmt::format("{} at {} (1ms after the model's {}, which matches recorded #{}; {})", time.what,
                    at_text(time.at_ms), transition_label(*anchor.model), anchor.index, time.untimed_because);
  }
  derived.scenario = scenario_with_actions(derived, derived.action_times.size());
}

}  // namespace

std::vector<explore::Transition> rayjob_transitions(const explore::RunReport& run, const std::string& rayjob) {
  std::vector<explore::Transition> transitions;
  for (const explore::Transition& t : run.transitions) {
    if (t.rayjob == rayjob) transitions.push_back(t);
  }
  return transitions;
}

Alignment align_run(const ConformScenario& derived, const explore::RunReport& run) {
  return align_transitions(derived.recorded, rayjob_transitions(run, derived.rayjob), derived.first_deployment,
                           derived.first_job_status);
}

Alignment align_fault_free(const ConformScenario& derived, const engine::Scenario& scenario,
                           explore::RunReport* report) {
  explore::RunOptions options;
  options.keep_events = false;
  options.hash_log = report != nullptr;
  explore::RunReport run = explore::run_scenario(scenario, options);
  Alignment alignment = align_run(derived, run);
  if (report != nullptr) *report = std::move(run);
  return alignment;
}

std::string transition_label(const explore::Transition& t) {
  std::string details = t.job_status.empty() ? "jobStatus \"\"" : t.job_status;
  if (!t.reason.empty()) details += ", reason " + t.reason;
  return fmt::format("{} -> {} ({})", t.from.empty() ? "\"\"" : t.from, t.to.empty() ? "\"\"" : t.to, details);
}

Alignment align_transitions(const std::vector<explore::Transition>& recorded,
                            const std::vector<explore::Transition>& model, const std::string& first_deployment,
                            const std::string& first_job_status) {
  Alignment out;
  std::size_t next = 0;
  if (!first_deployment.empty() || !first_job_status.empty()) {
    for (std::size_t k = 0; k < model.size(); ++k) {
      if (model[k].to == first_deployment && model[k].job_status == first_job_status) {
        next = k + 1;
        break;
      }
    }
  }
  bool explained = false;
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    ConformDetail detail;
    detail.index = static_cast<int>(i);
    detail.recorded = recorded[i];
    if (next < model.size() && same(model[next], recorded[i])) {
      detail.model = model[next];
      detail.agreed = true;
      ++next;
    } else {
      std::size_t found = next;
      while (found < model.size() && !same(model[found], recorded[i])) ++found;
      const std::string before =
          i == 0 ? std::string("at the start")
                 : fmt::format("after {}", transition_label(recorded[i - 1]));
      if (found < model.size()) {
        detail.model = model[found];
        detail.note = fmt::format("the model made {} first, which the recording does not have; then this one at {}",
                                  labels(model, next, found), at_text(model[found].at_ms));
        next = found + 1;
      } else if (next < model.size()) {
        detail.model = model[next];
        detail.note = fmt::format("the recording shows {}, the model made {} at {} instead",
                                  transition_label(recorded[i]), transition_label(model[next]),
                                  at_text(model[next].at_ms));
      } else {
        detail.note = fmt::format("the recording shows {}; the model made no further transition",
                                  transition_label(recorded[i]));
      }
      if (!explained) {
        detail.note = fmt::format("first difference, {}: {}", before, detail.note);
        explained = true;
      }
    }
    (detail.agreed ? out.agreed : out.differs) += 1;
    out.details.push_back(std::move(detail));
  }
  out.model_after.assign(model.begin() + static_cast<std::ptrdiff_t>(std::min(next, model.size())), model.end());
  return out;
}

ConformReport conform_trace(const std::vector<events::Event>& trace_events, const std::string& controller,
                            const std::string& rayjob) {
  ConformReport report;
  if (controller.empty()) {
    report.model = pick_conform_model(trace_events);
  } else {
    const std::string canonical = engine::canonical_model_name(controller);
    if (canonical.empty()) {
      throw ConformError(fmt::format("--controller: \"{}\" is not a model (expected one of: {})", controller,
                                     fmt::join(engine::kModelNamesWithAlias, ", ")));
    }
    report.model = {canonical, "given with --controller"};
  }
  report.derived = derive_conform_scenario(trace_events, report.model.controller, rayjob);
  anchor_estimated_actions(report.derived);
  report.alignment = align_fault_free(report.derived, report.derived.scenario, &report.run);
  if (report.alignment.differs == 0) return report;
  if (const std::optional<TimingChoice> timing = search_timing(report.derived)) {
    apply_timing(report.derived, *timing);
    report.timing = timing->label();
    report.alignment = align_fault_free(report.derived, report.derived.scenario, &report.run);
  }
  return report;
}

}  // namespace rjsim::trace
