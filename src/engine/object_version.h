// One version of an object as the API server stored it, shared instead of copied: the server's
// store, the watch event that announced the version and every informer cache that applied it hold
// the same immutable Object (kubernetes-semantics §7.1: a version never changes once written; a
// write makes a new one). Copying a version, and so a World, copies a reference. A World stays a
// value (DESIGN §1): nothing reaches a version to change it, and == compares contents, not
// addresses. Each version carries the 128-bit digest of its contents, taken once when it is made,
// so that a fingerprint hashes 16 bytes per object instead of the object (fingerprint.h); a
// server that no one fingerprints makes its versions without one (ApiServer::take_digests).
// Reads convert to `const Object&`; a write starts from a copy of the Object.
#pragma once

#include <cassert>
#include <memory>
#include <utility>

#include "engine/hash128.h"
#include "engine/objects.h"

namespace rjsim::engine {

class ObjectVersion {
 public:
  // An empty RayJob, shared by every default-made version (a placeholder, never stored).
  ObjectVersion();
  explicit ObjectVersion(Object object, bool with_digest = true);
  // The same, taking the spec's digest from `spec_source` when the object shares its spec (a
  // write that left the spec alone): only the metadata and the status are hashed again.
  ObjectVersion(Object object, bool with_digest, const ObjectVersion& spec_source);

  const Object& operator*() const { return shared_->object; }
  const Object* operator->() const { return &shared_->object; }
  operator const Object&() const { return shared_->object; }   // NOLINT: reads see an Object
  // XXH3-128 of the contents, as the fingerprint hashes an Object (fingerprint.cc).
  bool has_digest() const { return shared_->has_digest; }
  const Hash128& digest() const {
    assert(has_digest() && "rjsim bug: the digest of a version made without one");
    return shared_->digest;
  }

  // The same stored version (not merely equal contents): what a memo that holds the version,
  // so that its address cannot be reused, compares.
  bool same_version(const ObjectVersion& other) const { return shared_ == other.shared_; }

  friend bool operator==(const ObjectVersion& a, const ObjectVersion& b) {
    if (a.shared_ == b.shared_) return true;
    if (a.has_digest() && b.has_digest() && a.digest() != b.digest()) return false;
    return *a == *b;
  }
  friend bool operator==(const ObjectVersion& a, const Object& b) { return *a == b; }

 private:
  struct Shared {
    Shared(Object&& object_, const Hash128& digest_, const Hash128& spec_digest_, bool has_digest_)
        : object(std::move(object_)), digest(digest_), spec_digest(spec_digest_), has_digest(has_digest_) {}
    Object object;
    Hash128 digest;
    Hash128 spec_digest;
    bool has_digest = false;
  };
  // The shared part of a version of `object` (moved from), with its digests when `with_digest`:
  // the spec's is `spec_digest` when given, else hashed.
  static std::shared_ptr<const Shared> make(Object&& object, bool with_digest, const Hash128* spec_digest);
  std::shared_ptr<const Shared> shared_;
};

}  // namespace rjsim::engine
