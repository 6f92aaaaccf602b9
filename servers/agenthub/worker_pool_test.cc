#include "servers/agenthub/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace rdmastack::agenthub {
namespace {

TEST(WorkerPoolTest, RunsJobsAndRefusesBeyondTheQueueBound) {
  WorkerPool pool(1, 2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  std::atomic<int> ran{0};
  ASSERT_TRUE(pool.TrySubmit([&] {
    started.set_value();
    released.wait();
    ++ran;
  }));
  started.get_future().wait();  // the one worker is busy; the queue is empty
  EXPECT_TRUE(pool.TrySubmit([&] { ++ran; }));
  EXPECT_TRUE(pool.TrySubmit([&] { ++ran; }));
  EXPECT_FALSE(pool.TrySubmit([&] { ++ran; }));  // two already wait
  release.set_value();
  pool.Stop();  // runs what was queued
  EXPECT_EQ(ran, 3);
  EXPECT_FALSE(pool.TrySubmit([&] { ++ran; }));
}

}  // namespace
}  // namespace rdmastack::agenthub
