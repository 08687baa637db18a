// One add() per struct of the World, each opening with a structured binding that names every
// member, so that a member added to a struct stops this file compiling until it is hashed here
// (or, like World::steps, left out on purpose). Leaves are written at their own width into a
// chunk: a few stores per field. What fits in the 2 KiB chunk is hashed by one XXH3 call; more
// is flushed into a streaming state, one update per chunk. The world's shared parts are hashed
// apart, each into a digest of its own, which a FingerprintMemo remembers. A stored object (in
// the API server, a watch event, a cache) is hashed as the 128-bit digest of its contents, which
// its ObjectVersion took once when the version was made: hashing it again in every fingerprint
// was most of a fingerprint's cost, and the digest is of the contents, not of a resourceVersion,
// so it trusts nothing about how the logs and caches relate.
#include "engine/fingerprint.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#define XXH_STATIC_LINKING_ONLY   // XXH3_state_t on the stack
// Inlined here: most parts hashed are a few bytes, whose hash costs less than the call.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace rjsim::engine {

// Befriended by ApiServer, Informer and WorkQueue to read their private members.
class Fingerprinter {
 public:
  // `memo`: where the digests of a world's shared parts are remembered (none: hash each part).
  // `api`: the server whose watch logs give each resourceVersion its place in its kind's log (none:
  // resourceVersions are left out, as in a content digest).
  explicit Fingerprinter(bool wide, FingerprintMemo* memo = nullptr, const ApiServer* api = nullptr)
      : wide_(wide), memo_(memo), api_(api) {}

  // What fits in one chunk is hashed in one call (most objects, most worlds): the same hash as
  // streaming it, without the streaming state's set-up.
  std::uint64_t digest64() {
    if (!streaming_) return XXH3_64bits(chunk_, used_);
    flush();
    return XXH3_64bits_digest(&state_);
  }
  Hash128 digest128() {
    XXH128_hash_t digest;
    if (!streaming_) {
      digest = XXH3_128bits(chunk_, used_);
    } else {
      flush();
      digest = XXH3_128bits_digest(&state_);
    }
    return Hash128{digest.low64, digest.high64};
  }

  // ---- leaves, as their bytes in memory ----
  // Leaves are inlined into their callers: out of line, their calls were 3% of an exhaustive
  // search of an all-faults scenario, about as much as their work.
  template <class T>
    requires std::is_integral_v<T> || std::is_enum_v<T>
  [[gnu::always_inline]] void add(T value) {
    if (kChunk - used_ < sizeof(T)) flush();
    std::memcpy(chunk_ + used_, &value, sizeof(T));
    used_ += sizeof(T);
  }
  void add(double value) {
    // == holds for -0.0 and 0.0, so they must hash alike (NaN != NaN: no constraint).
    add(std::bit_cast<std::uint64_t>(value == 0.0 ? 0.0 : value));
  }
  void add(const std::string& text) { add_text(text); }
  [[gnu::always_inline]] void add_text(std::string_view text) {
    add_length(text.size());
    bytes(text.data(), text.size());
  }
  void add(const SharedString& text) { add(text.str()); }
  void add(const Hash128& value) {
    add(value.low);
    add(value.high);
  }

  // Each of `fields`, in order (a struct's members, named by its structured binding).
  template <class... Fields>
  void add_all(const Fields&... fields) {
    (add(fields), ...);
  }

  // ---- containers: a length first wherever the size varies ----
  template <class T>
  void add(const std::optional<T>& value) {
    add(value.has_value());
    if (value) add(*value);
  }
  template <class T>
  void add(const std::vector<T>& values) {
    add_length(values.size());
    for (const T& value : values) add(value);
  }
  template <class T, std::size_t N>
  void add(const std::array<T, N>& values) {
    for (const T& value : values) add(value);
  }
  template <class T>
  void add(const CopyOnWrite<T>& value) {
    add(*value);
  }
  template <class K, class V, class Compare>
  void add(const std::map<K, V, Compare>& values) {
    add_length(values.size());
    for (const auto& [key, value] : values) {
      add(key);
      add(value);
    }
  }
  template <class A, class B>
  void add(const std::pair<A, B>& value) {
    add(value.first);
    add(value.second);
  }
  template <class... Ts>
  void add(const std::variant<Ts...>& value) {
    add(static_cast<std::uint8_t>(value.index()));
    std::visit([this](const auto& alternative) { this->add(alternative); }, value);
  }

  // ---- objects.h ----
  void add(const OwnerReference& value) {
    const auto& [api_version, kind, name, uid, controller, block_owner_deletion] = value;
    add_all(api_version, kind, name, uid, controller, block_owner_deletion);
  }
  void add(const ObjectMeta& value) {
    const auto& [name, namespace_, uid, resource_version, generation, creation_timestamp_ms,
                 deletion_timestamp_ms, deletion_grace_period_seconds, labels, annotations, owner_references,
                 finalizers] = value;
    static_cast<void>(resource_version);   // by its place in its kind's log: add_resource_version()
    add_all(name, namespace_, uid, generation, creation_timestamp_ms, deletion_timestamp_ms,
            deletion_grace_period_seconds, labels, annotations, owner_references, finalizers);
  }
  void add(const Container& value) {
    const auto& [name, image, command, args, env, restart_policy] = value;
    add_all(name, image, command, args, env, restart_policy);
  }
  void add(const PodTemplate& value) {
    const auto& [labels, annotations, containers, restart_policy] = value;
    add_all(labels, annotations, containers, restart_policy);
  }
  void add(const PodSpec& value) {
    const auto& [containers, restart_policy] = value;
    add_all(containers, restart_policy);
  }
  void add(const ContainerTerminated& value) {
    const auto& [exit_code, reason, finished_at_ms] = value;
    add_all(exit_code, reason, finished_at_ms);
  }
  void add(const ContainerStatus& value) {
    const auto& [name, ready, restart_count, state, exit_code, finished_at_ms, reason, last_termination_state] = value;
    add_all(name, ready, restart_count, state, exit_code, finished_at_ms, reason, last_termination_state);
  }
  void add(const PodStatus& value) {
    const auto& [phase, pod_ip, ready, container_statuses] = value;
    add_all(phase, pod_ip, ready, container_statuses);
  }
  void add(const ServicePort& value) {
    const auto& [name, port] = value;
    add_all(name, port);
  }
  void add(const ServiceSpec& value) {
    const auto& [selector, ports, cluster_ip] = value;
    add_all(selector, ports, cluster_ip);
  }
  void add(const ServiceStatus&) {
    // No members: a structured binding cannot have zero names, so this guards it instead.
    static_assert(std::is_empty_v<ServiceStatus>, "ServiceStatus has members now: hash them here");
  }
  void add(const JobCondition& value) {
    const auto& [type, status, reason, message, last_transition_time_ms] = value;
    add_all(type, status, reason, message, last_transition_time_ms);
  }
  void add(const JobSpec& value) {
    const auto& [backoff_limit, active_deadline_seconds, suspend, template_] = value;
    add_all(backoff_limit, active_deadline_seconds, suspend, template_);
  }
  void add(const JobStatus& value) {
    const auto& [active, succeeded, failed, start_time_ms, completion_time_ms, conditions] = value;
    add_all(active, succeeded, failed, start_time_ms, completion_time_ms, conditions);
  }
  void add(const WorkerGroupSpec& value) {
    const auto& [group_name, replicas, min_replicas, max_replicas, num_of_hosts, suspend, ray_start_params,
                 template_] = value;
    add_all(group_name, replicas, min_replicas, max_replicas, num_of_hosts, suspend, ray_start_params, template_);
  }
  void add(const HeadGroupSpec& value) {
    const auto& [ray_start_params, template_, head_service_name] = value;
    add_all(ray_start_params, template_, head_service_name);
  }
  void add(const RayClusterSpec& value) {
    const auto& [ray_version, suspend, head_group_spec, worker_group_specs, enable_in_tree_autoscaling,
                 gcs_fault_tolerance_options] = value;
    add_all(ray_version, suspend, head_group_spec, worker_group_specs, enable_in_tree_autoscaling,
            gcs_fault_tolerance_options);
  }
  void add(const RayClusterHeadInfo& value) {
    const auto& [pod_ip, service_ip, pod_name, service_name] = value;
    add_all(pod_ip, service_ip, pod_name, service_name);
  }
  void add(const StatusCondition& value) {
    const auto& [type, status, reason, message, last_transition_time_ms] = value;
    add_all(type, status, reason, message, last_transition_time_ms);
  }
  void add(const RayClusterStatus& value) {
    const auto& [state, reason, ready_worker_replicas, available_worker_replicas, desired_worker_replicas,
                 min_worker_replicas, max_worker_replicas, endpoints, head, conditions, observed_generation,
                 last_update_time_ms] = value;
    add_all(state, reason, ready_worker_replicas, available_worker_replicas, desired_worker_replicas,
            min_worker_replicas, max_worker_replicas, endpoints, head, conditions, observed_generation,
            last_update_time_ms);
  }
  void add(const DeletionCondition& value) {
    const auto& [job_status, job_deployment_status, ttl_seconds] = value;
    add_all(job_status, job_deployment_status, ttl_seconds);
  }
  void add(const DeletionRule& value) {
    const auto& [policy, condition] = value;
    add_all(policy, condition);
  }
  void add(const DeletionStrategy& value) {
    const auto& [on_success_policy, on_failure_policy, deletion_rules] = value;
    add_all(on_success_policy, on_failure_policy, deletion_rules);
  }
  void add(const RayJobSpec& value) {
    const auto& [entrypoint, metadata, runtime_env_yaml, job_id, shutdown_after_job_finishes,
                 ttl_seconds_after_finished, active_deadline_seconds, pre_running_deadline_seconds,
                 backoff_limit, ray_cluster_spec, cluster_selector, submission_mode, suspend,
                 submitter_pod_template, submitter_config, submitter_backoff_limit, managed_by,
                 deletion_strategy, entrypoint_num_cpus, entrypoint_num_gpus, entrypoint_resources] = value;
    add_all(entrypoint, metadata, runtime_env_yaml, job_id, shutdown_after_job_finishes,
            ttl_seconds_after_finished, active_deadline_seconds, pre_running_deadline_seconds,
            backoff_limit, ray_cluster_spec, cluster_selector, submission_mode, suspend,
            submitter_pod_template, submitter_config, submitter_backoff_limit, managed_by, deletion_strategy,
            entrypoint_num_cpus, entrypoint_num_gpus, entrypoint_resources);
  }
  void add(const RayJobStatus& value) {
    const auto& [job_id, ray_cluster_name, dashboard_url, job_status, job_deployment_status,
                 reason, message, start_time_ms, end_time_ms, ray_job_start_time_ms,
                 ray_job_end_time_ms, succeeded, failed, ray_cluster_status,
                 job_status_check_failure_start_time_ms, observed_generation] = value;
    add_all(job_id, ray_cluster_name, dashboard_url, job_status, job_deployment_status, reason,
            message, start_time_ms, end_time_ms, ray_job_start_time_ms, ray_job_end_time_ms,
            succeeded, failed, ray_cluster_status, job_status_check_failure_start_time_ms,
            observed_generation);
  }
  // An object as content_digest takes it: its spec as that spec's digest.
  void add_with_spec_digest(const Object& object, const Hash128& spec) {
    add(static_cast<std::uint8_t>(object.index()));
    std::visit(
        [&](const auto& typed) {
          using T = std::decay_t<decltype(typed)>;
          const auto& [metadata, spec_value, status] = typed;
          static_cast<void>(spec_value);   // as `spec`, its digest
          add_all(metadata, spec, status);
          add_resource_version(T::kind, metadata.resource_version);
        },
        object);
  }

  // ---- object_version.h: a version as the digest of its contents (content_digest) ----
  void add(const ObjectVersion& value) {
    add(value.digest());
    add_resource_version(kind_of(*value), meta(*value).resource_version);
  }

  // ---- api_server.h ----
  void add(const WatchEvent& value) {
    const auto& [resource_version, type, sent, sent_through, object, written_at_ms, key_hash, write_serial] = value;
    static_cast<void>(sent);           // derived from the object and the server's selector
    static_cast<void>(sent_through);   // derived from the log's events before it
    static_cast<void>(key_hash);       // derived from the object's key
    static_cast<void>(write_serial);   // an identity for readers, not part of the value (api_server.h)
    static_cast<void>(resource_version);   // its place in the log is its position
    // Not when it was written: only an unapplied event's time matters (add_unapplied_write_times),
    // and leaving it out lets equal logs written at other times share their digest.
    static_cast<void>(written_at_ms);
    add_all(type, object);
  }
  void add(const ApiServer& value) {
    const auto& [objects, key_indexes, label_indexes, owner_indexes, watch_logs, watch_log_digests, ownership_digests,
                 write_stamps, resource_version, next_uid, deleting, takes_digests,
                 watch_log_objects, watch_selectors, pod_termination_grace_period_seconds] = value;
    assert(takes_digests && "rjsim bug: a fingerprint of a world whose API server takes no digests");
    for (std::size_t kind = 0; kind < objects.size(); ++kind) add_part(objects[kind], memo_->objects_[kind]);
    static_cast<void>(key_indexes);   // derived from the objects' keys (key_index.h)
    static_cast<void>(label_indexes);   // derived from the objects' labels (label_index.h)
    static_cast<void>(owner_indexes);   // derived from the objects' owners, as label_indexes
    // The logs through the digests the server extends as it appends to them: hashing the logs
    // themselves would make a fingerprint's cost grow with the length of the run.
    for (const std::vector<WatchEvent>& log : watch_logs) add_length(log.size());
    for (const Hash128& digest : watch_log_digests) add_digest(digest);
    static_cast<void>(ownership_digests);   // a digest of part of the logs hashed just above
    static_cast<void>(write_stamps);   // derived from the history, as the indexes (write_stamps.h)
    static_cast<void>(deleting);   // derived from the objects' deletion timestamps
    // Not the resourceVersion counter: see add_resource_version().
    static_cast<void>(resource_version);
    // Not which logs keep their versions: a run's setting, the same for every world it makes.
    static_cast<void>(watch_log_objects);
    static_cast<void>(watch_selectors);   // as watch_log_objects: the run's controller's
    add_all(next_uid, pod_termination_grace_period_seconds);
  }

  // ---- informer.h ----
  void add(const LabelSelector& value) {
    const auto& [key, values] = value;
    add_all(key, values);
  }
  void add(const Informer& value) {
    const auto& [kind, fifo, selector, cache, index, pending, received, last_sync_resource_version, rewound_until] =
        value;
    static_cast<void>(index);   // derived from the cache
    add_all(kind, fifo, selector, cache, pending, received);
    add_resource_version(kind, last_sync_resource_version);
    add_resource_version(kind, rewound_until);
    add(value.catching_up());   // two points between the same two events may still differ here
  }

  // ---- work_queue.h ----
  void add(const WorkQueue& value) {
    const auto& [behaviour, ready, dirty, processing, waiting, failures, next_added_counter,
                 bucket_milli_tokens, bucket_last_ms] = value;
    // Its entry structs are private: they are bound through `auto`, not given add() overloads.
    add(behaviour);
    add_length(ready.size());
    // An entry's key_hash is its key's (work_queue.h): the key says it.
    for (const auto& entry : ready) {
      const auto& [key, key_hash, priority, added_counter] = entry;
      add_all(key, priority, added_counter);
    }
    add_all(dirty, processing);
    add_length(waiting.size());
    for (const auto& entry : waiting) {
      const auto& [key, key_hash, ready_at_ms, priority, added_counter] = entry;
      add_all(key, ready_at_ms, priority, added_counter);
    }
    add_length(failures.size());
    for (const auto& entry : failures) {
      const auto& [key, count] = entry;
      add_all(key, count);
    }
    add_all(next_added_counter, bucket_milli_tokens, bucket_last_ms);
  }

  // ---- ray_state.h ----
  void add(const RayJobRecord& value) {
    const auto& [submission_id, entrypoint, status, result, message, submitted_by,
                 submitted_at_ms, start_time_ms, end_time_ms, next_change_at_ms] = value;
    add_all(submission_id, entrypoint, status, result, message, submitted_by, submitted_at_ms,
            start_time_ms, end_time_ms, next_change_at_ms);
  }
  void add(const RayHead& value) {
    const auto& [cluster_namespace, cluster_name, cluster_uid, incarnation, table_lost, jobs] =
        value;
    add_all(cluster_namespace, cluster_name, cluster_uid, incarnation, table_lost, jobs);
  }
  // As the digests of its heads, each a shared part remembered on its own (ray_state.h): a step
  // changes one head's table, and hashing every head again, twenty with twenty RayJobs, was 17%
  // of an exhaustive search of twenty-rayjobs.
  void add(const RayState& value) {
    const auto& [heads, submissions_per_rayjob] = value;
    add_length(heads.size());
    memo_->ray_heads_.resize(heads.size());
    for (std::size_t i = 0; i < heads.size(); ++i) add_part(heads[i], memo_->ray_heads_[i]);
    add(submissions_per_rayjob);
  }

  // ---- environment_state.h ----
  void add(const SubmitterProcess& value) {
    const auto& [pod_namespace, pod_name, pod_uid, attempt, started_at_ms, dashboard_url,
                 submission_id, submit_outcome, head, follows_logs, stop_requested] = value;
    add_all(pod_namespace, pod_name, pod_uid, attempt, started_at_ms, dashboard_url, submission_id,
            submit_outcome, head, follows_logs, stop_requested);
  }
  void add(const DeletedRayJob& value) {
    const auto& [head, job] = value;
    add_all(head, job);
  }
  void add(const JobBackoffRecord& value) {
    const auto& [job_uid, last_failure_ms] = value;
    add_all(job_uid, last_failure_ms);
  }
  void add(const EnvironmentState& value) {
    const auto& [actions_fired, submitters, deleted_ray_jobs, job_backoffs] = value;
    add_all(actions_fired, submitters, deleted_ray_jobs, job_backoffs);
  }

  // ---- pass_in_flight.h ----
  void add(const Error& value) {
    add(value.code());
    add(value.message());
  }
  void add(const RayJobInfo& value) {
    const auto& [job_status, entrypoint, submission_id, message, start_time_ms, end_time_ms, metadata] = value;
    add_all(job_status, entrypoint, submission_id, message, start_time_ms, end_time_ms, metadata);
  }
  void add(const DashboardResponse& value) {
    const auto& [connected, timed_out, status, json, info, submission_id, stopped, text] = value;
    add_all(connected, timed_out, status, json, info, submission_id, stopped, text);
  }
  void add(const CallReply& value) {
    const auto& [call, error, objects, response, number, text] = value;
    add_all(call, error, objects, response, number, text);
  }
  void add(const PassInFlight& value) {
    const auto& [key, priority, replies, replies_digest, resume_at_ms, blocked_ms] = value;
    static_cast<void>(replies_digest);   // hashed in place of the replies
    add_all(key, priority);
    add_length(replies.size());
    add_digest(digest_of_replies(value));
    add_all(resume_at_ms, blocked_ms);
  }
  // The pass's replies as its running digest, extended by the replies added since it was last
  // taken. Each extension hashes one reply after the digest before it, as a watch log's digest
  // grows; a reply's objects are hashed with their resourceVersions' places in their logs, which
  // appends do not move, so a digest taken earlier still holds.
  const Hash128& digest_of_replies(const PassInFlight& pass) {
    PassInFlight::RepliesDigest& known = pass.replies_digest;
    assert(known.replies <= pass.replies.size() && "rjsim bug: a pass's replies shrank");
    for (; known.replies < pass.replies.size(); ++known.replies) {
      Fingerprinter extended(/*wide=*/true, nullptr, api_);
      extended.add(known.digest);
      extended.add(*pass.replies[known.replies]);
      known.digest = extended.digest128();
    }
    return known.digest;
  }

  // ---- world.h ----
  void add(const Process& value) {
    const auto& [incarnation, up, restart_at_ms, restart_deadline_ms, worker_busy_until_ms, informers, queue,
                 pending_notifications, pass] = value;
    add_all(incarnation, up, restart_at_ms, restart_deadline_ms, worker_busy_until_ms);
    add_length(informers.size());
    memo_->informers_.resize(informers.size());
    for (std::size_t i = 0; i < informers.size(); ++i) add_part(informers[i], memo_->informers_[i]);
    if (up) {
      for (const CopyOnWrite<Informer>& informer : informers) add_unapplied_write_times(*informer);
    }
    add_all(queue, pending_notifications, pass);
  }
  // When each event the informer has not applied was written: world.latency.watch decides from
  // them how long its deliveries may still wait. (A stopped process relists; its times are moot.)
  void add_unapplied_write_times(const Informer& informer) {
    assert(api_ && "rjsim bug: a process fingerprinted without its API server");
    const std::vector<WatchEvent>& log = api_->watch_log(informer.kind());
    if (informer.pending_.empty() && informer.received_ == log.size()) {   // most informers, most states
      add_length(0);
      return;
    }
    // Of the events not yet received, those the watch sends: the others never reach the informer.
    const std::size_t unreceived = sent_events_before(log, log.size()) - sent_events_before(log, informer.received_);
    add_length(informer.pending_.size() + unreceived);
    for (std::size_t position : informer.pending_) add(log[position].written_at_ms);
    for (std::size_t position = informer.received_; position < log.size(); ++position) {
      if (log[position].sent) add(log[position].written_at_ms);
    }
  }
  void add(const FaultsUsed& value) {
    const auto& [conflicts, write_failures, http_errors, restarts] = value;
    add_all(conflicts, write_failures, http_errors, restarts);
  }
  void add(const PendingReaction& value) {
    const auto& [actor, what, object, index, since_ms] = value;
    add(actor);
    add_text(what);
    add_all(object, index, since_ms);
  }
  void add(const World& value) {
    const auto& [now_ms, steps, api, process, faults_used, ray, environment, reactions] = value;
    static_cast<void>(steps);   // a bound on the run, not state (fingerprint.h)
    api_ = &api;
    add_all(now_ms, api, process, faults_used);
    add_part(ray, memo_->ray_);
    add_part(environment, memo_->environment_);
    add_all(reactions);
  }

 private:
  static constexpr std::size_t kChunk = 2048;

  [[gnu::always_inline]] void add_length(std::size_t length) { add(static_cast<std::uint32_t>(length)); }

  // A shared part of the world (FingerprintMemo), as the digest of its contents: the one
  // `remembered` when the part is still the one it was taken of.
  template <class T>
  void add_part(const CopyOnWrite<T>& part, FingerprintMemo::Remembered<T>& remembered) {
    assert(memo_ && "rjsim bug: a world's part hashed without a memo");
    if (!remembered.known || !remembered.part.shares_value_with(part)) {
      Fingerprinter contents(/*wide=*/true, memo_, api_);   // the memo: a part may hold parts
      contents.add(*part);
      remembered = FingerprintMemo::Remembered<T>{part, contents.digest128(), true};
    }
    add_digest(remembered.digest);
  }

  // A 128-bit digest of a part of the world: its low half in a 64-bit fingerprint, whose own
  // width bounds its collisions anyway, and a third fewer bytes to hash.
  void add_digest(const Hash128& digest) {
    if (wide_) {
      add(digest);
    } else {
      add(digest.low);
    }
  }

  [[gnu::always_inline]] void bytes(const void* data, std::size_t size) {
    if (kChunk - used_ < size) {
      flush();
      if (size > kChunk) {
        update(data, size);   // flush() began streaming
        return;
      }
    }
    std::memcpy(chunk_ + used_, data, size);
    used_ += size;
  }
  void flush() {
    if (!streaming_) {
      streaming_ = true;
      if (wide_) {
        XXH3_128bits_reset(&state_);
      } else {
        XXH3_64bits_reset(&state_);
      }
    }
    update(chunk_, used_);
    used_ = 0;
  }
  void update(const void* data, std::size_t size) {
    if (wide_) {
      XXH3_128bits_update(&state_, data, size);
    } else {
      XXH3_64bits_update(&state_, data, size);
    }
  }

  // A resourceVersion as its place among its kind's watch events: how many come before it, and
  // whether it is one of them (a list at the head may be between two). Only the order of one
  // kind's events is ever observed (conditional writes compare an object's own versions, informers
  // and re-lists one kind's log), so two worlds whose writes to different kinds came in another
  // order, and so took other numbers, are one state: without this, every actor write that could
  // run before or after a controller's write doubled the states exhaustive search tells apart.
  void add_resource_version(Kind kind, std::int64_t resource_version) {
    if (!api_) return;
    const std::vector<WatchEvent>& log = api_->watch_log(kind);
    const auto at = std::lower_bound(log.begin(), log.end(), resource_version,
                                     [](const WatchEvent& event, std::int64_t rv) { return event.resource_version < rv; });
    const bool exact = at != log.end() && at->resource_version == resource_version;
    add(static_cast<std::uint64_t>(at - log.begin()) * 2 + (exact ? 0 : 1));
  }

  bool wide_;
  FingerprintMemo* memo_;
  const ApiServer* api_;
  bool streaming_ = false;   // the chunk overflowed: state_ holds what was flushed
  std::size_t used_ = 0;
  alignas(64) unsigned char chunk_[kChunk];
  XXH3_state_t state_;
};

std::uint64_t fingerprint(const World& world, FingerprintMemo& memo) {
  Fingerprinter fingerprinter(/*wide=*/false, &memo);
  fingerprinter.add(world);
  return fingerprinter.digest64();
}

std::uint64_t fingerprint(const World& world) {
  FingerprintMemo memo;
  return fingerprint(world, memo);
}

Hash128 fingerprint128(const World& world) {
  FingerprintMemo memo;
  Fingerprinter fingerprinter(/*wide=*/true, &memo);
  fingerprinter.add(world);
  return fingerprinter.digest128();
}

Hash128 content_digest(const Object& object) { return content_digest(object, spec_digest(object)); }

Hash128 content_digest(const Object& object, const Hash128& spec_digest) {
  Fingerprinter fingerprinter(/*wide=*/true);
  fingerprinter.add_with_spec_digest(object, spec_digest);
  return fingerprinter.digest128();
}

Hash128 spec_digest(const Object& object) {
  Fingerprinter fingerprinter(/*wide=*/true);
  std::visit([&fingerprinter](const auto& typed) { fingerprinter.add(typed.spec); }, object);
  return fingerprinter.digest128();
}

Hash128 extend_watch_log_digest(const Hash128& log_digest, const WatchEvent& event) {
  Fingerprinter fingerprinter(/*wide=*/true);
  fingerprinter.add(log_digest);
  fingerprinter.add(event);
  return fingerprinter.digest128();
}

}  // namespace rjsim::engine
