// A value shared by its copies until one of them is changed: copying it copies a reference, and
// edit() gives the copy a value of its own first when another copy still shares it. An object's
// spec is held this way (objects.h) because most writes change only the status or the metadata:
// each stored version, cache read and model's copy of an object then shares the spec (pod
// templates, runtime env) with the version it came from instead of copying it. It behaves as a
// value: == compares contents, and no change made through edit() is seen by another copy.
// Copies may live on different threads (exploration workers); a value is changed in place only
// when no other copy holds it.
#pragma once

#include <atomic>
#include <memory>

namespace rjsim::engine {

template <class T>
class CopyOnWrite {
 public:
  CopyOnWrite() : value_(default_value()) {}
  CopyOnWrite(T value) : value_(std::make_shared<T>(std::move(value))) {}   // NOLINT: set from a value
  // Copies share; there is no move, so that no copy is ever left empty.
  CopyOnWrite(const CopyOnWrite&) = default;
  CopyOnWrite& operator=(const CopyOnWrite&) = default;

  const T& operator*() const { return *value_; }
  const T* operator->() const { return value_.get(); }
  operator const T&() const { return *value_; }   // NOLINT: reads see the value

  // The value, to change: this copy's own (copied first when it is shared).
  T& edit() {
    if (value_.use_count() == 1) {
      // Pairs with the release of the last other copy's reference count decrement, so that its
      // reads happen before this write.
      std::atomic_thread_fence(std::memory_order_acquire);
    } else {
      value_ = std::make_shared<T>(*value_);
    }
    return *value_;
  }

  // True when both copies hold the same shared value (equal without comparing contents).
  bool shares_value_with(const CopyOnWrite& other) const { return value_ == other.value_; }

  friend bool operator==(const CopyOnWrite& a, const CopyOnWrite& b) {
    return a.value_ == b.value_ || *a.value_ == *b.value_;
  }
  friend bool operator==(const CopyOnWrite& a, const T& b) { return *a.value_ == b; }

 private:
  // One default value per type, shared by every default-made copy (never changed: edit() copies
  // it, since this reference keeps it shared).
  static const std::shared_ptr<T>& default_value() {
    static const std::shared_ptr<T> value = std::make_shared<T>();
    return value;
  }

  std::shared_ptr<T> value_;
};

}  // namespace rjsim::engine
