#include "engine/object_version.h"

#include <utility>

#include "engine/fingerprint.h"

namespace rjsim::engine {

ObjectVersion::ObjectVersion() {
  static const std::shared_ptr<const Shared> placeholder =
      std::make_shared<const Shared>(Shared{Object{}, content_digest(Object{})});
  shared_ = placeholder;
}

ObjectVersion::ObjectVersion(Object object) {
  const Hash128 digest = content_digest(object);
  shared_ = std::make_shared<const Shared>(Shared{std::move(object), digest});
}

}  // namespace rjsim::engine
