#include "engine/objects.h"

#include <algorithm>
#include <array>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace rjsim::engine {

namespace {
constexpr std::array<std::string_view, kKindCount> kKindNames = {"RayJob", "RayCluster", "Service",
                                                                 "Job", "Pod"};
constexpr std::array<std::string_view, kKindCount> kInformerNames = {
    "informer/RayJob", "informer/RayCluster", "informer/Service", "informer/Job", "informer/Pod"};
static_assert([] {
  for (std::size_t i = 0; i < kKindCount; ++i) {
    const std::string_view name = kInformerNames[i];
    if (!name.starts_with("informer/") || name.substr(9) != kKindNames[i]) return false;
  }
  return true;
}(), "each informer's actor name is \"informer/\" and its kind's name");
}  // namespace

std::string_view to_string(Kind kind) { return kKindNames[kind_index(kind)]; }
std::string_view informer_actor(Kind kind) { return kInformerNames[kind_index(kind)]; }

bool parse_kind(std::string_view text, Kind& kind) {
  for (Kind candidate : kAllKinds) {
    if (to_string(candidate) == text) {
      kind = candidate;
      return true;
    }
  }
  return false;
}

const OwnerReference* controller_owner(const ObjectMeta& meta) {
  for (const OwnerReference& owner : *meta.owner_references) {
    if (owner.controller) return &owner;
  }
  return nullptr;
}

bool has_finalizer(const ObjectMeta& meta, std::string_view finalizer) {
  return std::find(meta.finalizers->begin(), meta.finalizers->end(), finalizer) !=
         meta.finalizers->end();
}

const ObjectMeta& meta(const Object& object) {
  return std::visit([](const auto& typed) -> const ObjectMeta& { return typed.metadata; }, object);
}

ObjectMeta& meta(Object& object) {
  return std::visit([](auto& typed) -> ObjectMeta& { return typed.metadata; }, object);
}

bool same_spec(const Object& a, const Object& b) {
  return std::visit(
      [&b](const auto& typed_a) {
        using T = std::decay_t<decltype(typed_a)>;
        return typed_a.spec == std::get<T>(b).spec;
      },
      a);
}

bool shares_spec_value(const Object& a, const Object& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& typed_a) {
        using T = std::decay_t<decltype(typed_a)>;
        return typed_a.spec.shares_value_with(std::get<T>(b).spec);
      },
      a);
}

bool same_but_status(const Object& a, const Object& b) {
  return std::visit(
      [&b](const auto& typed_a) {
        using T = std::decay_t<decltype(typed_a)>;
        const T& typed_b = std::get<T>(b);
        return typed_a.spec == typed_b.spec && typed_a.metadata == typed_b.metadata;
      },
      a);
}

void share_spec(const Object& from, Object& to) {
  std::visit(
      [&from](auto& typed_to) {
        using T = std::decay_t<decltype(typed_to)>;
        typed_to.spec = std::get<T>(from).spec;
      },
      to);
}

void copy_status(const Object& from, Object& to) {
  std::visit(
      [&from](auto& typed_to) {
        using T = std::decay_t<decltype(typed_to)>;
        typed_to.status = std::get<T>(from).status;
      },
      to);
}

std::string key_of(std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  return key;
}

void truncate_status_times_to_seconds(Object& object) {
  auto* rayjob = std::get_if<RayJob>(&object);
  if (!rayjob) return;
  auto truncate = [](std::optional<std::int64_t>& time_ms) {
    if (time_ms && *time_ms >= 0) *time_ms -= *time_ms % 1000;
  };
  RayJobStatus& status = rayjob->status;
  truncate(status.start_time_ms);
  truncate(status.end_time_ms);
  truncate(status.ray_job_start_time_ms);
  truncate(status.ray_job_end_time_ms);
  truncate(status.job_status_check_failure_start_time_ms);
}

std::string key_of(const ObjectMeta& meta) { return key_of(meta.namespace_, meta.name); }

std::string address_of_serial(std::string_view network, std::int64_t serial) {
  return fmt::format(FMT_COMPILE("{}.{}.{}"), network, serial / 256 % 256, serial % 256);
}

std::int64_t uid_serial(std::string_view uid) {
  const std::size_t dash = uid.rfind('-');
  std::int64_t serial = 0;
  for (char c : uid.substr(dash == std::string_view::npos ? 0 : dash + 1)) {
    if (c >= '0' && c <= '9') serial = serial * 10 + (c - '0');
  }
  return serial;
}

bool key_less(const ObjectMeta& meta, std::string_view namespace_, std::string_view name) {
  if (meta.namespace_ != namespace_) return meta.namespace_ < namespace_;
  return meta.name < name;
}

std::string object_ref(Kind kind, const ObjectMeta& meta) { return object_ref(kind, meta.namespace_, meta.name); }

std::string object_ref(Kind kind, std::string_view namespace_, std::string_view name) {
  std::string ref;
  assign_object_ref(ref, kind, namespace_, name);
  return ref;
}

// Written in place instead of fmt::format or five appends: a ref is made for every event about an
// object, and sizing the string once and copying the three parts into it is a third of the cost.
void assign_object_ref(std::string& ref, Kind kind, std::string_view namespace_, std::string_view name) {
  const std::string_view kind_name = to_string(kind);
  ref.resize(kind_name.size() + namespace_.size() + name.size() + 2);   // a reused ref keeps its memory
  char* out = std::copy(kind_name.begin(), kind_name.end(), ref.data());
  *out++ = '/';
  out = std::copy(namespace_.begin(), namespace_.end(), out);
  *out++ = '/';
  std::copy(name.begin(), name.end(), out);
}

std::string object_ref(const Object& object) { return object_ref(kind_of(object), meta(object)); }

bool parse_object_ref(std::string_view ref, ObjectRef& parsed) {
  const auto first = ref.find('/');
  if (first == std::string_view::npos) return false;
  const auto second = ref.find('/', first + 1);
  if (second == std::string_view::npos || !parse_kind(ref.substr(0, first), parsed.kind)) return false;
  parsed.namespace_ = std::string(ref.substr(first + 1, second - first - 1));
  parsed.name = std::string(ref.substr(second + 1));
  return !parsed.namespace_.empty() && !parsed.name.empty();
}

}  // namespace rjsim::engine
