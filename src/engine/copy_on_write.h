// A value shared by its copies until one of them is changed: copying it copies a reference, and
// edit() gives the copy a value of its own first when another copy still shares it. An object's
// spec is held this way (objects.h) because most writes change only the status or the metadata:
// each stored version, cache read and model's copy of an object then shares the spec (pod
// templates, runtime env) with the version it came from instead of copying it. Its labels,
// annotations, ownerReferences and finalizers are held this way too: almost no write changes
// them, and copying them was most of the cost of the models' object copies. It behaves as a
// value: == compares contents, and no change made through edit() is seen by another copy.
// Copies may live on different threads (exploration workers); a value is changed in place only
// when no other copy holds it. So a holder of a copy (a snapshot, a fingerprint memo) may trust
// that the value it shares stays as it is, and tell it apart from any other by shares_value_with.
// A T without a default value (an Informer) has no default-made copy to read: such a copy must
// be given a value before it is read or edited.
// A reader that only asks whether a value changed since it last looked keeps its serial(), not a
// copy: a kept copy shares the value, and the next edit() then copies the whole of it (with 20 Ray
// heads, copying and freeing the Ray state was 4% of a step while three readers kept copies).
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace rjsim::engine {

namespace copy_on_write_detail {

// A number no other call in the process returns: each thread takes blocks of numbers from one
// counter, so that threads do not contend for it at every edit.
inline std::uint64_t next_serial() {
  constexpr std::uint64_t kBlock = 1U << 16;
  static std::atomic<std::uint64_t> blocks_taken{0};
  thread_local std::uint64_t next = 0;
  thread_local std::uint64_t end = 0;
  if (next == end) {
    next = blocks_taken.fetch_add(1, std::memory_order_relaxed) * kBlock + 1;   // 0 names the default value
    end = next + kBlock - 1;
  }
  return next++;
}

}  // namespace copy_on_write_detail

template <class T>
class CopyOnWrite {
 public:
  CopyOnWrite() = default;   // the default value, held by no one (no allocation, no count)
  CopyOnWrite(T value) : value_(std::make_shared<Shared>(std::move(value))) {}   // NOLINT: set from a value
  // Made in place from `args` (a T moved in is moved once, not three times).
  template <class... Args>
  explicit CopyOnWrite(std::in_place_t, Args&&... args)
      : value_(std::make_shared<Shared>(std::in_place, std::forward<Args>(args)...)) {}
  // Copies share the value; a moved-from copy reads the default value.
  CopyOnWrite(const CopyOnWrite&) = default;
  CopyOnWrite& operator=(const CopyOnWrite&) = default;
  CopyOnWrite(CopyOnWrite&&) noexcept = default;
  CopyOnWrite& operator=(CopyOnWrite&&) noexcept = default;

  const T& operator*() const {
    if constexpr (std::is_default_constructible_v<T>) {
      return value_ ? value_->value : default_value();
    } else {
      assert(value_ && "rjsim bug: a read of a copy that was never given a value");
      return value_->value;
    }
  }
  const T* operator->() const { return &**this; }
  operator const T&() const { return **this; }   // NOLINT: reads see the value

  // The value, to change: this copy's own (copied first when it is shared).
  T& edit() {
    if (!value_) {
      if constexpr (std::is_default_constructible_v<T>) {
        value_ = std::make_shared<Shared>(T{});
      } else {
        assert(false && "rjsim bug: an edit of a copy that was never given a value");
      }
    } else if (value_.use_count() == 1) {
      // Pairs with the release of the last other copy's reference count decrement, so that its
      // reads happen before this write.
      std::atomic_thread_fence(std::memory_order_acquire);
      value_->serial = copy_on_write_detail::next_serial();   // changed in place: another value
    } else {
      value_ = std::make_shared<Shared>(value_->value);
    }
    return value_->value;
  }

  // True when both copies hold the same value (equal without comparing contents).
  bool shares_value_with(const CopyOnWrite& other) const { return value_ == other.value_; }
  // What this copy's value is now, as a number: copies that share a value show the same serial,
  // and edit() gives the value a new one, whether it copies it or changes it in place. Never
  // reused in the process; 0 for the default value (a copy given none, or a moved-from one).
  std::uint64_t serial() const { return value_ ? value_->serial : 0; }

  friend bool operator==(const CopyOnWrite& a, const CopyOnWrite& b) {
    return a.shares_value_with(b) || *a == *b;
  }
  friend bool operator==(const CopyOnWrite& a, const T& b) { return *a == b; }

 private:
  // What a default-made copy reads: one value per type, never changed (edit() makes a value of
  // the copy's own). Not reference-counted, so that default-made objects on many threads do not
  // contend for one counter.
  static const T& default_value() {
    static const T value{};
    return value;
  }

  struct Shared {
    explicit Shared(T v) : value(std::move(v)) {}
    template <class... Args>
    explicit Shared(std::in_place_t, Args&&... args) : value(std::forward<Args>(args)...) {}
    T value;
    std::uint64_t serial = copy_on_write_detail::next_serial();
  };
  std::shared_ptr<Shared> value_;   // null: the default value
};

}  // namespace rjsim::engine
