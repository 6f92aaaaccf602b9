#include "base/clock.h"

namespace rdmastack {

RealClock& RealClock::Instance() {
  static RealClock clock;
  return clock;
}

Clock::TimePoint FakeClock::Now() const {
  std::lock_guard<std::mutex> l(mu_);
  return TimePoint{} + elapsed_;
}

Clock::WallTime FakeClock::WallNow() const {
  std::lock_guard<std::mutex> l(mu_);
  return wall_start_ + std::chrono::duration_cast<std::chrono::system_clock::duration>(elapsed_);
}

void FakeClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          TimePoint deadline) {
  {
    std::lock_guard<std::mutex> l(mu_);
    last_cv_ = &cv;
    if (TimePoint{} + elapsed_ >= deadline) return;
    last_sleep_at_ = elapsed_;
  }
  slept_.notify_all();
  // The caller's condition variable is notified both by the caller's own producers and (through
  // Advance) by time moving; a short real wait keeps a missed notification from hanging a test.
  cv.wait_for(lock, std::chrono::milliseconds(5));
}

void FakeClock::Advance(Duration d) {
  std::condition_variable* cv = nullptr;
  {
    std::lock_guard<std::mutex> l(mu_);
    elapsed_ += d;
    cv = last_cv_;
  }
  if (cv != nullptr) cv->notify_all();
}

bool FakeClock::AdvanceAndWaitForSleeper(Duration d, std::chrono::milliseconds real_limit) {
  Advance(d);
  std::unique_lock<std::mutex> l(mu_);
  const Duration now = elapsed_;
  return slept_.wait_for(l, real_limit, [&] { return last_sleep_at_ >= now; });
}

}  // namespace rdmastack
