#pragma once
// Deadlines and cancellation for API calls, carried by the calling thread the way Go code carries
// a context.Context in its first argument. A CallScope bounds every k8s::Client call made on its
// thread while it lives: name resolution, connecting, the TLS handshake, sending, waiting for the
// response, and every throttling retry. Nested scopes only ever shorten the deadline.
//
// Why a scope and not a parameter: the Client interface has many callers and decorators
// (instrumented, leader-fenced, mocks); a scope reaches the transport through all of them without
// changing a signature, and code that never opens one keeps the configured per-request timeouts.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace rdmastack::k8s {

using SteadyTime = std::chrono::steady_clock::time_point;

// A cancellation signal shared between the thread that cancels and the calls that observe it.
class Cancellation {
 public:
  class Registration {
   public:
    Registration() = default;
    Registration(Cancellation* owner, uint64_t id) : owner_(owner), id_(id) {}
    Registration(Registration&& other) noexcept { *this = std::move(other); }
    Registration& operator=(Registration&& other) noexcept;
    ~Registration() { Reset(); }
    // Unregisters; once it returns the callback is not running and will not run.
    void Reset();

   private:
    Cancellation* owner_ = nullptr;
    uint64_t id_ = 0;
  };

  // Idempotent. Runs the registered callbacks on the calling thread.
  void Cancel();
  bool cancelled() const;
  // Blocks until Cancel() or until `timeout` has passed; true when cancelled.
  bool WaitFor(std::chrono::steady_clock::duration timeout);
  // Runs `fn` when Cancel() is called (at once, on this thread, if it already was) until the
  // registration is reset or destroyed. `fn` must be quick and must not call back into this object.
  [[nodiscard]] Registration OnCancel(std::function<void()> fn);

 private:
  void Unregister(uint64_t id);

  mutable std::mutex mu_;
  std::condition_variable cancelled_cv_;
  bool cancelled_ = false;
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::function<void()>> callbacks_;
  // Held while callbacks run, so that Unregister can wait for a running one to finish.
  std::mutex running_mu_;
};

struct CallContext {
  std::optional<SteadyTime> deadline;
  std::shared_ptr<Cancellation> cancellation;
};

class CallScope {
 public:
  // The effective deadline is the earlier of `deadline` and any enclosing scope's; the cancellation
  // replaces the enclosing one when given.
  explicit CallScope(std::optional<SteadyTime> deadline,
                     std::shared_ptr<Cancellation> cancellation = nullptr);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  CallContext saved_;
};

// The calling thread's context (empty outside every scope).
const CallContext& CurrentCallContext();

// OK while the current context allows another step; otherwise kCancelled or kDeadlineExceeded
// naming `what`.
Status CheckCallContext(std::string_view what);

// `timeout` shortened to the time left before the current deadline (never negative).
std::chrono::milliseconds BoundByDeadline(std::chrono::milliseconds timeout);

}  // namespace rdmastack::k8s
