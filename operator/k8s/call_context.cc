#include "operator/k8s/call_context.h"

#include <algorithm>
#include <string>
#include <vector>

namespace rdmastack::k8s {
namespace {
thread_local CallContext current_context;
}  // namespace

Cancellation::Registration& Cancellation::Registration::operator=(Registration&& other) noexcept {
  if (this != &other) {
    Reset();
    owner_ = other.owner_;
    id_ = other.id_;
    other.owner_ = nullptr;
    other.id_ = 0;
  }
  return *this;
}

void Cancellation::Registration::Reset() {
  if (owner_ != nullptr) owner_->Unregister(id_);
  owner_ = nullptr;
  id_ = 0;
}

void Cancellation::Cancel() {
  std::lock_guard<std::mutex> running(running_mu_);
  std::vector<std::function<void()>> to_run;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    cancelled_cv_.notify_all();
    for (auto& [id, fn] : callbacks_) to_run.push_back(fn);
  }
  for (auto& fn : to_run) fn();
}

bool Cancellation::cancelled() const {
  std::lock_guard<std::mutex> l(mu_);
  return cancelled_;
}

bool Cancellation::WaitFor(std::chrono::steady_clock::duration timeout) {
  std::unique_lock<std::mutex> l(mu_);
  return cancelled_cv_.wait_for(l, timeout, [this] { return cancelled_; });
}

Cancellation::Registration Cancellation::OnCancel(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!cancelled_) {
      const uint64_t id = next_id_++;
      callbacks_.emplace(id, std::move(fn));
      return Registration(this, id);
    }
  }
  fn();
  return Registration();
}

void Cancellation::Unregister(uint64_t id) {
  {
    std::lock_guard<std::mutex> l(mu_);
    callbacks_.erase(id);
  }
  // A Cancel() running our callback right now holds running_mu_; wait for it to finish.
  std::lock_guard<std::mutex> running(running_mu_);
}

CallScope::CallScope(std::optional<SteadyTime> deadline, std::shared_ptr<Cancellation> cancellation)
    : saved_(current_context) {
  if (deadline && (!current_context.deadline || *deadline < *current_context.deadline)) {
    current_context.deadline = deadline;
  }
  if (cancellation) current_context.cancellation = std::move(cancellation);
}

CallScope::~CallScope() {
  current_context = std::move(saved_);
}

const CallContext& CurrentCallContext() {
  return current_context;
}

Status CheckCallContext(std::string_view what) {
  const CallContext& ctx = current_context;
  if (ctx.cancellation && ctx.cancellation->cancelled()) {
    return CancelledError(std::string(what) + ": cancelled");
  }
  if (ctx.deadline && std::chrono::steady_clock::now() >= *ctx.deadline) {
    return DeadlineExceededError(std::string(what) + ": deadline exceeded");
  }
  return OkStatus();
}

std::chrono::milliseconds BoundByDeadline(std::chrono::milliseconds timeout) {
  const CallContext& ctx = current_context;
  if (!ctx.deadline) return timeout;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*ctx.deadline -
                                                                 std::chrono::steady_clock::now());
  return std::clamp(left, std::chrono::milliseconds(0), timeout);
}

}  // namespace rdmastack::k8s
