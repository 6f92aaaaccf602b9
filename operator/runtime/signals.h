#pragma once
// SIGTERM/SIGINT handling without async-signal-unsafe work: the signals are blocked in every
// thread and one thread waits for them with sigwait, then runs an ordinary callback.

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace rdmastack::runtime {

class ShutdownSignals {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread (and every thread it creates afterwards):
  // construct it in main() before any other thread starts.
  ShutdownSignals();
  ~ShutdownSignals();
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  // Calls `on_signal(signo)` once, on a dedicated thread, when the first signal arrives.
  void Watch(std::function<void(int)> on_signal);

 private:
  std::shared_ptr<std::atomic<bool>> closing_ = std::make_shared<std::atomic<bool>>(false);
  std::thread thread_;
};

}  // namespace rdmastack::runtime
