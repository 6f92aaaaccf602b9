#pragma once
// Runs independent API calls side by side: a pool's first reconcile labels every node it
// selects, and one call after another would make a thousand nodes wait seconds for the last.

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace rdmastack::controllers {

// fn(i) for every i in [0, n), on at most `threads` threads (the caller's among them).
inline void ParallelFor(size_t n, size_t threads, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> extra;
  for (size_t t = 1; t < threads && t < n; ++t) extra.emplace_back(work);
  work();
  for (auto& t : extra) t.join();
}

}  // namespace rdmastack::controllers
