#include "trace/merge.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

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

// Where a record is (files[file][index]) and its sort key: records are sorted as positions, not
// moved about (a Record is hundreds of bytes).
struct Keyed {
  std::int64_t key = 0;
  std::size_t file = 0;
  std::size_t index = 0;
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
  for (std::size_t f = 0; f < files.size(); ++f) {
    std::int64_t carried = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < files[f].size(); ++i) {
      const Record& record = files[f][i];
      std::optional<std::int64_t> key = by_time ? record.time_ms : decimal(record.resource_version);
      if (key) carried = *key;
      keyed.push_back(Keyed{carried, f, i});
    }
  }
  if (sortable) {
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  }

  MergedTrace merged;
  std::unordered_set<std::string> states_seen;   // "<length of uid>:<uid><resourceVersion>"
  std::unordered_set<std::string> uids_seen;
  std::unordered_set<std::string> audit_ids_seen;
  for (const Keyed& item : keyed) {
    Record& record = files[item.file][item.index];
    const bool state = format != Format::audit && !record.uid.empty() &&
                       (record.type.empty() || record.type == "ADDED" || record.type == "MODIFIED");
    // An audit event logged twice (overlapping rotated files) has the same auditID.
    const std::string state_key = state ? fmt::format("{}:{}{}", record.uid.size(), record.uid, record.resource_version)
                                        : std::string();
    const bool repeated = state ? !states_seen.insert(state_key).second
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
