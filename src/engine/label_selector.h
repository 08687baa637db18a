// A label selector of one requirement, `key in (values...)`, as KubeRay's ByObject cache
// selectors are (kubernetes-semantics §0): `created-by=kuberay-operator` for Jobs (one value is
// `key=value`), `ray.io/node-type in (head, worker, redis-cleanup)` for Pods. The API server's
// watch of a kind sends only the events of objects its selector selects (§1.7), and the
// informer's cache holds only those objects. An empty key selects everything.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "engine/objects.h"

namespace rjsim::engine {

struct LabelSelector {
  std::string key;
  std::vector<std::string> values;

  bool matches(const ObjectMeta& meta) const {
    if (key.empty()) return true;
    const auto label = meta.labels->find(key);
    return label != meta.labels->end() && std::find(values.begin(), values.end(), label->second) != values.end();
  }
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

}  // namespace rjsim::engine
