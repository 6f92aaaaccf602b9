// JSON decode throughput over a large NodeList on one core: the cost of an informer's initial
// LIST of 5,000 nodes. Run from a release build (see docs/bench-k8s.md); numbers from debug
// builds mean nothing.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "operator/k8s/json_object.h"
#include "operator/k8s/rest_codec.h"
#include "tests/bench/k8s/node_list_generator.h"

namespace rdmastack::k8s {
namespace {

constexpr int kNodes = 5000;
constexpr int kRounds = 5;

// Best of kRounds. Each round decodes a fresh copy of `body` (the client hands the response body
// over by move, so the copy is not part of the cost); the result is freed outside the timing.
template <typename Decode>
double BestMegabytesPerSecond(const std::string& body, Decode&& decode) {
  double best = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::string input = body;
    const auto start = std::chrono::steady_clock::now();
    auto result = decode(std::move(input));
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    best = std::max(best, static_cast<double>(body.size()) / 1e6 / took.count());
  }
  return best;
}

TEST(JsonDecodeBench, NodeList5000) {
  const std::string body = bench::GenerateNodeList(kNodes);
  const double per_node_kb = static_cast<double>(body.size()) / kNodes / 1000;
  std::printf("NodeList: %d nodes, %.1f MB, %.1f KB per node\n", kNodes, body.size() / 1e6,
              per_node_kb);
  ASSERT_GT(per_node_kb, 12.0);

  const double parse =
      BestMegabytesPerSecond(body, [](std::string input) { return JsonObject::ParseOwned(input); });
  const double decode = BestMegabytesPerSecond(
      body, [](std::string input) { return DecodeObjectList(std::move(input)); });
  auto list = DecodeObjectList(body);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), static_cast<size_t>(kNodes));
  EXPECT_EQ(list->items[4321].Name(), "gpu-node-4321");
  EXPECT_EQ(list->items[4321].Labels().size(), 100u);
  std::printf("parse into one document:             %7.0f MB/s\n", parse);
  std::printf("decode list into %d node objects: %7.0f MB/s\n", kNodes, decode);
  RecordProperty("parse_mb_per_s", static_cast<int>(parse));
  RecordProperty("decode_list_mb_per_s", static_cast<int>(decode));
#ifdef NDEBUG
  EXPECT_GE(decode, 500.0) << "target: >= 500 MB/s on one core";
#endif
}

}  // namespace
}  // namespace rdmastack::k8s
