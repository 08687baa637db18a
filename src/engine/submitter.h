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
//    start + finishesAfter whatever Ray does.
// An exit is one status write: phase Succeeded or Failed, the container terminated with its exit
// code. Not modelled: image pulls, container restarts (restartPolicy Never), log streaming.
#pragma once

#include <string>

#include "engine/actor.h"
#include "engine/ray_dashboard.h"
#include "engine/scenario_behaviour.h"

namespace rjsim::engine {

// What a submitter container's command asks of `ray job submit`.
struct SubmitCommand {
  std::string dashboard_url;       // without the http:// scheme
  std::string submission_id;
  std::string runtime_env_json;
  std::string entrypoint;          // the words after "--", joined by spaces
};

// Reads the command and args of the container (a `sh -c` script is split into words with shell
// quoting); the flags may be given as `--flag value` or `--flag=value`. False when the address or
// the submission id is in neither the flags nor the env.
bool parse_submit_command(const Container& container, SubmitCommand& out);

class Submitter final : public Actor {
 public:
  // `dashboard` null: every submit finds no head (a world without Ray).
  Submitter(SubmitterBehaviour behaviour, const RayDashboard* dashboard)
      : behaviour_(behaviour), dashboard_(dashboard) {}

  std::string_view name() const override { return "submitter"; }
  void enabled(const World& world, std::vector<ActorWork>& out) const override;
  std::optional<std::int64_t> next_timer_ms(const World& world) const override;
  void apply(const ActorWork& work, StepContext& context) const override;

 private:
  struct Exit {
    int code = 0;
    std::string_view reason;
  };
  // Whether a process that submitted exits now, and how.
  std::optional<Exit> exit_now(const World& world, const SubmitterProcess& process) const;
  void start(const Pod& pod, StepContext& context) const;
  void submit(int process, const Pod& pod, StepContext& context) const;
  void exit_process(const SubmitterProcess& process, const Exit& exit, StepContext& context) const;

  SubmitterBehaviour behaviour_;
  const RayDashboard* dashboard_;
};

}  // namespace rjsim::engine
