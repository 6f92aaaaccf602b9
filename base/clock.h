#pragma once
// An injectable clock so that timing logic (backoff, leases, TTLs) is unit-tested without sleeping.

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace rdmastack {

class Clock {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;
  using WallTime = std::chrono::system_clock::time_point;

  virtual ~Clock() = default;
  // Monotonic time, for intervals and deadlines.
  virtual TimePoint Now() const = 0;
  // Wall time, for timestamps written to the API (Lease renewTime, condition transitions).
  virtual WallTime WallNow() const = 0;
  // Blocks until `deadline` or until `cv` is notified; returns with `lock` held. A fake clock wakes
  // waiters when it is advanced.
  virtual void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                         TimePoint deadline) = 0;
};

class RealClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
  void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline) override {
    cv.wait_until(lock, deadline);
  }
  static RealClock& Instance();
};

// Time moves only when the test calls Advance(). Waiters are released by Advance().
class FakeClock final : public Clock {
 public:
  explicit FakeClock(WallTime wall_start = WallTime{std::chrono::seconds(1'700'000'000)})
      : wall_start_(wall_start) {}

  TimePoint Now() const override;
  WallTime WallNow() const override;
  void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline) override;
  void Advance(Duration d);
  // Advance(d), then wait until a thread has gone to sleep in WaitUntil at the new time (it has
  // seen the new time and waits for a later deadline), so that time never moves on before a
  // sleeper has acted on the step. For tests that step time for a thread sleeping on this clock;
  // a sleep-and-hope between steps is flaky on a slow machine or under ThreadSanitizer. False if
  // no thread went to sleep within `real_limit` of real time. With d = 0 it only waits for a
  // sleeper (one that has computed its deadline from the current time).
  bool AdvanceAndWaitForSleeper(Duration d,
                                std::chrono::milliseconds real_limit = std::chrono::seconds(30));

 private:
  mutable std::mutex mu_;
  Duration elapsed_{0};
  WallTime wall_start_;
  std::condition_variable advanced_;
  std::condition_variable* last_cv_ = nullptr;
  // elapsed_ when a thread last went to sleep in WaitUntil (deadline still ahead); -1 ns: never.
  Duration last_sleep_at_{-1};
  std::condition_variable slept_;
};

}  // namespace rdmastack
