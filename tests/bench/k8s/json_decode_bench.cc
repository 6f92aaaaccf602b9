// JSON decode throughput over a large NodeList on one core: the cost of an informer's initial
// LIST of 5,000 nodes. Run from a release build (see docs/bench-k8s.md); numbers from debug
// builds mean nothing.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "operator/k8s/json_object.h"
#include "operator/k8s/rest_codec.h"
#include "tests/bench/k8s/node_list_generator.h"

namespace rdmastack::k8s {
namespace {

constexpr int kNodes = 5000;
constexpr int kRounds = 10;

// CPU time of this thread: the build machines are shared, and time spent descheduled is not
// decoding.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double ResidentMegabytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

struct Throughput {
  double cpu_mb_per_s = 0;   // best round, by thread CPU time
  double wall_mb_per_s = 0;  // best round, by wall time
};

// Each round decodes a fresh copy of `body` (the client hands the response body over by move, so
// the copy is not part of the cost); the result is freed outside the timing.
template <typename Decode>
Throughput Measure(const std::string& body, Decode&& decode) {
  Throughput best;
  const double mb = static_cast<double>(body.size()) / 1e6;
  for (int round = 0; round < kRounds; ++round) {
    std::string input = body;
    const double cpu_start = ThreadCpuSeconds();
    const auto wall_start = std::chrono::steady_clock::now();
    auto result = decode(std::move(input));
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start;
    const double cpu = ThreadCpuSeconds() - cpu_start;
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    best.cpu_mb_per_s = std::max(best.cpu_mb_per_s, mb / cpu);
    best.wall_mb_per_s = std::max(best.wall_mb_per_s, mb / wall.count());
  }
  return best;
}

TEST(JsonDecodeBench, NodeList5000) {
  const std::string body = bench::GenerateNodeList(kNodes);
  const double per_node_kb = static_cast<double>(body.size()) / kNodes / 1000;
  std::printf("NodeList: %d nodes, %.1f MB, %.1f KB per node\n", kNodes, body.size() / 1e6,
              per_node_kb);
  ASSERT_GT(per_node_kb, 12.0);

  // First, before the timed rounds have warmed the heap.
  const double rss_before = ResidentMegabytes();
  auto list = DecodeObjectList(body);
  ASSERT_TRUE(list.ok());
  const double held = ResidentMegabytes() - rss_before;
  std::printf("memory held by the 5000 decoded nodes: %.0f MB resident (%.1f KB per node)\n", held,
              held * 1000 / kNodes);
  RecordProperty("decoded_list_resident_mb", static_cast<int>(held));
  ASSERT_EQ(list->items.size(), static_cast<size_t>(kNodes));
  EXPECT_EQ(list->items[4321].Name(), "gpu-node-4321");
  EXPECT_EQ(list->items[4321].Labels().size(), 100u);
  const Throughput parse =
      Measure(body, [](std::string input) { return JsonObject::ParseOwned(input); });
  const Throughput decode =
      Measure(body, [](std::string input) { return DecodeObjectList(std::move(input)); });
  std::printf("best of %d rounds                   CPU time   wall time\n", kRounds);
  std::printf("parse into one document:          %6.0f MB/s %6.0f MB/s\n", parse.cpu_mb_per_s,
              parse.wall_mb_per_s);
  std::printf("decode list into %d nodes:      %6.0f MB/s %6.0f MB/s\n", kNodes,
              decode.cpu_mb_per_s, decode.wall_mb_per_s);
  RecordProperty("parse_mb_per_s", static_cast<int>(parse.cpu_mb_per_s));
  RecordProperty("decode_list_mb_per_s", static_cast<int>(decode.cpu_mb_per_s));
#ifdef NDEBUG
  EXPECT_GE(decode.cpu_mb_per_s, 500.0) << "target: >= 500 MB/s on one core";
#endif
}

}  // namespace
}  // namespace rdmastack::k8s
