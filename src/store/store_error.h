// The two ways the event log fails. StoreError: the input was wrong (a file that is not an
// rjsim database, a schema_version this build does not read, a missing file, a run id the file
// does not hold, a damaged file SQLite finds corrupt); the message names the file and what was
// found, and the CLI exits 2.
// DatabaseError: SQLite failed on a good file (I/O error, disk full, locked too long); the CLI
// reports it as an internal error (exit 3). Neither leaves a half-written run behind.
#pragma once

#include <stdexcept>
#include <string>

namespace rjsim::store {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rjsim::store
