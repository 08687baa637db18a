#include "engine/pass_runner.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cassert>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>

#include "engine/pass_clients.h"
#include "engine/reconcile_context.h"

// AddressSanitizer, when on: it must be told of every switch of stacks (its fiber API).
#if defined(__SANITIZE_ADDRESS__)
#define RJSIM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RJSIM_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(RJSIM_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace rjsim::engine {

namespace {

namespace context = boost::context;

// The models' passes are shallow (a reconcile, its helpers, a few objects on the stack); a
// sanitizer's frames are several times larger. Pages are touched only as the stack grows.
#if defined(RJSIM_ADDRESS_SANITIZER)
constexpr std::size_t kStackBytes = std::size_t{8} << 20;
#else
constexpr std::size_t kStackBytes = std::size_t{1} << 20;
#endif

std::size_t page_bytes() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

// One mapping: a guard page (no access: an overflow faults instead of writing over the heap),
// then the stack, which grows down from its end. Returns the mapping's base (the guard page).
std::byte* map_stack() {
  const std::size_t guard = page_bytes();
  void* mapped = ::mmap(nullptr, guard + kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  if (::mprotect(mapped, guard, PROT_NONE) != 0) {   // no guard page: refuse rather than run without
    ::munmap(mapped, guard + kStackBytes);
    throw std::bad_alloc();
  }
  return static_cast<std::byte*>(mapped);
}

// The mappings of runners that ended, for the next runner to take. Exploration makes a
// Simulation, and so a runner, for every run continued from a snapshot: a fresh mapping each
// time (mmap, a page fault at the first touch of each stack page, munmap's TLB flush, alone
// 5.6%) was most of the tenth an exhaustive search of all-faults-1-1 spent in the kernel. A
// stack's contents mean nothing between passes, so any runner may take any. Never destroyed: a
// runner may end during static destruction, and the kernel takes the mappings back at exit.
class StackPool {
 public:
  static StackPool& instance() {
    static StackPool* const pool = new StackPool;
    return *pool;
  }
  std::byte* take() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::byte* base = free_.back();
        free_.pop_back();
        return base;
      }
    }
    return map_stack();
  }
  void give_back(std::byte* base) {
#if defined(RJSIM_ADDRESS_SANITIZER)
    // The frames of the last pass left their redzones behind; the next pass's frames are its own.
    ASAN_UNPOISON_MEMORY_REGION(base + page_bytes(), kStackBytes);
#endif
    const std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() < kKept) {
      free_.push_back(base);
      return;
    }
    ::munmap(base, page_bytes() + kStackBytes);
  }

 private:
  static constexpr std::size_t kKept = 64;   // more than the threads that run Simulations at once
  std::mutex mutex_;
  std::vector<std::byte*> free_;
};

std::shared_ptr<std::byte> pooled_stack() {
  return std::shared_ptr<std::byte>(StackPool::instance().take(),
                                    [](std::byte* base) { StackPool::instance().give_back(base); });
}

// A Boost.Context stack allocator handing out the runner's one stack: a runner starts a fiber
// only once the one before it has ended.
class ReusedStack {
 public:
  explicit ReusedStack(std::byte* bottom) : bottom_(bottom) {}
  context::stack_context allocate() {
    context::stack_context stack;
    stack.size = kStackBytes;
    stack.sp = bottom_ + kStackBytes;   // the end: stacks grow down
    return stack;
  }
  void deallocate(context::stack_context&) noexcept {}

 private:
  std::byte* bottom_;
};

}  // namespace

struct PassRunner::Held {
  // Tells AddressSanitizer, when it is on, of each switch between the runner's stack and a pass's:
  // where to before it, and that it happened after it. Without the word it takes the other stack
  // for an overflow of this one. Boost.Context would do it with ucontext, which Debian's library
  // was not built with.
  class StackSwitches {
   public:
#if defined(RJSIM_ADDRESS_SANITIZER)
    // On the runner's stack.
    void to_pass(const std::byte* stack_bottom) {
      __sanitizer_start_switch_fiber(&runner_fake_, stack_bottom, kStackBytes);
    }
    void back_in_runner() { __sanitizer_finish_switch_fiber(runner_fake_, nullptr, nullptr); }
    // On the pass's stack: having arrived (from the runner), and leaving (for good when it ends).
    void in_pass() { __sanitizer_finish_switch_fiber(pass_fake_, &runner_bottom_, &runner_size_); }
    void to_runner(bool pass_ends) {
      __sanitizer_start_switch_fiber(pass_ends ? nullptr : &pass_fake_, runner_bottom_, runner_size_);
    }

   private:
    void* runner_fake_ = nullptr;
    void* pass_fake_ = nullptr;
    const void* runner_bottom_ = nullptr;
    std::size_t runner_size_ = 0;
#else
    void to_pass(const std::byte*) {}
    void back_in_runner() {}
    void in_pass() {}
    void to_runner(bool) {}
#endif
  };

  Held(const Request& request, ReconcileContext& live, PassInFlight& pass, PassTiming timing)
      : request(request), clients(live, pass, timing, [this] { wait(); }) {}

  // Called inside the call that stopped the pass: back to the runner until it goes on or drains.
  void wait() {
    waiting = true;
    switches.to_runner(false);
    runner = std::move(runner).resume();
    switches.in_pass();
  }

  Request request;
  PassClients clients;
  StackSwitches switches;
  context::fiber pass;     // the pass, as the runner switches to it; empty once it ended
  context::fiber runner;   // the runner, as the pass switches back to it
  bool waiting = false;    // the pass stopped after a call and waits in it
  // The replies the model was given, shared: what it holds of them outlives the world's pass.
  std::vector<CopyOnWrite<CallReply>> replies;
  std::optional<ReconcileResult> result;
  std::exception_ptr raised;
};

PassRunner::PassRunner() = default;

PassRunner::~PassRunner() { drain_held(); }

std::optional<ReconcileResult> PassRunner::run(Controller& controller, const Request& request,
                                               ReconcileContext& live, PassInFlight& pass,
                                               PassTiming timing) {
  if (held_ && go_on_where_stopped_ && holds(pass)) {
    held_->clients.go_on(live, pass, timing);
    return switch_to_pass(pass);
  }
  drain_held();
  if (!stack_mapping_) {
    stack_mapping_ = pooled_stack();
    stack_bottom_ = stack_mapping_.get() + page_bytes();
  }
  held_ = std::make_unique<Held>(request, live, pass, timing);
  Held* held = held_.get();
  held->pass = context::fiber(std::allocator_arg, ReusedStack(stack_bottom_),
                              [held, &controller](context::fiber&& runner) {
                                held->runner = std::move(runner);
                                held->switches.in_pass();
                                try {
                                  Clients clients{held->clients, held->clients, held->clients};
                                  held->result = controller.reconcile(held->request, clients);
                                } catch (const context::detail::forced_unwind&) {
                                  throw;   // Boost.Context's own unwinding of a fiber
                                } catch (...) {
                                  held->raised = std::current_exception();
                                }
                                held->switches.to_runner(true);
                                return std::move(held->runner);
                              });
  return switch_to_pass(pass);
}

bool PassRunner::holds(const PassInFlight& pass) const {
  return held_->waiting && !pass.replies.empty() && held_->replies.size() == pass.replies.size() &&
         held_->replies.back().shares_value_with(pass.replies.back());
}

std::optional<ReconcileResult> PassRunner::switch_to_pass(PassInFlight& pass) {
  held_->waiting = false;
  resume_held();
  if (held_->waiting) {
    // What it holds is the start of the pass's replies: the ones since its last stop join them.
    assert(held_->replies.size() <= pass.replies.size() && "rjsim bug: a held pass holds replies its pass lacks");
    held_->replies.insert(held_->replies.end(),
                          pass.replies.begin() + static_cast<std::ptrdiff_t>(held_->replies.size()), pass.replies.end());
    return std::nullopt;
  }
  assert(!held_->pass && "rjsim bug: a pass switched back to its runner without waiting or ending");
  const std::unique_ptr<Held> ended = std::move(held_);
  if (ended->raised) std::rethrow_exception(ended->raised);
  return ended->result;
}

void PassRunner::resume_held() {
  held_->switches.to_pass(stack_bottom_);
  held_->pass = std::move(held_->pass).resume();
  held_->switches.back_in_runner();
}

void PassRunner::drain_held() {
  if (!held_) return;
  if (held_->waiting) {
    held_->clients.drain();
    held_->waiting = false;
    resume_held();   // to the model's return: it cannot stop again
    assert(!held_->waiting && !held_->pass && "rjsim bug: a draining pass stopped again");
  }
  held_.reset();   // what it returned or raised is discarded
}

}  // namespace rjsim::engine
