// The event log's schema, version 1 of DESIGN §3, and how a file is recognised as holding it.
// create_schema writes the whole schema and the meta rows in one transaction, into a database
// with no tables. check_rjsim_database only reads (the header bytes, then SQLite read-only) and
// throws StoreError naming the file and what it found unless the file is an rjsim database of
// this schema version; so a file that is not ours is never modified.
#pragma once

#include <string>
#include <string_view>

namespace rjsim::store {

namespace detail {
struct Connection;
}

inline constexpr int kSchemaVersion = 1;

// The CREATE statements of DESIGN §3. The transitions view has one row per status.transition
// event: its `object` is the rayjob, and its body keys from_deployment, to_deployment,
// from_job_status, to_job_status and reason give the other columns (NULL when absent).
std::string_view schema_sql();

// Creates the schema in `connection`'s database if it still has no tables, and returns true;
// returns false, changing nothing, when it already has some (another process created it first).
bool create_schema_if_empty(detail::Connection& connection);

// Throws StoreError unless `path` is a readable SQLite file holding an rjsim database of
// kSchemaVersion. The file must exist and be non-empty.
void check_rjsim_database(const std::string& path);

}  // namespace rjsim::store
