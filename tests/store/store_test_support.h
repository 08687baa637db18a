// Helpers for the store tests: a scratch directory removed at the end, whole-file reads (to
// show a file was left untouched), direct SQLite access (to look at the file as users of
// `sqlite3` would), and a small run to write.
#pragma once

#include "events/event.h"
#include "store/database.h"
#include "test_files.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace rjsim::store::testing {

class ScratchDirectory {
 public:
  ScratchDirectory() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("rjsim-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // The names in the directory, sorted: shows whether SQLite left -wal/-journal files.
  std::vector<std::string> names() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

using rjsim::testing::read_bytes;
using rjsim::testing::write_bytes;

// A raw SQLite connection, for setting up foreign files and inspecting ours.
class RawSqlite {
 public:
  explicit RawSqlite(const std::string& path) {
    if (sqlite3_open(path.c_str(), &handle_) != SQLITE_OK) {
      throw std::runtime_error("test: cannot open " + path);
    }
  }
  ~RawSqlite() { sqlite3_close(handle_); }
  RawSqlite(const RawSqlite&) = delete;
  RawSqlite& operator=(const RawSqlite&) = delete;

  void execute(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(handle_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error ? error : "?";
      sqlite3_free(error);
      throw std::runtime_error("test: " + sql + ": " + message);
    }
  }
  // Every row, each as its columns joined by '|' (NULL as "NULL").
  std::vector<std::string> rows(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      throw std::runtime_error("test: " + sql + ": " + sqlite3_errmsg(handle_));
    }
    std::vector<std::string> rows;
    while (sqlite3_step(statement) == SQLITE_ROW) {
      std::string row;
      for (int column = 0; column < sqlite3_column_count(statement); ++column) {
        if (column > 0) row += '|';
        const auto* text = sqlite3_column_text(statement, column);
        row += text ? reinterpret_cast<const char*>(text) : "NULL";
      }
      rows.push_back(row);
    }
    sqlite3_finalize(statement);
    return rows;
  }

 private:
  sqlite3* handle_ = nullptr;
};

inline RunHeader header(std::string scenario = "suspend-while-initializing") {
  RunHeader header;
  header.kind = "run";
  header.scenario = std::move(scenario);
  header.scenario_text = "apiVersion: rjsim/v1\nkind: Scenario\nname: x\n";
  header.controller = "kuberay-1.1";
  header.seed = 1;
  return header;
}

inline events::Event event(std::int64_t seq, std::string type = "queue.add") {
  events::Event event;
  event.seq = seq;
  event.at_ms = seq * 10;
  event.type = std::move(type);
  event.actor = "workqueue";
  event.object = "RayJob/default/demo";
  event.with("key", "default/demo").with("n", seq);
  return event;
}

inline std::int64_t write_run(Database& database, int event_count,
                              RunHeader run_header = header()) {
  RunWriter writer = database.begin_run(run_header);
  for (int seq = 0; seq < event_count; ++seq) writer.emit(event(seq));
  return writer.commit(RunSummary{"pass", event_count, event_count * 10, "00"});
}

}  // namespace rjsim::store::testing
