#include "base/utf8.h"

#include <gtest/gtest.h>

namespace rdmastack {
namespace {

TEST(Utf8Test, SequenceLengthFollowsRfc3629) {
  EXPECT_EQ(Utf8SequenceLength("a"), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xC3\xA9x"), 2u);         // é
  EXPECT_EQ(Utf8SequenceLength("\xE2\x80\xA6"), 3u);      // …
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x98\x80"), 4u);  // U+1F600
  EXPECT_EQ(Utf8SequenceLength("\xF4\x8F\xBF\xBF"), 4u);  // U+10FFFF
  EXPECT_EQ(Utf8SequenceLength(""), 0u);
  EXPECT_EQ(Utf8SequenceLength("\x80"), 0u);              // a continuation byte alone
  EXPECT_EQ(Utf8SequenceLength("\xC0\x80"), 0u);          // overlong NUL
  EXPECT_EQ(Utf8SequenceLength("\xE0\x80\x80"), 0u);      // overlong
  EXPECT_EQ(Utf8SequenceLength("\xED\xA0\x80"), 0u);      // a surrogate
  EXPECT_EQ(Utf8SequenceLength("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\xE2\x80"), 0u);          // cut off
  EXPECT_EQ(Utf8SequenceLength("\xE2\x80x"), 0u);
}

TEST(Utf8Test, InvalidBytesBecomeReplacementCharactersAndCountOneEach) {
  const std::string bad =
      "a\xE2\x80"
      "b\xFF";
  EXPECT_FALSE(IsValidUtf8(bad));
  EXPECT_EQ(ValidUtf8(bad),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_TRUE(IsValidUtf8(ValidUtf8(bad)));
  // As the API server counts: the two bytes of the cut-off sequence are two code points.
  EXPECT_EQ(TextLength(bad, TextUnit::kCodePoints), 5u);
  EXPECT_EQ(TextLength(ValidUtf8(bad), TextUnit::kCodePoints), 5u);
  EXPECT_EQ(TextLength("\xC3\xA9t\xC3\xA9", TextUnit::kCodePoints), 3u);
  EXPECT_EQ(TextLength("\xC3\xA9t\xC3\xA9", TextUnit::kBytes), 5u);
}

TEST(Utf8Test, CutNeverSplitsASequence) {
  const std::string s =
      "ab\xE2\x80\xA6"
      "cd";  // ab…cd
  EXPECT_EQ(CutUtf8(s, 2, TextUnit::kBytes), "ab");
  EXPECT_EQ(CutUtf8(s, 3, TextUnit::kBytes), "ab");
  EXPECT_EQ(CutUtf8(s, 4, TextUnit::kBytes), "ab");
  EXPECT_EQ(CutUtf8(s, 5, TextUnit::kBytes), "ab\xE2\x80\xA6");
  EXPECT_EQ(CutUtf8(s, 3, TextUnit::kCodePoints), "ab\xE2\x80\xA6");
}

TEST(Utf8Test, ClipLeavesShortTextAlone) {
  EXPECT_EQ(ClipUtf8("short", 5, TextUnit::kBytes), "short");
  EXPECT_EQ(ClipUtf8Front("short", 5, TextUnit::kCodePoints), "short");
  // Five code points in ten bytes fit a maxLength of 5.
  const std::string e5 = "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9";
  EXPECT_EQ(ClipUtf8(e5, 5, TextUnit::kCodePoints), e5);
}

TEST(Utf8Test, ClipSaysHowManyBytesItCutAndFits) {
  const std::string s(2000, 'x');
  const std::string clipped = ClipUtf8(s, 1024, TextUnit::kCodePoints);
  EXPECT_EQ(TextLength(clipped, TextUnit::kCodePoints), 1024u);
  const std::string marker = "\xE2\x80\xA6 (993 bytes cut)";  // 17 code points
  ASSERT_EQ(clipped.size(), 1007u + marker.size());
  EXPECT_EQ(clipped.substr(1007), marker);
  EXPECT_EQ(clipped.substr(0, 1007), s.substr(0, 1007));
}

TEST(Utf8Test, ClipCutsOnASequenceBoundary) {
  // 600 two-byte characters: 1200 bytes, 600 code points.
  std::string s;
  for (int i = 0; i < 600; ++i) s += "\xC3\xA9";
  for (size_t max : {100u, 101u, 102u, 103u, 1023u}) {
    const std::string bytes = ClipUtf8(s, max, TextUnit::kBytes);
    EXPECT_TRUE(IsValidUtf8(bytes)) << max;
    EXPECT_LE(bytes.size(), max);
    EXPECT_GE(bytes.size(), max - 1) << "only the half character is dropped";
    EXPECT_NE(bytes.find(" bytes cut)"), std::string::npos);
  }
  const std::string points = ClipUtf8(s, 100, TextUnit::kCodePoints);
  EXPECT_TRUE(IsValidUtf8(points));
  EXPECT_EQ(TextLength(points, TextUnit::kCodePoints), 100u);
  EXPECT_NE(points.find("(1036 bytes cut)"), std::string::npos) << points;  // 82 kept of 600
}

TEST(Utf8Test, EveryMaxGivesValidTextWithinIt) {
  std::string s;
  for (int i = 0; i < 40; ++i) s += i % 3 == 0 ? "\xF0\x9F\x98\x80" : i % 3 == 1 ? "\xC3\xA9" : "z";
  for (TextUnit unit : {TextUnit::kBytes, TextUnit::kCodePoints}) {
    for (size_t max = 0; max <= TextLength(s, unit) + 1; ++max) {
      for (const std::string& out : {ClipUtf8(s, max, unit), ClipUtf8Front(s, max, unit)}) {
        EXPECT_LE(TextLength(out, unit), max) << out;
        EXPECT_TRUE(IsValidUtf8(out)) << max << ": " << out;
      }
      const std::string head = ClipUtf8(s, max, unit);
      if (max < TextLength(s, unit) && max >= 3) {
        EXPECT_NE(head.find(kEllipsis), std::string::npos) << max << ": " << head;
      }
    }
  }
}

TEST(Utf8Test, TinyLimitsFallBackToAnEllipsisThenToACut) {
  const std::string s(100, 'x');
  EXPECT_EQ(ClipUtf8(s, 8, TextUnit::kCodePoints), "xxxxxxx\xE2\x80\xA6");
  EXPECT_EQ(ClipUtf8(s, 1, TextUnit::kCodePoints), "\xE2\x80\xA6");
  EXPECT_EQ(ClipUtf8(s, 2, TextUnit::kBytes), "xx");
  EXPECT_EQ(ClipUtf8(s, 0, TextUnit::kBytes), "");
}

TEST(Utf8Test, FrontClipKeepsTheEnd) {
  std::string log;
  for (int i = 0; i < 100; ++i) log += "line " + std::to_string(i) + "\n";
  log += "fatal: the reason";
  const std::string kept = ClipUtf8Front(log, 64, TextUnit::kCodePoints);
  EXPECT_EQ(TextLength(kept, TextUnit::kCodePoints), 64u);
  EXPECT_EQ(kept.rfind("\xE2\x80\xA6 (", 0), 0u) << kept;
  EXPECT_NE(kept.find(" bytes cut) "), std::string::npos) << kept;
  EXPECT_EQ(kept.substr(kept.size() - 17), "fatal: the reason");
}

}  // namespace
}  // namespace rdmastack
