#include "base/json_parse.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace rdmastack {
namespace {

std::string Write(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  EXPECT_TRUE(v.Accept(writer));
  return buffer.GetString();
}

double ParseDouble(const std::string& text) {
  rapidjson::Document doc;
  EXPECT_TRUE(ParseJsonDocument(doc, text).ok()) << text;
  return doc.IsNumber() ? doc.GetDouble() : std::nan("");
}

uint64_t Bits(double d) {
  uint64_t b = 0;
  std::memcpy(&b, &d, sizeof(b));
  return b;
}

// The number the bucket-policy fuzzer found: RapidJSON's default parse rounds it one ulp off, so
// each parse -> write -> parse moved it further.
constexpr const char* kDrifting = "-664444444444444444444444444444444444444444444444446666666660";

TEST(JsonParse, ParseWriteParseChangesNothing) {
  rapidjson::Document first;
  ASSERT_TRUE(ParseJsonDocument(first, std::string("{\"V\":") + kDrifting + "}").ok());
  const std::string written = Write(first);
  rapidjson::Document second;
  ASSERT_TRUE(ParseJsonDocument(second, written).ok());
  EXPECT_EQ(Write(second), written);
  EXPECT_EQ(Bits(second["V"].GetDouble()), Bits(first["V"].GetDouble()));
}

// Every number is read as the correctly rounded double (glibc's strtod is), so what the writer
// prints (the shortest text that reads back exactly) reads back to the same bits.
TEST(JsonParse, NumbersAreCorrectlyRounded) {
  std::mt19937_64 random(20261207);
  std::uniform_int_distribution<int> digit(0, 9), length(1, 40), exponent(-330, 330);
  for (int i = 0; i < 20000; ++i) {
    std::string text = random() % 2 ? "-" : "";
    text += static_cast<char>('1' + digit(random) % 9);
    for (int n = length(random); n > 0; --n) text += static_cast<char>('0' + digit(random));
    text += "e" + std::to_string(exponent(random));
    const double expected = std::strtod(text.c_str(), nullptr);
    if (std::isinf(expected)) continue;
    const double parsed = ParseDouble(text);
    ASSERT_EQ(Bits(parsed), Bits(expected)) << text;
    rapidjson::Value v(parsed);
    ASSERT_EQ(Bits(ParseDouble(Write(v))), Bits(parsed)) << text;
  }
}

TEST(JsonParse, IntegersKeepRapidJsonsTypes) {
  rapidjson::Document doc;
  ASSERT_TRUE(ParseJsonDocument(doc,
                                "[4294967295,4294967296,-2147483648,-2147483649,-0,"
                                "18446744073709551615,18446744073709551616,"
                                "-9223372036854775808,-9223372036854775809]")
                  .ok());
  EXPECT_TRUE(doc[0].IsUint() && !doc[0].IsInt());
  EXPECT_TRUE(doc[1].IsUint64() && !doc[1].IsUint());
  EXPECT_TRUE(doc[2].IsInt());
  EXPECT_TRUE(doc[3].IsInt64() && !doc[3].IsInt());
  EXPECT_TRUE(doc[4].IsInt() && doc[4].GetInt() == 0);
  EXPECT_EQ(doc[5].GetUint64(), 18446744073709551615u);
  EXPECT_TRUE(doc[6].IsDouble());
  EXPECT_EQ(doc[7].GetInt64(), INT64_MIN);
  EXPECT_TRUE(doc[8].IsDouble());
  EXPECT_EQ(Write(doc),
            "[4294967295,4294967296,-2147483648,-2147483649,0,18446744073709551615,"
            "18446744073709553000.0,-9223372036854775808,-9223372036854776000.0]");
}

// RapidJSON's full-precision parse has undefined behaviour on these; they are all zero. (An
// exponent beyond what its reader scans, such as 0e400, its reader refuses as too big.)
TEST(JsonParse, ZeroSignificandWithAnyExponentIsZero) {
  for (const char* text : {"0e62", "0e000000000100", "0.000e300", "-0e300"}) {
    const double d = ParseDouble(text);
    EXPECT_EQ(d, 0.0) << text;
  }
  EXPECT_TRUE(std::signbit(ParseDouble("-0.0e300")));
}

TEST(JsonParse, BelowTheSmallestDoubleIsZero) {
  EXPECT_EQ(ParseDouble("1e-400"), 0.0);
  EXPECT_EQ(ParseDouble("0." + std::string(400, '0') + "1"), 0.0);
  EXPECT_TRUE(std::signbit(ParseDouble("-1e-99999999999999999999")));
  EXPECT_EQ(ParseDouble("4.9406564584124654e-324"), 4.9406564584124654e-324);  // subnormal
}

// RapidJSON reads 1.8e308 as infinity, which its writer cannot print: an object holding it
// serialised to nothing. Beyond a double's range is a parse error that says where.
TEST(JsonParse, BeyondTheLargestDoubleIsAnErrorAtTheNumber) {
  for (const std::string& number :
       {std::string("1e400"), std::string("-1.8e308"), "1" + std::string(400, '0'),
        "1" + std::string(400, '0') + "e-50", std::string("1e99999999999999999999")}) {
    rapidjson::Document doc;
    Status s = ParseJsonDocument(doc, "{\"a\": " + number + "}");
    EXPECT_FALSE(s.ok()) << number;
    EXPECT_EQ(s.message(), "invalid JSON at byte 6: Number too big to be stored in double.")
        << number;
  }
  EXPECT_EQ(ParseDouble("1.7976931348623157e308"), 1.7976931348623157e308);
  EXPECT_EQ(ParseDouble("1" + std::string(300, '0') + "e-50"), 1e250);
}

TEST(JsonParse, InSituNumbersBeforeCommasAndBrackets) {
  std::string text = "{\"a\":[1.5,2,-3e2,0.1],\"b\":7}";
  rapidjson::Document doc;
  rapidjson::InsituStringStream stream(text.data());
  ASSERT_TRUE(ParseJsonInto<rapidjson::kParseInsituFlag>(doc, stream).ok());
  EXPECT_EQ(Write(doc), "{\"a\":[1.5,2,-300.0,0.1],\"b\":7}");
}

TEST(JsonParse, NestingBeyondTheLimitIsRefused) {
  rapidjson::Document doc;
  EXPECT_TRUE(
      ParseJsonDocument(doc, std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'))
          .ok());
  Status s = ParseJsonDocument(
      doc, std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']'));
  EXPECT_EQ(s.message(), "JSON nested deeper than 512 levels");
}

TEST(JsonParse, ErrorsSayWhere) {
  rapidjson::Document doc;
  EXPECT_EQ(ParseJsonDocument(doc, "{\"a\": tru}").message(),
            "invalid JSON at byte 9: Invalid value.");
  EXPECT_EQ(ParseJsonDocument(doc, "{} x").message(),
            "invalid JSON at byte 3: The document root must not be followed by other values.");
}

}  // namespace
}  // namespace rdmastack
