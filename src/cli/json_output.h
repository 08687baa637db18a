// How a subcommand prints its --json result: one line, compact. Text that came from a file or a
// database (an actor, an object's name) may hold bytes that are not UTF-8; they print as U+FFFD
// instead of stopping the command, so a damaged recording still shows.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace rjsim::cli {

template <typename Json>
void print_json_line(std::ostream& out, const Json& value) {
  out << value.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace rjsim::cli
