#include "trace/merge.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace rjsim::trace {
namespace {

std::optional<std::int64_t> decimal(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t number = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    number = number * 10 + (c - '0');
  }
  return number;
}

bool succeeded(const Record& record) { return record.code >= 200 && record.code < 300; }

struct Keyed {
  std::int64_t key = 0;
  Record record;
};

}  // namespace

MergedTrace merge_records(Format format, std::vector<std::vector<Record>> files) {
  bool by_time = false;
  bool sortable = true;
  for (const std::vector<Record>& file : files) {
    for (const Record& record : file) {
      if (format == Format::audit && succeeded(record) && record.resource_version.empty()) by_time = true;
      if (!record.resource_version.empty() && !decimal(record.resource_version)) sortable = false;
    }
  }
  if (by_time) sortable = true;   // stageTimestamp is always comparable

  std::vector<Keyed> keyed;
  for (std::vector<Record>& file : files) {
    std::int64_t carried = std::numeric_limits<std::int64_t>::min();
    for (Record& record : file) {
      std::optional<std::int64_t> key = by_time ? record.time_ms : decimal(record.resource_version);
      if (key) carried = *key;
      keyed.push_back(Keyed{carried, std::move(record)});
    }
  }
  if (sortable) {
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  }

  MergedTrace merged;
  std::set<std::pair<std::string, std::string>> states_seen;   // (uid, resourceVersion)
  std::set<std::string> uids_seen;
  std::set<std::string> audit_ids_seen;
  for (Keyed& item : keyed) {
    Record& record = item.record;
    const bool state = format != Format::audit && !record.uid.empty() &&
                       (record.type.empty() || record.type == "ADDED" || record.type == "MODIFIED");
    // An audit event logged twice (overlapping rotated files) has the same auditID.
    const bool repeated = state ? !states_seen.emplace(record.uid, record.resource_version).second
                                : !record.audit_id.empty() && !audit_ids_seen.insert(record.audit_id).second;
    if (repeated) {
      ++merged.duplicates;
      continue;
    }
    const bool inferred = record.type.empty();
    if (inferred) record.type = uids_seen.count(record.uid) != 0 ? "MODIFIED" : "ADDED";
    if (!record.uid.empty()) uids_seen.insert(record.uid);
    merged.type_inferred.push_back(inferred);
    merged.records.push_back(std::move(record));
  }
  return merged;
}

}  // namespace rjsim::trace
