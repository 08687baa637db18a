// Database's read queries over runs, violations and the transitions view.
#include "store/connection.h"
#include "store/database.h"

#include <fmt/format.h>

namespace rjsim::store {
namespace {

constexpr const char* run_columns =
    "SELECT run_id, parent_run, kind, scenario, scenario_text, controller, seed, outcome, steps, "
    "virtual_ms, log_hash, created_at FROM runs";

RunInfo read_run(const detail::Statement& row) {
  RunInfo info;
  info.run_id = row.integer(0);
  info.parent_run = row.optional_integer(1);
  info.kind = row.text(2);
  info.scenario = row.text(3);
  info.scenario_text = row.text(4);
  info.controller = row.text(5);
  info.seed = row.integer(6);
  info.outcome = row.optional_text(7);
  info.steps = row.optional_integer(8);
  info.virtual_ms = row.optional_integer(9);
  info.log_hash = row.optional_text(10);
  info.created_at = row.text(11);
  return info;
}

}  // namespace

std::vector<RunInfo> Database::runs() const {
  detail::Statement statement(*connection_, fmt::format("{} ORDER BY run_id", run_columns));
  std::vector<RunInfo> runs;
  while (statement.step()) runs.push_back(read_run(statement));
  return runs;
}

std::optional<RunInfo> Database::run(std::int64_t run_id) const {
  detail::Statement statement(*connection_, fmt::format("{} WHERE run_id = ?", run_columns));
  statement.bind(1, run_id);
  if (!statement.step()) return std::nullopt;
  return read_run(statement);
}

std::optional<std::int64_t> Database::latest_run_id() const {
  detail::Statement statement(*connection_, "SELECT max(run_id) FROM runs");
  statement.step();
  return statement.optional_integer(0);
}

// Throws StoreError naming the file, the run asked for, and the runs there are.
void Database::require_run(std::int64_t run_id) const {
  detail::Statement statement(*connection_,
                              "SELECT count(*), min(run_id), max(run_id), "
                              "sum(run_id = ?) FROM runs");
  statement.bind(1, run_id);
  statement.step();
  if (statement.integer(3) > 0) return;
  const std::int64_t count = statement.integer(0);
  const std::string runs_there =
      count == 0 ? "it has no runs"
      : count == 1
          ? fmt::format("it has run {}", statement.integer(1))
          : fmt::format("it has {} runs, ids {} to {}", count, statement.integer(1),
                        statement.integer(2));
  throw StoreError(fmt::format("{}: no run {} ({})", path(), run_id, runs_there));
}

std::vector<Violation> Database::violations(std::int64_t run_id) const {
  require_run(run_id);
  detail::Statement statement(*connection_,
                              "SELECT seq, invariant, message FROM violations "
                              "WHERE run_id = ? ORDER BY seq, rowid");
  statement.bind(1, run_id);
  std::vector<Violation> violations;
  while (statement.step()) {
    violations.push_back(Violation{statement.integer(0), std::string(statement.text(1)),
                                   std::string(statement.text(2))});
  }
  return violations;
}

std::vector<Transition> Database::transitions(std::int64_t run_id) const {
  require_run(run_id);
  detail::Statement statement(*connection_,
                              "SELECT seq, at_ms, rayjob, from_deployment, to_deployment, "
                              "from_job_status, to_job_status, reason FROM transitions "
                              "WHERE run_id = ? ORDER BY seq");
  statement.bind(1, run_id);
  std::vector<Transition> transitions;
  while (statement.step()) {
    Transition transition;
    transition.seq = statement.integer(0);
    transition.at_ms = statement.integer(1);
    transition.rayjob = statement.text(2);
    transition.from_deployment = statement.text(3);
    transition.to_deployment = statement.text(4);
    transition.from_job_status = statement.text(5);
    transition.to_job_status = statement.text(6);
    transition.reason = statement.text(7);
    transitions.push_back(std::move(transition));
  }
  return transitions;
}

}  // namespace rjsim::store
