#pragma once
// Gives memory back to the system after connections churn. glibc keeps the pages of freed chunks
// in its arenas (one per gRPC thread that allocated); after a mass disconnect the hub held several
// MiB free that malloc_trim(0) returns (3.5 MiB per 500 connections in agenthub_bench). What a
// reconnect storm added on top was the new connections' TLS buffers placed on already-written
// heap pages, which no trim changes; tls_buffer_mapping.h keeps them on fresh mappings.
// MemoryTrimmer samples the connected count and trims once churn since the last trim reaches a
// fraction of the connections.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>

#include "base/clock.h"
#include "base/status.h"

namespace rdmastack::agenthub {

struct MemoryTrimOptions {
  // Trim once the connections that came and went since the last trim (the sum of the connected
  // count's changes between samples) reach this fraction of the most connected since then; 0
  // turns trimming off.
  double churn_fraction = 0.1;
  // How often the connected count is sampled, and the least time between two trims (a trim walks
  // every arena's free chunks under its lock: a few ms for hundreds of MiB).
  std::chrono::milliseconds sample_interval{1'000};
  std::chrono::milliseconds min_interval{5'000};
};

Status ValidateMemoryTrimOptions(const MemoryTrimOptions& o);

// The decision, without threads or the allocator (unit-tested).
class TrimPolicy {
 public:
  explicit TrimPolicy(const MemoryTrimOptions& o) : options_(o) {}
  // Feeds one sample of the connected count at `now`; true when the caller should trim now.
  bool Sample(size_t connected, Clock::TimePoint now);
  size_t churn() const { return churn_; }

 private:
  MemoryTrimOptions options_;
  bool started_ = false;
  size_t last_ = 0, peak_ = 0, churn_ = 0;
  Clock::TimePoint last_trim_{};
};

// A thread sampling `connected` and trimming when TrimPolicy says so.
class MemoryTrimmer {
 public:
  MemoryTrimmer(Clock& clock, MemoryTrimOptions options, std::function<size_t()> connected,
                std::function<void()> trim);
  ~MemoryTrimmer();  // Stop()
  void Start();      // no thread when churn_fraction is 0
  void Stop();
  size_t trims() const;

 private:
  void Run();
  Clock& clock_;
  const MemoryTrimOptions options_;
  std::function<size_t()> connected_;
  std::function<void()> trim_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  size_t trims_ = 0;
  std::thread thread_;
};

// malloc_trim(0): returns the free pages of every glibc arena to the system.
void TrimMallocArenas();

}  // namespace rdmastack::agenthub
