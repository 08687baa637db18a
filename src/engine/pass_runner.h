// Runs the reconcile passes that may stop between their client calls (DESIGN §1.1), each on a
// stack of its own, so that a stopped pass waits where it stopped and goes on from there.
//
// The world holds a stopped pass as its replies (pass_in_flight.h), and a pass can always go on
// by running the model again from its start, answered from them (pass_clients.h). That re-run is
// what a model pays at every resume: on scenarios that stop at every call a pass was resumed
// about four times and the re-runs were most of the model's work (docs/performance.md). So the
// runner keeps the model itself, suspended inside the call that stopped it, and when the world
// resumes the very pass it stopped -- the same last reply, shared, and as many replies -- the
// model goes on from there. Nothing outside can tell the two apart: given the same replies a
// model makes the same calls (it reads the world only through its clients), and the replies it
// got are the ones the world holds. A pass the runner does not hold (a fork, a restored world,
// the first step of a pass) is run from its start as before, then held.
//
// A held pass that no world resumes any more (the process crashed, the world was replaced, or
// another pass came first) drains: it goes on with every call answered at once, touching nothing,
// to the model's return, and what it returns or raises is discarded. It keeps its own share of
// the replies the model was given, so what the model holds of them outlives the world's pass.
//
// One pass is held at a time (a process has one worker). Fibers are Boost.Context's; the stack is
// the runner's, taken once from a pool of stacks that runners which ended gave back (each with a
// guard page below it) and reused.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "engine/controller.h"
#include "engine/pass_in_flight.h"

namespace rjsim::engine {

class ReconcileContext;

class PassRunner {
 public:
  PassRunner();
  ~PassRunner();   // drains a held pass
  PassRunner(const PassRunner&) = delete;
  PassRunner& operator=(const PassRunner&) = delete;

  // Runs the pass of `request`, whose calls so far are `pass`'s replies, until it stops after a
  // call (nullopt: the pass, its new reply appended to `pass`, waits for a later step) or ends
  // (what the model returned). What the model raised is rethrown here, once its pass has ended.
  // `controller` must outlive the runner.
  std::optional<ReconcileResult> run(Controller& controller, const Request& request, ReconcileContext& live,
                                     PassInFlight& pass, PassTiming timing);

  // False: every resume runs the model again from its start (tests compare the two).
  void set_go_on_where_stopped(bool go_on) { go_on_where_stopped_ = go_on; }

 private:
  struct Held;   // a pass on its fiber (pass_runner.cc)
  // Whether the held pass stopped right after the last of `pass`'s replies.
  bool holds(const PassInFlight& pass) const;
  // Resumes the held pass (`pass` its replies) and returns what run() returns: nothing while it
  // waits, else what it returned, or rethrows what it raised.
  std::optional<ReconcileResult> switch_to_pass(PassInFlight& pass);
  void resume_held();   // switches to the held pass until it waits or ends
  void drain_held();

  bool go_on_where_stopped_ = true;
  std::unique_ptr<Held> held_;
  std::shared_ptr<std::byte> stack_mapping_;   // taken once, its guard page first (pass_runner.cc)
  std::byte* stack_bottom_ = nullptr;          // the stack's lowest address, above the guard page
};

}  // namespace rjsim::engine
