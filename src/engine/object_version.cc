#include "engine/object_version.h"

#include <utility>

#include "engine/fingerprint.h"

namespace rjsim::engine {

ObjectVersion::ObjectVersion() {
  static const std::shared_ptr<const Shared> placeholder =
      std::make_shared<const Shared>(Shared{Object{}, content_digest(Object{}), true});
  shared_ = placeholder;
}

ObjectVersion::ObjectVersion(Object object, bool with_digest) {
  const Hash128 digest = with_digest ? content_digest(object) : Hash128{};
  shared_ = std::make_shared<const Shared>(Shared{std::move(object), digest, with_digest});
}

}  // namespace rjsim::engine
