#include "engine/api_server.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstring>
#include <utility>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "engine/fingerprint.h"

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

std::string_view to_string(WatchType type) {
  switch (type) {
    case WatchType::Added: return "ADDED";
    case WatchType::Modified: return "MODIFIED";
    case WatchType::Deleted: return "DELETED";
  }
  return "MODIFIED";
}

namespace {

// WatchEvent::write_serial: unique in the process, whichever thread writes, and never output.
std::uint64_t next_write_serial() {
  static std::atomic<std::uint64_t> serial{0};
  return serial.fetch_add(1, std::memory_order_relaxed) + 1;
}

// Equality without std::string_view::compare, which the build does not inline: a key lookup
// confirms the one candidate its hash names.
bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

// Custom resources refuse an Update without resourceVersion; built-in kinds allow it
// (customResourceStrategy vs jobStrategy.AllowUnconditionalUpdate, kubernetes-semantics §2.2).
bool allows_unconditional_update(Kind kind) {
  return kind != Kind::RayJob && kind != Kind::RayCluster;
}

// The fields of metadata that only the server sets; a client's copy of them is ignored.
void keep_server_metadata(const ObjectMeta& stored, ObjectMeta& next) {
  next.name = stored.name;
  next.namespace_ = stored.namespace_;
  next.uid = stored.uid;
  next.resource_version = stored.resource_version;
  next.generation = stored.generation;
  next.creation_timestamp_ms = stored.creation_timestamp_ms;
  next.deletion_timestamp_ms = stored.deletion_timestamp_ms;
}

// Once deletion started, finalizers can only be removed (ValidateNoNewFinalizers, §2.2).
bool adds_finalizer(const ObjectMeta& stored, const ObjectMeta& next) {
  return std::any_of(next.finalizers->begin(), next.finalizers->end(),
                     [&](const std::string& f) { return !has_finalizer(stored, f); });
}

Error not_found(Kind kind, std::string_view name) {
  return Error(ErrorCode::not_found, fmt::format(FMT_COMPILE("{}s \"{}\" not found"), to_string(kind), name));
}

Error precondition_failed(const Object& stored, std::int64_t sent_resource_version) {
  const ObjectMeta& m = meta(stored);
  if (sent_resource_version == 0) {
    return Error(ErrorCode::invalid,
                 fmt::format("{} \"{}\" is invalid: metadata.resourceVersion: Invalid value: 0x0: "
                             "must be specified for an update",
                             to_string(kind_of(stored)), m.name));
  }
  return Error(ErrorCode::conflict,
               fmt::format("Operation cannot be fulfilled on {} \"{}\": the object has been "
                           "modified; please apply your changes to the latest version and try again",
                           to_string(kind_of(stored)), m.name));
}

Error new_finalizer_refused(const Object& stored) {
  return Error(ErrorCode::invalid,
               fmt::format("{} \"{}\" is invalid: metadata.finalizers: Forbidden: no new "
                           "finalizers can be added if the object is being deleted",
                           to_string(kind_of(stored)), meta(stored).name));
}

// Defaults the server fills in on every write, as the CRD schema and the built-in defaulting do:
// RayJob.spec.submissionMode (CRD default K8sJobMode), Job.spec.backoffLimit (6).
// The CRD's defaults for a worker group (raycluster_types.go, the same at v1.0.0, v1.1.0 and
// v1.7.0): minReplicas 0, maxReplicas maxInt32.
bool needs_worker_group_defaults(const RayClusterSpec& spec) {
  return std::any_of(spec.worker_group_specs.begin(), spec.worker_group_specs.end(),
                     [](const WorkerGroupSpec& group) { return !group.min_replicas || !group.max_replicas; });
}

void default_worker_groups(RayClusterSpec& spec) {
  for (WorkerGroupSpec& group : spec.worker_group_specs) {
    if (!group.min_replicas) group.min_replicas = 0;
    if (!group.max_replicas) group.max_replicas = 2'147'483'647;
  }
}

// Each default is written through edit() only when it is missing, so that a write whose spec
// already has them keeps sharing the spec it was given.
void apply_defaults(Object& object) {
  if (auto* rayjob = std::get_if<RayJob>(&object)) {
    if (rayjob->spec->submission_mode.empty()) rayjob->spec.edit().submission_mode = "K8sJobMode";
    if (rayjob->spec->ray_cluster_spec && needs_worker_group_defaults(*rayjob->spec->ray_cluster_spec)) {
      default_worker_groups(*rayjob->spec.edit().ray_cluster_spec);
    }
  }
  if (auto* cluster = std::get_if<RayCluster>(&object); cluster && needs_worker_group_defaults(*cluster->spec)) {
    default_worker_groups(cluster->spec.edit());
  }
  if (auto* job = std::get_if<Job>(&object); job && !job->spec->backoff_limit) job->spec.edit().backoff_limit = 6;
}

// A PUT (update or update_status) needs the object to exist and, with an rv, the stored rv: the
// check runs before the no-op short-circuit (§2.2).
Error check_put_precondition(const Object* stored, const Object& request) {
  const ObjectMeta& m = meta(request);
  const Kind kind = kind_of(request);
  if (!stored) return not_found(kind, m.name);
  const bool unconditional = m.resource_version == 0 && allows_unconditional_update(kind);
  if (!unconditional && m.resource_version != meta(*stored).resource_version) {
    return precondition_failed(*stored, m.resource_version);
  }
  return {};
}

WriteOutcome failed(Error error) {
  WriteOutcome outcome;
  outcome.error = std::move(error);
  return outcome;
}

}  // namespace

const Object* ApiServer::find(Kind kind, std::string_view namespace_, std::string_view name) const {
  const ObjectVersion* version = find_version(kind, namespace_, name);
  return version ? &**version : nullptr;
}

const ObjectVersion* ApiServer::find_version(Kind kind, std::string_view namespace_, std::string_view name) const {
  const std::vector<ObjectVersion>& objects = *objects_[kind_index(kind)];
  const auto place = key_indexes_[kind_index(kind)]->find(KeyIndex::hash_key(namespace_, name), [&](std::size_t at) {
    const ObjectMeta& m = meta(*objects[at]);
    return same_text(m.name, name) && same_text(m.namespace_, namespace_);
  });
  return place ? &objects[*place] : nullptr;
}

namespace {

// What ownership_digest() follows besides existence (api_server.h).
bool ownership_changed(const ObjectMeta& before, const ObjectMeta& after) {
  return before.owner_references != after.owner_references || before.finalizers != after.finalizers ||
         before.deletion_timestamp_ms != after.deletion_timestamp_ms ||
         before.deletion_grace_period_seconds != after.deletion_grace_period_seconds;
}

}  // namespace

void ApiServer::append_watch(WatchType type, const ObjectVersion& version, std::int64_t now_ms, bool ownership,
                             bool was_selected) {
  const Kind written_kind = kind_of(*version);
  const int kind = kind_index(written_kind);
  const ObjectMeta& m = meta(*version);
  std::vector<WatchEvent>& log = watch_logs_[kind].edit();
  const bool sent = was_selected || (*watch_selectors_)[kind].matches(m);
  WatchEvent event{.resource_version = m.resource_version,
                   .type = type,
                   .sent = sent,
                   .sent_through = sent_events_before(log, log.size()) + (sent ? 1 : 0),
                   .object = version,
                   .written_at_ms = now_ms,
                   .key_hash = KeyIndex::hash_key(m.namespace_, m.name),
                   .write_serial = next_write_serial()};
  if (takes_digests_) {
    watch_log_digests_[kind] = extend_watch_log_digest(watch_log_digests_[kind], event);
    if (ownership) ownership_digests_[kind] = extend_watch_log_digest(ownership_digests_[kind], event);
  } else {
    ++watch_log_digests_[kind].low;   // the count of its events (api_server.h)
    if (ownership) ++ownership_digests_[kind].low;
  }
  write_stamps_.edit().written(version, indexed_label_hash(written_kind, m), type != WatchType::Modified,
                               event.write_serial);
  if (!keeps_object(written_kind, event)) event.object = ObjectVersion();   // digested above, then dropped
  log.push_back(std::move(event));
}

namespace {

// The objects `matches` accepts, in store order: from `index`'s candidates for `hash` when given,
// else from a walk of the store.
template <class Matches>
std::vector<const ObjectVersion*> select(const std::vector<ObjectVersion>& objects, const LabelIndex* index,
                                         std::uint64_t hash, Matches matches) {
  std::vector<const ObjectVersion*> out;
  if (index) {
    index->for_each(hash, [&](std::size_t place) {
      if (matches(objects[place])) out.push_back(&objects[place]);   // not another value of the same hash
    });
    return out;
  }
  for (const ObjectVersion& version : objects) {
    if (matches(version)) out.push_back(&version);
  }
  return out;
}

}  // namespace

std::vector<const ObjectVersion*> ApiServer::labelled(Kind kind, std::string_view namespace_, std::string_view key,
                                                      std::string_view value) const {
  const bool indexed = has_pod_indexes(kind) && key == kRayClusterLabel;
  return select(*objects_[kind_index(kind)], indexed ? &*label_indexes_[kind_index(kind)] : nullptr,
                LabelIndex::hash_value(namespace_, value), [&](const ObjectVersion& version) {
                  const ObjectMeta& m = meta(*version);
                  if (m.namespace_ != namespace_) return false;
                  const auto label = m.labels->find(key);
                  return label != m.labels->end() && label->second == value;
                });
}

std::vector<const ObjectVersion*> ApiServer::controlled_by(Kind kind, std::string_view namespace_,
                                                           std::string_view owner_uid) const {
  const bool indexed = has_pod_indexes(kind);
  return select(*objects_[kind_index(kind)], indexed ? &*owner_indexes_[kind_index(kind)] : nullptr,
                LabelIndex::hash_value(namespace_, owner_uid), [&](const ObjectVersion& version) {
                  const ObjectMeta& m = meta(*version);
                  const OwnerReference* owner = controller_owner(m);
                  return m.namespace_ == namespace_ && owner && owner->uid == owner_uid;
                });
}

std::optional<std::uint64_t> ApiServer::indexed_owner_hash(Kind kind, const ObjectMeta& m) {
  if (!has_pod_indexes(kind)) return std::nullopt;
  const OwnerReference* owner = controller_owner(m);
  if (!owner) return std::nullopt;
  return LabelIndex::hash_value(m.namespace_, owner->uid);
}

void ApiServer::reindex(Kind kind, std::size_t place, const ObjectMeta& before, const ObjectMeta& next) {
  deleting_[static_cast<std::size_t>(kind_index(kind))] +=
      static_cast<int>(next.deletion_timestamp_ms.has_value()) - static_cast<int>(before.deletion_timestamp_ms.has_value());
  if (!has_pod_indexes(kind)) return;
  const int k = kind_index(kind);
  const std::optional<std::uint64_t> label_before = indexed_label_hash(kind, before);
  const std::optional<std::uint64_t> label_after = indexed_label_hash(kind, next);
  if (label_before != label_after) label_indexes_[k].edit().relabelled(place, label_before, label_after);
  const std::optional<std::uint64_t> owner_before = indexed_owner_hash(kind, before);
  const std::optional<std::uint64_t> owner_after = indexed_owner_hash(kind, next);
  if (owner_before != owner_after) owner_indexes_[k].edit().relabelled(place, owner_before, owner_after);
}

std::optional<std::uint64_t> ApiServer::indexed_label_hash(Kind kind, const ObjectMeta& m) {
  if (!has_pod_indexes(kind)) return std::nullopt;
  const auto label = m.labels->find(kRayClusterLabel);
  if (label == m.labels->end()) return std::nullopt;
  return LabelIndex::hash_value(m.namespace_, label->second);
}

void ApiServer::erase(Kind kind, const ObjectMeta& m) {
  const ObjectVersion* found = find_version(kind, m.namespace_, m.name);
  assert(found && "rjsim bug: erasing an object the API server does not hold");
  // Its place before bucket(), which may give this server a copy of the objects to change.
  const std::size_t place = static_cast<std::size_t>(found - objects_[kind_index(kind)]->data());
  if (meta(**found).deletion_timestamp_ms) --deleting_[static_cast<std::size_t>(kind_index(kind))];
  std::vector<ObjectVersion>& objects = bucket(kind);
  objects.erase(objects.begin() + static_cast<std::ptrdiff_t>(place));
  key_indexes_[kind_index(kind)].edit().erased(place);
  if (has_pod_indexes(kind)) {
    label_indexes_[kind_index(kind)].edit().erased(place);
    owner_indexes_[kind_index(kind)].edit().erased(place);
  }
}

void ApiServer::delete_now(const ObjectVersion& last, std::int64_t now_ms) {
  erase(kind_of(*last), meta(*last));
  append_watch(WatchType::Deleted, last, now_ms, true, false);   // `last` is the version deleted
}

WriteOutcome ApiServer::create(Object& object, std::int64_t now_ms) {
  ObjectMeta& m = meta(object);
  const Kind kind = kind_of(object);
  assert(!m.name.empty() && !m.namespace_.empty() && "rjsim bug: create without name or namespace");
  if (const Object* existing = find(kind, m.namespace_, m.name)) {
    const bool deleting = meta(*existing).deletion_timestamp_ms.has_value();
    return failed(Error(ErrorCode::already_exists,
                        fmt::format("{}{}s \"{}\" already exists",
                                    deleting ? "object is being deleted: " : "", to_string(kind),
                                    m.name)));
  }
  apply_defaults(object);
  // Every kind here has a status subresource: a create ignores .status (PrepareForCreate).
  std::visit([](auto& typed) { typed.status = {}; }, object);
  WriteOutcome outcome;
  outcome.changed = true;
  outcome.watch_type = WatchType::Added;
  const std::int64_t serial = next_uid_[static_cast<std::size_t>(kind_index(kind))]++;
  m.uid = fmt::format(FMT_COMPILE("uid-{}-{}"), to_string(kind), serial);
  if (auto* service = std::get_if<Service>(&object); service && service->spec->cluster_ip.empty()) {
    // The Service IP allocator, deterministic: the Service's serial in the default 10.96.0.0/12.
    service->spec.edit().cluster_ip = address_of_serial("10.96", serial);
  }
  m.resource_version = ++resource_version_;
  m.generation = 1;
  m.creation_timestamp_ms = now_ms;
  m.deletion_timestamp_ms.reset();
  outcome.resource_version_after = m.resource_version;

  std::vector<ObjectVersion>& objects = bucket(kind);
  auto it = std::lower_bound(objects.begin(), objects.end(), 0, [&](const Object& o, int) {
    return key_less(meta(o), m.namespace_, m.name);
  });
  it = objects.insert(it, ObjectVersion(object, takes_digests_));
  const std::size_t place = static_cast<std::size_t>(it - objects.begin());
  key_indexes_[kind_index(kind)].edit().inserted(place, KeyIndex::hash_key(m.namespace_, m.name));
  if (has_pod_indexes(kind)) {
    label_indexes_[kind_index(kind)].edit().inserted(place, indexed_label_hash(kind, m));
    owner_indexes_[kind_index(kind)].edit().inserted(place, indexed_owner_hash(kind, m));
  }
  append_watch(WatchType::Added, *it, now_ms, true, false);
  return outcome;
}

WriteOutcome ApiServer::commit_change(const ObjectVersion& stored, Object&& next, std::int64_t now_ms) {
  WriteOutcome outcome;
  outcome.resource_version_before = meta(*stored).resource_version;
  outcome.resource_version_after = outcome.resource_version_before;
  if (next == *stored) return outcome;   // no-op: same rv, no watch event (GuaranteedUpdate)

  ObjectMeta& next_meta = meta(next);
  if (same_spec(*stored, next)) {
    share_spec(*stored, next);   // most writes leave the spec alone: keep one copy of it
  } else {
    next_meta.generation = meta(*stored).generation + 1;
  }
  next_meta.resource_version = ++resource_version_;
  outcome.changed = true;
  outcome.resource_version_after = next_meta.resource_version;

  if (next_meta.deletion_timestamp_ms && next_meta.finalizers->empty() &&
      next_meta.deletion_grace_period_seconds.value_or(0) == 0) {
    // The update that empties the last finalizer deletes the object: one DELETED event that
    // carries the last stored object stamped with the deletion revision (§2.2).
    Object last = *stored;
    meta(last).resource_version = next_meta.resource_version;
    outcome.watch_type = WatchType::Deleted;
    delete_now(ObjectVersion(std::move(last), takes_digests_, stored), now_ms);   // made before erase() drops `stored`
    return outcome;
  }
  outcome.watch_type = WatchType::Modified;
  // `stored` is in this server's objects of its kind: its place there is its place in this
  // server's own copy of them.
  const int kind = kind_index(kind_of(next));
  const std::size_t index = static_cast<std::size_t>(&stored - objects_[kind]->data());
  assert(index < objects_[kind]->size() && "rjsim bug: a change to a version the API server does not hold");
  const std::optional<std::uint64_t> group_before = indexed_label_hash(kind_of(next), meta(*stored));
  const bool relabelled = group_before != indexed_label_hash(kind_of(next), next_meta);
  reindex(kind_of(next), index, meta(*stored), next_meta);
  const bool ownership = ownership_changed(meta(*stored), next_meta);
  const bool was_selected = (*watch_selectors_)[kind].matches(meta(*stored));   // before `slot` replaces it
  ObjectVersion& slot = objects_[kind].edit()[index];
  slot = ObjectVersion(std::move(next), takes_digests_, slot);
  append_watch(WatchType::Modified, slot, now_ms, ownership, was_selected);
  if (relabelled && group_before) {
    write_stamps_.edit().left_group(*group_before, slot, watch_logs_[kind]->back().write_serial);
  }
  return outcome;
}

WriteOutcome ApiServer::update(Object& object, std::int64_t now_ms) {
  const ObjectMeta& request = meta(object);
  const Kind kind = kind_of(object);
  const ObjectVersion* stored = find_version(kind, request.namespace_, request.name);
  if (Error err = check_put_precondition(stored ? &**stored : nullptr, object)) return failed(std::move(err));
  if (meta(**stored).deletion_timestamp_ms && adds_finalizer(meta(**stored), request)) {
    return failed(new_finalizer_refused(**stored));
  }
  Object next = object;
  apply_defaults(next);
  keep_server_metadata(meta(**stored), meta(next));
  copy_status(**stored, next);   // the main resource ignores .status (status subresource)
  const Kind stored_kind = kind;
  const std::string namespace_ = request.namespace_, name = request.name;
  WriteOutcome outcome = commit_change(*stored, std::move(next), now_ms);
  if (const Object* now_stored = find(stored_kind, namespace_, name)) object = *now_stored;
  return outcome;
}

WriteOutcome ApiServer::update_status(Object& object, std::int64_t now_ms) {
  const ObjectMeta& request = meta(object);
  const Kind kind = kind_of(object);
  const ObjectVersion* stored = find_version(kind, request.namespace_, request.name);
  if (Error err = check_put_precondition(stored ? &**stored : nullptr, object)) return failed(std::move(err));
  Object next = **stored;
  copy_status(object, next);   // /status ignores everything but .status
  truncate_status_times_to_seconds(next);
  const std::string namespace_ = request.namespace_, name = request.name;
  WriteOutcome outcome = commit_change(*stored, std::move(next), now_ms);
  if (const Object* now_stored = find(kind, namespace_, name)) object = *now_stored;
  return outcome;
}

WriteOutcome ApiServer::patch(Kind kind, std::string_view namespace_, std::string_view name,
                              const std::function<void(Object&)>& mutate, std::int64_t now_ms) {
  const ObjectVersion* stored = find_version(kind, namespace_, name);
  if (!stored) return failed(not_found(kind, name));
  Object next = **stored;
  mutate(next);
  assert(kind_of(next) == kind && "rjsim bug: a patch changed the object's kind");
  apply_defaults(next);
  if (meta(**stored).deletion_timestamp_ms && adds_finalizer(meta(**stored), meta(next))) {
    return failed(new_finalizer_refused(**stored));
  }
  keep_server_metadata(meta(**stored), meta(next));
  copy_status(**stored, next);
  return commit_change(*stored, std::move(next), now_ms);
}

WriteOutcome ApiServer::patch_status(Kind kind, std::string_view namespace_, std::string_view name,
                                     const std::function<void(Object&)>& mutate,
                                     std::int64_t now_ms) {
  const ObjectVersion* stored = find_version(kind, namespace_, name);
  if (!stored) return failed(not_found(kind, name));
  Object next = **stored;
  mutate(next);
  if (!same_but_status(next, **stored)) {   // /status ignores everything but .status
    Object masked = **stored;
    copy_status(next, masked);
    next = std::move(masked);
  }
  truncate_status_times_to_seconds(next);
  return commit_change(*stored, std::move(next), now_ms);
}

WriteOutcome ApiServer::remove(Kind kind, std::string_view namespace_, std::string_view name,
                               Propagation propagation, std::int64_t now_ms,
                               std::optional<std::int64_t> grace_period_seconds) {
  const ObjectVersion* stored = find_version(kind, namespace_, name);
  if (!stored) return failed(not_found(kind, name));
  WriteOutcome outcome;
  outcome.resource_version_before = meta(**stored).resource_version;
  outcome.resource_version_after = outcome.resource_version_before;
  if (meta(**stored).deletion_timestamp_ms) {
    // Already deleting: only a shorter grace period is news (the kubelet's grace-0 delete).
    const std::int64_t grace = meta(**stored).deletion_grace_period_seconds.value_or(0);
    if (!grace_period_seconds || *grace_period_seconds >= grace) return outcome;
    // The deletion time moves with it: it is when the grace period ends (rest.BeforeDelete).
    Object next = **stored;
    *meta(next).deletion_timestamp_ms += (*grace_period_seconds - grace) * 1000;
    meta(next).deletion_grace_period_seconds = *grace_period_seconds;
    return commit_change(*stored, std::move(next), now_ms);
  }

  if (propagation == Propagation::server_default) {
    // batch/v1 Jobs default to orphaning their pods (jobStrategy.DefaultGarbageCollectionPolicy).
    propagation = kind == Kind::Job ? Propagation::orphan : Propagation::background;
  }
  Object next = **stored;
  ObjectMeta& next_meta = meta(next);
  if (propagation == Propagation::orphan) next_meta.finalizers.edit().emplace_back(kOrphanFinalizer);
  if (propagation == Propagation::foreground) next_meta.finalizers.edit().emplace_back(kForegroundFinalizer);

  const std::int64_t grace = graceful_deletion_seconds(next, grace_period_seconds);
  if (next_meta.finalizers->empty() && grace == 0) {
    Object last = std::move(next);
    meta(last).resource_version = ++resource_version_;
    outcome.changed = true;
    outcome.watch_type = WatchType::Deleted;
    outcome.resource_version_after = meta(last).resource_version;
    delete_now(ObjectVersion(std::move(last), takes_digests_, *stored), now_ms);   // made before erase() drops `stored`
    return outcome;
  }
  // A graceful deletion's timestamp is when its grace period ends (rest.BeforeDelete).
  next_meta.deletion_timestamp_ms = now_ms + grace * 1000;
  if (grace > 0) next_meta.deletion_grace_period_seconds = grace;
  return commit_change(*stored, std::move(next), now_ms);
}

std::int64_t ApiServer::graceful_deletion_seconds(const Object& object, std::optional<std::int64_t> requested) const {
  const Pod* pod = std::get_if<Pod>(&object);
  if (!pod || pod->status.phase != "Running"sv) return 0;   // not running on a node: nothing to stop
  return requested.value_or(pod_termination_grace_period_seconds_);
}

}  // namespace rjsim::engine
