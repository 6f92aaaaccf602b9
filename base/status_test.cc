#include "base/status.h"

#include <gtest/gtest.h>

namespace rdmastack {
namespace {

StatusOr<int> ParsePositive(int v) {
  if (v <= 0) return InvalidArgumentError("must be positive, got " + std::to_string(v));
  return v;
}

Status Twice(int v, int* out) {
  RDMASTACK_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  *out = 2 * x;
  return OkStatus();
}

TEST(StatusTest, OkAndErrorStrings) {
  EXPECT_EQ(OkStatus().ToString(), "OK");
  EXPECT_EQ(NotFoundError("gone").ToString(), "NotFound: gone");
  EXPECT_EQ(NotFoundError("gone").WithContext("get node a").message(), "get node a: gone");
  EXPECT_EQ(NotFoundError("gone").WithContext("x").code(), StatusCode::kNotFound);
}

TEST(StatusTest, AssignOrReturnPropagates) {
  int out = 0;
  EXPECT_TRUE(Twice(4, &out).ok());
  EXPECT_EQ(out, 8);
  Status s = Twice(-1, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "must be positive, got -1");
  EXPECT_EQ(out, 8);
}

TEST(StatusOrDeathTest, ReadingTheValueOfAnErrorAbortsWithTheStatus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  StatusOr<int> error = ParsePositive(-2);
  EXPECT_DEATH((void)error.value(),
               "value\\(\\) of an error: InvalidArgument: must be positive, got -2");
  EXPECT_DEATH((void)*error, "must be positive");
  StatusOr<std::string> text = NotFoundError("gone");
  EXPECT_DEATH((void)text->size(), "NotFound: gone");
  EXPECT_EQ(*ParsePositive(5), 5);
}

TEST(StatusTest, ValueOr) {
  EXPECT_EQ(ParsePositive(3).value_or(7), 3);
  EXPECT_EQ(ParsePositive(0).value_or(7), 7);
}

}  // namespace
}  // namespace rdmastack
