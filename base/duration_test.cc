#include "base/duration.h"

#include <gtest/gtest.h>

namespace rdmastack {
namespace {

using std::chrono::milliseconds;

TEST(DurationTest, ParsesKubernetesStyleDurations) {
  struct Case {
    const char* text;
    int64_t ms;
  };
  const Case cases[] = {{"500ms", 500},    {"15s", 15'000},   {"2m", 120'000},
                        {"1h", 3'600'000}, {"1m30s", 90'000}, {"1h0m5s", 3'605'000},
                        {"10", 10'000},    {"0s", 0}};
  for (const Case& c : cases) {
    auto d = ParseDuration(c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.status().ToString();
    EXPECT_EQ(d->count(), c.ms) << c.text;
  }
}

TEST(DurationTest, RejectsWhatIsNotADuration) {
  for (const char* text : {"", "s", "15x", "1.5s", "-1s", "10 s", "1m30", "99999999999999h"}) {
    auto d = ParseDuration(text);
    ASSERT_FALSE(d.ok()) << text;
    EXPECT_NE(d.status().message().find("not a duration"), std::string::npos);
  }
}

TEST(DurationTest, FormatsTheShortestText) {
  EXPECT_EQ(FormatDuration(milliseconds(90'000)), "1m30s");
  EXPECT_EQ(FormatDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(milliseconds(3'600'000)), "1h");
  for (int64_t ms : {1, 999, 1000, 61'001, 7'322'010}) {
    EXPECT_EQ(ParseDuration(FormatDuration(milliseconds(ms)))->count(), ms);
  }
}

}  // namespace
}  // namespace rdmastack
