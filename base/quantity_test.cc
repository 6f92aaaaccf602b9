#include "base/quantity.h"

#include <gtest/gtest.h>

namespace rdmastack {
namespace {

struct QuantityCase {
  const char* text;
  int64_t want;
};

void PrintTo(const QuantityCase& c, std::ostream* os) {
  *os << c.text;
}

class QuantityValueTest : public ::testing::TestWithParam<QuantityCase> {};

TEST_P(QuantityValueTest, ParsesToRoundedUpInteger) {
  StatusOr<int64_t> got = ParseQuantity(GetParam().text);
  ASSERT_TRUE(got.ok()) << GetParam().text << ": " << got.status().ToString();
  EXPECT_EQ(*got, GetParam().want) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityValueTest,
    ::testing::Values(
        QuantityCase{"0", 0}, QuantityCase{"1", 1}, QuantityCase{"192Mi", 192LL << 20},
        QuantityCase{"224Mi", 224LL << 20}, QuantityCase{"4Gi", 4LL << 30},
        QuantityCase{"1Ki", 1024}, QuantityCase{"1Ti", 1LL << 40}, QuantityCase{"1Pi", 1LL << 50},
        QuantityCase{"7Ei", 7LL << 60}, QuantityCase{"1k", 1000}, QuantityCase{"64M", 64'000'000},
        QuantityCase{"2G", 2'000'000'000}, QuantityCase{"3T", 3'000'000'000'000},
        QuantityCase{"1P", 1'000'000'000'000'000}, QuantityCase{"2E", 2'000'000'000'000'000'000},
        QuantityCase{"1.5Gi", 3LL << 29}, QuantityCase{"0.5Ki", 512}, QuantityCase{".5Ki", 512},
        QuantityCase{"1.Ki", 1024}, QuantityCase{"1.5", 2},  // rounds up, like Quantity.Value()
        QuantityCase{"100m", 1}, QuantityCase{"1500m", 2}, QuantityCase{"2000m", 2},
        QuantityCase{"5u", 1}, QuantityCase{"3n", 1}, QuantityCase{"0m", 0},
        QuantityCase{"1e3", 1000}, QuantityCase{"1E3", 1000}, QuantityCase{"12e-1", 2},
        QuantityCase{"+5", 5}, QuantityCase{"-5", -5}, QuantityCase{"-1.5", -2},
        QuantityCase{"0001.2500Ki", 1280},
        QuantityCase{"0.000000000000000000000000000000000000000001", 1},
        QuantityCase{"9223372036854775807", 9223372036854775807LL}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

class QuantityErrorTest : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantityErrorTest, RejectsWithMessageNamingInput) {
  StatusOr<int64_t> got = ParseQuantity(GetParam());
  ASSERT_FALSE(got.ok()) << GetParam() << " parsed as " << *got;
  EXPECT_NE(got.status().message().find(std::string("\"") + GetParam() + "\""), std::string::npos)
      << got.status().message();
}

INSTANTIATE_TEST_SUITE_P(Table, QuantityErrorTest,
                         ::testing::Values("", "Mi", "abc", "1.2.3", "1 Mi", " 1", "1Mi ", "1mi",
                                           "1KiB", "1e", "1e+", "1ex", "--1", "1.5.Gi", ".",
                                           "9223372036854775808", "8Ei", "100000000000000000000",
                                           "10000000000000000000000Ki", "1e19", "1e99999999999"),
                         [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(QuantityTest, OverflowIsOutOfRange) {
  EXPECT_EQ(ParseQuantity("8Ei").status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ParseQuantity("1.5x").status().code(), StatusCode::kInvalidArgument);
}

TEST(QuantityTest, UnknownSuffixMessageListsTheValidOnes) {
  Status s = ParseQuantity("192MB").status();
  EXPECT_NE(s.message().find("unknown suffix \"MB\""), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Ki Mi Gi"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace rdmastack
