// The chooser is the only source of nondeterminism in a run (DESIGN §1): which enabled step runs
// next, how far an informer advances before a cache read, an injected write or HTTP outcome, a
// relist revision after a restart, the random 5-character name suffixes. The engine asks it at
// a named choice point for one of `options` alternatives (always > 1; a single option is no
// choice) and logs every answer as a `choice` input event, so a run can be driven again from its
// decisions alone. Alternative 0 is always the "nothing went wrong" one.
//
// Randomness is SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
// generators", OOPSLA 2014; the generator that seeds xoshiro), reduced to a range without bias by
// Lemire's multiply-and-reject ("Fast random integer generation in an interval", 2019). Both are
// fully specified here, so a seed means the same run on every platform and compiler.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rjsim::engine {

enum class ChoicePoint : std::uint8_t {
  step,            // which enabled step runs next
  cache_advance,   // how many pending pops a cache read applies first
  write_outcome,   // ok | 409 Conflict | 5xx | applied but reported failed
  http_outcome,    // ok | error | timeout (dashboard calls)
  name_suffix,     // the random suffix of a generated name
  relist_point,    // which revision a relist after a restart starts from
};

std::string_view to_string(ChoicePoint point);
bool parse_choice_point(std::string_view text, ChoicePoint& point);

// The kinds of step a `step` choice picks among (simulation.h says what each does).
// (resume last: a stopped pass goes on, DESIGN §1.1; listed right after the deliveries.)
enum class StepKind : std::uint8_t { deliver, notify, actor, timers, reconcile, restart, clock, crash, resume };
std::string_view to_string(StepKind kind);

// One alternative of a `step` choice, so that a strategy can tell steps apart (PCT gives each its
// priority; targeted exploration looks for the crash). `detail`: the informer's Kind for deliver,
// the actor's index for actor, else 0.
struct StepOption {
  StepKind kind = StepKind::clock;
  std::uint8_t detail = 0;
  friend bool operator==(const StepOption&, const StepOption&) = default;
};

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [0, bound); bound > 0.
  std::uint64_t below(std::uint64_t bound);

 private:
  std::uint64_t state_;
};

class Chooser {
 public:
  virtual ~Chooser() = default;
  // One of [0, options); options > 1.
  virtual std::uint64_t choose(ChoicePoint point, std::uint64_t options) = 0;
  // The `step` choice, with what each alternative is (steps.size() > 1). By default a plain
  // choose(step, n): only strategies that tell steps apart override it.
  virtual std::uint64_t choose_step(std::span<const StepOption> steps) {
    return choose(ChoicePoint::step, steps.size());
  }
};

// The fault-free run: always alternative 0 (steps in their fixed order, no fault), except the
// name suffixes, which are drawn from the seed so that names differ between seeds.
class DefaultChooser final : public Chooser {
 public:
  explicit DefaultChooser(std::uint64_t seed) : random_(seed) {}
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override;

 private:
  SplitMix64 random_;
};

// A seeded random walk: every alternative equally likely.
class RandomChooser final : public Chooser {
 public:
  explicit RandomChooser(std::uint64_t seed) : random_(seed) {}
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override;

 private:
  SplitMix64 random_;
};

// One recorded decision.
struct Decision {
  ChoicePoint point = ChoicePoint::step;
  std::uint64_t options = 0;
  std::uint64_t picked = 0;
  friend bool operator==(const Decision&, const Decision&) = default;
};

// Thrown when a replayed run asks for a decision the recording does not have at that position.
class ReplayDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Answers from a recorded list of decisions, in order. A run that asks for a different point or
// option count than recorded at that position has diverged from the recording (a model changed,
// or a shrinker dropped a decision); so has one that asks past its end. Without a `fallback`
// that throws ReplayDiverged; with one, the fallback answers from then on (a prefix of
// decisions, then the fault-free run, say) and diverged()/used() tell where it happened.
class ReplayChooser final : public Chooser {
 public:
  explicit ReplayChooser(std::vector<Decision> decisions, Chooser* fallback = nullptr)
      : decisions_(std::move(decisions)), fallback_(fallback) {}
  std::uint64_t choose(ChoicePoint point, std::uint64_t options) override;
  // Recorded decisions answered before the run diverged or ran past the recording.
  std::size_t used() const { return next_; }
  // Whether the run asked for something other than what was recorded at some position.
  bool diverged() const { return diverged_; }

 private:
  std::vector<Decision> decisions_;
  std::size_t next_ = 0;
  bool diverged_ = false;
  Chooser* fallback_;
};

}  // namespace rjsim::engine
