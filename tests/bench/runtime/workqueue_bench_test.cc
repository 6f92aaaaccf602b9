// What a Get costs while many items wait in the work queue with a delay (a controller whose
// objects all requeue after an hour holds one waiting item per object). Run from a release build
// (docs/bench-runtime.md); numbers from debug builds mean nothing.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "base/clock.h"
#include "operator/runtime/workqueue.h"

namespace rdmastack::runtime {
namespace {

constexpr int kWaiting = 100'000;
constexpr int kGets = 2'000;

// CPU time of this thread: the build machines are shared, and time spent descheduled is not
// work done by the queue.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

TEST(WorkQueueBench, GetWith100kDelayedItems) {
  FakeClock clock;
  WorkQueue queue("bench", clock, DefaultControllerRateLimiter(clock));

  double start = ThreadCpuSeconds();
  for (int i = 0; i < kWaiting; ++i) {
    // Spread over an hour, added in an order unrelated to their ready time.
    const int second = static_cast<int>((static_cast<long>(i) * 7919) % 3600);
    queue.AddAfter("ns/object-" + std::to_string(i), std::chrono::seconds(3600 + second));
  }
  const double add_after_us = (ThreadCpuSeconds() - start) * 1e6 / kWaiting;
  ASSERT_EQ(queue.NumWaiting(), static_cast<size_t>(kWaiting));

  // The steady state: one item is ready at a time while the delayed ones keep waiting.
  start = ThreadCpuSeconds();
  for (int i = 0; i < kGets; ++i) {
    queue.Add("ready");
    auto item = queue.Get();
    ASSERT_EQ(item, "ready");
    queue.Done(*item);
  }
  const double get_us = (ThreadCpuSeconds() - start) * 1e6 / kGets;
  ASSERT_EQ(queue.NumWaiting(), static_cast<size_t>(kWaiting));

  // Every delayed item comes due; each Get then takes the next one.
  clock.Advance(std::chrono::hours(2));
  start = ThreadCpuSeconds();
  int drained = 0;
  while (auto item = queue.TryGet()) {
    queue.Done(*item);
    ++drained;
  }
  const double drain_us = (ThreadCpuSeconds() - start) * 1e6 / kWaiting;
  EXPECT_EQ(drained, kWaiting);

  std::printf("%d delayed items, thread CPU time per operation:\n", kWaiting);
  std::printf("  AddAfter (filling):                 %9.3f us\n", add_after_us);
  std::printf("  Add + Get + Done, all still waiting: %9.3f us (mean of %d)\n", get_us, kGets);
  std::printf("  TryGet + Done, all due (draining):  %9.3f us\n", drain_us);
  RecordProperty("add_after_ns", static_cast<int>(add_after_us * 1000));
  RecordProperty("get_with_100k_waiting_ns", static_cast<int>(get_us * 1000));
  RecordProperty("drain_ns", static_cast<int>(drain_us * 1000));
}

}  // namespace
}  // namespace rdmastack::runtime
