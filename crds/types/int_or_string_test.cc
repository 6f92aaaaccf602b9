#include "crds/types/int_or_string.h"

#include <gtest/gtest.h>

namespace rdmastack::crd {
namespace {

TEST(IntOrStringTest, CountsPassThrough) {
  EXPECT_EQ(*ScaledValueFromIntOrPercent(IntOrString::Int(3), 10, true), 3);
}

TEST(IntOrStringTest, PercentagesRoundAsAsked) {
  EXPECT_EQ(*ScaledValueFromIntOrPercent(IntOrString::Str("25%"), 10, true), 3);
  EXPECT_EQ(*ScaledValueFromIntOrPercent(IntOrString::Str("25%"), 10, false), 2);
  EXPECT_EQ(*ScaledValueFromIntOrPercent(IntOrString::Str("100%"), 7, false), 7);
  EXPECT_EQ(*ScaledValueFromIntOrPercent(IntOrString::Str("0%"), 7, true), 0);
  EXPECT_EQ(*ScaledValueFromIntOrPercent(IntOrString::Str("10%"), 0, true), 0);
}

TEST(IntOrStringTest, RejectsWhatIsNotAPercentage) {
  for (const char* bad : {"25", "%", "x%", "-5%", "101%", "2.5%", "25 %"}) {
    EXPECT_FALSE(ScaledValueFromIntOrPercent(IntOrString::Str(bad), 10, true).ok()) << bad;
  }
  EXPECT_FALSE(ScaledValueFromIntOrPercent(IntOrString::Str("50%"), -1, true).ok());
}

TEST(IntOrStringTest, BytesFromIntOrQuantity) {
  EXPECT_EQ(*BytesFromIntOrQuantity(IntOrString::Int(4096)), 4096);
  EXPECT_EQ(*BytesFromIntOrQuantity(IntOrString::Str("192Mi")), 192LL << 20);
  EXPECT_FALSE(BytesFromIntOrQuantity(IntOrString::Str("lots")).ok());
}

TEST(IntOrStringTest, ToStringShowsTheValueAsWritten) {
  EXPECT_EQ(IntOrString::Int(1).ToString(), "1");
  EXPECT_EQ(IntOrString::Str("25%").ToString(), "25%");
  EXPECT_EQ(IntOrString::Int(1).str_value(), "");
}

}  // namespace
}  // namespace rdmastack::crd
