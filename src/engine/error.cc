#include "engine/error.h"

namespace rjsim::engine {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::none: return "ok";
    case ErrorCode::not_found: return "NotFound";
    case ErrorCode::already_exists: return "AlreadyExists";
    case ErrorCode::conflict: return "Conflict";
    case ErrorCode::invalid: return "Invalid";
    case ErrorCode::bad_request: return "BadRequest";
    case ErrorCode::internal_error: return "InternalError";
    case ErrorCode::timeout: return "Timeout";
    case ErrorCode::other: return "Error";
  }
  return "Error";
}

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::none: return 200;
    case ErrorCode::not_found: return 404;
    case ErrorCode::already_exists: return 409;
    case ErrorCode::conflict: return 409;
    case ErrorCode::invalid: return 422;
    case ErrorCode::bad_request: return 400;
    case ErrorCode::internal_error: return 500;
    case ErrorCode::timeout: return 504;
    case ErrorCode::other: return 500;
  }
  return 500;
}

}  // namespace rjsim::engine
