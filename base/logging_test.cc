#include "base/logging.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace rdmastack {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Parses one log line strictly (UTF-8 validated) and returns its "msg".
std::string MessageOf(const std::string& line) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(line.data(), line.size());
  EXPECT_FALSE(doc.HasParseError()) << rapidjson::GetParseError_En(doc.GetParseError())
                                    << " at offset " << doc.GetErrorOffset() << " in: " << line;
  if (doc.HasParseError() || !doc.IsObject()) return "<not a JSON object>";
  EXPECT_TRUE(doc.HasMember("ts") && doc["ts"].IsString()) << line;
  EXPECT_TRUE(doc.HasMember("level") && doc["level"].IsString()) << line;
  if (!doc.HasMember("msg") || !doc["msg"].IsString()) return "<no msg>";
  return {doc["msg"].GetString(), doc["msg"].GetStringLength()};
}

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

TEST(JsonLogTest, EveryMessageIsOneValidJsonLine) {
  ASSERT_TRUE(InitLogging("info", LogFormat::kJson).ok());
  struct Case {
    std::string message;
    std::string want;  // the "msg" a JSON parser reads back
  };
  const std::string r = kReplacement;
  const Case cases[] = {
      {"plain", "plain"},
      {R"(say "hi")", R"(say "hi")"},
      {R"(C:\path\to \"x\")", R"(C:\path\to \"x\")"},
      {"first line\nsecond line\r\n", "first line\nsecond line\r\n"},
      {"tab\there \b\f", "tab\there \b\f"},
      {std::string("nul\0inside", 10), std::string("nul\0inside", 10)},
      {"\x01\x02\x1b[31mred\x1b[0m\x1f\x7f", "\x01\x02\x1b[31mred\x1b[0m\x1f\x7f"},
      {R"({"looks":"like json"},)", R"({"looks":"like json"},)"},
      {"gr\xC3\xBC\xC3\x9F"
       "e \xE2\x82\xAC \xF0\x9F\x98\x80",
       "gr\xC3\xBC\xC3\x9F"
       "e \xE2\x82\xAC \xF0\x9F\x98\x80"},
      // Each byte that does not start a valid UTF-8 sequence becomes U+FFFD.
      {"bad \xFF byte", "bad " + r + " byte"},
      {"lone \x80 continuation", "lone " + r + " continuation"},
      {"overlong \xC0\xAF slash", "overlong " + r + r + " slash"},
      {"surrogate \xED\xA0\x80.", "surrogate " + r + r + r + "."},
      {"beyond \xF4\x90\x80\x80 max", "beyond " + r + r + r + r + " max"},
      {"cut \xE2\x82", "cut " + r + r},
      {"cut at end \xC3", "cut at end " + r},
      {"", ""},
  };
  testing::internal::CaptureStderr();
  for (const Case& c : cases) spdlog::info("{}", c.message);
  spdlog::warn("key={} value={}", "a\"b\\c\n", 3);
  const std::vector<std::string> lines = Lines(testing::internal::GetCapturedStderr());
  ASSERT_EQ(lines.size(), std::size(cases) + 1);
  for (size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(MessageOf(lines[i]), cases[i].want) << "line " << i << ": " << lines[i];
  }
  EXPECT_EQ(MessageOf(lines.back()), "key=a\"b\\c\n value=3");
}

TEST(JsonLogTest, InitialisingTwiceIsHarmlessAndTheLastCallWins) {
  ASSERT_TRUE(InitLogging("info", LogFormat::kText).ok());
  ASSERT_TRUE(InitLogging("debug", LogFormat::kText).ok());
  ASSERT_TRUE(InitLogging("warn", LogFormat::kJson).ok());
  EXPECT_FALSE(InitLogging("loud", LogFormat::kText).ok());  // rejected, changes nothing
  testing::internal::CaptureStderr();
  spdlog::info("below the level");
  spdlog::warn("once");
  const std::vector<std::string> lines = Lines(testing::internal::GetCapturedStderr());
  ASSERT_EQ(lines.size(), 1u) << "one sink, one line";
  EXPECT_EQ(MessageOf(lines[0]), "once");
}

// Re-initialising while another thread logs (a flag parsed late, a test harness) is safe; run
// under ThreadSanitizer by scripts/test.sh.
TEST(JsonLogTest, ReinitialisingWhileAnotherThreadLogsIsSafe) {
  ASSERT_TRUE(InitLogging("info", LogFormat::kJson).ok());
  testing::internal::CaptureStderr();
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) spdlog::warn("message {}", i);
  });
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(InitLogging("info", i % 2 == 0 ? LogFormat::kText : LogFormat::kJson).ok());
  }
  ASSERT_TRUE(InitLogging("info", LogFormat::kJson).ok());
  stop = true;
  writer.join();
  spdlog::warn("last");
  const std::vector<std::string> lines = Lines(testing::internal::GetCapturedStderr());
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(MessageOf(lines.back()), "last");
}

}  // namespace
}  // namespace rdmastack
