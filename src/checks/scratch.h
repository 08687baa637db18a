// Scratch<T>: a member holding what one call of its owner works with, cleared before it is read
// (a step's facts, a buffer). A copy of the owner starts with an empty one instead of a copy of
// it: exploration copies the checker into every snapshot and out of it at every continued run,
// and those copies of the last step's scratch were never read (1.2% of an exhaustive search).
// No part of the owner's value: == leaves it out. Moves move it.
#pragma once

#include <utility>

namespace rjsim::checks {

template <class T>
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) {}
  Scratch& operator=(const Scratch&) { return *this; }
  Scratch(Scratch&&) noexcept = default;
  Scratch& operator=(Scratch&&) noexcept = default;
  ~Scratch() = default;

  T& operator*() { return value_; }
  const T& operator*() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

  friend bool operator==(const Scratch&, const Scratch&) { return true; }

 private:
  T value_;
};

}  // namespace rjsim::checks
