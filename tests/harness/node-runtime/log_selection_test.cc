#include "tests/harness/node-runtime/log_selection.h"

#include <gtest/gtest.h>

#include <string>

namespace rdmastack::sim {
namespace {

std::string Tail(std::string_view content, std::optional<int64_t> lines) {
  return std::string(content.substr(TailOffset(content, lines)));
}

TEST(TailOffset, LastLinesLikeTheKubelet) {
  EXPECT_EQ(Tail("a\nb\nc\n", std::nullopt), "a\nb\nc\n");
  EXPECT_EQ(Tail("a\nb\nc\n", 1), "c\n");
  EXPECT_EQ(Tail("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(Tail("a\nb\nc\n", 3), "a\nb\nc\n");
  EXPECT_EQ(Tail("a\nb\nc\n", 10), "a\nb\nc\n");
  EXPECT_EQ(Tail("a\nb\nc\n", 0), "");
  // A line still being written counts.
  EXPECT_EQ(Tail("a\nb\npart", 1), "part");
  EXPECT_EQ(Tail("a\nb\npart", 2), "b\npart");
  // Empty lines are lines.
  EXPECT_EQ(Tail("a\n\n\n", 2), "\n\n");
  EXPECT_EQ(Tail("", 3), "");
  EXPECT_EQ(Tail("\n", 1), "\n");
}

TEST(AllowedBytes, CountsTheLimitOverTheWholeResponse) {
  EXPECT_EQ(AllowedBytes(100, std::nullopt, 1000), 100u);
  EXPECT_EQ(AllowedBytes(100, 30, 0), 30u);
  EXPECT_EQ(AllowedBytes(100, 30, 25), 5u);
  EXPECT_EQ(AllowedBytes(100, 30, 30), 0u);
  EXPECT_EQ(AllowedBytes(3, 30, 10), 3u);
  EXPECT_EQ(AllowedBytes(0, 30, 10), 0u);
}

}  // namespace
}  // namespace rdmastack::sim
