#include "engine/submitter.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <functional>
#include <span>

#include <fmt/format.h>

#include "engine/job_controller.h"
#include "engine/key_index.h"
#include "engine/raycluster_controller.h"

namespace rjsim::engine {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

constexpr std::string_view kStart = "start";
constexpr std::string_view kSubmit = "submit";
constexpr std::string_view kExit = "exit";
constexpr std::string_view kRestart = "restart";
// What `crictl stop` (timeout 0: SIGKILL) leaves: 128 + 9.
constexpr int kKilledExitCode = 137;

// Whether `c` ends a run of plain characters in a shell word list: a blank, ";", a quote or a
// backslash.
constexpr std::array<bool, 256> kShellSpecial = [] {
  std::array<bool, 256> special{};
  for (const unsigned char c : std::string_view(" \t\n\r;'\"\\")) special[c] = true;
  return special;
}();

bool is_shell_special(char c) { return kShellSpecial[static_cast<unsigned char>(c)]; }

// Where the run of plain characters from `from` ends: outside quotes at a special character,
// within them at the closing quote or a backslash (or at the end of the text).
std::size_t plain_run_end(std::string_view text, std::size_t from, char quote) {
  if (quote == 0) {
    while (from < text.size() && !is_shell_special(text[from])) ++from;
    return from;
  }
  while (from < text.size() && text[from] != quote && text[from] != '\\') ++from;
  return from;
}

// Splits a shell word list: blanks separate words; single quotes, double quotes and backslashes
// quote. Enough for the commands KubeRay and users put in a submitter template. Runs of plain
// characters are appended whole: a KubeRay 1.7 script is about 900 characters, split once a run.
std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    // A run of characters that stand for themselves: plain ones, or within quotes any but the
    // closing quote and a backslash.
    const std::size_t end = plain_run_end(text, i, quote);
    if (end > i) {
      word.append(text.substr(i, end - i));
      in_word = true;
      i = end;
      continue;
    }
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
        word += text[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (c == '\\') {
      word += c;   // a backslash that ends the text is itself
      in_word = true;
    } else {   // a blank or ";"
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      if (c == ';') words.emplace_back(";");
    }
    ++i;
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

bool is_shell(std::string_view program) {
  const auto slash = program.rfind('/');
  if (slash != std::string_view::npos) program.remove_prefix(slash + 1);
  return program == "sh"sv || program == "bash"sv;
}

std::string without_scheme(std::string url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.starts_with(scheme)) return url.substr(scheme.size());
  }
  return url;
}

// The index of the submitter sidecar in a RayCluster's head Pod, or -1 when the Pod is not one.
int sidecar_index(const Pod& pod) {
  const OwnerReference* owner = controller_owner(pod.metadata);
  if (!owner || owner->kind != Kind::RayCluster) return -1;
  for (std::size_t i = 0; i < pod.spec->containers.size(); ++i) {
    if (pod.spec->containers[i].name == kSubmitterSidecarName) return static_cast<int>(i);
  }
  return -1;
}

// A Pod the submitter runs: owned by a Job, or a head Pod with the sidecar; its containers not
// stopped (a deleted Pod's process runs through its grace period: `sh -c` as PID 1 ignores SIGTERM,
// so `ray job submit` may still submit).
bool is_submitter_pod(const Pod& pod) {
  const OwnerReference* owner = controller_owner(pod.metadata);
  return owner && (owner->kind == Kind::Job || sidecar_index(pod) >= 0) && !containers_stopped(pod);
}

// Whether a Pod the submitter runs, whose latest process is `process` (-1: none started), can have
// work or a timer while it and its processes stay as they are (work_for, timer_for): one not
// started must be Pending or have the sidecar, one started must be Running. The Pods of finished
// submitters are most of those a listing would otherwise visit.
bool may_have_work(const Pod& pod, int process) {
  if (process < 0) return is_pending(pod) || sidecar_index(pod) >= 0;
  return pod.status.phase == "Running"sv;
}

const ContainerStatus* sidecar_status(const Pod& pod) {
  const int sidecar = sidecar_index(pod);
  if (sidecar < 0) return nullptr;
  const std::string& name = pod.spec->containers[static_cast<std::size_t>(sidecar)].name;
  for (const ContainerStatus& status : pod.status.container_statuses) {
    if (status.name == name) return &status;
  }
  return nullptr;
}

// A sidecar that exited: its container terminated (or waits to restart) while the head Pod runs on.
bool sidecar_exited(const Pod& pod) {
  const ContainerStatus* status = sidecar_status(pod);
  return status && (status->state == "terminated"sv || status->state == "waiting"sv);
}

// The kubelet's CrashLoopBackOff before restart number `restart_count + 1` (kubernetes-semantics
// §4.1): the first restart at once, then 10 s doubling to 300 s, counted from the exit.
std::int64_t crash_loop_backoff_ms(int restart_count) {
  if (restart_count == 0) return 0;
  const int doublings = std::min(restart_count - 1, 5);
  return std::min<std::int64_t>(10'000LL << doublings, 300'000);
}

// When the kubelet restarts the sidecar of a head Pod: its container has restartPolicy OnFailure
// and exited non-zero, and the Pod is not being deleted. nullopt when it does not restart.
std::optional<std::int64_t> sidecar_restart_at_ms(const Pod& pod) {
  const int sidecar = sidecar_index(pod);
  const ContainerStatus* status = sidecar_status(pod);
  if (!status || pod.metadata.deletion_timestamp_ms ||
      pod.spec->containers[static_cast<std::size_t>(sidecar)].restart_policy != "OnFailure"sv) {
    return std::nullopt;
  }
  if (status->state == "terminated"sv && status->exit_code.value_or(0) != 0) {
    return status->finished_at_ms.value_or(0) + crash_loop_backoff_ms(status->restart_count);
  }
  if (status->state == "waiting"sv && status->last_termination_state) {
    return status->last_termination_state->finished_at_ms + crash_loop_backoff_ms(status->restart_count);
  }
  return std::nullopt;
}

// A sidecar starts once its cluster's Ray head is up (the script's GCS health wait).
bool sidecar_may_start(const World& world, const Pod& pod) {
  if (sidecar_index(pod) < 0) return true;
  const std::string& cluster_uid = controller_owner(pod.metadata)->uid;
  return std::any_of(world.ray->heads.begin(), world.ray->heads.end(), [&](const RayHead& head) {
    return head.cluster_uid == cluster_uid && !head.table_lost;
  });
}

void write_pod_status(StepContext& context, const Pod& pod, const std::function<void(PodStatus&)>& edit) {
  LoggedApi(context, "submitter")
      .patch_status(Kind::Pod, pod.metadata.namespace_, pod.metadata.name,
                    [&](Object& object) { edit(std::get<Pod>(object).status); });
}

// The reason the kubelet reports for a container that exited on its own, as the container runtime
// (containerd, CRI-O) gives it: "Completed" for exit code 0, "Error" for any other.
std::string terminated_reason(int exit_code) { return exit_code == 0 ? "Completed" : "Error"; }

// A sidecar's exit: only its container ends. One that the kubelet restarts after a backoff shows
// at once what the kubelet reports while it waits: waiting (CrashLoopBackOff), the exit as its
// lastState (kubelet convertToAPIContainerStatuses); one restarted at once shows terminated.
void write_sidecar_exit(StepContext& context, const Pod& pod, std::size_t sidecar, int exit_code) {
  const Container& spec = pod.spec->containers[sidecar];
  const std::int64_t now = context.now_ms();
  write_pod_status(context, pod, [&](PodStatus& status) {
    status.ready = false;
    auto& containers = status.container_statuses;
    auto it = std::find_if(containers.begin(), containers.end(),
                           [&](const ContainerStatus& c) { return c.name == spec.name; });
    if (it == containers.end()) {
      ContainerStatus status_of_sidecar;
      status_of_sidecar.name = spec.name;
      it = containers.insert(containers.end(), std::move(status_of_sidecar));
    }
    it->ready = false;
    const bool backs_off = spec.restart_policy == "OnFailure"sv && exit_code != 0 && it->restart_count > 0;
    if (backs_off) {
      it->state = "waiting";
      it->exit_code.reset();
      it->finished_at_ms.reset();
      it->reason = "CrashLoopBackOff";
      it->last_termination_state = ContainerTerminated{exit_code, terminated_reason(exit_code), now};
      return;
    }
    it->state = "terminated";
    it->exit_code = exit_code;
    it->finished_at_ms = now;
    it->reason = terminated_reason(exit_code);
  });
}

void write_terminated(StepContext& context, const Pod& pod, int exit_code) {
  const std::int64_t now = context.now_ms();
  if (const int sidecar = sidecar_index(pod); sidecar >= 0) {
    write_sidecar_exit(context, pod, static_cast<std::size_t>(sidecar), exit_code);
    return;
  }
  write_pod_status(context, pod, [&](PodStatus& status) {
    status.phase = exit_code == 0 ? "Succeeded" : "Failed";
    status.ready = false;
    status.container_statuses.clear();
    for (const Container& container : pod.spec->containers) {
      ContainerStatus terminated;
      terminated.name = container.name;
      terminated.state = "terminated";
      terminated.exit_code = exit_code;
      terminated.finished_at_ms = now;
      terminated.reason = terminated_reason(exit_code);
      status.container_statuses.push_back(std::move(terminated));
    }
  });
}

void emit_exit(StepContext& context, const SubmitterProcess& process, int exit_code,
               std::string_view reason) {
  context.effect("submitter.exit", "submitter",
                 fmt::format("Pod/{}/{}", process.pod_namespace, process.pod_name))
      .with("attempt", process.attempt)
      .with("exit_code", exit_code)
      .with("reason", reason);
}

}  // namespace

int current_submitter_process(const World& world, std::string_view pod_uid) {
  const auto& processes = world.environment->submitters;
  for (std::size_t i = processes.size(); i-- > 0;) {
    if (processes[i].pod_uid == pod_uid) return static_cast<int>(i);
  }
  return -1;
}

int Submitter::live_head_with_job(StepContext& context, const SubmitCommand& command) const {
  const DashboardResponse response =
      dashboard_->get_job_info(context, DashboardCaller::submitter, command.dashboard_url, command.submission_id);
  if (!response.connected || response.status != 200) return -1;
  const std::vector<CopyOnWrite<RayHead>>& heads = context.world().ray->heads;
  for (std::size_t h = heads.size(); h-- > 0;) {
    if (heads[h]->table_lost) continue;
    for (const RayJobRecord& job : heads[h]->jobs) {
      if (job.submission_id == command.submission_id) return static_cast<int>(h);
    }
  }
  return -1;
}

bool parse_submit_command(const Container& container, SubmitCommand& out) {
  std::vector<std::string> words = container.command;
  words.insert(words.end(), container.args.begin(), container.args.end());
  // `sh -c SCRIPT`, or bash with combined options and an end of options: `/bin/bash -ce -- SCRIPT`.
  if (words.size() >= 3 && is_shell(words[0]) && words[1].starts_with('-') &&
      words[1].find('c') != std::string::npos) {
    const std::size_t script = words[2] == "--"sv ? 3 : 2;
    if (script < words.size()) words = split_words(words[script]);
  }

  out = SubmitCommand{};
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--"sv) {
      for (std::size_t j = i + 1; j < words.size() && words[j] != ";"sv; ++j) {
        if (!out.entrypoint.empty()) out.entrypoint += ' ';
        out.entrypoint += words[j];
      }
      break;
    }
    const std::pair<std::string_view, std::string*> flags[] = {
        {"--address", &out.dashboard_url},
        {"--submission-id", &out.submission_id},
        {"--runtime-env-json", &out.runtime_env_json},
    };
    for (const auto& [flag, value] : flags) {
      if (word == flag && i + 1 < words.size()) {
        *value = words[++i];
        break;
      }
      if (word.starts_with(flag) && word.size() > flag.size() && word[flag.size()] == '=') {
        *value = word.substr(flag.size() + 1);
        break;
      }
    }
  }
  // `ray job status` and `ray job logs --follow` anywhere in the script.
  for (std::size_t i = 0; i + 2 < words.size(); ++i) {
    if (words[i] != "ray"sv || words[i + 1] != "job"sv) continue;
    if (words[i + 2] == "status"sv) out.status_guard = true;
    if (words[i + 2] == "logs"sv && std::find(words.begin() + static_cast<std::ptrdiff_t>(i), words.end(),
                                            "--follow") != words.end()) {
      out.follows_logs = true;
    }
  }
  out.follows_logs = out.follows_logs && std::find(words.begin(), words.end(), "--no-wait") != words.end();
  auto from_env = [&](std::string& value, const char* name) {
    if (!value.empty()) return;
    if (auto it = container.env.find(name); it != container.env.end()) value = it->second;
  };
  from_env(out.dashboard_url, "RAY_DASHBOARD_ADDRESS");
  from_env(out.submission_id, "RAY_JOB_SUBMISSION_ID");
  out.dashboard_url = without_scheme(out.dashboard_url);
  return !out.dashboard_url.empty() && !out.submission_id.empty();
}

std::optional<Submitter::Exit> Submitter::exit_now(const World& world, const SubmitterProcess& process,
                                                   JobExitMemo* memo) const {
  if (process.stop_requested) return Exit{kKilledExitCode, "killed"};
  assert(process.submit_outcome == "ok"sv && "rjsim bug: only a submitted process waits");
  const std::int64_t now = world.now_ms;
  if (process.attempt < behaviour_.fail_attempts) {
    if (now >= process.started_at_ms + behaviour_.fail_after_ms) return Exit{1, "fail_after"};
    return std::nullopt;
  }
  if (behaviour_.finishes_after_ms) {
    if (now >= process.started_at_ms + *behaviour_.finishes_after_ms) return Exit{0, "finishes_after"};
    return std::nullopt;
  }
  assert(process.head >= 0 && "rjsim bug: a submitted process without its head");
  const CopyOnWrite<RayHead>& head = world.ray->heads[static_cast<std::size_t>(process.head)];
  if (!memo) return job_exit(world, process, *head);
  if (memo->environment_serial != world.environment.serial() || memo->head_serial != head.serial()) {
    *memo = JobExitMemo{world.environment.serial(), head.serial(), job_exit(world, process, *head)};
  }
  return memo->exit;
}

std::optional<Submitter::Exit> Submitter::job_exit(const World& world, const SubmitterProcess& process,
                                                   const RayHead& head) const {
  if (head.table_lost) return Exit{1, "job_lost"};
  // The job it submitted: the last record of its id in that table (a deleted one is lost too).
  const RayJobRecord* job = nullptr;
  for (std::size_t i = head.jobs.size(); i-- > 0;) {
    if (head.jobs[i].submission_id != process.submission_id) continue;
    const bool deleted = std::any_of(
        world.environment->deleted_ray_jobs.begin(), world.environment->deleted_ray_jobs.end(),
        [&](const DeletedRayJob& d) { return d.head == process.head && d.job == static_cast<int>(i); });
    if (!deleted) job = &head.jobs[i];
    break;
  }
  if (!job) return Exit{1, "job_lost"};
  if (process.follows_logs) {   // `ray job logs --follow` returns once the job is terminal
    if (job->status == "SUCCEEDED"sv || job->status == "FAILED"sv || job->status == "STOPPED"sv) {
      return Exit{0, "logs_followed"};
    }
    return std::nullopt;
  }
  if (job->status == "SUCCEEDED"sv) return Exit{0, "succeeded"};
  if (job->status == "FAILED"sv) return Exit{1, "failed"};
  // `ray job submit` exits non-zero only for FAILED (Ray dashboard/modules/job/cli.py).
  if (job->status == "STOPPED"sv) return Exit{0, "stopped"};
  return std::nullopt;
}

void Submitter::enabled(const World& world, std::vector<ActorWork>& out) const {
  follow(world);
  for (const auto& [pod, key_hash, answer] : running_pods_.kept()) {
    if (std::optional<ActorWork> work = work_for(world, std::get<Pod>(*pod), answer)) out.push_back(std::move(*work));
  }
}

std::optional<std::int64_t> Submitter::next_timer_ms(const World& world) const {
  follow(world);
  EarliestTimer timer(world.now_ms);
  for (const auto& [pod, key_hash, answer] : running_pods_.kept()) {
    if (const std::optional<std::int64_t> at = timer_for(world, std::get<Pod>(*pod), answer)) timer.consider(*at);
  }
  return timer.next_ms();
}

void Submitter::follow(const World& world) const {
  bool afresh = false;
  pods_with_new_processes_.clear();
  if (environment_serial_ != world.environment.serial()) {
    environment_serial_ = world.environment.serial();
    afresh = !take_process_pods(world.environment->submitters);
  }
  running_pods_.follow(world.api, Kind::Pod, afresh, [&](const ObjectVersion& version, PodAnswer& answer) {
    const Pod& pod = std::get<Pod>(*version);
    if (!is_submitter_pod(pod)) return false;
    answer.process = current_submitter_process(world, pod.metadata.uid);
    if (!may_have_work(pod, answer.process)) return false;
    answer.object = SharedString(object_ref(Kind::Pod, pod.metadata));
    answer.pending = is_pending(pod);
    answer.running = pod.status.phase == "Running"sv;
    answer.has_sidecar = sidecar_index(pod) >= 0;
    answer.sidecar_exited = answer.running && sidecar_exited(pod);
    if (answer.sidecar_exited) answer.sidecar_restart_at_ms = sidecar_restart_at_ms(pod);
    return true;
  }, pods_with_new_processes_);
}

bool Submitter::take_process_pods(const std::vector<SubmitterProcess>& processes) const {
  // A Pod's answer reads which process is its latest: a process started since (the list grows
  // at its end) changes its own Pod's answer only. Any other change is asked of every Pod.
  const bool grown = processes.size() >= process_pods_.size() &&
                     std::equal(process_pods_.begin(), process_pods_.end(), processes.begin(),
                                [](const std::string& pod, const SubmitterProcess& process) { return process.pod_uid == pod; });
  if (!grown) {
    process_pods_.clear();
    for (const SubmitterProcess& process : processes) process_pods_.push_back(process.pod_uid);
    return false;
  }
  for (std::size_t i = process_pods_.size(); i < processes.size(); ++i) {
    process_pods_.push_back(processes[i].pod_uid);
    pods_with_new_processes_.push_back(KeyIndex::hash_key(processes[i].pod_namespace, processes[i].pod_name));
  }
  return true;
}

// A Pod the submitter runs: its one piece of work now, if any.
std::optional<ActorWork> Submitter::work_for(const World& world, const Pod& pod, const PodAnswer& answer) const {
  const int index = answer.process;
  if (index < 0) {
    // A head Pod's sidecar starts in a Pod the kubelet already runs.
    if ((answer.pending || answer.has_sidecar) &&
        pod.metadata.creation_timestamp_ms + behaviour_.start_after_ms <= world.now_ms &&
        (!answer.has_sidecar || sidecar_may_start(world, pod))) {
      return ActorWork{kStart, answer.object, 0};
    }
    return std::nullopt;
  }
  if (!answer.running) return std::nullopt;
  if (answer.sidecar_exited) {
    const std::optional<std::int64_t> restart_at = answer.sidecar_restart_at_ms;
    if (!restart_at || *restart_at > world.now_ms) return std::nullopt;
    return ActorWork{kRestart, answer.object, index};
  }
  const SubmitterProcess& process = world.environment->submitters[static_cast<std::size_t>(index)];
  if (process.submit_outcome.empty() && !process.stop_requested) {
    // The 1.7 sidecar script first waits for the GCS (`until wget ...; do sleep 2; done`).
    if (!answer.has_sidecar || sidecar_may_start(world, pod)) return ActorWork{kSubmit, answer.object, index};
  } else if (process.submit_outcome == "ok"sv || process.stop_requested) {
    if (job_exit_memos_.size() < world.environment->submitters.size()) {
      job_exit_memos_.resize(world.environment->submitters.size());
    }
    if (!exit_now(world, process, &job_exit_memos_[static_cast<std::size_t>(index)])) return std::nullopt;
    return ActorWork{kExit, answer.object, index};
  }
  return std::nullopt;
}

// A Pod the submitter runs: the time at which it next has work by the clock alone, if any.
std::optional<std::int64_t> Submitter::timer_for(const World& world, const Pod& pod, const PodAnswer& answer) const {
  const int index = answer.process;
  if (index < 0) {
    // As in work_for(): a head Pod's sidecar starts in a Pod the kubelet already runs.
    if (!answer.pending && !answer.has_sidecar) return std::nullopt;
    return pod.metadata.creation_timestamp_ms + behaviour_.start_after_ms;
  }
  if (answer.sidecar_exited) return answer.sidecar_restart_at_ms;
  const SubmitterProcess& process = world.environment->submitters[static_cast<std::size_t>(index)];
  if (!answer.running || process.submit_outcome != "ok"sv) return std::nullopt;
  if (process.attempt < behaviour_.fail_attempts) return process.started_at_ms + behaviour_.fail_after_ms;
  return behaviour_.finishes_after_ms ? std::optional(process.started_at_ms + *behaviour_.finishes_after_ms)
                                      : std::nullopt;
}

void Submitter::apply(const ActorWork& work, StepContext& context) const {
  ObjectRef ref;
  [[maybe_unused]] const bool ok = parse_object_ref(work.object.str(), ref);
  assert(ok && ref.kind == Kind::Pod && "rjsim bug: submitter work names no Pod");
  const Pod* found = context.world().api.find<Pod>(ref.namespace_, ref.name);
  assert(found && "rjsim bug: submitter work for a Pod that is gone");
  const Pod pod = *found;   // a copy: the writes below move the stored object
  if (work.what == kStart) {
    start(pod, context);
    return;
  }
  if (work.what == kSubmit) {
    submit(work.index, pod, context);
    return;
  }
  if (work.what == kRestart) {
    restart(pod, context);
    return;
  }
  assert(work.what == kExit && "rjsim bug: unknown submitter work");
  const SubmitterProcess process = context.world().environment->submitters[static_cast<std::size_t>(work.index)];
  const std::optional<Exit> exit_code = exit_now(context.world(), process);
  assert(exit_code && "rjsim bug: an exit that is not due");
  exit_process(process, *exit_code, context);
}

void Submitter::start(const Pod& pod, StepContext& context) const {
  const OwnerReference* owner = controller_owner(pod.metadata);
  const std::vector<const Pod*> pods = pods_of_job(context.world().api, pod.metadata.namespace_, owner->uid);
  const auto position = std::find_if(pods.begin(), pods.end(),
                                     [&](const Pod* p) { return p->metadata.uid == pod.metadata.uid; });
  // A sidecar's attempt is 0: its Pod is owned by no Job.
  const int attempt = sidecar_index(pod) >= 0 ? 0 : static_cast<int>(position - pods.begin());
  const SubmitterProcess process = begin_process(pod, attempt, context);
  context.effect("submitter.start", "submitter", object_ref(Kind::Pod, pod.metadata))
      .with("attempt", process.attempt);
  if (exited_at_start(process, pod, context)) return;
  write_pod_status(context, pod, [&](PodStatus& status) {
    status.phase = "Running";
    status.ready = true;
    status.container_statuses.clear();
    for (const Container& container : pod.spec->containers) {
      ContainerStatus running;
      running.name = container.name;
      running.ready = true;
      running.state = "running";
      status.container_statuses.push_back(std::move(running));
    }
  });
}

void Submitter::restart(const Pod& pod, StepContext& context) const {
  const std::string name = sidecar_status(pod)->name;
  int restart_count = 0;
  write_pod_status(context, pod, [&](PodStatus& status) {
    for (ContainerStatus& container : status.container_statuses) {
      if (container.name != name) continue;
      if (container.state == "terminated"sv) {
        container.last_termination_state = ContainerTerminated{container.exit_code.value_or(0), container.reason,
                                                               container.finished_at_ms.value_or(0)};
      }
      container.state = "running";
      container.ready = true;   // no readiness probe: ready once started
      container.exit_code.reset();
      container.finished_at_ms.reset();
      container.reason.clear();
      restart_count = ++container.restart_count;
    }
    status.ready = std::all_of(status.container_statuses.begin(), status.container_statuses.end(),
                               [](const ContainerStatus& c) { return c.ready; });
  });
  const SubmitterProcess process = begin_process(pod, restart_count, context);
  context.effect("submitter.restart", "submitter", object_ref(Kind::Pod, pod.metadata))
      .with("container", name)
      .with("restart_count", restart_count);
  exited_at_start(process, pod, context);
}

SubmitterProcess Submitter::begin_process(const Pod& pod, int attempt, StepContext& context) const {
  SubmitterProcess process;
  process.pod_namespace = pod.metadata.namespace_;
  process.pod_name = pod.metadata.name;
  process.pod_uid = pod.metadata.uid;
  process.attempt = attempt;
  process.started_at_ms = context.now_ms();
  if (fails_before_submitting(attempt)) process.submit_outcome = "not_submitted";
  context.world().environment.edit().submitters.push_back(process);
  return process;
}

bool Submitter::exited_at_start(const SubmitterProcess& process, const Pod& pod, StepContext& context) const {
  if (process.submit_outcome != "not_submitted"sv) return false;
  write_terminated(context, pod, 1);   // the patch edits the stored status; `pod` names it
  emit_exit(context, process, 1, "not_submitted");
  return true;
}

void Submitter::submit(int index, const Pod& pod, StepContext& context) const {
  SubmitCommand command;
  const int container = std::max(sidecar_index(pod), 0);
  const bool parsed = static_cast<std::size_t>(container) < pod.spec->containers.size() &&
                      parse_submit_command(pod.spec->containers[static_cast<std::size_t>(container)], command);
  if (parsed && sidecar_index(pod) >= 0 &&
      (command.dashboard_url.starts_with("127.0.0.1:") || command.dashboard_url.starts_with("localhost:"))) {
    // The sidecar shares the head's network namespace: its 127.0.0.1 is the head's dashboard.
    const RayCluster* cluster =
        context.world().api.find<RayCluster>(pod.metadata.namespace_, controller_owner(pod.metadata)->name);
    if (cluster) {
      command.dashboard_url = fmt::format("{}.{}.svc.cluster.local:{}", head_service_name(*cluster),
                                          pod.metadata.namespace_, kDashboardPort);
    }
  }
  std::string outcome;
  int head = -1;
  if (!parsed) {
    outcome = "no_command";
  } else if (!dashboard_) {
    outcome = "unreachable";
  } else if (command.status_guard && (head = live_head_with_job(context, command)) >= 0) {
    outcome = "ok";   // `ray job status` found the job: no submit, follow it
  } else {
    SubmitJobRequest request;
    request.entrypoint = command.entrypoint;
    request.submission_id = command.submission_id;
    request.runtime_env_json = command.runtime_env_json;
    const DashboardResponse response =
        dashboard_->submit_job(context, DashboardCaller::submitter, command.dashboard_url, request);
    if (!response.connected) {
      outcome = "unreachable";
    } else if (response.status == 500 &&
               response.text.find("Please use a different submission_id") != std::string::npos) {
      outcome = "duplicate";
    } else if (response.status != 200 || !response.json) {
      outcome = "http_error";
    } else {
      outcome = "ok";
      // The record the dashboard just added: name this pod as its submitter.
      // Found by reading, then only that head edited (the others stay shared with snapshots).
      const std::vector<CopyOnWrite<RayHead>>& heads = context.world().ray->heads;
      for (std::size_t h = 0; h < heads.size(); ++h) {
        if (heads[h]->table_lost || heads[h]->jobs.empty()) continue;
        const RayJobRecord& job = heads[h]->jobs.back();
        if (job.submission_id == response.submission_id && job.submitted_by == "submitter"sv &&
            job.submitted_at_ms == context.now_ms()) {
          head = static_cast<int>(h);
          break;
        }
      }
      if (head >= 0) {
        context.world().ray.edit().heads[static_cast<std::size_t>(head)].edit().jobs.back().submitted_by =
            fmt::format("submitter/{}", pod.metadata.name);
      }
      assert(head >= 0 && "rjsim bug: an accepted submission is in no live table");
    }
  }
  SubmitterProcess& process = context.world().environment.edit().submitters[static_cast<std::size_t>(index)];
  process.dashboard_url = command.dashboard_url;
  process.submission_id = command.submission_id;
  process.submit_outcome = outcome;
  process.head = head;
  process.follows_logs = command.follows_logs;
  if (outcome != "ok"sv) {
    const SubmitterProcess copy = process;
    write_terminated(context, pod, 1);
    emit_exit(context, copy, 1, outcome);
  }
}

void Submitter::exit_process(const SubmitterProcess& process, const Exit& exit, StepContext& context) const {
  const Pod* pod = context.world().api.find<Pod>(process.pod_namespace, process.pod_name);
  assert(pod && "rjsim bug: a submitter exits from a Pod that is gone");
  const Pod copy = *pod;
  write_terminated(context, copy, exit.code);
  emit_exit(context, process, exit.code, exit.reason);
}

}  // namespace rjsim::engine
