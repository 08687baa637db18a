// An Event is one fact of a simulated run: a choice the chooser made, a stimulus from outside
// (origin input), or something that followed from them (origin effect). A run is the dense
// sequence of its events; replaying the inputs must reproduce every effect, so an event holds
// only values (no pointers, no wall clock), and its JSON form is canonical: the same event
// always renders to the same bytes. Event types are documented in docs/events.md (DESIGN §3).
#pragma once

#include <cassert>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "events/event_types.h"

namespace rjsim::events {

enum class Origin : std::uint8_t { input, effect };

std::string_view to_string(Origin origin);
// Parses "input" or "effect"; returns false for anything else.
bool parse_origin(std::string_view text, Origin& origin);

// A JSON text kept as rendered (an object or an array), for nested body values.
// It must be compact JSON as nlohmann::json::dump() writes it (nlohmann::json, not
// ordered_json: object keys sorted), so that rendering is canonical and survives a round trip
// through parse_body. It is inserted into the body verbatim.
struct RawJson {
  std::string text;
  friend bool operator==(const RawJson&, const RawJson&) = default;
};

// A body value: null, boolean, integer, string, or nested JSON.
using Value = std::variant<std::monostate, bool, std::int64_t, std::string, RawJson>;

struct Field {
  std::string key;
  Value value;
  friend bool operator==(const Field&, const Field&) = default;
};

struct Event {
  std::int64_t seq = 0;      // dense position in the run, assigned by whoever emits
  std::int64_t at_ms = 0;    // virtual time
  Origin origin = Origin::effect;
  std::string type;          // dotted name, e.g. "api.update"
  std::string actor;         // "controller", "apiserver", "informer/RayJob", ...
  std::string object;        // "Kind/namespace/name", or empty
  std::vector<Field> body;   // rendered as one JSON object, keys in this order

  // Builders, so emitters read as one expression: Event{...}.with("rv", 7).with("outcome", "ok").
  // One overload per kind of argument, so that a bool stays a boolean, a 64-bit integer is not
  // narrowed to int, and a std::string is not ambiguous between Value and std::string_view.
  // Each builds its field in place at the end of the body (no temporary Field or Value).
  Event& with(std::string_view key, Value value);
  Event& with(std::string_view key, const char* value);
  Event& with(std::string_view key, std::string_view value);
  Event& with(std::string_view key, std::string value);
  Event& with(std::string_view key, bool value);
  template <std::integral Integer>
    requires(!std::same_as<Integer, bool>)
  Event& with(std::string_view key, Integer value) {
    if constexpr (std::unsigned_integral<Integer> && sizeof(Integer) >= sizeof(std::int64_t)) {
      assert(value <= static_cast<Integer>(std::numeric_limits<std::int64_t>::max()) &&
             "rjsim bug: an event body integer does not fit in int64");
    }
    add_field(key).value.emplace<std::int64_t>(static_cast<std::int64_t>(value));
    return *this;
  }

  // The field's value, or nullptr when the body has no such key.
  const Value* find(std::string_view key) const;
  // The field's string; "" when the body has no such key or it holds another type.
  const std::string& text(std::string_view key) const;
  // The field's integer; 0 when the body has no such key or it holds another type.
  std::int64_t integer(std::string_view key) const;
  // The text of a nested JSON field (RawJson); nullptr when there is none.
  const std::string* nested_json(std::string_view key) const;

  friend bool operator==(const Event&, const Event&) = default;

 private:
  // A new last field of the body with this key and a null value.
  Field& add_field(std::string_view key);
};

// The body as one compact JSON object, keys in field order. Canonical: parse_body(body_json(e))
// gives back e.body, and rendering that again gives the same bytes. Strings are escaped the
// way nlohmann::json::dump() escapes them (\" \\ \b \f \n \r \t, other control characters as
// \u00xx); UTF-8 passes through, and a byte that is not part of valid UTF-8 is rendered as
// U+FFFD so that the body stays valid JSON (such a string does not round-trip).
std::string body_json(const Event& event);

// Parses a JSON object text into fields (keys in text order; nested objects and arrays become
// RawJson in canonical form; numbers must be integers). Returns false and sets `error` on
// anything else, including a key that appears twice. Canonical form of nested JSON is
// nlohmann::json::dump(): compact, and the keys of nested objects sorted (only the top-level
// keys keep their order), so parse -> render -> parse -> render is byte-stable.
bool parse_body(std::string_view json, std::vector<Field>& fields, std::string& error);

// Equal to body_json of an event with these fields.
std::string fields_json(const std::vector<Field>& fields);

// Appends fields_json(fields) to `out`: the allocation-free form for hot paths (the store
// writer and the log hash reuse one buffer).
void append_fields_json(const std::vector<Field>& fields, std::string& out);

// Appends `text` as a JSON string, escaped as body_json escapes strings (as
// nlohmann::json::dump() does). For valid UTF-8 only: false, and `out` as it was, when `text` is
// not (dump() would need its error handler).
bool append_utf8_json_string(std::string_view text, std::string& out);

// The offset of the first byte of `text` that is not part of well-formed UTF-8 (RFC 3629), or
// nullopt when all of it is. Readers of YAML use it to refuse what yaml-cpp would pass through.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// Appends the canonical line of an event that the log hash covers:
// seq, at_ms, origin, type, actor, object and body, tab-separated, newline-terminated.
void append_canonical_line(const Event& event, std::string& out);

// The hash of a run's log: XXH3-128 over the canonical lines of all its events, in order,
// rendered as 32 lowercase hex digits. Streaming, so a run need not be held in memory.
class LogHasher {
 public:
  LogHasher();
  ~LogHasher();
  LogHasher(const LogHasher&) = delete;
  LogHasher& operator=(const LogHasher&) = delete;

  void add(const Event& event);
  std::string hex() const;

 private:
  void* state_;   // XXH3_state_t, kept opaque so that xxhash.h stays out of this header
  std::string line_;
};

// An EventSink receives the events of a run in order. The engine emits to a sink and knows
// nothing of where events go (SQLite, memory, a hash, nowhere).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(const Event& event) = 0;
  // The types this sink needs, fixed for its lifetime: events of other types may not reach it
  // (they may not even be built). Every type unless a sink says otherwise, since a sink that
  // missed an event it needed would be wrong silently.
  virtual EventTypes reads() const { return EventTypes::all(); }
};

// Drops everything (exploration fast path).
class NullSink final : public EventSink {
 public:
  void emit(const Event&) override {}
  EventTypes reads() const override { return EventTypes::none(); }
};

// Keeps every event in memory (tests, short runs, replay comparison).
class MemorySink final : public EventSink {
 public:
  void emit(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

// Forwards each event to several sinks, in the order given; each gets the events of the types it
// reads.
class TeeSink final : public EventSink {
 public:
  explicit TeeSink(std::vector<EventSink*> sinks) {
    for (EventSink* sink : sinks) {
      sinks_.push_back({sink, sink->reads()});
      reads_.add(sinks_.back().reads);
    }
  }
  void emit(const Event& event) override {
    for (const Reader& reader : sinks_) {
      if (reader.reads.contains(event.type, event.object)) reader.sink->emit(event);
    }
  }
  EventTypes reads() const override { return reads_; }

 private:
  struct Reader {
    EventSink* sink;
    EventTypes reads;
  };
  std::vector<Reader> sinks_;
  EventTypes reads_;
};

}  // namespace rjsim::events
