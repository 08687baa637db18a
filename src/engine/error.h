// A Go-style error value for simulated API and HTTP calls: empty means success (Go's nil),
// otherwise a reason code and a message. Models test it the way KubeRay tests `err`:
// `if (err) ...`, `if (is_not_found(err)) ...`. Codes follow Kubernetes' StatusReason
// (kubernetes-semantics §2.2) plus the transport failures the dashboard client sees.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace rjsim::engine {

enum class ErrorCode : std::uint8_t {
  none,
  not_found,        // 404 NotFound
  already_exists,   // 409 AlreadyExists
  conflict,         // 409 Conflict (resourceVersion precondition)
  invalid,          // 422 Invalid
  bad_request,      // 400 BadRequest
  internal_error,   // 500 InternalError (a 5xx)
  timeout,          // the call timed out; it may or may not have been applied
  other,            // anything a model returns of its own (e.g. a validation error)
};

std::string_view to_string(ErrorCode code);
int http_status(ErrorCode code);

// A copy shares the message: models pass errors up by value as Go does, and a message (an
// object's name in it) is longer than a string holds without allocating.
class Error {
 public:
  Error() = default;
  Error(ErrorCode code, std::string message)
      : code_(code), message_(std::make_shared<const std::string>(std::move(message))) {}

  explicit operator bool() const { return code_ != ErrorCode::none; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_ ? *message_ : no_message(); }

  friend bool operator==(const Error& a, const Error& b) {
    return a.code_ == b.code_ && a.message() == b.message();
  }

 private:
  static const std::string& no_message() {
    static const std::string empty;
    return empty;
  }

  ErrorCode code_ = ErrorCode::none;
  std::shared_ptr<const std::string> message_;   // null: no message
};

inline bool is_not_found(const Error& err) { return err.code() == ErrorCode::not_found; }
inline bool is_already_exists(const Error& err) { return err.code() == ErrorCode::already_exists; }
inline bool is_conflict(const Error& err) { return err.code() == ErrorCode::conflict; }
inline bool is_bad_request(const Error& err) { return err.code() == ErrorCode::bad_request; }

}  // namespace rjsim::engine
