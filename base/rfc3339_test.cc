#include "base/rfc3339.h"

#include <gtest/gtest.h>

namespace rdmastack {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

TEST(Rfc3339Test, FormatsWholeSecondsUtc) {
  const system_clock::time_point t{seconds(1'764'576'731) + std::chrono::milliseconds(999)};
  EXPECT_EQ(FormatRfc3339(t), "2025-12-01T08:12:11Z");
  EXPECT_EQ(FormatRfc3339(system_clock::time_point{}), "1970-01-01T00:00:00Z");
}

TEST(Rfc3339Test, ParsesWhatItFormatsAndOffsets) {
  const system_clock::time_point t{seconds(1'764'576'731)};
  EXPECT_EQ(*ParseRfc3339(FormatRfc3339(t)), t);
  EXPECT_EQ(*ParseRfc3339("2025-12-01T09:12:11+01:00"), t);
  EXPECT_EQ(*ParseRfc3339("2025-12-01T08:12:11.123456Z"), t);
}

TEST(Rfc3339Test, RejectsMalformedText) {
  for (const char* text :
       {"", "2025-12-01", "2025-12-01T08:12:11", "2025-13-01T08:12:11Z", "2025-12-01T08:12:11Zjunk",
        "2025-12-01 08:12:11Z", "2025-12-01T08:12:11."}) {
    EXPECT_FALSE(ParseRfc3339(text).ok()) << text;
  }
}

}  // namespace
}  // namespace rdmastack
