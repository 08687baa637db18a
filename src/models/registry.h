// The models by name (DESIGN §2): kuberay-1.1 (the default) and, as they land, kuberay-1.0 and
// kuberay-1.7 (alias kuberay-latest), and the variants of a release that carry one proposed fix
// for a finding (docs/findings/): "kuberay-1.7+ray-before-submitter-timeout".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/controller.h"

namespace rjsim::models {

inline constexpr std::string_view kDefaultModel = "kuberay-1.1";

// The model of that name (aliases resolved), or null when there is none.
std::unique_ptr<engine::Controller> make_model(std::string_view name);
// The canonical name for a name or alias ("kuberay-latest" -> "kuberay-1.7"); empty if unknown.
std::string canonical_model_name(std::string_view name);
// Every model that can be run, by canonical name.
std::vector<std::string> model_names();

}  // namespace rjsim::models
