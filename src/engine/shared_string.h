// An immutable string shared by its copies: copying one copies a reference, where a std::string
// longer than its inline buffer (15 characters) allocates and copies its text. The work queue
// keeps its keys ("namespace/name", longer than that) this way: a key moves between the queue's
// sets and the pass in flight at every reconcile, and each copy of a std::string key was an
// allocation. It behaves as a value: == and <=> compare the text, and nothing changes a text
// once made, so copies may live on different threads. A text carries its hash, taken once, so
// that two keys that differ are told apart without comparing their texts (the priority queue
// looks a key up among its ready entries at every add).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace rjsim::engine {

class SharedString {
 public:
  SharedString() = default;   // "", held by no one
  explicit SharedString(std::string text)
      : text_(text.empty() ? nullptr : std::make_shared<const Text>(std::move(text))) {}

  const std::string& str() const { return text_ ? text_->text : empty_text(); }
  // The text's hash, hash_of(str()): taken once, when the text was made.
  std::uint64_t hash() const { return text_ ? text_->hash : hash_of({}); }
  static std::uint64_t hash_of(std::string_view text) { return std::hash<std::string_view>{}(text); }
  operator const std::string&() const { return str(); }   // NOLINT: reads see a string
  bool empty() const { return !text_; }

  friend bool operator==(const SharedString& a, const SharedString& b) {
    if (a.text_ == b.text_) return true;
    if (a.text_ && b.text_ && a.text_->hash != b.text_->hash) return false;
    return a.str() == b.str();
  }
  friend std::strong_ordering operator<=>(const SharedString& a, const SharedString& b) {
    return a.str() <=> b.str();
  }
  friend bool operator==(const SharedString& a, std::string_view b) { return a.str() == b; }
  friend std::strong_ordering operator<=>(const SharedString& a, std::string_view b) {
    return std::string_view(a.str()) <=> b;
  }

 private:
  static const std::string& empty_text() {
    static const std::string empty;
    return empty;
  }

  struct Text {
    explicit Text(std::string text_) : text(std::move(text_)), hash(hash_of(text)) {}
    std::string text;
    std::uint64_t hash;   // for == and lookups only: never printed, never ordered by
  };
  std::shared_ptr<const Text> text_;   // null: ""
};

}  // namespace rjsim::engine
