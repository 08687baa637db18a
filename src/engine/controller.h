// What a controller model sees of the simulated cluster, and what the engine needs to know about
// it. A model (src/models) implements Controller and talks only to these client interfaces:
// KubeClient (reads from the informer caches, writes to the API server, as controller-runtime's
// default client does: kubernetes-semantics §2.1, §2.2) and Runtime (the clock and random
// suffixes that KubeRay takes from time.Now and utilrand) and DashboardApi (HTTP to a Ray head,
// dashboard_api.h; each release wraps it in its own Go client's behaviour). Models are stateless between reconciles: everything they remember
// lives in the objects they persist, as in KubeRay.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api_server.h"
#include "engine/dashboard_api.h"
#include "engine/error.h"
#include "engine/informer.h"
#include "engine/objects.h"
#include "engine/scenario_behaviour.h"
#include "engine/work_queue.h"

namespace rjsim::engine {

// A reconcile request: only the key reaches the controller (§2.3).
struct Request {
  std::string namespace_;
  std::string name;
  std::string key() const { return key_of(namespace_, name); }
};

// ctrl.Result plus the returned error. An error makes the queue ignore requeue_after (§2.4).
// `requeue` is ctrl.Result{Requeue: true} (KubeRay 1.0 only): with no error and no
// requeue_after, a rate-limited re-add that does not reset the key's backoff (reference §6.1
// correction 19).
struct ReconcileResult {
  std::int64_t requeue_after_ms = 0;
  Error err;
  bool requeue = false;

  static ReconcileResult done() { return {}; }
  static ReconcileResult requeue_after(std::int64_t ms) { return {ms, {}, false}; }
  static ReconcileResult error(Error err, std::int64_t requeue_after_ms = 0) {
    return {requeue_after_ms, std::move(err), false};
  }
  static ReconcileResult requeue_rate_limited() { return {0, {}, true}; }
};

// Thrown by a model where the Go code would panic (a nil dereference, say). Releases before
// controller-runtime v0.19 crash the process; later ones recover it as an error (§2.4).
class ModelPanic : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KubeClient {
 public:
  virtual ~KubeClient() = default;

  // A cache read (the informer of the kind): the cached object, or nullptr and NotFound in
  // `error`. The pointer is good until the next read; models use the typed get below, which
  // copies it, as controller-runtime's client hands out deep copies.
  virtual const Object* read(Kind kind, std::string_view namespace_, std::string_view name, Error& error) = 0;
  // An uncached read from the API server (controller-runtime's manager.GetAPIReader()): the
  // stored object, or nullptr and NotFound in `error`. No KubeRay release reads this way; a fix
  // variant does (docs/findings/002). The pointer is good until the next call, as read()'s.
  virtual const Object* read_from_api(Kind kind, std::string_view namespace_, std::string_view name,
                                      Error& error) = 0;
  // Cached objects of a kind in a namespace whose labels include every pair of `labels`.
  virtual Error list(Kind kind, std::string_view namespace_, const StringMap& labels,
                     std::vector<Object>& out) = 0;
  // The same list from the API server, uncached (the API reader's List): every stored object,
  // whatever the cache's selectors keep. No release lists this way; a fix variant does
  // (docs/findings/003).
  virtual Error list_from_api(Kind kind, std::string_view namespace_, const StringMap& labels,
                              std::vector<Object>& out) = 0;
  // Writes to the API server; on success `object` holds the server's reply (new rv), and on an
  // error it is left as given (client-go decodes no reply into it).
  virtual Error create(Object& object) = 0;
  virtual Error update(Object& object) = 0;
  virtual Error update_status(Object& object) = 0;
  virtual Error remove(Kind kind, std::string_view namespace_, std::string_view name,
                       Propagation propagation = Propagation::server_default) = 0;

  // Typed conveniences, so that models read like the Go: `client.get(ns, name, rayjob)`.
  template <class T>
  Error get(std::string_view namespace_, std::string_view name, T& out) {
    Error err;
    if (const Object* cached = read(T::kind, namespace_, name, err)) out = std::get<T>(*cached);
    return err;
  }
  template <class T>
  Error get_from_api(std::string_view namespace_, std::string_view name, T& out) {
    Error err;
    if (const Object* stored = read_from_api(T::kind, namespace_, name, err)) out = std::get<T>(*stored);
    return err;
  }
  template <class T>
  Error create(T& typed) { return write_typed(typed, &KubeClient::create); }
  template <class T>
  Error update(T& typed) { return write_typed(typed, &KubeClient::update); }
  template <class T>
  Error update_status(T& typed) { return write_typed(typed, &KubeClient::update_status); }

 private:
  template <class T>
  Error write_typed(T& typed, Error (KubeClient::*write)(Object&)) {
    // Moved, not copied: a failed write leaves the object as given, so it comes back either way.
    Object object = std::move(typed);
    Error err = (this->*write)(object);
    typed = std::get<T>(std::move(object));
    return err;
  }
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual std::int64_t now_ms() = 0;
  // k8s.io/apimachinery utilrand.String(n): n characters from "bcdfghjklmnpqrstvwxz2456789".
  virtual std::string random_string(int length) = 0;
  // The operator's configuration (scenario `world.operator`): os.Getenv(name) of the operator
  // process (nullopt when unset), and features.Enabled(name) with the release's default.
  virtual std::optional<std::string> operator_env(std::string_view /*name*/) { return std::nullopt; }
  virtual bool feature_gate(std::string_view /*name*/, bool default_value) { return default_value; }
};

struct Clients {
  KubeClient& kube;
  Runtime& runtime;
  DashboardApi& dashboard;
};

// The controller-runtime and client-go behaviour of a model's release (kubernetes-semantics §0.1).
struct ReleaseEnvironment {
  QueueBehaviour queue = QueueBehaviour::legacy;
  FifoBehaviour fifo = FifoBehaviour::delta_fifo;
  // controller-runtime >= v0.23: workers start only after every initial-list notification is in
  // the queue, and initial-list adds are low priority. Before, workers start once caches synced.
  bool workers_wait_for_handlers = false;
  // RecoverPanic off (controller-runtime < v0.19): a panic kills the process.
  bool panic_kills_process = true;
  // A crashed leader's lease must expire before the new process starts (§2.7): 15 s.
  std::int64_t leader_election_ms = 15'000;
  // The dashboard HTTP client's timeout: a call that times out holds the worker this long
  // (scenario world.dashboard.timeout overrides it).
  std::int64_t dashboard_timeout_ms = 2'000;
  // The RayCluster controller of the release: which Pods it waits for before State "ready".
  RayClusterReadiness ray_cluster_readiness = RayClusterReadiness::listed_pods_ready;
  // The batch Job controller of the Kubernetes the release runs on: how it counts Pods.
  JobPodTracking job_pod_tracking = JobPodTracking::listed_pods;
  // The first list after a start is a consistent read at the head (client-go's watch-list,
  // kubernetes-semantics §1.7), so a restart cannot go back in time (faults.timeTravel is
  // refused). Older clients list at resourceVersion "0", which a lagging apiserver may serve.
  bool initial_list_is_consistent = false;
};

// For(kind) and Owns(kinds), plus the cache's label selectors (ByObject, §0).
struct Watches {
  Kind for_kind = Kind::RayJob;
  std::vector<Kind> owns;
  std::vector<std::pair<Kind, LabelSelector>> cache_selectors;
};

class Controller {
 public:
  virtual ~Controller() = default;
  virtual std::string_view name() const = 0;
  virtual ReleaseEnvironment environment() const = 0;
  // Built once: a simulation keeps the reference for its lifetime.
  virtual const Watches& watches() const = 0;
  // One pass. It reads the world only through `clients`: a model may keep storage from one pass
  // to the next, but nothing a pass reads before it has written it.
  virtual ReconcileResult reconcile(const Request& request, Clients& clients) = 0;
  // The persisted jobDeploymentStatus edges (from, to) the model declares legal, for the
  // legal-transition invariant; empty when the model declares none.
  virtual std::vector<std::pair<std::string, std::string>> transition_table() const { return {}; }
};

}  // namespace rjsim::engine
