#include "engine/object_version.h"

#include <utility>

#include "engine/fingerprint.h"

namespace rjsim::engine {

ObjectVersion::ObjectVersion() {
  static const std::shared_ptr<const Shared> placeholder = make(Object{}, true, nullptr);
  shared_ = placeholder;
}

ObjectVersion::ObjectVersion(Object object, bool with_digest) : shared_(make(std::move(object), with_digest, nullptr)) {}

ObjectVersion::ObjectVersion(Object object, bool with_digest, const ObjectVersion& spec_source) {
  const bool shares_spec = with_digest && spec_source.has_digest() && shares_spec_value(object, *spec_source);
  shared_ = make(std::move(object), with_digest, shares_spec ? &spec_source.shared_->spec_digest : nullptr);
}

std::shared_ptr<const ObjectVersion::Shared> ObjectVersion::make(Object&& object, bool with_digest,
                                                                 const Hash128* spec_digest) {
  if (!with_digest) return std::make_shared<const Shared>(std::move(object), Hash128{}, Hash128{}, false);
  const Hash128 spec = spec_digest ? *spec_digest : engine::spec_digest(object);
  const Hash128 digest = content_digest(object, spec);
  return std::make_shared<const Shared>(std::move(object), digest, spec, true);
}

}  // namespace rjsim::engine
