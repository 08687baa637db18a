#include "engine/reconcile_context.h"

#include <array>
#include <cassert>
#include <optional>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "engine/controller_process.h"

namespace rjsim::engine {

namespace {

// A decision's few options, without a heap allocation per write or call.
template <class T, std::size_t Capacity>
class Options {
 public:
  void add(T option) {
    assert(size_ < Capacity && "rjsim bug: more options than Options holds");
    options_[size_++] = option;
  }
  std::size_t size() const { return size_; }
  T operator[](std::uint64_t index) const { return options_[index]; }

 private:
  std::array<T, Capacity> options_{};
  std::size_t size_ = 0;
};

// k8s.io/apimachinery/pkg/util/rand: consonants and digits that cannot spell words.
constexpr std::string_view kSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

bool labels_include(const StringMap& labels, const StringMap& wanted) {
  for (const auto& [key, value] : wanted) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}
}  // namespace

// Whether the informer's oldest unapplied event was written world.latency.watch or longer ago, so
// that it must be in the cache before a read (a catching-up informer's events predate the relist).
bool ReconcileContext::overdue(const Informer& informer, const std::vector<WatchEvent>& log,
                               std::int64_t now_ms) const {
  const std::optional<std::int64_t> due = informer.deliveries_due_by(log, faults_.watch_latency_max_ms);
  return due && now_ms >= *due;
}

void ReconcileContext::advance_before_read(Kind kind) {
  World& world = context_.world();
  receive_watch_events(world, kind);
  const Informer* informer = world.informer(kind);
  // Lag within faults.staleReads, plus, after a rewound relist, what the dead process had seen.
  const std::size_t bound =
      static_cast<std::size_t>(faults_.max_lag) + informer->pending_catch_up_events(world.api.watch_log(kind));
  while (informer->pending_events() > bound || overdue(*informer, world.api.watch_log(kind), world.now_ms)) {
    deliver_one(context_, watches_, kind);
    informer = world.informer(kind);   // the delivery may have given the world a copy of its own
  }
  const std::size_t optional_pops = informer->pending_pops(world.api.watch_log(kind));
  // Alternative 0 is the fresh read (every pending pop applied, as when nothing went wrong);
  // alternative k leaves the last k pops unapplied, so a bigger pick is a staler read.
  const std::uint64_t held = context_.decide(ChoicePoint::cache_advance, optional_pops + 1, to_string(kind));
  for (std::uint64_t i = held; i < optional_pops; ++i) deliver_one(context_, watches_, kind);
}

const ObjectVersion* ReconcileContext::read_version(Kind kind, std::string_view namespace_, std::string_view name,
                                                   Error& error) {
  advance_before_read(kind);
  const World& world = context_.world();
  const Informer& informer = *world.informer(kind);
  const ObjectVersion* cached = informer.get_version(namespace_, name);
  EventBuilder event = context_.effect("cache.read", "controller");
  if (event.kept()) {   // the ref and the API server lookup only for a reader
    const Object* truth = world.api.find(kind, namespace_, name);
    event.object(object_ref(kind, namespace_, name))
        .with("found", cached != nullptr)
        .with("rv_seen", cached ? meta(**cached).resource_version : std::int64_t{0})
        .with("rv_latest", truth ? meta(*truth).resource_version : std::int64_t{0})
        .with("lag", static_cast<std::int64_t>(informer.pending_events()));
  }
  if (!cached) error = Error(ErrorCode::not_found, fmt::format(FMT_COMPILE("{}s \"{}\" not found"), to_string(kind), name));
  return cached;
}

const ObjectVersion* ReconcileContext::read_version_from_api(Kind kind, std::string_view namespace_,
                                                            std::string_view name, Error& error) {
  const ObjectVersion* stored = context_.world().api.find_version(kind, namespace_, name);
  context_.effect("api.get", "controller")
      .object(object_ref(kind, namespace_, name))
      .with("found", stored != nullptr)
      .with("rv", stored ? meta(**stored).resource_version : std::int64_t{0});
  if (!stored) error = Error(ErrorCode::not_found, fmt::format(FMT_COMPILE("{}s \"{}\" not found"), to_string(kind), name));
  return stored;
}

ObjectVersion ReconcileContext::version_of(const Object& object) const {
  const ApiServer& api = context_.world().api;
  const ObjectMeta& m = meta(object);
  const ObjectVersion* stored = api.find_version(kind_of(object), m.namespace_, m.name);
  if (stored && **stored == object) return *stored;
  return ObjectVersion(object, api.takes_digests());
}

Error ReconcileContext::list(Kind kind, std::string_view namespace_, const StringMap& labels,
                             std::vector<Object>& out) {
  std::vector<ObjectVersion> versions;
  Error error = list_versions(kind, namespace_, labels, versions);
  out.assign(versions.begin(), versions.end());
  return error;
}

Error ReconcileContext::list_versions(Kind kind, std::string_view namespace_, const StringMap& labels,
                                      std::vector<ObjectVersion>& out) {
  advance_before_read(kind);
  out.clear();
  const Informer& informer = *context_.world().informer(kind);
  for (const ObjectVersion& version : informer.cached()) {
    const ObjectMeta& m = meta(*version);
    if (m.namespace_ == namespace_ && labels_include(m.labels, labels)) out.push_back(version);
  }
  context_.effect("cache.list", "controller")
      .object(fmt::format("{}/{}", to_string(kind), namespace_))
      .with("found", static_cast<std::int64_t>(out.size()))
      .with("lag", static_cast<std::int64_t>(informer.pending_events()));
  return {};
}

Error ReconcileContext::list_from_api(Kind kind, std::string_view namespace_, const StringMap& labels,
                                      std::vector<Object>& out) {
  std::vector<ObjectVersion> versions;
  Error error = list_versions_from_api(kind, namespace_, labels, versions);
  out.assign(versions.begin(), versions.end());
  return error;
}

Error ReconcileContext::list_versions_from_api(Kind kind, std::string_view namespace_, const StringMap& labels,
                                               std::vector<ObjectVersion>& out) {
  out.clear();
  for (const ObjectVersion& version : context_.world().api.objects(kind)) {
    const ObjectMeta& m = meta(*version);
    if (m.namespace_ == namespace_ && labels_include(m.labels, labels)) out.push_back(version);
  }
  context_.effect("api.list", "controller")
      .object(fmt::format("{}/{}", to_string(kind), namespace_))
      .with("found", static_cast<std::int64_t>(out.size()));
  return {};
}

ReconcileContext::WriteFault ReconcileContext::choose_write_fault(bool conflict_possible,
                                                                   std::string_view verb, Kind kind,
                                                                   const ObjectMeta& request) {
  Options<WriteFault, 4> options;
  options.add(WriteFault::none);
  const FaultsUsed& used = context_.world().faults_used;
  if (conflict_possible && used.conflicts < faults_.conflicts) options.add(WriteFault::conflict);
  if (used.write_failures < faults_.write_failures) {
    options.add(WriteFault::server_error);
    options.add(WriteFault::applied_then_timeout);
  }
  if (options.size() == 1) return WriteFault::none;   // no decision: nothing to describe
  std::string about;   // only for a logged decision
  if (context_.builds("choice")) about = std::string(verb).append(" ").append(object_ref(kind, request));
  return options[context_.decide(ChoicePoint::write_outcome, options.size(), about)];
}

Error ReconcileContext::write(std::string_view verb, Kind kind, const ObjectMeta& request,
                              bool conflict_possible, Object* object,
                              const std::function<WriteOutcome()>& write) {
  const WriteFault fault = choose_write_fault(conflict_possible, verb, kind, request);
  FaultsUsed& used = context_.world().faults_used;
  switch (fault) {
    case WriteFault::none:
      return write().error;
    case WriteFault::conflict: {
      ++used.conflicts;
      Error err(ErrorCode::conflict,
                fmt::format("Operation cannot be fulfilled on {} \"{}\": the object has been "
                            "modified; please apply your changes to the latest version and try again",
                            to_string(kind), request.name));
      api_.log_refused(verb, kind, request, err, "conflict");
      return err;
    }
    case WriteFault::server_error: {
      ++used.write_failures;
      Error err(ErrorCode::internal_error, "Internal error occurred: etcdserver: request timed out");
      api_.log_refused(verb, kind, request, err, "server_error");
      return err;
    }
    case WriteFault::applied_then_timeout: {
      ++used.write_failures;
      std::optional<Object> sent;
      if (object) sent = *object;
      write();
      if (sent) *object = std::move(*sent);   // no reply reached the caller
      context_.effect("api.reply_lost", "controller", object_ref(kind, request)).with("verb", verb);
      return Error(ErrorCode::timeout, "the server was unable to return a response in the time "
                                       "allotted, but may still be processing the request");
    }
  }
  return {};
}

// The request's metadata is read before the write, or after it only for its kind, namespace and
// name, which a write keeps: no copy of it is needed.
Error ReconcileContext::create(Object& object) {
  return write("create", kind_of(object), meta(object), false, &object, [&] { return api_.create(object); });
}

Error ReconcileContext::update(Object& object) {
  return write("update", kind_of(object), meta(object), true, &object, [&] { return api_.update(object); });
}

Error ReconcileContext::update_status(Object& object) {
  return write("update_status", kind_of(object), meta(object), true, &object,
               [&] { return api_.update_status(object); });
}

Error ReconcileContext::remove(Kind kind, std::string_view namespace_, std::string_view name,
                               Propagation propagation) {
  ObjectMeta request;
  request.namespace_ = std::string(namespace_);
  request.name = std::string(name);
  if (const Object* truth = context_.world().api.find(kind, namespace_, name)) request = meta(*truth);
  return write("delete", kind, request, false, nullptr,
               [&] { return api_.remove(kind, namespace_, name, propagation); });
}

DashboardResponse ReconcileContext::http(std::string_view verb, std::string_view dashboard_url,
                                         bool changes_ray,
                                         const std::function<DashboardResponse()>& call) {
  enum class HttpFault : std::uint8_t { none, server_error, timeout, applied_then_timeout };
  Options<HttpFault, 4> options;
  options.add(HttpFault::none);
  if (context_.world().faults_used.http_errors < faults_.http_errors) {
    options.add(HttpFault::server_error);
    options.add(HttpFault::timeout);
    if (changes_ray) options.add(HttpFault::applied_then_timeout);
  }
  HttpFault fault = HttpFault::none;
  if (options.size() > 1) {
    std::string about;   // only for a logged decision
    if (context_.builds("choice")) about = std::string(verb).append(" ").append(dashboard_url);
    fault = options[context_.decide(ChoicePoint::http_outcome, options.size(), about)];
  }
  if (fault == HttpFault::none) {
    if (dashboard_) return call();
    DashboardResponse refused;
    refused.connected = false;
    refused.text = fmt::format("dial tcp {}: connect: connection refused", dashboard_url);
    return refused;
  }
  ++context_.world().faults_used.http_errors;
  DashboardResponse response;
  switch (fault) {
    case HttpFault::server_error:
      response.status = 500;
      response.json = false;
      response.text = "Internal Server Error";
      break;
    case HttpFault::applied_then_timeout:
      if (dashboard_) call();
      [[fallthrough]];
    case HttpFault::timeout:
      response.connected = false;
      response.timed_out = true;
      blocked_ms_ += http_timeout_ms_;
      response.text = fmt::format("Get \"http://{}\": context deadline exceeded (Client.Timeout "
                                  "exceeded while awaiting headers)", dashboard_url);
      break;
    case HttpFault::none:
      break;
  }
  context_.effect("dashboard.fault", "controller")
      .with("verb", verb)
      .with("url", dashboard_url)
      .with("injected", fault == HttpFault::server_error ? "server_error"
                        : fault == HttpFault::timeout    ? "timeout"
                                                         : "applied_then_timeout");
  return response;
}

DashboardResponse ReconcileContext::get_job_info(std::string_view dashboard_url,
                                                 std::string_view job_id) {
  return http("get_job_info", dashboard_url, false, [&] {
    return dashboard_->get_job_info(context_, DashboardCaller::controller, dashboard_url, job_id);
  });
}

DashboardResponse ReconcileContext::submit_job(std::string_view dashboard_url,
                                               const SubmitJobRequest& request) {
  return http("submit_job", dashboard_url, true, [&] {
    return dashboard_->submit_job(context_, DashboardCaller::controller, dashboard_url, request);
  });
}

DashboardResponse ReconcileContext::stop_job(std::string_view dashboard_url, std::string_view job_id) {
  return http("stop_job", dashboard_url, true, [&] {
    return dashboard_->stop_job(context_, DashboardCaller::controller, dashboard_url, job_id);
  });
}

DashboardResponse ReconcileContext::delete_job(std::string_view dashboard_url,
                                               std::string_view job_id) {
  return http("delete_job", dashboard_url, true, [&] {
    return dashboard_->delete_job(context_, DashboardCaller::controller, dashboard_url, job_id);
  });
}

std::string ReconcileContext::random_string(int length) {
  std::uint64_t options = 1;
  for (int i = 0; i < length; ++i) options *= kSuffixAlphabet.size();
  std::uint64_t value = context_.decide(ChoicePoint::name_suffix, options, "name suffix");
  std::string suffix(static_cast<std::size_t>(length), ' ');
  for (int i = length - 1; i >= 0; --i) {
    suffix[static_cast<std::size_t>(i)] = kSuffixAlphabet[value % kSuffixAlphabet.size()];
    value /= kSuffixAlphabet.size();
  }
  return suffix;
}

std::optional<std::string> ReconcileContext::operator_env(std::string_view name) {
  if (!operator_settings_ || operator_settings_->env.empty()) return std::nullopt;   // most scenarios set none
  auto it = operator_settings_->env.find(std::string(name));
  if (it == operator_settings_->env.end()) return std::nullopt;
  return it->second;
}

bool ReconcileContext::feature_gate(std::string_view name, bool default_value) {
  if (!operator_settings_ || operator_settings_->feature_gates.empty()) return default_value;   // most set none
  auto it = operator_settings_->feature_gates.find(std::string(name));
  return it == operator_settings_->feature_gates.end() ? default_value : it->second;
}

}  // namespace rjsim::engine
