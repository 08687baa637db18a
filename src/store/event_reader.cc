#include "store/event_reader.h"

#include "store/connection.h"
#include "store/store_error.h"

#include <fmt/format.h>

#include <utility>

namespace rjsim::store {

struct EventReader::State {
  State(std::shared_ptr<detail::Connection> connection_in, std::int64_t run_id_in)
      : connection(std::move(connection_in)),
        run_id(run_id_in),
        select(*connection,
               "SELECT seq, at_ms, origin, type, actor, object, body FROM events "
               "WHERE run_id = ? ORDER BY seq") {
    select.bind(1, run_id);
  }

  [[noreturn]] void bad_row(std::int64_t seq, std::string_view what) const {
    throw StoreError(fmt::format("{}: run {}, event seq {}: {}", connection->path, run_id, seq,
                                 what));
  }

  std::shared_ptr<detail::Connection> connection;
  std::int64_t run_id;
  detail::Statement select;
  std::string parse_error;
  bool done = false;
};

EventReader::EventReader(std::shared_ptr<detail::Connection> connection, std::int64_t run_id)
    : state_(std::make_unique<State>(std::move(connection), run_id)) {}

EventReader::EventReader(EventReader&&) noexcept = default;
EventReader& EventReader::operator=(EventReader&&) noexcept = default;
EventReader::~EventReader() = default;

bool EventReader::next(events::Event& event) {
  State& state = *state_;
  if (state.done) return false;
  detail::Statement& row = state.select;
  if (!row.step()) {
    state.done = true;   // stepping a finished statement again would restart it
    return false;
  }
  event.seq = row.integer(0);
  event.at_ms = row.integer(1);
  const std::string_view origin = row.text(2);
  if (!events::parse_origin(origin, event.origin)) {
    state.bad_row(event.seq, fmt::format("origin '{}' is neither input nor effect", origin));
  }
  event.type.assign(row.text(3));
  event.actor.assign(row.text(4));
  event.object.assign(row.text(5));   // NULL (no object) reads as ""
  if (!events::parse_body(row.text(6), event.body, state.parse_error)) {
    state.bad_row(event.seq, fmt::format("body is not a valid event body: {}", state.parse_error));
  }
  return true;
}

}  // namespace rjsim::store
