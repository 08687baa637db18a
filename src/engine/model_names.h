// The names of the models (DESIGN §2), kept once: the three releases, the alias kuberay-latest
// after the release it names, and the fix variants of docs/findings/. The scenario loader checks
// `controller:` against them without including the models; models/registry.cc builds each (and
// its tests build every name listed here); the commands list them in messages in this order.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace rjsim::engine {

inline constexpr std::string_view kLatestModelAlias = "kuberay-latest";
inline constexpr std::string_view kLatestModel = "kuberay-1.7";

inline constexpr std::array<std::string_view, 7> kModelNamesWithAlias = {
    "kuberay-1.0",
    "kuberay-1.1",
    "kuberay-1.7",
    kLatestModelAlias,
    "kuberay-1.7+ray-before-submitter-timeout",   // docs/findings/001
    "kuberay-1.7+api-reader-confirms-deletion",   // docs/findings/002
    "kuberay-1.7+wait-for-pods-deleted",          // docs/findings/003
};

// The model `name` stands for: itself, kuberay-1.7 for the alias; empty when it names none.
inline std::string canonical_model_name(std::string_view name) {
  if (name == kLatestModelAlias) return std::string(kLatestModel);
  for (std::string_view model : kModelNamesWithAlias) {
    if (name == model) return std::string(name);
  }
  return {};
}

}  // namespace rjsim::engine
