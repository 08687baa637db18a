// Invariants over what a RayJob leaves behind in the API server (the truth, not a cache):
// suspended-is-clean and retry-is-clean, judged at the step that persists Suspended or the New
// after Retrying; no-leaked-cluster, judged at the end of the run once cleanup was due and its
// allowance passed (kCleanupAllowanceMs).
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "checks/judgements.h"

namespace rjsim::checks::judgements {

using namespace std::string_view_literals;   // a literal compared as a view checks its length first

namespace {

using engine::Kind;
using engine::RayCluster;

bool owned_by(const engine::ObjectMeta& meta, std::string_view rayjob_uid) {
  if (rayjob_uid.empty()) return false;
  for (const engine::OwnerReference& owner : *meta.owner_references) {
    if (owner.kind == Kind::RayJob && owner.uid == rayjob_uid) return true;
  }
  return false;
}

std::string describe(Kind kind, const engine::ObjectMeta& meta) {
  std::string text = engine::object_ref(kind, meta);
  if (meta.deletion_timestamp_ms) text += " (being deleted)";
  return text;
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

// The submitter Job of a RayJob: named like it and controller-owned by it.
const engine::Job* submitter_job(const engine::World& world, const RayJobHistory& rayjob) {
  const auto* job = world.api.find<engine::Job>(rayjob.namespace_, rayjob.name);
  if (!job) return nullptr;
  const engine::OwnerReference* owner = engine::controller_owner(job->metadata);
  return owner && owner->kind == Kind::RayJob && owner->uid == rayjob.uid ? job : nullptr;
}

// Every RayCluster the RayJob owns, and its submitter Job, that exist in the API server.
std::vector<std::string> leftovers(const engine::World& world, const RayJobHistory& rayjob) {
  std::vector<std::string> found;
  for (const engine::Object& object : world.api.objects(Kind::RayCluster)) {
    const engine::ObjectMeta& meta = engine::meta(object);
    if (owned_by(meta, rayjob.uid)) found.push_back(describe(Kind::RayCluster, meta));
  }
  if (const engine::Job* job = submitter_job(world, rayjob)) found.push_back(describe(Kind::Job, job->metadata));
  return found;
}

// Since when a RayCluster of the RayJob should be gone, and why; nullopt while it may exist.
struct Due {
  std::int64_t at_ms = 0;
  std::int64_t seq = 0;
  std::string why;
};

std::optional<Due> due_gone(const EndView& view, const RayJobHistory& rayjob, const RayCluster& cluster) {
  std::optional<Due> due;
  auto consider = [&](std::int64_t at_ms, std::int64_t seq, std::string why) {
    if (!due || at_ms < due->at_ms) due = Due{at_ms, seq, std::move(why)};
  };
  if (rayjob.gone) {
    consider(rayjob.gone->at_ms, rayjob.gone->seq,
             fmt::format("the RayJob was deleted at seq {} ({} ms)", rayjob.gone->seq, rayjob.gone->at_ms));
    return due;
  }
  if (rayjob.deployment_status == "Suspended"sv) {
    consider(rayjob.deployment_since.at_ms, rayjob.deployment_since.seq,
             fmt::format("Suspended was persisted at seq {} ({} ms)", rayjob.deployment_since.seq,
                         rayjob.deployment_since.at_ms));
  }
  // Created in an earlier attempt that ended Suspended: nothing will delete it any more.
  for (std::size_t k = 0; k + 1 < rayjob.attempts.size(); ++k) {
    const Attempt& attempt = rayjob.attempts[k];
    if (!attempt.suspended) continue;
    for (const ClusterCreation& created : attempt.clusters) {
      if (created.uid == cluster.metadata.uid) {
        consider(attempt.suspended->at_ms, attempt.suspended->seq,
                 fmt::format("its attempt {} ended Suspended at seq {} ({} ms)", k + 1,
                             attempt.suspended->seq, attempt.suspended->at_ms));
      }
    }
  }
  const auto* stored = view.world.api.find<engine::RayJob>(rayjob.namespace_, rayjob.name);
  const bool finished = rayjob.deployment_status == "Complete"sv || rayjob.deployment_status == "Failed"sv;
  if (finished && stored && stored->spec->shutdown_after_job_finishes) {
    const std::int64_t end_ms = stored->status.end_time_ms.value_or(rayjob.deployment_since.at_ms);
    const std::int64_t ttl_ms = static_cast<std::int64_t>(stored->spec->ttl_seconds_after_finished.value_or(0)) * 1000;
    consider(end_ms + ttl_ms, rayjob.deployment_since.seq,
             fmt::format("{} was persisted at seq {} with shutdownAfterJobFinishes and its TTL of {} s "
                         "passed at {} ms",
                         rayjob.deployment_status, rayjob.deployment_since.seq,
                         stored->spec->ttl_seconds_after_finished.value_or(0), end_ms + ttl_ms));
  }
  return due;
}

}  // namespace

void suspended_is_clean(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (t.to_deployment != "Suspended"sv || t.from_deployment == "Suspended"sv) continue;
    const RayJobHistory& rayjob = view.history.rayjobs()[static_cast<std::size_t>(t.rayjob)];
    const std::vector<std::string> found = leftovers(view.world, rayjob);
    if (found.empty()) continue;
    reporter.report("suspended-is-clean", rayjob.ref, t.at.seq,
                    fmt::format("{}: Suspended was persisted at seq {} while {} still exist{} in the API server",
                                rayjob.ref, t.at.seq, join(found), found.size() == 1 ? "s" : ""));
  }
}

void retry_is_clean(const StepView& view, Reporter& reporter) {
  for (const PersistedTransition& t : view.facts.transitions) {
    if (!t.to_deployment.empty() || t.from_deployment != "Retrying"sv || t.attempt < 1) continue;
    const RayJobHistory& rayjob = view.history.rayjobs()[static_cast<std::size_t>(t.rayjob)];
    const Attempt& previous = rayjob.attempts[static_cast<std::size_t>(t.attempt - 1)];
    std::vector<std::string> found;
    for (const engine::Object& object : view.world.api.objects(Kind::RayCluster)) {
      const engine::ObjectMeta& meta = engine::meta(object);
      if (meta.namespace_ != rayjob.namespace_) continue;
      bool of_previous = meta.name == previous.ray_cluster_name && owned_by(meta, rayjob.uid);
      for (const ClusterCreation& created : previous.clusters) {
        if (created.name == meta.name && (created.uid.empty() || created.uid == meta.uid)) of_previous = true;
      }
      if (of_previous) found.push_back(describe(Kind::RayCluster, meta));
    }
    if (const engine::Job* job = submitter_job(view.world, rayjob)) found.push_back(describe(Kind::Job, job->metadata));
    if (found.empty()) continue;
    reporter.report("retry-is-clean", rayjob.ref, t.at.seq,
                    fmt::format("{}: New was persisted after Retrying at seq {} while {} of attempt {} "
                                "(begun at seq {}) still exist{} in the API server",
                                rayjob.ref, t.at.seq, join(found), t.attempt, previous.begun.seq,
                                found.size() == 1 ? "s" : ""));
  }
}

void no_leaked_cluster(const EndView& view, Reporter& reporter) {
  const bool quiescent = view.end == engine::RunEnd::quiescent;
  const std::int64_t now_ms = view.world.now_ms;
  for (const RayJobHistory& rayjob : view.history.rayjobs()) {
    if (rayjob.uid.empty()) continue;
    std::vector<std::string> leaked;
    bool all_past_allowance = true;
    for (const engine::Object& object : view.world.api.objects(Kind::RayCluster)) {
      const auto& cluster = std::get<RayCluster>(object);
      // A cluster being deleted is not leaked: its deletion was issued and is in progress.
      if (!owned_by(cluster.metadata, rayjob.uid) || cluster.metadata.deletion_timestamp_ms) continue;
      const std::optional<Due> due = due_gone(view, rayjob, cluster);
      if (!due) continue;
      const bool past_allowance = now_ms >= due->at_ms + view.settings.cleanup_allowance_ms;
      if (!past_allowance && !(quiescent && now_ms >= due->at_ms)) continue;
      all_past_allowance = all_past_allowance && past_allowance;
      leaked.push_back(fmt::format("{} (due gone since {})", engine::object_ref(object), due->why));
    }
    if (leaked.empty()) continue;
    reporter.report("no-leaked-cluster", rayjob.ref, view.last_seq,
                    fmt::format("{}: {} still exist{} at the end of the run (seq {}, {} ms), {}", rayjob.ref,
                                join(leaked), leaked.size() == 1 ? "s" : "", view.last_seq, now_ms,
                                all_past_allowance
                                    ? fmt::format("past the {} ms cleanup allowance", view.settings.cleanup_allowance_ms)
                                    : std::string("and the run ended with nothing left to run that could remove it")));
  }
}

}  // namespace rjsim::checks::judgements
