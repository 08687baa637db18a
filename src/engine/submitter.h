// The kubelet and the process of a submitter pod (kuberay-rayjob §0.4, §2.4 Initializing step 5;
// kubernetes-semantics §4.1), acting on the API server's truth and the Ray dashboard, one step per
// change, its memory in World::environment.submitters:
//  - start: a Pod of a Job runs at creationTimestamp + world.submitter.startAfter (phase Running);
//    its attempt index is the number of earlier Pods of the same Job;
//  - attempts with index < failAttempts fail: with failAfter 0 at start, without submitting;
//    otherwise they submit like any attempt and exit 1 at start + failAfter whatever Ray does;
//  - submit: POST to the dashboard (DashboardCaller::submitter, never subject to outages) with the
//    address and submission id of the container's `ray job submit --address http://URL ...
//    --submission-id ID ... -- entrypoint` (env RAY_DASHBOARD_ADDRESS / RAY_JOB_SUBMISSION_ID
//    when the flags are absent); a rejected submit (duplicate id, unreachable) exits 1 at once;
//  - then it waits for the Ray job: SUCCEEDED or STOPPED exits 0, FAILED exits 1 (`ray job
//    submit` without --no-wait calls sys.exit(1) only for FAILED), a job lost from its table
//    (head restart, cluster gone) exits 1; with world.submitter.finishesAfter set it exits 0 at
//    start + finishesAfter whatever Ray does;
//  - the script of kuberay-1.7 (`if ! ray job status ID; then ray job submit --no-wait ... -- E;
//    fi; ray job logs --follow ID`, kuberay-rayjob §1.10.1): when the id is already in a live
//    job table the pod does not submit and follows that job; `ray job logs --follow` exits 0 once
//    the job ends, whatever its status, and 1 when the job is lost. What the command asks for is
//    read from it, so the blocking command of 1.0/1.1 behaves as before;
//  - the submitter sidecar of a RayCluster's head Pod (kuberay-1.7 SidecarMode, §1.10.4) is run
//    the same way, in its container "ray-job-submitter": it starts once the cluster's Ray head is
//    up (the script waits for the GCS) and startAfter has passed, talks to 127.0.0.1 (the head's
//    dashboard, reached through the cluster's head Service), and an exit terminates only that
//    container (the Pod stays Running, no longer Ready);
//  - a sidecar with restartPolicy OnFailure (kuberay-1.7's SidecarSubmitterRestart gate) that
//    exits non-zero is restarted by its kubelet: the first time at once, then after the
//    CrashLoopBackOff (10 s doubling to 300 s from the exit), during which its status is waiting
//    (CrashLoopBackOff) with the exit as lastState. A restart is one status write (running, ready,
//    restartCount + 1, lastState the exit) and a new process in the Pod whose attempt is the
//    restart count; it waits for the GCS again and runs the script from the top;
//  - a stop (scenario action stopSubmitter: `crictl stop`, SIGKILL) kills a running process: exit 137.
// An exit is one status write: phase Succeeded or Failed, the container terminated with its exit
// code. Not modelled: image pulls, restarts of a Job's Pods in place (restartPolicy OnFailure in
// a user's template: the Job controller's Pods are restartPolicy Never in KubeRay), log streaming.
// Which Pods it runs, and their processes, are kept for the Pods it runs that may still have work
// (not those whose process ended with the Pod), found by following the Pods' watch log (followed_answers.h; issue 30): a listing asks again only about the Pods written
// since the last one and the Pods of the processes started since, or about every Pod when the
// environment's processes changed otherwise. What a listing reads of a Pod is read once per version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/actor.h"
#include "engine/ray_dashboard.h"
#include "engine/scenario_behaviour.h"
#include "engine/followed_answers.h"

namespace rjsim::engine {

// What a submitter container's command asks of `ray job submit`.
struct SubmitCommand {
  std::string dashboard_url;       // without the http:// scheme
  std::string submission_id;
  std::string runtime_env_json;
  std::string entrypoint;          // the words after "--" up to a ";", joined by spaces
  bool status_guard = false;       // `ray job status ID` decides whether to submit at all
  bool follows_logs = false;       // `--no-wait`, then `ray job logs --follow`
};

// The index in World::environment.submitters of the process a Pod runs now: the last one started
// in it (a restarted container starts another); -1 when none has started.
int current_submitter_process(const World& world, std::string_view pod_uid);

// Reads the command and args of the container (a `sh -c` or `/bin/bash -ce --` script is split
// into words with shell quoting, ";" being a word of its own); the flags may be given as `--flag value` or `--flag=value`. False when the address or
// the submission id is in neither the flags nor the env.
bool parse_submit_command(const Container& container, SubmitCommand& out);

class Submitter final : public Actor {
 public:
  // `dashboard` null: every submit finds no head (a world without Ray). `latency`: the kubelet's
  // (world.latency.kubelet), for each thing the Pod does as the API shows it: its start, its
  // submit, its exit.
  Submitter(SubmitterBehaviour behaviour, const RayDashboard* dashboard, Latency latency = {})
      : behaviour_(behaviour), dashboard_(dashboard), latency_(latency) {}

  std::string_view name() const override { return "submitter"; }
  ActorInputs inputs() const override {
    return ActorInputs::objects_of({Kind::Pod}).and_clock().and_ray_and_environment();
  }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;
  Latency reaction_latency() const override { return latency_; }

  // How many Pods' answers were computed rather than kept (for tests).
  std::size_t pod_answers_computed() const { return running_pods_.computed(); }

 private:
  // The process the submitter runs in one Pod version it runs, as of the environment state it was
  // found in (current_submitter_process).
  struct PodAnswer {
    int process = -1;
    SharedString object;   // the work's object: the Pod's ref
    // Read from the Pod version once: a listing reads them for every Pod it keeps.
    bool pending = false;
    bool running = false;
    bool has_sidecar = false;     // a head Pod with the submitter sidecar
    bool sidecar_exited = false;  // and the Pod Running
    std::optional<std::int64_t> sidecar_restart_at_ms;
  };
  // Brings the answers of the Pods it runs up to `world`.
  void follow(const World& world) const;
  // Brings process_pods_ up to `processes`, naming in pods_with_new_processes_ the Pods of the
  // processes appended since; false when the list changed otherwise (every Pod is asked again).
  bool take_process_pods(const std::vector<SubmitterProcess>& processes) const;
  std::optional<ActorWork> work_for(const World& world, const Pod& pod, const PodAnswer& answer) const;
  std::optional<std::int64_t> timer_for(const World& world, const Pod& pod, const PodAnswer& answer) const;

  struct Exit {
    int code = 0;
    std::string_view reason;
  };
  // world.submitter.failAttempts with failAfter 0: the attempt exits 1 at its start.
  bool fails_before_submitting(int attempt) const {
    return attempt < behaviour_.fail_attempts && behaviour_.fail_after_ms == 0;
  }
  // What exit_now last answered from a process's job, and the serials of what that read
  // (copy_on_write.h): the environment (the process, the deleted jobs) and its head's table.
  struct JobExitMemo {
    std::uint64_t environment_serial = 0;   // 0: nothing kept (an environment with processes has a serial)
    std::uint64_t head_serial = 0;
    std::optional<Exit> exit;
  };
  // Whether a process that submitted exits now, and how. A listing passes the process's memo:
  // most listings follow a step that changed neither its job nor the environment, and looking
  // the job up by submission id for every running process was 1% of a step with 20 RayJobs.
  std::optional<Exit> exit_now(const World& world, const SubmitterProcess& process,
                               JobExitMemo* memo = nullptr) const;
  // The part of exit_now that reads the process's job in its head's table.
  std::optional<Exit> job_exit(const World& world, const SubmitterProcess& process, const RayHead& head) const;
  void start(const Pod& pod, StepContext& context) const;
  void submit(int process, const Pod& pod, StepContext& context) const;
  // The kubelet restarts the exited sidecar container: a new process in the same Pod.
  void restart(const Pod& pod, StepContext& context) const;
  // A process starting in `pod` now as `attempt`, kept in the world (not_submitted when the
  // attempt fails before it submits).
  SubmitterProcess begin_process(const Pod& pod, int attempt, StepContext& context) const;
  // A process that fails before it submits exits at once: its exit written and logged. True then.
  bool exited_at_start(const SubmitterProcess& process, const Pod& pod, StepContext& context) const;
  // `ray job status ID` for the guard of the 1.7 script: the live table that has the job, or -1.
  int live_head_with_job(StepContext& context, const SubmitCommand& command) const;
  void exit_process(const SubmitterProcess& process, const Exit& exit, StepContext& context) const;

  SubmitterBehaviour behaviour_;
  const RayDashboard* dashboard_;
  Latency latency_;
  mutable FollowedAnswers<PodAnswer> running_pods_;
  // The serial of the environment running_pods_ were found in (copy_on_write.h), and the Pod
  // uids of its submitter processes, in order: a Pod's answer (its latest process) reads only
  // those, so a change of the environment that leaves them (a process's progress, most changes)
  // leaves the answers, and one that appends a process changes its Pod's answer only.
  mutable std::uint64_t environment_serial_ = 0;
  mutable std::vector<std::string> process_pods_;
  mutable std::vector<std::uint64_t> pods_with_new_processes_;   // follow()'s, kept for its buffer
  mutable std::vector<JobExitMemo> job_exit_memos_;                // work_for's, by process index
};

}  // namespace rjsim::engine
