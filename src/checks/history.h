// What the checks derive from a run, step by step: per RayJob its persisted status (the
// `status.transition` events of the API server, never a cache), its attempts (DESIGN §5: from a
// persisted New to the next persisted New, or the end), the RayClusters the controller created
// for it, the Ray jobs submitted for it (World::ray: every head incarnation's table, kept after
// restarts) and the user's interference (`action.patch`, `action.delete`). History is a plain
// value, copyable with the world when exploration forks a run; it reads events and the World
// and never changes them. StepFacts lists what one step added, in event order, for the safety
// invariants judged after that step.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checks/scratch.h"
#include "engine/copy_on_write.h"
#include "engine/objects.h"
#include "engine/step_context.h"
#include "engine/watch_log_mark.h"
#include "engine/world.h"
#include "events/event.h"
#include "events/event_types.h"

namespace rjsim::checks {

// A point in the run: the seq of the event that marks it and the virtual time.
struct Moment {
  std::int64_t seq = 0;
  std::int64_t at_ms = 0;
  friend bool operator==(const Moment&, const Moment&) = default;
};

// A RayCluster created by the controller (api.create, outcome ok) for a RayJob.
struct ClusterCreation {
  std::string name;   // in the RayJob's namespace
  std::string uid;
  std::int64_t seq = 0;
  friend bool operator==(const ClusterCreation&, const ClusterCreation&) = default;
};

struct Attempt {
  Moment begun;                    // the persisted New (for the first attempt: first sight of the RayJob)
  std::string begun_after;         // the deploymentStatus it replaced (Suspended, Retrying); "" for the first
  std::string job_id;              // the last non-empty status.jobId persisted during the attempt
  std::string ray_cluster_name;    // the last non-empty status.rayClusterName persisted during it
  std::vector<ClusterCreation> clusters;
  std::vector<int> submissions;    // indices into History::submissions(), in submission order
  std::optional<Moment> terminal_job_status;   // the first persisted terminal jobStatus
  std::string terminal_job_status_value;
  std::optional<Moment> finished;               // the first persisted Complete or Failed
  std::optional<Moment> suspended;              // the first persisted Suspended
  std::optional<Moment> retrying;               // the first persisted Retrying
  // The attempt's submitter finished for good (K8sJobMode: its Job's Complete or Failed condition
  // is True; SidecarMode: the head Pod's submitter container terminated and will not restart),
  // first seen after the step at this moment; `submitter_finished_how` says which, for messages.
  std::optional<Moment> submitter_finished;
  std::string submitter_finished_how;
  friend bool operator==(const Attempt&, const Attempt&) = default;
};

// A user action aimed at a RayJob: interference (DESIGN §5).
struct Interference {
  Moment at;
  std::string type;   // action.patch | action.delete
  friend bool operator==(const Interference&, const Interference&) = default;
};

struct RayJobHistory {
  std::string ref;          // RayJob/namespace/name
  std::string namespace_;
  std::string name;
  std::string uid;
  std::uint64_t key_hash = 0;   // KeyIndex::hash_key(namespace_, name): how the RayJob log names it
  // Persisted status (API truth), as of the end of the last step observed.
  std::string deployment_status;
  std::string job_status;
  std::string reason;
  Moment deployment_since;            // when the current deploymentStatus was persisted (or first seen)
  std::string persisted_job_id;
  std::string persisted_cluster_name;
  std::int64_t last_write_seq = -1;   // the last api write that changed the RayJob
  std::optional<Moment> gone;         // deleted from the API server
  std::vector<Attempt> attempts;      // never empty
  std::vector<Interference> interference;
  // validation-recoverable: the spec the controller last accepted (the spec at the last persisted
  // change into a status other than ValidationFailed), and, while ValidationFailed rests, when the
  // spec became that accepted spec again.
  // (The version whose spec it was, shared with the API server: a copy of the history, which
  // exhaustive exploration takes at every step, does not copy a spec.)
  std::optional<engine::ObjectVersion> accepted_version;
  bool validation_failed_on_spec = false;   // ValidationFailed was entered with another spec
  std::optional<Moment> valid_again;

  const Attempt& attempt() const { return attempts.back(); }
  int attempt_index() const { return static_cast<int>(attempts.size()) - 1; }
  const engine::RayJobSpec* accepted_spec() const {
    return accepted_version ? &*std::get<engine::RayJob>(**accepted_version).spec : nullptr;
  }
  bool interfered(std::int64_t from_ms, std::int64_t to_ms) const;
  friend bool operator==(const RayJobHistory&, const RayJobHistory&) = default;
};

// One record of a Ray job table (World::ray.heads[head].jobs[job]) and whom it was for.
struct RaySubmission {
  int head = 0;
  int job = 0;
  std::string submission_id;
  std::string cluster;          // RayCluster/namespace/name of the head
  int incarnation = 0;
  std::string submitted_by;     // "controller" or "submitter/<pod>"
  int rayjob = -1;              // index into History::rayjobs(); -1: attributed to no RayJob
  int attempt = -1;             // that RayJob's attempt when it was submitted
  Moment submitted;
  std::optional<Moment> started;   // reached RUNNING
  std::optional<Moment> final;     // reached SUCCEEDED, FAILED or STOPPED (at_ms: Ray's end time)
  std::string final_status;
  friend bool operator==(const RaySubmission&, const RaySubmission&) = default;
};
// "Ray job <id> on <cluster> (head incarnation N)": how a violation names a submission.
std::string describe_ray_job(const RaySubmission& submission);

// A persisted change of a RayJob's deploymentStatus or jobStatus (a status.transition event).
struct PersistedTransition {
  Moment at;
  int rayjob = 0;
  int attempt = 0;   // the attempt it belongs to (a transition that begins one belongs to it)
  std::string from_deployment, to_deployment;
  std::string from_job_status, to_job_status;
  std::string reason;
  bool begins_attempt = false;
  // Into Suspended: spec.suspend of the RayJob as the write's sender had read it (the version
  // its rv_sent names; the stored one after a write that sent none).
  bool suspend_read = false;
};

struct ClusterCreated {
  Moment at;
  int rayjob = 0;
  int attempt = 0;
  std::string name;
  std::string uid;
  std::string name_persisted_before_step;   // status.rayClusterName persisted before this step
  bool rayjob_written_earlier_in_step = false;
};

struct ModelPanic {
  Moment at;
  std::string rayjob;   // the object of the reconcile.panic event
  std::string message;
};

struct StepFacts {
  std::int64_t first_seq = -1;   // -1: the step logged no event
  std::int64_t last_seq = -1;    // the last seq of the step (or of the run so far)
  std::int64_t at_ms = 0;
  std::vector<PersistedTransition> transitions;
  std::vector<ClusterCreated> clusters_created;
  std::vector<int> submitted;    // indices into History::submissions()
  std::vector<int> started;
  std::vector<int> finished;
  std::vector<ModelPanic> panics;
  std::vector<int> deleted;      // RayJobs gone from the API server in this step
  void clear();
  // True when the step added nothing to judge (most steps).
  bool empty() const;
};

// jobStatus values (kuberay-rayjob §2.1).
bool is_terminal_job_status(std::string_view status);
// The RayJob's submission mode as the models read it: "" is K8sJobMode (kuberay-1.0 has no field).
bool uses_submitter_job(const engine::RayJobSpec& spec);

class History {
 public:
  // The event types apply_step reads; a step's other events may be left out of its StepLog.
  static events::EventTypes reads();
  // Folds one step's events (in order) and the world after it into the history; `facts` gets
  // what the step added.
  void apply_step(const engine::World& world, const engine::StepLog& step, StepFacts& facts);
  // Takes in RayJobs and Ray jobs of `world` not seen yet (the end of a run).
  void catch_up(const engine::World& world);

  // Each shared with the copies of this history until it changes (exploration copies the
  // history with every snapshot; most steps change no RayJob's history).
  const std::vector<engine::CopyOnWrite<RayJobHistory>>& rayjobs() const { return rayjobs_; }
  const std::vector<RaySubmission>& submissions() const { return *submissions_; }
  // The RayJob with this ref that is still in the API server, else the last one that was.
  const RayJobHistory* find(std::string_view ref) const;
  // The attempt's Ray job (DESIGN §5): its latest submission with the attempt's job id, or its
  // latest submission at all when no job id was persisted.
  const RaySubmission* ray_job_of(const Attempt& attempt) const;
  std::int64_t last_seq() const { return last_seq_; }

  friend bool operator==(const History&, const History&) = default;

 private:
  int find_index(std::string_view ref) const;
  int track(const engine::World& world, std::string_view ref, Moment at);
  void on_transition(const engine::World& world, const events::Event& event, StepFacts& facts);
  void on_cluster_create(const engine::World& world, const events::Event& event, StepFacts& facts);
  void on_submit(const engine::World& world, const events::Event& event, StepFacts& facts);
  int add_submission(const engine::World& world, int head, int job, Moment at, StepFacts* facts);
  int attribute(const engine::World& world, const engine::RayHead& head,
                const engine::RayJobRecord& record);
  // The RayJob with this uid, tracked now if only the world knows it; -1 when none.
  int rayjob_for_uid(const engine::World& world, std::string_view uid);
  void refresh_rayjobs(const engine::World& world, std::span<const events::Event> step_events,
                       StepFacts* facts);
  void discover_submissions(const engine::World& world, StepFacts* facts);
  // Sets Attempt::submitter_finished of the current attempts whose submitter finished by now.
  void follow_submitters(const engine::World& world, Moment now);
  void follow_submissions(const engine::World& world, std::span<const events::Event> step_events,
                          StepFacts* facts);

  // What follow_submitters last read to find that a tracked RayJob's submitter had not finished
  // (issue 30): it reads again only when a write since may have changed the answer. The RayJob
  // (found by name) decides the mode; a submitter Job reads the Jobs, a sidecar the Pods, any other
  // mode nothing. Writes are told by the API server's stamps (write_stamps.h), compared by
  // identity. A cache: it takes no part in the history's value.
  enum class SubmitterReads : std::uint8_t { nothing, jobs, pods };
  struct SubmitterRead {
    bool taken = false;
    engine::ObjectVersion rayjobs_written;
    engine::ObjectVersion others_written;   // of the Jobs or the Pods, as `reads` says
    SubmitterReads reads = SubmitterReads::nothing;
    bool uid_known = false;                 // a history's uid is set once, from none (track)
    std::size_t attempts = 0;
    std::string cluster_name;               // the attempt's ray_cluster_name, which a sidecar reads
  };
  struct SubmitterReadCache {
    // By index in rayjobs_; shared with the copies of this history until one reads again.
    engine::CopyOnWrite<std::vector<SubmitterRead>> reads;
    // Where the last follow stopped in the RayJob and Job logs, and the key hashes their events
    // named since (a submitter Job has its RayJob's namespace and name, so its key's hash too):
    // a read of a RayJob in K8sJobMode changes only with a write that names it (issue 30: with 20
    // RayJobs, any Job write read every RayJob's submitter again).
    engine::WatchLogMark rayjob_mark;
    engine::WatchLogMark job_mark;
    Scratch<std::vector<std::uint64_t>> named;   // filled by each follow before it is read
    Scratch<std::vector<std::size_t>> to_read;   // each follow's RayJobs (by index) to read again
    bool named_known = false;   // both logs continued the marked ones
    friend bool operator==(const SubmitterReadCache&, const SubmitterReadCache&) { return true; }
  };
  // Whether `read` still holds for `seen`: by the names the logs gave since the last follow when
  // known (`cache.named_known`), else by the stamps.
  static bool still_unfinished(const SubmitterRead& read, const RayJobHistory& seen, const engine::WriteStamps& stamps,
                               const SubmitterReadCache& cache);
  // Whether `read`, of the RayJob whose key hashes to `key_hash`, holds without a look at its
  // history: the logs continued and no RayJob or Job write since names it, and it reads no Pods.
  // A history's uid and attempts change only with a write of its RayJob, which the RayJob log
  // names, so still_unfinished would find them as the read took them (asserted).
  bool unnamed_read_holds(const SubmitterRead& read, std::uint64_t key_hash) const;
  // Reads the RayJob and Job events since the last follow into submitter_reads_.named.
  void name_submitter_writes(const engine::World& world);

  std::vector<engine::CopyOnWrite<RayJobHistory>> rayjobs_;
  // Beside rayjobs_, by index: a digest of each history's ref and its key's hash (RayJobHistory::
  // key_hash), side by side, so that finding a RayJob's history or the histories a write names
  // reads one small array, not every history (issue 30: with 20 RayJobs, each lookup followed
  // twenty pointers). Derived from rayjobs_.
  struct TrackedKeys {
    std::uint64_t ref_digest = 0;
    std::uint64_t key_hash = 0;
    friend bool operator==(const TrackedKeys&, const TrackedKeys&) = default;
  };
  std::vector<TrackedKeys> tracked_keys_;
  SubmitterReadCache submitter_reads_;
  // Shared with the copies of this history until a submission is added or moves on (rare).
  engine::CopyOnWrite<std::vector<RaySubmission>> submissions_;
  engine::CopyOnWrite<std::vector<std::vector<int>>> submission_of_;   // [head][job] -> index into submissions_, -1
  std::vector<std::size_t> scanned_jobs_;          // per head: jobs below this index are tracked
  std::vector<int> open_submissions_;             // not final yet
  // The serial (copy_on_write.h) of the Ray state the submissions were last followed in: where
  // this history stands, not what it holds, so == leaves it out (the submissions are compared).
  struct FollowedRay {
    std::uint64_t serial = 0;
    friend bool operator==(const FollowedRay&, const FollowedRay&) { return true; }
  };
  FollowedRay followed_ray_;
  std::size_t rayjob_log_size_ = 0;
  // Where refresh_rayjobs stopped in the RayJob log and how many histories it had then, so that
  // the next refresh looks only at the RayJobs the log names since, those tracked since and those
  // due (issue 30: with 20 RayJobs a refresh looked all of them up after any RayJob write). A
  // cache: it takes no part in the history's value; a log that does not continue the marked one
  // (watch_log_mark.h) is read whole.
  struct RayJobLogRead {
    engine::WatchLogMark mark;
    std::size_t histories = 0;
    Scratch<std::vector<std::uint64_t>> named;   // the key hashes the events since name (a reused buffer)
    friend bool operator==(const RayJobLogRead&, const RayJobLogRead&) { return true; }
  };
  RayJobLogRead rayjob_log_read_;
  std::size_t job_log_size_ = 0;                   // follow_submitters ran when the Job and Pod
  std::size_t pod_log_size_ = 0;                   // logs had these sizes
  bool rayjobs_scanned_ = false;
  std::int64_t last_seq_ = -1;
  // Within the step being applied.
  Scratch<std::string> reconciling_;              // the step's StepLog::reconciled: the pass it began or resumed
  std::int64_t rayjob_write_rv_sent_ = 0;         // rv_sent of the step's latest RayJob write (0: none sent)
  Scratch<std::vector<int>> spec_snapshot_due_;   // RayJobs that persisted a non-ValidationFailed status
  Scratch<std::vector<int>> validation_entered_;  // RayJobs that persisted ValidationFailed
};

}  // namespace rjsim::checks
