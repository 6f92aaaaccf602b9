#pragma once
// Runs a function when the scope ends, also when an assertion returns early: what a test changed
// outside itself (a frozen process, a firewall rule, a mount) is put back. Now() runs it sooner,
// once.

#include <functional>
#include <utility>

namespace rdmastack::testing {

class ScopeExit {
 public:
  explicit ScopeExit(std::function<void()> fn) : fn_(std::move(fn)) {}
  ~ScopeExit() { Now(); }
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;

  void Now() {
    if (fn_) std::exchange(fn_, nullptr)();
  }

 private:
  std::function<void()> fn_;
};

}  // namespace rdmastack::testing
