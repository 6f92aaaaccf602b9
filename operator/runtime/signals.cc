#include "operator/runtime/signals.h"

#include <pthread.h>
#include <signal.h>

namespace rdmastack::runtime {

namespace {

sigset_t ShutdownSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

ShutdownSignals::ShutdownSignals() {
  const sigset_t set = ShutdownSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

ShutdownSignals::~ShutdownSignals() {
  if (!thread_.joinable()) return;
  // Wake the waiting thread with a signal only it will take (all threads block the set); it
  // sees closing_ and returns without calling back.
  closing_->store(true);
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
}

void ShutdownSignals::Watch(std::function<void(int)> on_signal) {
  thread_ = std::thread([on_signal = std::move(on_signal), closing = closing_] {
    const sigset_t set = ShutdownSet();
    int signo = 0;
    if (sigwait(&set, &signo) == 0 && !closing->load()) on_signal(signo);
  });
}

}  // namespace rdmastack::runtime
