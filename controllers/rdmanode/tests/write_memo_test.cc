#include "controllers/common/write_memo.h"

#include <gtest/gtest.h>

namespace rdmastack::controllers {
namespace {

TEST(WriteMemoTest, OlderOnlyForPlainNumbers) {
  EXPECT_TRUE(OlderResourceVersion("99", "100"));
  EXPECT_FALSE(OlderResourceVersion("100", "100"));
  EXPECT_FALSE(OlderResourceVersion("101", "100"));
  // Opaque or missing versions never count as older: the caller writes.
  EXPECT_FALSE(OlderResourceVersion("", "100"));
  EXPECT_FALSE(OlderResourceVersion("9a", "100"));
  EXPECT_FALSE(OlderResourceVersion("99", "x"));
}

// A reconcile that runs before the informer has delivered this process's write skips the same
// write, but not a different one, and not once the cache has caught up (or moved past it).
TEST(WriteMemoTest, PendingOnlyForTheSameContentWhileTheCacheLags) {
  WriteMemo<std::string> memo;
  EXPECT_FALSE(memo.Pending("n", "a", "5"));
  memo.Remember("n", "a", "10");
  EXPECT_TRUE(memo.Pending("n", "a", "9"));
  EXPECT_FALSE(memo.Pending("n", "b", "9"));
  EXPECT_FALSE(memo.Pending("n", "a", "10"));
  EXPECT_FALSE(memo.Pending("n", "a", "11"));
  EXPECT_FALSE(memo.Pending("other", "a", "9"));
  memo.Forget("n");
  EXPECT_FALSE(memo.Pending("n", "a", "9"));
}

// What was written and the cache has not delivered yet is the state to go on from.
TEST(WriteMemoTest, UnseenOnlyWhileTheCacheLags) {
  WriteMemo<std::string> memo;
  EXPECT_EQ(memo.Unseen("n", "5"), std::nullopt);
  memo.Remember("n", "a", "10");
  EXPECT_EQ(memo.Unseen("n", "9"), "a");
  EXPECT_EQ(memo.Unseen("n", ""), std::nullopt);  // no cached object: nothing to compare
  EXPECT_EQ(memo.Unseen("n", "10"), std::nullopt);
  EXPECT_EQ(memo.Unseen("n", "11"), std::nullopt);
  EXPECT_EQ(memo.Unseen("other", "9"), std::nullopt);
}

}  // namespace
}  // namespace rdmastack::controllers
